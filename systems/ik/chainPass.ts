/**
 * Chain passes: how the closed-form and particle solvers (twoBone, triangle, bezier,
 * massSpring) write a chain they solved into the rig. A solver marks bones by depth-first
 * index (aim a local vector along a world direction, set a world rotation, or keep the world
 * rotation), optionally with a twist that turns a child's hinge axis onto the bend normal;
 * `endPass` then places the marked bones root first, each clamped to its joint's limits before
 * its children are placed, while every other bone keeps its rotation relative to its parent.
 * Also the small rotation helpers those writes need: the rest frame carried by the parent, a
 * safe write of a world rotation (a floating root's centre follows), aiming a bone, the
 * rotation between two frames, and a joint's hinge axis read from its limits.
 * Hot paths take vectors and scalars in typed arrays (V8 boxes floating-point arguments).
 */
import type { PhysikWorld, RigRecord } from '../../src/world/world';
import { quatArc, quatMul, quatMulConjA, quatRotate, quatRotateArr } from '../../src/math/quat';
import { clampToLimits, refreshPose } from './common';

const EPS = 1e-12;
const hq = new Float64Array(16); // helper scratch (quats)
const hv = new Float64Array(6); // helper scratch (vectors)

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
 * A root-first pass that writes a chain solve into the rig. Before: `beginPass` saves every
 * bone's rotation relative to its parent and clears the marks. The solver marks bones by
 * depth-first index: AIM (aim local vector vec[3i..] along world direction dir[3i..], shortest
 * arc from the carried rest frame), SET (world rotation quat[4i..]), KEEP (keep the world
 * rotation: a user-rotated bone, clamped only if it leaves its limits). `endPass` then visits the bones root first: marked bones are
 * placed and clamped to their limits (`clampToLimits`) before their children; every other
 * bone keeps its rotation relative to its parent (subtrees follow the chain, so off-chain
 * limits stay as they were). Returns false if a result was not finite (that bone is carried).
 */
export const AIM = 1, SET = 2, KEEP = 3;
export interface ChainPass {
  locals: Float64Array; mark: Uint8Array; vec: Float64Array; dir: Float64Array; quat: Float64Array;
  /** Optional twist of an AIM bone: its local axis tLocal goes (made ⟂ to the aim) to world axis tWorld. */
  twist: Uint8Array; tLocal: Float64Array; tWorld: Float64Array;
  /** Set by endPass when a KEEP bone's rotation left its joint's limits and was clamped. */
  keptClamped: boolean;
  /** Set by endPass when a placed bone left its joint's limits and was clamped. */
  clamped: boolean;
}
const passes = new WeakMap<RigRecord, ChainPass>();

export function beginPass(world: PhysikWorld, rig: RigRecord): ChainPass {
  const n = rig.bones.length;
  let pass = passes.get(rig);
  if (!pass || pass.mark.length !== n) {
    pass = {
      locals: new Float64Array(4 * n), mark: new Uint8Array(n), vec: new Float64Array(3 * n), dir: new Float64Array(3 * n), quat: new Float64Array(4 * n),
      twist: new Uint8Array(n), tLocal: new Float64Array(3 * n), tWorld: new Float64Array(3 * n), keptClamped: false, clamped: false,
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
  pass.keptClamped = false;
  pass.clamped = false;
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
    } else if (m === KEEP) {
      // its world rotation kept, unless that leaves its joint's limits
      if (clampToLimits(world, b)) pass.keptClamped = true;
      continue;
    }
    if (!placed) {
      if (p < 0) continue; // an unmarked root keeps its rotation
      quatMul(hq, 12, Bone.rot, p * 4, pass.locals, i * 4);
      writeRotation(world, rig, b, hq, 12);
    } else if (clampToLimits(world, b)) pass.clamped = true;
  }
  refreshPose(world, rig);
  return ok;
}
