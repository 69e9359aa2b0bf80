/**
 * twoBone: analytic two-bone IK (law of cosines), after R. Juckett, "Analytic Two-Bone IK in
 * 2D" (shared/reference/002). Also home of the small chain helpers the other closed-form
 * solvers of this folder share (aiming a bone, writing a rotation safely, goal errors).
 *
 * Pure core:
 * - `twoBoneAngles2D`: the 2D closed form. Bend direction chosen by a flag; returns whether an
 *   exact solution exists; otherwise the closest reach (the cosine is clamped: straight toward
 *   the target when too far, folded when too close). A zero-length bone makes the solvable set
 *   a circle of radius l1 + l2: angle 2 is then 0 and angle 1 points at the target.
 * - `twoBonePositions3D`: the same in the plane through S and the target with a given bend
 *   normal N (the elbow goes to the side ŵ × N, so the bend from bone 1 to bone 2 is a
 *   positive rotation about N).
 *
 * Solver (registered as 'twoBone'): each active goal on bone B poses B's parent P and B (a
 * goal on B uses exactly B and P; the first link is P from its head to B's head, the second
 * B from its head to the goal's attachment point). A goal on the root (no parent) throws an
 * Error naming the rig, the goal and the bone. Goals whose parent is the root are fine: the
 * root turns about its head, which stays where it is (also for a floating root; these solvers
 * never translate a rig). Bones off the chain keep their rotation relative to their parent (they
 * follow it). Several goals sharing bones are solved in control-point order (the last one wins
 * where they overlap).
 *
 * The bend plane (3D):
 * - A pole (an active control point with role 'pole' on B) gives the plane through S, the
 *   target and the pole; the elbow starts on the pole's side. No flip when the target crosses
 *   the pole axis (the line S→pole): the plane normal is compared with last step's normal,
 *   carried along by the change of reach direction; when it reversed (which only happens when
 *   the reach line passes through the pole axis), the side is swapped so the elbow stays where
 *   it was. Moving the pole around the reach line turns the elbow with it.
 * - Without a pole the reference normal is, in order: the middle joint's hinge axis when B's
 *   limits make it a hinge (one of x/z free-ranged, the other locked; P is then also twisted so
 *   that the hinge axis is the plane normal and the clamp keeps the solution); the current bend
 *   (d1 × d2); last step's normal; the rest bend carried by P; the joint frame's z axis signed by
 *   `bendDirection`. The reference is carried by the shortest rotation taking the current reach
 *   direction to the new one (parallel transport), then made perpendicular to the new reach:
 *   continuous for any continuous target path. When the reach reverses exactly, the half turn
 *   is about the reference itself, so the bend keeps its plane and sense (as for a target just
 *   beside the reversed reach in that plane). In 'path-independent' mode the rest pose is the
 *   reference and nothing is kept.
 * - `bendDirection` picks the sign when the normal comes from a default axis (hinge or z);
 *   for a hinge whose range allows only one sign, the range wins.
 *
 * Limits: clamped after placing each bone (P then B, `clampToLimits`), so a limited joint may miss.
 * Shared helpers below (aimBone, the root-first ChainPass, goalLinks with locked joints folded,
 * hinge twist) are used by triangle, bezier and massSpring; they would sit better in common.ts.
 * Hot paths take vectors and scalars in typed arrays (V8 boxes floating-point arguments).
 * Status: converged when every goal is within ikTolerance × rig height, else stalled (no exact
 * solution: out of reach or limited); diverged if a result was not finite (nothing written).
 */
import type { PhysikWorld, RigRecord } from '../../src/world/world';
import { STATUS_CONVERGED, STATUS_DIVERGED, STATUS_STALLED } from '../../components/Rig';
import { quatArc, quatFromAxisAngle, quatMul, quatMulConjA, quatRotate, quatRotateArr } from '../../src/math/quat';
import { clampToLimits, refreshPose, solved } from './common';
import type { SolveResult } from './solver';
import { attachmentPoint } from '../../src/world/attachment';

// ───────────────────────────── shared chain helpers ─────────────────────────────

const EPS = 1e-12;
const hq = new Float64Array(16); // helper scratch (quats)
const hv = new Float64Array(6); // helper scratch (vectors)

/**
 * quatArc, except that when a and b are opposite the half turn is about h[ho..] made
 * perpendicular to a (quatArc's axis if h is along a). quatArc's own axis then depends on
 * which tiny component round-off left in a, and a half turn about an axis in the bend plane
 * reverses the bend normal; about the normal it keeps the bend, as any target a little beside
 * the reversed reach in the bend plane does.
 */
export function quatArcAbout(out: Float64Array, o: number, a: Float64Array, ao: number, b: Float64Array, bo: number, h: Float64Array, ho: number): void {
  const ax = a[ao]!, ay = a[ao + 1]!, az = a[ao + 2]!;
  if (ax * b[bo]! + ay * b[bo + 1]! + az * b[bo + 2]! < -1 + 1e-12) {
    const hx = h[ho]!, hy = h[ho + 1]!, hz = h[ho + 2]!;
    const dh = hx * ax + hy * ay + hz * az;
    const px = hx - dh * ax, py = hy - dh * ay, pz = hz - dh * az;
    const n = Math.sqrt(px * px + py * py + pz * pz);
    if (n > 1e-6 * Math.sqrt(hx * hx + hy * hy + hz * hz)) {
      out[o] = px / n; out[o + 1] = py / n; out[o + 2] = pz / n; out[o + 3] = 0;
      return;
    }
  }
  quatArc(out, o, a, ao, b, bo);
}

/** Rotation R with R·a1 = b1 and R·a2 = b2 (each pair orthonormal) into out[o]. */
export function quatFromFrames(out: Float64Array, o: number, a: Float64Array, ao: number, b: Float64Array, bo: number): void {
  // a = [a1 (3), a2 (3)], b = [b1, b2]; third axes by cross product; M = B Aᵀ
  const a1x = a[ao]!, a1y = a[ao + 1]!, a1z = a[ao + 2]!, a2x = a[ao + 3]!, a2y = a[ao + 4]!, a2z = a[ao + 5]!;
  const b1x = b[bo]!, b1y = b[bo + 1]!, b1z = b[bo + 2]!, b2x = b[bo + 3]!, b2y = b[bo + 4]!, b2z = b[bo + 5]!;
  const a3x = a1y * a2z - a1z * a2y, a3y = a1z * a2x - a1x * a2z, a3z = a1x * a2y - a1y * a2x;
  const b3x = b1y * b2z - b1z * b2y, b3y = b1z * b2x - b1x * b2z, b3z = b1x * b2y - b1y * b2x;
  const m00 = b1x * a1x + b2x * a2x + b3x * a3x, m01 = b1x * a1y + b2x * a2y + b3x * a3y, m02 = b1x * a1z + b2x * a2z + b3x * a3z;
  const m10 = b1y * a1x + b2y * a2x + b3y * a3x, m11 = b1y * a1y + b2y * a2y + b3y * a3y, m12 = b1y * a1z + b2y * a2z + b3y * a3z;
  const m20 = b1z * a1x + b2z * a2x + b3z * a3x, m21 = b1z * a1y + b2z * a2y + b3z * a3y, m22 = b1z * a1z + b2z * a2z + b3z * a3z;
  const tr = m00 + m11 + m22;
  let x: number, y: number, z: number, w: number;
  if (tr > 0) {
    const s = 2 * Math.sqrt(tr + 1);
    w = 0.25 * s; x = (m21 - m12) / s; y = (m02 - m20) / s; z = (m10 - m01) / s;
  } else if (m00 > m11 && m00 > m22) {
    const s = 2 * Math.sqrt(1 + m00 - m11 - m22);
    w = (m21 - m12) / s; x = 0.25 * s; y = (m01 + m10) / s; z = (m02 + m20) / s;
  } else if (m11 > m22) {
    const s = 2 * Math.sqrt(1 + m11 - m00 - m22);
    w = (m02 - m20) / s; x = (m01 + m10) / s; y = 0.25 * s; z = (m12 + m21) / s;
  } else {
    const s = 2 * Math.sqrt(1 + m22 - m00 - m11);
    w = (m10 - m01) / s; x = (m02 + m20) / s; y = (m12 + m21) / s; z = 0.25 * s;
  }
  const n = Math.sqrt(x * x + y * y + z * z + w * w);
  out[o] = x / n; out[o + 1] = y / n; out[o + 2] = z / n; out[o + 3] = w / n;
}

/** The rest frame of bone b carried by its parent's current rotation (restWorld for a root), into out[o]. */
export function carriedRest(world: PhysikWorld, b: number, out: Float64Array, o: number): void {
  const { Bone } = world.physik;
  const p = Bone.parent[b]!;
  if (p < 0) { for (let k = 0; k < 4; k++) out[o + k] = Bone.restWorld[b * 4 + k]!; return; }
  quatMul(out, o, Bone.rot, p * 4, Bone.restLocal, b * 4);
}

/**
 * Write world rotation q[qo] to bone b if it is finite (normalised); a root turns about its
 * head (a floating root's centre follows). Returns false, writing nothing, when not finite.
 */
export function writeRotation(world: PhysikWorld, rig: RigRecord, b: number, q: Float64Array, qo: number): boolean {
  const { Bone, Rig } = world.physik;
  const x = q[qo]!, y = q[qo + 1]!, z = q[qo + 2]!, w = q[qo + 3]!;
  const n = Math.sqrt(x * x + y * y + z * z + w * w);
  if (!(n > 0) || !Number.isFinite(n)) return false;
  const b4 = b * 4;
  Bone.rot[b4] = x / n; Bone.rot[b4 + 1] = y / n; Bone.rot[b4 + 2] = z / n; Bone.rot[b4 + 3] = w / n;
  if (Bone.parent[b]! < 0 && !Rig.pinned[rig.eid]) {
    const b3 = b * 3, h = 0.5 * Bone.length[b]!;
    const qx = Bone.rot[b4]!, qy = Bone.rot[b4 + 1]!, qz = Bone.rot[b4 + 2]!, qw = Bone.rot[b4 + 3]!;
    // R·(0, h, 0)
    Bone.centre[b3] = Bone.head[b3]! + 2 * (qx * qy - qz * qw) * h;
    Bone.centre[b3 + 1] = Bone.head[b3 + 1]! + (1 - 2 * (qx * qx + qz * qz)) * h;
    Bone.centre[b3 + 2] = Bone.head[b3 + 2]! + 2 * (qy * qz + qx * qw) * h;
  }
  return true;
}

/**
 * Aim bone b so that its local vector vec[vo..] points along the world direction dir[dio..]:
 * the shortest arc from its rest frame carried by the parent (no twist relative to the parent
 * beyond what the aim needs). Returns false (nothing written) for a zero vector or a
 * non-finite result.
 */
export function aimBone(world: PhysikWorld, rig: RigRecord, b: number, vec: Float64Array, vo: number, dir: Float64Array, dio: number): boolean {
  const lx = vec[vo]!, ly = vec[vo + 1]!, lz = vec[vo + 2]!, dx = dir[dio]!, dy = dir[dio + 1]!, dz = dir[dio + 2]!;
  const ll = Math.sqrt(lx * lx + ly * ly + lz * lz), dl = Math.sqrt(dx * dx + dy * dy + dz * dz);
  if (!(ll > EPS) || !(dl > EPS) || !Number.isFinite(dl)) return false;
  carriedRest(world, b, hq, 0);
  hv[3] = lx / ll; hv[4] = ly / ll; hv[5] = lz / ll;
  quatRotateArr(hv, 0, hq, 0, hv, 3);
  hv[3] = dx / dl; hv[4] = dy / dl; hv[5] = dz / dl;
  quatArc(hq, 4, hv, 0, hv, 3);
  quatMul(hq, 8, hq, 4, hq, 0);
  return writeRotation(world, rig, b, hq, 8);
}

/** The goal's attachment in bone cp's frame: (offset x, at·L + offset y, offset z), into out[o]. */
export function effectorLocal(world: PhysikWorld, cp: number, out: Float64Array, o: number): void {
  const { Bone, ControlPoint } = world.physik;
  const b = ControlPoint.bone[cp]!, c3 = cp * 3;
  out[o] = ControlPoint.offset[c3]!;
  out[o + 1] = ControlPoint.at[cp]! * Bone.length[b]! + ControlPoint.offset[c3 + 1]!;
  out[o + 2] = ControlPoint.offset[c3 + 2]!;
}


/** Largest distance from an active goal's attachment to its effective target. */
/**
 * The largest distance of an active goal's attachment to its effective target (NaN if
 * non-finite), into maxGoalErrorOut[0]: a returned double would be boxed, an allocation per call.
 */
export const maxGoalErrorOut = new Float64Array(1);
export function maxGoalError(world: PhysikWorld, rig: RigRecord): void {
  const { ControlPoint } = world.physik;
  let worst = 0;
  for (let i = 0; i < rig.controlPoints.length; i++) {
    const cp = rig.controlPoints[i]!;
    if (!ControlPoint.active[cp] || ControlPoint.pole[cp]) continue;
    attachmentPoint(world, cp, hv, 0);
    const c3 = cp * 3;
    const ex = hv[0]! - ControlPoint.effective[c3]!, ey = hv[1]! - ControlPoint.effective[c3 + 1]!, ez = hv[2]! - ControlPoint.effective[c3 + 2]!;
    const e = Math.sqrt(ex * ex + ey * ey + ez * ez);
    if (!(e <= worst)) worst = e; // NaN propagates as "worst"
  }
  maxGoalErrorOut[0] = worst;
}

/** Status of a closed-form solve: converged within tolerance, else stalled; diverged if something was not finite. */
export function closedFormStatus(world: PhysikWorld, rig: RigRecord, failed: boolean): number {
  if (failed) return STATUS_DIVERGED;
  const tol = rig.settings.ikTolerance * world.physik.Rig.height[rig.eid]!;
  maxGoalError(world, rig);
  const e = maxGoalErrorOut[0]!;
  if (!Number.isFinite(e)) return STATUS_DIVERGED;
  return e <= tol ? STATUS_CONVERGED : STATUS_STALLED;
}

/** Name of a control point for messages. */
export function controlPointName(rig: RigRecord, cp: number): string {
  const i = rig.controlPoints.indexOf(cp);
  return i >= 0 ? rig.controlPointNames[i]! : `#${cp}`;
}

/** Name of a bone for messages. */
export function boneName(rig: RigRecord, b: number): string {
  const i = rig.bones.indexOf(b);
  return i >= 0 ? rig.boneNames[i]! : `#${b}`;
}

/**
 * Hinge axis of bone b's joint from its limits: 0 (x) or 2 (z) when that axis has a range and
 * the other of x/z is locked (range 0), else -1. Written to out[0]; out[1] = the sign a bend
 * must have to be inside the range (+1, -1, or 0 when both signs are allowed).
 */
export function hingeOf(world: PhysikWorld, b: number, out: Int8Array): void {
  const { AngularLimit } = world.physik;
  const b3 = b * 3;
  out[0] = -1; out[1] = 0;
  for (let k = 0; k < 2; k++) {
    const a = k === 0 ? 2 : 0, other = 2 - a;
    const ra = AngularLimit.max[b3 + a]! - AngularLimit.min[b3 + a]!;
    const ro = AngularLimit.max[b3 + other]! - AngularLimit.min[b3 + other]!;
    if (AngularLimit.enabled[b3 + a] === 1 && ra > 1e-9 && AngularLimit.enabled[b3 + other] === 1 && ro <= 1e-9) {
      out[0] = a;
      const lo = AngularLimit.min[b3 + a]!, hi = AngularLimit.max[b3 + a]!;
      out[1] = lo >= 0 ? 1 : hi <= 0 ? -1 : 0;
      return;
    }
  }
}

/** Put every bone of the rig at its rest rotation relative to its parent (path-independent mode), and refresh. */
export function restorePose(world: PhysikWorld, rig: RigRecord): void {
  for (let i = 0; i < rig.bones.length; i++) {
    const b = rig.bones[i]!;
    carriedRest(world, b, hq, 12);
    writeRotation(world, rig, b, hq, 12);
  }
  refreshPose(world, rig);
}

/**
 * The links of the chain from the root to a goal: bones whose rotation moves the goal, each
 * with its link vector in its own frame (to the next chain bone's head; the last one to the
 * goal's attachment, or with `toParent` the chain ends at the goal bone's parent and the last
 * link reaches the goal bone's head). Zero-length links are left out (those bones are carried).
 * A bone whose joint is locked on all three axes (min = max) cannot turn relative to its
 * parent: its link is folded into its parent's link (through the locked rotation), or, when
 * nothing above it moves in this chain, it is left out (fixed), so chains start at the first
 * bone that can move. `chain` lists every bone of the chain root first; `index` holds the
 * links' depth-first indices.
 */
export interface GoalLinks { n: number; bones: Int32Array; index: Int32Array; local: Float64Array; length: Float64Array; chain: Int32Array; goalIndex: number }

/** Whether bone b's joint is locked on all three axes. */
export function isLocked(world: PhysikWorld, b: number): boolean {
  const { AngularLimit, Bone } = world.physik;
  if (Bone.parent[b]! < 0) return false;
  for (let a = 0; a < 3; a++) {
    if (!AngularLimit.enabled[b * 3 + a] || AngularLimit.max[b * 3 + a]! - AngularLimit.min[b * 3 + a]! > 1e-9) return false;
  }
  return true;
}

export function goalLinks(world: PhysikWorld, rig: RigRecord, cp: number, toParent: boolean): GoalLinks {
  const { Bone, ControlPoint, AngularLimit } = world.physik;
  const B = ControlPoint.bone[cp]!;
  const chain: number[] = [];
  for (let b = toParent ? Bone.parent[B]! : B; b >= 0; b = Bone.parent[b]!) chain.push(b);
  chain.reverse();
  const bones: number[] = [], local: number[] = [];
  // per chain position: the link it belongs to (-1: not moved by this chain), and its rotation relative to that link's bone
  const foldInto: number[] = [];
  const foldRot: Float64Array[] = [];
  const q = new Float64Array(4), r = new Float64Array(4), vec = new Float64Array(3);
  for (let i = 0; i < chain.length; i++) {
    const b = chain[i]!;
    const next = i + 1 < chain.length ? chain[i + 1]! : toParent ? B : -1;
    if (next >= 0) { vec[0] = Bone.attach[next * 3]!; vec[1] = Bone.attach[next * 3 + 1]!; vec[2] = Bone.attach[next * 3 + 2]!; } else effectorLocal(world, cp, vec, 0);
    const parentPos = i - 1;
    let into = -1;
    let rel = new Float64Array([0, 0, 0, 1]);
    let regular = true;
    if (isLocked(world, b) && parentPos >= 0) {
      regular = false;
      const pb = chain[parentPos]!;
      const k = bones.length > 0 && bones[bones.length - 1] === pb ? bones.length - 1 : -1;
      // locked rotation relative to the parent: restLocal · exp(φ0)
      const b3 = b * 3;
      const px = AngularLimit.min[b3]!, py = AngularLimit.min[b3 + 1]!, pz = AngularLimit.min[b3 + 2]!;
      const ang = Math.sqrt(px * px + py * py + pz * pz);
      if (ang > 0) quatFromAxisAngle(q, 0, px / ang, py / ang, pz / ang, ang); else { q[0] = 0; q[1] = 0; q[2] = 0; q[3] = 1; }
      quatMul(q, 0, Bone.restLocal, b * 4, q, 0);
      if (k >= 0) { into = k; rel = Float64Array.from(q); } else if (foldInto[parentPos]! >= 0) {
        into = foldInto[parentPos]!; quatMul(r, 0, foldRot[parentPos]!, 0, q, 0); rel = Float64Array.from(r);
      } else if (bones.length === 0) {
        into = -1; // nothing above moves: fixed
      } else regular = true; // hangs from a free zero-length bone below a link: treat as a link
    }
    foldInto.push(regular ? -1 : into);
    foldRot.push(rel);
    const l = Math.sqrt(vec[0]! ** 2 + vec[1]! ** 2 + vec[2]! ** 2);
    if (!regular) {
      if (into >= 0 && l > EPS) {
        quatRotate(r, 0, rel, 0, vec[0]!, vec[1]!, vec[2]!);
        local[into * 3] += r[0]!; local[into * 3 + 1] += r[1]!; local[into * 3 + 2] += r[2]!;
      }
      continue;
    }
    if (!(l > EPS)) continue;
    bones.push(b); local.push(vec[0]!, vec[1]!, vec[2]!);
  }
  const length = bones.map((_, i) => Math.sqrt(local[i * 3]! ** 2 + local[i * 3 + 1]! ** 2 + local[i * 3 + 2]! ** 2));
  // drop links that folding made zero
  const keep = bones.map((_, i) => length[i]! > EPS);
  const kb = bones.filter((_, i) => keep[i]), kl = local.filter((_, j) => keep[Math.floor(j / 3)]), kL = length.filter((_, i) => keep[i]);
  return {
    n: kb.length, bones: Int32Array.from(kb), index: Int32Array.from(kb, (b) => rig.bones.indexOf(b)),
    local: Float64Array.from(kl), length: Float64Array.from(kL), chain: Int32Array.from(chain), goalIndex: rig.bones.indexOf(B),
  };
}

/** Refresh the goal link (the last one, when the chain ends at the goal's attachment) from the control point. */
export function refreshEffectorLink(world: PhysikWorld, cp: number, links: GoalLinks): void {
  const n = links.n;
  if (n === 0 || links.bones[n - 1] !== world.physik.ControlPoint.bone[cp]) return;
  effectorLocal(world, cp, links.local, (n - 1) * 3);
  const x = links.local[(n - 1) * 3]!, y = links.local[(n - 1) * 3 + 1]!, z = links.local[(n - 1) * 3 + 2]!;
  links.length[n - 1] = Math.sqrt(x * x + y * y + z * z);
}

/**
 * A root-first pass that writes a chain solve into the rig. Before: `beginPass` saves every
 * bone's rotation relative to its parent and clears the marks. The solver marks bones by
 * depth-first index: AIM (aim local vector vec[3i..] along world direction dir[3i..], shortest
 * arc from the carried rest frame), SET (world rotation quat[4i..]), KEEP (keep the world
 * rotation: a user-rotated bone). `endPass` then visits the bones root first: marked bones are
 * placed and clamped to their limits (`clampToLimits`) before their children; every other
 * bone keeps its rotation relative to its parent (subtrees follow the chain, so off-chain
 * limits stay as they were). Returns false if a result was not finite (that bone is carried).
 */
export const AIM = 1, SET = 2, KEEP = 3;
export interface ChainPass {
  locals: Float64Array; mark: Uint8Array; vec: Float64Array; dir: Float64Array; quat: Float64Array;
  /** Optional twist of an AIM bone: its local axis tLocal goes (made ⟂ to the aim) to world axis tWorld. */
  twist: Uint8Array; tLocal: Float64Array; tWorld: Float64Array;
}
const passes = new WeakMap<RigRecord, ChainPass>();

export function beginPass(world: PhysikWorld, rig: RigRecord): ChainPass {
  const n = rig.bones.length;
  let pass = passes.get(rig);
  if (!pass || pass.mark.length !== n) {
    pass = {
      locals: new Float64Array(4 * n), mark: new Uint8Array(n), vec: new Float64Array(3 * n), dir: new Float64Array(3 * n), quat: new Float64Array(4 * n),
      twist: new Uint8Array(n), tLocal: new Float64Array(3 * n), tWorld: new Float64Array(3 * n),
    };
    passes.set(rig, pass);
  }
  const { Bone } = world.physik;
  for (let i = 0; i < n; i++) {
    const b = rig.bones[i]!, p = Bone.parent[b]!;
    if (p < 0) for (let k = 0; k < 4; k++) pass.locals[i * 4 + k] = Bone.rot[b * 4 + k]!;
    else quatMulConjA(pass.locals, i * 4, Bone.rot, p * 4, Bone.rot, b * 4);
  }
  pass.mark.fill(0);
  pass.twist.fill(0);
  return pass;
}

const fa = new Float64Array(6), fb = new Float64Array(6);

/** Frames (a1 = v̂, a2 = t⊥) → (b1 = d̂, b2 = w⊥) into out[o]; false when degenerate. */
function twistFrame(out: Float64Array, o: number, pass: ChainPass, i: number): boolean {
  const i3 = i * 3;
  const vl = Math.sqrt(pass.vec[i3]! ** 2 + pass.vec[i3 + 1]! ** 2 + pass.vec[i3 + 2]! ** 2);
  const dl = Math.sqrt(pass.dir[i3]! ** 2 + pass.dir[i3 + 1]! ** 2 + pass.dir[i3 + 2]! ** 2);
  if (!(vl > EPS && dl > EPS)) return false;
  for (let k = 0; k < 3; k++) { fa[k] = pass.vec[i3 + k]! / vl; fb[k] = pass.dir[i3 + k]! / dl; }
  const ta = pass.tLocal[i3]! * fa[0]! + pass.tLocal[i3 + 1]! * fa[1]! + pass.tLocal[i3 + 2]! * fa[2]!;
  const tb = pass.tWorld[i3]! * fb[0]! + pass.tWorld[i3 + 1]! * fb[1]! + pass.tWorld[i3 + 2]! * fb[2]!;
  let al = 0, bl = 0;
  for (let k = 0; k < 3; k++) {
    fa[3 + k] = pass.tLocal[i3 + k]! - ta * fa[k]!; al += fa[3 + k]! ** 2;
    fb[3 + k] = pass.tWorld[i3 + k]! - tb * fb[k]!; bl += fb[3 + k]! ** 2;
  }
  al = Math.sqrt(al); bl = Math.sqrt(bl);
  if (!(al > 1e-6 && bl > 1e-6)) return false;
  for (let k = 3; k < 6; k++) { fa[k] = fa[k]! / al; fb[k] = fb[k]! / bl; }
  quatFromFrames(out, o, fa, 0, fb, 0);
  return true;
}

const hinge2 = new Int8Array(2);

/**
 * If `child`'s joint is a hinge (see `hingeOf`), ask the pass to twist its parent (depth-first
 * index pi, an AIM bone) so that the hinge axis becomes ±n[no..], the bend normal there:
 * the sign the hinge range allows, or (both allowed) the one nearest the current hinge axis.
 */
export function hingeTwist(world: PhysikWorld, pass: ChainPass, pi: number, child: number, n: Float64Array, no: number): void {
  const nx = n[no]!, ny = n[no + 1]!, nz = n[no + 2]!;
  hingeOf(world, child, hinge2);
  const axis = hinge2[0]!;
  if (axis < 0) return;
  const { Bone } = world.physik;
  quatRotate(hv, 0, Bone.restLocal, child * 4, axis === 0 ? 1 : 0, 0, axis === 2 ? 1 : 0);
  let sign = hinge2[1]!;
  if (sign === 0) {
    quatRotateArr(hv, 3, Bone.rot, Bone.parent[child]! * 4, hv, 0);
    sign = hv[3]! * nx + hv[4]! * ny + hv[5]! * nz >= 0 ? 1 : -1;
  }
  const i3 = pi * 3;
  pass.twist[pi] = 1;
  pass.tLocal[i3] = hv[0]!; pass.tLocal[i3 + 1] = hv[1]!; pass.tLocal[i3 + 2] = hv[2]!;
  pass.tWorld[i3] = sign * nx; pass.tWorld[i3 + 1] = sign * ny; pass.tWorld[i3 + 2] = sign * nz;
}

export function endPass(world: PhysikWorld, rig: RigRecord, pass: ChainPass): boolean {
  const { Bone } = world.physik;
  let ok = true;
  for (let i = 0; i < rig.bones.length; i++) {
    const b = rig.bones[i]!, p = Bone.parent[b]!, m = pass.mark[i]!;
    let placed = false;
    if (m === AIM && pass.twist[i] && twistFrame(hq, 12, pass, i)) {
      placed = writeRotation(world, rig, b, hq, 12);
      if (!placed) ok = false;
    } else if (m === AIM) {
      placed = aimBone(world, rig, b, pass.vec, i * 3, pass.dir, i * 3);
      if (!placed) ok = false;
    } else if (m === SET) {
      placed = writeRotation(world, rig, b, pass.quat, i * 4);
      if (!placed) ok = false;
    } else if (m === KEEP) continue;
    if (!placed) {
      if (p < 0) continue; // an unmarked root keeps its rotation
      quatMul(hq, 12, Bone.rot, p * 4, pass.locals, i * 4);
      writeRotation(world, rig, b, hq, 12);
    } else clampToLimits(world, b);
  }
  refreshPose(world, rig);
  return ok;
}

// ───────────────────────────── pure two-bone core ─────────────────────────────

/**
 * Analytic two-bone IK in 2D. Bone 1 from the origin, bone 2 from its tail; out[o] = angle 1
 * (from +x), out[o+1] = angle 2 (relative to bone 1), radians. `positive` selects the solution
 * with angle 2 ≥ 0. Returns true when the end reaches (x, y) exactly; otherwise the angles give
 * the closest reach (straight toward the target when too far, folded when too close).
 * Lengths must be ≥ 0; with a zero-length bone angle 2 is 0 and bone 1 points at the target.
 */
export function twoBoneAngles2D(out: Float64Array, o: number, l1: number, l2: number, x: number, y: number, positive: boolean): boolean {
  in2[0] = l1; in2[1] = l2; in2[2] = x; in2[3] = y; in2[4] = positive ? 1 : 0;
  return angles2D(out, o, in2);
}

const in2 = new Float64Array(5);

/** twoBoneAngles2D with its inputs in inp = [l1, l2, x, y, positive (1/0)]. */
function angles2D(out: Float64Array, o: number, inp: Float64Array): boolean {
  const l1 = inp[0]!, l2 = inp[1]!, x = inp[2]!, y = inp[3]!, positive = inp[4] === 1;
  const d2 = x * x + y * y;
  const sum = l1 + l2;
  let valid = true;
  let c2: number, s2: number;
  const denom = 2 * l1 * l2;
  if (denom > 1e-12 * sum * sum) {
    c2 = (d2 - l1 * l1 - l2 * l2) / denom;
    const slack = 1e-12 * (1 + sum * sum / denom);
    if (c2 < -1 - slack || c2 > 1 + slack) valid = false;
    if (c2 < -1) c2 = -1; else if (c2 > 1) c2 = 1;
    const a2 = positive ? Math.acos(c2) : -Math.acos(c2);
    out[o + 1] = a2;
    s2 = Math.sin(a2);
  } else {
    // a zero-length bone: the reachable set is the circle of radius l1 + l2
    const d = Math.sqrt(d2);
    if (Math.abs(d - sum) > 1e-12 * Math.max(1, sum)) valid = false;
    c2 = 1; s2 = 0;
    out[o + 1] = 0;
  }
  const adj = l1 + l2 * c2, opp = l2 * s2;
  out[o] = Math.atan2(y * adj - x * opp, x * adj + y * opp); // atan2(0, 0) = 0: any angle will do
  return valid;
}

const p2 = new Float64Array(2);

/**
 * The two-bone solve in 3D. Inputs in inp[io..io+13]: S (3), target W (3), bend normal N (3;
 * need not be unit or perpendicular, only its part perpendicular to S→W counts and it must not
 * vanish), F (3, a unit direction used when W = S), l1, l2. Writes the elbow to out[o..o+2]
 * and the reached end to out[o+3..o+5]; returns the validity flag of the 2D solve. The bend
 * from bone 1 to bone 2 is a positive rotation about N.
 */
export function twoBonePositions3D(out: Float64Array, o: number, inp: Float64Array, io: number): boolean {
  const sx = inp[io]!, sy = inp[io + 1]!, sz = inp[io + 2]!;
  const nx = inp[io + 6]!, ny = inp[io + 7]!, nz = inp[io + 8]!;
  const l1 = inp[io + 12]!, l2 = inp[io + 13]!;
  let ux = inp[io + 3]! - sx, uy = inp[io + 4]! - sy, uz = inp[io + 5]! - sz;
  let D = Math.sqrt(ux * ux + uy * uy + uz * uz);
  if (D > EPS) { ux /= D; uy /= D; uz /= D; } else { ux = inp[io + 9]!; uy = inp[io + 10]!; uz = inp[io + 11]!; D = 0; }
  // N ⟂ û, then m̂ = û × N̂ is the elbow's side
  const dn = nx * ux + ny * uy + nz * uz;
  let px = nx - dn * ux, py = ny - dn * uy, pz = nz - dn * uz;
  const pl = Math.sqrt(px * px + py * py + pz * pz);
  px /= pl; py /= pl; pz /= pl;
  const mx = uy * pz - uz * py, my = uz * px - ux * pz, mz = ux * py - uy * px;
  in2[0] = l1; in2[1] = l2; in2[2] = D; in2[3] = 0; in2[4] = 0; // angle 2 < 0: elbow at +m̂
  const valid = angles2D(p2, 0, in2);
  const a1 = p2[0]!, a12 = p2[0]! + p2[1]!;
  const c1 = Math.cos(a1), s1 = Math.sin(a1), c12 = Math.cos(a12), s12 = Math.sin(a12);
  const ex = sx + l1 * (c1 * ux + s1 * mx), ey = sy + l1 * (c1 * uy + s1 * my), ez = sz + l1 * (c1 * uz + s1 * mz);
  out[o] = ex; out[o + 1] = ey; out[o + 2] = ez;
  out[o + 3] = ex + l2 * (c12 * ux + s12 * mx);
  out[o + 4] = ey + l2 * (c12 * uy + s12 * my);
  out[o + 5] = ez + l2 * (c12 * uz + s12 * mz);
  return valid;
}

// ───────────────────────────── the solver ─────────────────────────────

interface TwoBoneState {
  nCp: number;
  version: number;
  lastStep: number;
  /** Per control point index: last step's bend normal (3) and whether it is set; pole side (+1 toward, -1 away). */
  normal: Float64Array;
  hasNormal: Uint8Array;
  poleSide: Int8Array;
  /** Whether the pole decided the plane last step (a newly active pole starts on its own side). */
  poleUsed: Uint8Array;
}

const states = new WeakMap<RigRecord, TwoBoneState>();

function stateOf(world: PhysikWorld, rig: RigRecord): TwoBoneState {
  let s = states.get(rig);
  const step = world.physik.Rig.step[rig.eid]!;
  if (!s || s.version !== rig.controlPointsVersion || s.nCp !== rig.controlPoints.length) {
    const n = rig.controlPoints.length;
    s = { nCp: n, version: rig.controlPointsVersion, lastStep: -1, normal: new Float64Array(n * 3), hasNormal: new Uint8Array(n), poleSide: new Int8Array(n).fill(1), poleUsed: new Uint8Array(n) };
    states.set(rig, s);
  } else if (step <= s.lastStep) {
    // the rig was reset (or solved twice in one step): forget the bend memory
    s.hasNormal.fill(0); s.poleSide.fill(1); s.poleUsed.fill(0);
  }
  s.lastStep = step;
  return s;
}

const sq = new Float64Array(16);
const sv = new Float64Array(24);
const cu = new Float64Array(9); // current reach ĉ, new reach û, −û
const io3 = new Float64Array(14);
const hinge = new Int8Array(2);
/**
 * One goal's numbers between the steps of its solve: S (0..2), target W (3..5), new reach û
 * (6..8), bend normal N (9..11), l1 (12), l2 (13), link 1 in P's frame (14..16), link 2 in
 * B's frame (17..19). The solve is split in three functions (goalFrame, bendNormal,
 * placeGoal) so that V8 optimises each soon: one large function took hundreds of steps to be
 * compiled, and ran unoptimised meanwhile (every floating-point result a new heap number).
 */
const g = new Float64Array(20);

/** The 'twoBone' kinematic solver: one closed-form solve per active goal (see the header). */
export function twoBoneSolve(world: PhysikWorld, rig: RigRecord): SolveResult {
  const { Bone, ControlPoint } = world.physik;
  const state = stateOf(world, rig);
  const independent = rig.settings.ikMode === 'path-independent';
  const bendSign = rig.settings.bendDirection === 'negative' ? -1 : 1;
  let failed = false;
  if (independent) restorePose(world, rig); // restart from the rest pose
  for (let ci = 0; ci < rig.controlPoints.length; ci++) {
    const cp = rig.controlPoints[ci]!;
    if (!ControlPoint.active[cp] || ControlPoint.pole[cp]) continue;
    const B = ControlPoint.bone[cp]!;
    if (Bone.parent[B]! < 0) rootGoal(rig, cp, B);
    if (!goalFrame(world, cp)) { failed = true; continue; }
    // hinge? (then B's hinge range may decide the bend sign)
    hingeOf(world, B, hinge);
    const sigma = hinge[0]! >= 0 && hinge[1] !== 0 ? hinge[1]! : bendSign;
    bendNormal(world, rig, state, ci, B, independent, sigma);
    if (!placeGoal(world, rig, state, ci, B, independent, sigma)) failed = true;
  }
  return solved(1, closedFormStatus(world, rig, failed));
}

/** A goal on the root: the two-bone solver has no chain for it. */
function rootGoal(rig: RigRecord, cp: number, B: number): never {
  throw new Error(
    `twoBone solver, rig "${rig.name}": goal "${controlPointName(rig, cp)}" is on bone "${boneName(rig, B)}", the root, which has no parent; ` +
    `the two-bone solver poses a goal's bone and its parent (a chain of 2 bones). Move the goal to a child bone or use another solver.`,
  );
}

/**
 * Goal cp on bone B (parent P): lengths, S, W, the current reach ĉ and the new reach û into g
 * and cu; d1·l1 and d2·l2 into sv[3..8]; B's joint frame (P · restLocal_B) into sq[0..3].
 * False when the target is not finite.
 */
function goalFrame(world: PhysikWorld, cp: number): boolean {
  const { Bone, ControlPoint } = world.physik;
  const B = ControlPoint.bone[cp]!;
  const P = Bone.parent[B]!;
  const P3 = P * 3, P4 = P * 4, B4 = B * 4, B3 = B * 3;
  // lengths: link 1 from P's head to B's head, link 2 from B's head to the attachment
  const ax = Bone.attach[B3]!, ay = Bone.attach[B3 + 1]!, az = Bone.attach[B3 + 2]!;
  const l1 = Math.sqrt(ax * ax + ay * ay + az * az);
  effectorLocal(world, cp, sv, 0); // e (B frame)
  const lex = sv[0]!, ley = sv[1]!, lez = sv[2]!;
  const l2 = Math.sqrt(lex * lex + ley * ley + lez * lez);
  const sx = Bone.head[P3]!, sy = Bone.head[P3 + 1]!, sz = Bone.head[P3 + 2]!;
  const c3 = cp * 3;
  const wx = ControlPoint.effective[c3]!, wy = ControlPoint.effective[c3 + 1]!, wz = ControlPoint.effective[c3 + 2]!;
  if (!(Number.isFinite(wx) && Number.isFinite(wy) && Number.isFinite(wz))) return false;

  // current directions: d1 (P's link), d2 (B's effector link), reach c (S → current effector)
  quatRotateArr(sv, 3, Bone.rot, P4, Bone.attach, B3); // d1·l1
  quatRotateArr(sv, 6, Bone.rot, B4, sv, 0); // d2·l2
  let cx = sv[3]! + sv[6]!, cy = sv[4]! + sv[7]!, cz = sv[5]! + sv[8]!;
  let cl = Math.sqrt(cx * cx + cy * cy + cz * cz);
  if (!(cl > EPS * (l1 + l2 + 1))) {
    quatRotate(sv, 9, Bone.rot, P4, 0, 1, 0); cx = sv[9]!; cy = sv[10]!; cz = sv[11]!; cl = 1;
  }
  cx /= cl; cy /= cl; cz /= cl;
  // new reach û
  let ux = wx - sx, uy = wy - sy, uz = wz - sz;
  const D = Math.sqrt(ux * ux + uy * uy + uz * uz);
  if (D > EPS) { ux /= D; uy /= D; uz /= D; } else { ux = cx; uy = cy; uz = cz; }
  cu[0] = cx; cu[1] = cy; cu[2] = cz; cu[3] = ux; cu[4] = uy; cu[5] = uz;
  g[0] = sx; g[1] = sy; g[2] = sz; g[3] = wx; g[4] = wy; g[5] = wz; g[6] = ux; g[7] = uy; g[8] = uz;
  g[12] = l1; g[13] = l2; g[14] = ax; g[15] = ay; g[16] = az; g[17] = lex; g[18] = ley; g[19] = lez;
  // joint frame of B (P · restLocal_B) → sq[0..3]
  quatMul(sq, 0, Bone.rot, P4, Bone.restLocal, B4);
  return true;
}

/** The bend normal of goal ci (on bone B) into g[9..11]: the pole's plane, else a reference carried to the new reach (see the header). */
function bendNormal(world: PhysikWorld, rig: RigRecord, state: TwoBoneState, ci: number, B: number, independent: boolean, sigma: number): void {
  const { Bone, ControlPoint } = world.physik;
  const P4 = Bone.parent[B]! * 4;
  const sx = g[0]!, sy = g[1]!, sz = g[2]!, ux = g[6]!, uy = g[7]!, uz = g[8]!, l1 = g[12]!, l2 = g[13]!;
  const hingeAxis = hinge[0]!;
  let nx = 0, ny = 0, nz = 0, found = false;
  // 1. pole
  const pole = poleCp(world, rig, B);
  if (pole >= 0) {
    const p3 = pole * 3;
    const qx = ControlPoint.effective[p3]! - sx, qy = ControlPoint.effective[p3 + 1]! - sy, qz = ControlPoint.effective[p3 + 2]! - sz;
    const ql = Math.sqrt(qx * qx + qy * qy + qz * qz);
    const dq = qx * ux + qy * uy + qz * uz;
    const mx = qx - dq * ux, my = qy - dq * uy, mz = qz - dq * uz;
    const ml = Math.sqrt(mx * mx + my * my + mz * mz);
    if (ml > 1e-6 * ql && Number.isFinite(ml)) {
      // N = m̂ × û (elbow toward the pole), with the kept side
      let side = independent || !state.poleUsed[ci] ? 1 : state.poleSide[ci]!;
      const px = (my * uz - mz * uy) / ml, py = (mz * ux - mx * uz) / ml, pz = (mx * uy - my * ux) / ml;
      if (!independent && state.poleUsed[ci] && state.hasNormal[ci]) {
        // last normal carried by the change of reach direction (a reversed reach turns about it)
        quatArcAbout(sq, 4, cu, 0, cu, 3, state.normal, ci * 3);
        quatRotateArr(sv, 12, sq, 4, state.normal, ci * 3);
        if (side * (px * sv[12]! + py * sv[13]! + pz * sv[14]!) < 0) side = -side;
      }
      state.poleSide[ci] = side;
      nx = side * px; ny = side * py; nz = side * pz;
      found = true;
    }
  }
  state.poleUsed[ci] = found ? 1 : 0;
  if (!found) {
    // 2. reference normal, then carried from the current reach to the new one
    // (path-independent: the pose was just restored to rest, so "current" is the rest pose)
    let rx = 0, ry = 0, rz = 0, ref = false;
    if (hingeAxis >= 0) {
      quatRotate(sv, 12, sq, 0, hingeAxis === 0 ? 1 : 0, 0, hingeAxis === 2 ? 1 : 0);
      rx = sigma * sv[12]!; ry = sigma * sv[13]!; rz = sigma * sv[14]!; ref = true;
    }
    if (!ref) {
      const bx = sv[4]! * sv[8]! - sv[5]! * sv[7]!, by = sv[5]! * sv[6]! - sv[3]! * sv[8]!, bz = sv[3]! * sv[7]! - sv[4]! * sv[6]!;
      const bl = Math.sqrt(bx * bx + by * by + bz * bz);
      if (bl > 1e-9 * (l1 * l2 + EPS)) { rx = bx / bl; ry = by / bl; rz = bz / bl; ref = true; }
    }
    if (!ref && !independent && state.hasNormal[ci]) {
      rx = state.normal[ci * 3]!; ry = state.normal[ci * 3 + 1]!; rz = state.normal[ci * 3 + 2]!; ref = true;
    }
    if (!ref) {
      // rest bend carried by P: P's Y against B's rest effector direction (joint frame · e)
      quatRotate(sv, 12, Bone.rot, P4, 0, 1, 0);
      quatRotateArr(sv, 15, sq, 0, sv, 0);
      const bx = sv[13]! * sv[17]! - sv[14]! * sv[16]!, by = sv[14]! * sv[15]! - sv[12]! * sv[17]!, bz = sv[12]! * sv[16]! - sv[13]! * sv[15]!;
      const bl = Math.sqrt(bx * bx + by * by + bz * bz);
      if (bl > 1e-9 * (l2 + EPS)) { rx = bx / bl; ry = by / bl; rz = bz / bl; ref = true; }
    }
    if (!ref) {
      quatRotate(sv, 12, sq, 0, 0, 0, 1);
      rx = sigma * sv[12]!; ry = sigma * sv[13]!; rz = sigma * sv[14]!;
    }
    sv[21] = rx; sv[22] = ry; sv[23] = rz;
    quatArcAbout(sq, 4, cu, 0, cu, 3, sv, 21);
    quatRotateArr(sv, 12, sq, 4, sv, 21);
    nx = sv[12]!; ny = sv[13]!; nz = sv[14]!;
    const dn = nx * ux + ny * uy + nz * uz;
    nx -= dn * ux; ny -= dn * uy; nz -= dn * uz;
    if (!(Math.sqrt(nx * nx + ny * ny + nz * nz) > 1e-9)) {
      // reference along the reach (exact reversal): any perpendicular, deterministically
      cu[6] = -ux; cu[7] = -uy; cu[8] = -uz;
      quatArc(sq, 4, cu, 3, cu, 6);
      nx = sq[4]!; ny = sq[5]!; nz = sq[6]!;
    }
  }
  g[9] = nx; g[10] = ny; g[11] = nz;
}

/**
 * Goal ci (on bone B) from g: the elbow and the reached end, the plane normal kept, and the
 * write through a root-first pass. False if something was not finite.
 */
function placeGoal(world: PhysikWorld, rig: RigRecord, state: TwoBoneState, ci: number, B: number, independent: boolean, sigma: number): boolean {
  const { Bone } = world.physik;
  const P = Bone.parent[B]!, B4 = B * 4;
  const sx = g[0]!, sy = g[1]!, sz = g[2]!, ux = g[6]!, uy = g[7]!, uz = g[8]!;
  let nx = g[9]!, ny = g[10]!, nz = g[11]!;
  const l1 = g[12]!, l2 = g[13]!, ax = g[14]!, ay = g[15]!, az = g[16]!;
  const hingeAxis = hinge[0]!;
  // positions
  for (let k = 0; k < 6; k++) io3[k] = g[k]!; // S, W
  io3[6] = nx; io3[7] = ny; io3[8] = nz;
  io3[9] = ux; io3[10] = uy; io3[11] = uz; io3[12] = l1; io3[13] = l2;
  twoBonePositions3D(sv, 12, io3, 0); // closest reach when not exact
  const ex = sv[12]!, ey = sv[13]!, ez = sv[14]!;
  const fx = sv[15]!, fy = sv[16]!, fz = sv[17]!;
  if (!(Number.isFinite(ex + ey + ez + fx + fy + fz))) return false;
  // remember the plane normal actually used (unit, ⟂ reach)
  {
    const dn = nx * ux + ny * uy + nz * uz;
    let px = nx - dn * ux, py = ny - dn * uy, pz = nz - dn * uz;
    const pl = Math.sqrt(px * px + py * py + pz * pz);
    px /= pl; py /= pl; pz /= pl;
    if (!independent && Number.isFinite(pl)) {
      state.normal[ci * 3] = px; state.normal[ci * 3 + 1] = py; state.normal[ci * 3 + 2] = pz; state.hasNormal[ci] = 1;
    }
    nx = px; ny = py; nz = pz;
  }

  // write through a root-first pass: P (aimed, or set with a hinge twist), then B; the rest carried
  const pass = beginPass(world, rig);
  const pi = rig.bones.indexOf(P), bi = rig.bones.indexOf(B);
  const d1x = ex - sx, d1y = ey - sy, d1z = ez - sz;
  const d1l = Math.sqrt(d1x * d1x + d1y * d1y + d1z * d1z);
  if (l1 > EPS && d1l > EPS) {
    pass.mark[pi] = AIM;
    pass.vec[pi * 3] = ax; pass.vec[pi * 3 + 1] = ay; pass.vec[pi * 3 + 2] = az;
    pass.dir[pi * 3] = d1x; pass.dir[pi * 3 + 1] = d1y; pass.dir[pi * 3 + 2] = d1z;
    if (hingeAxis >= 0) {
      // twist P so that B's hinge axis is the plane normal: a = restLocal_B · hinge (P frame),
      // made ⟂ to P's link direction, goes to h_t = sigma·N̂ (a positive hinge bend for sigma = +1)
      quatRotate(sv, 18, Bone.restLocal, B4, hingeAxis === 0 ? 1 : 0, 0, hingeAxis === 2 ? 1 : 0);
      const lx = ax / l1, ly = ay / l1, lz = az / l1;
      const da = sv[18]! * lx + sv[19]! * ly + sv[20]! * lz;
      let hx = sv[18]! - da * lx, hy = sv[19]! - da * ly, hz = sv[20]! - da * lz;
      const hl = Math.sqrt(hx * hx + hy * hy + hz * hz);
      const wx1 = d1x / d1l, wy1 = d1y / d1l, wz1 = d1z / d1l;
      const dn = nx * wx1 + ny * wy1 + nz * wz1; // ~0: N ⟂ the plane of d1
      let tx = sigma * (nx - dn * wx1), ty = sigma * (ny - dn * wy1), tz = sigma * (nz - dn * wz1);
      const tl = Math.sqrt(tx * tx + ty * ty + tz * tz);
      if (hl > 1e-6 && tl > 1e-9) {
        hx /= hl; hy /= hl; hz /= hl; tx /= tl; ty /= tl; tz /= tl;
        frameA[0] = lx; frameA[1] = ly; frameA[2] = lz; frameA[3] = hx; frameA[4] = hy; frameA[5] = hz;
        frameB[0] = wx1; frameB[1] = wy1; frameB[2] = wz1; frameB[3] = tx; frameB[4] = ty; frameB[5] = tz;
        quatFromFrames(pass.quat, pi * 4, frameA, 0, frameB, 0);
        pass.mark[pi] = SET;
      }
    }
  }
  if (l2 > EPS) {
    pass.mark[bi] = AIM;
    pass.vec[bi * 3] = g[17]!; pass.vec[bi * 3 + 1] = g[18]!; pass.vec[bi * 3 + 2] = g[19]!;
    pass.dir[bi * 3] = fx - ex; pass.dir[bi * 3 + 1] = fy - ey; pass.dir[bi * 3 + 2] = fz - ez;
  }
  return endPass(world, rig, pass);
}

const frameA = new Float64Array(6);
const frameB = new Float64Array(6);

/** The active pole control point on bone b, or -1 (as common's poleOf, without a second lookup). */
function poleCp(world: PhysikWorld, rig: RigRecord, b: number): number {
  const { ControlPoint } = world.physik;
  for (let i = 0; i < rig.controlPoints.length; i++) {
    const cp = rig.controlPoints[i]!;
    if (ControlPoint.active[cp] && ControlPoint.pole[cp] && ControlPoint.bone[cp] === b) return cp;
  }
  return -1;
}
