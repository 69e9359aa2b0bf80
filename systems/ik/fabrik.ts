/**
 * FABRIK (forward and backward reaching inverse kinematics) on a bone tree, as a kinematic
 * solver. Reference: the IK guide (SpehleonLP, "Inverse Kinematics Guide", Fabrik Solver,
 * shared/reference/001_b2883e4615f574de.txt): backward pass from the effectors toward the
 * root on joint positions, forward pass from the fixed base, rotations recovered from the
 * initial (rest) transform so errors do not accumulate; DFS order throughout.
 *
 * What it does, per step:
 * - Goals are the active non-pole control points. A goal's point lies on its bone's axis at
 *   u = (at·length + offset.y)/length (u = 1 is the tail); the offset's x/z part is taken
 *   off the target using the bone's rotation at the start of the iteration. A goal at the
 *   bone's head (u = 0) is a goal on the parent at the point where the bone attaches.
 * - Backward pass, children before parents: every bone on a goal's chain is fitted to its
 *   requests (goal points, and the backward heads of its chain children at their attach
 *   fractions). Requests at one fraction are averaged and reached the usual FABRIK way (the
 *   point goes to the average, the head follows from where it was): this is the guide's
 *   sub-base averaging where chains meet. Requests at different fractions along one bone
 *   (e.g. legs at the hips' head, spine at its tail) get a least-squares line fit.
 * - Forward pass, root first: the root's head stays where it is (at Rig.pin when pinned; a
 *   floating root also stays where it is: FABRIK's base is fixed, so this solver never
 *   translates a rig), each head follows from its parent's final rotation, and the bone
 *   aims at its requests. Its world rotation is the shortest arc from its rest direction
 *   (the rest frame carried by the parent, parentWorld · restLocal) to the new direction,
 *   times that frame: recomputed from rest every time, never accumulated (twist stays as at
 *   rest). Then the pole step (below) and the joint limits (clampToLimits, per axis of the
 *   joint frame) apply before any child is placed, so every limit holds at the end.
 * - Bones on no goal's chain (and bones whose direction no goal determines) keep their
 *   rotation relative to their parent.
 * - Pole: a pole control point on bone B concerns the joint J at B's head. The chain through
 *   J runs from its base (the head of the first bone above J that is the root or hangs from
 *   a sub-base: a bone with a goal or with two chain children) to its effector (the first
 *   goal in B's subtree). When J is off the base–effector line, the chain's backward
 *   positions are turned about that line so J lies in the plane of base, effector and pole,
 *   on the pole's side, before the section is placed. A straight chain has no bend to turn.
 * - One goal beyond reach: the chain points straight at it (then limits), status stalled.
 * - Modes: 'path-dependent' starts from the current pose and runs at most ikIterations;
 *   'path-independent' resets every rotation to rest first and iterates to tolerance
 *   (ikTolerance × Rig.height) or ikIterations. The best iteration of the step is kept.
 *   With an active pole at least one iteration runs (so moving the pole turns the bend).
 *   Status: converged within tolerance, stalled otherwise, diverged when a target or a
 *   result is not finite (then the rig is restored as it was: nothing non-finite is written).
 *
 * Limits: FABRIK has no notion of roll, so twist is never solved for; limits are enforced by
 * clamping after placement, so a limited chain reaches as close as the clamped iterations
 * get, not to a constrained optimum; several goals on one tree compromise (averaging) when
 * they cannot all be reached; a chain lying exactly on the line to its target (straight rest
 * pose, target straight ahead and closer) cannot bend (the guide's colinear degenerate case).
 */
import type { PhysikWorld, RigRecord } from '../../src/world/world';
import { STATUS_CONVERGED, STATUS_DIVERGED, STATUS_STALLED } from '../../components';
import { quatMul, quatMulConjA, quatNormalize } from '../../src/math/quat';
import { copyDoubles } from '../../components/doubles';
import type { SolveResult } from './registry';
import { clampToLimits, refreshPose, solved } from './common';

// ---------- scratch (grown, never shrunk) ----------

let boneCap = 0;
let par = new Int32Array(0); // parent index (depth-first index), -1 for the root
let frac = new Float64Array(0); // attach point along the parent, as a fraction of its length
let len = new Float64Array(0);
let hp = new Float64Array(0); // head positions (3 per bone)
let bh = new Float64Array(0); // backward-pass head positions
let accN = new Float64Array(0); // requests: count, Σu, Σu², ΣD, Σu·D
let accU = new Float64Array(0);
let accUU = new Float64Array(0);
let accD = new Float64Array(0);
let accUD = new Float64Array(0);
let loc = new Float64Array(0); // rotation relative to the parent at the start of the solve
let backup = new Float64Array(0); // world rotations as they were (restored on divergence)
let best = new Float64Array(0); // world rotations of the best iteration
let onChain = new Uint8Array(0);
let hasGoal = new Uint8Array(0);
let chainKids = new Int32Array(0);
let contrib = new Float64Array(0); // single goal: length each bone adds along a straight chain

let cpCap = 0;
let gCp = new Int32Array(0); // goal control point
let gOwn = new Int32Array(0); // index of the bone it is attached to
let gBone = new Int32Array(0); // index of the bone that reaches for it (-1: unmovable)
let gU = new Float64Array(0); // fraction along gBone
let gD = new Float64Array(0); // point gBone's axis must reach (3 per goal)
let pCp = new Int32Array(0); // pole control point
let pB = new Int32Array(0); // bone index B (the pole's joint is B's head)
let pTop = new Int32Array(0); // first bone of the section (its head is the chain's base)
let pGoal = new Int32Array(0); // goal index of the effector

let idxOf = new Int32Array(0); // depth-first index by bone entity

const base = new Float64Array(3);
const q = new Float64Array(4);
const frame = new Float64Array(4);
const r = new Float64Array(4);
const v = new Float64Array(3);
const rootCentre = new Float64Array(3);
/**
 * Numbers handed to and from helpers V8 does not inline go through these arrays: a
 * floating-point argument or return value would be boxed (an allocation per call).
 * errOut[0]: goalError's result; straightDir: forward's straight-line direction.
 */
const errOut = new Float64Array(1);
const straightDir = new Float64Array(3);

function growBones(n: number): void {
  if (n <= boneCap) return;
  const c = Math.max(n, boneCap * 2, 16);
  boneCap = c;
  par = new Int32Array(c); frac = new Float64Array(c); len = new Float64Array(c);
  hp = new Float64Array(c * 3); bh = new Float64Array(c * 3);
  accN = new Float64Array(c); accU = new Float64Array(c); accUU = new Float64Array(c);
  accD = new Float64Array(c * 3); accUD = new Float64Array(c * 3);
  loc = new Float64Array(c * 4); backup = new Float64Array(c * 4); best = new Float64Array(c * 4);
  onChain = new Uint8Array(c); hasGoal = new Uint8Array(c); chainKids = new Int32Array(c);
  contrib = new Float64Array(c);
}

function growControlPoints(m: number): void {
  if (m <= cpCap) return;
  const c = Math.max(m, cpCap * 2, 8);
  cpCap = c;
  gCp = new Int32Array(c); gOwn = new Int32Array(c); gBone = new Int32Array(c);
  gU = new Float64Array(c); gD = new Float64Array(c * 3);
  pCp = new Int32Array(c); pB = new Int32Array(c); pTop = new Int32Array(c); pGoal = new Int32Array(c);
}

function growIndex(maxEid: number): void {
  if (maxEid < idxOf.length) return;
  idxOf = new Int32Array(Math.max(maxEid + 1, idxOf.length * 2, 64));
}

// ---------- helpers over the scratch ----------

/** Head of bone index i (into hp) from its parent's head and rotation; the base for the root. */
function headOf(world: PhysikWorld, rig: RigRecord, i: number): void {
  const { Bone } = world.physik;
  const p = par[i]!, i3 = i * 3;
  if (p < 0) { hp[i3] = base[0]!; hp[i3 + 1] = base[1]!; hp[i3 + 2] = base[2]!; return; }
  const b = rig.bones[i]!, pq = rig.bones[p]! * 4, p3 = p * 3;
  const x = Bone.rot[pq]!, y = Bone.rot[pq + 1]!, z = Bone.rot[pq + 2]!, w = Bone.rot[pq + 3]!;
  const ox = Bone.attach[b * 3]!, oy = Bone.attach[b * 3 + 1]!, oz = Bone.attach[b * 3 + 2]!;
  hp[i3] = hp[p3]! + (1 - 2 * (y * y + z * z)) * ox + 2 * (x * y - z * w) * oy + 2 * (x * z + y * w) * oz;
  hp[i3 + 1] = hp[p3 + 1]! + 2 * (x * y + z * w) * ox + (1 - 2 * (x * x + z * z)) * oy + 2 * (y * z - x * w) * oz;
  hp[i3 + 2] = hp[p3 + 2]! + 2 * (x * z - y * w) * ox + 2 * (y * z + x * w) * oy + (1 - 2 * (x * x + y * y)) * oz;
}

/** All heads from the rotations in Bone.rot (depth-first). */
function placeAll(world: PhysikWorld, rig: RigRecord): void {
  for (let i = 0; i < rig.bones.length; i++) headOf(world, rig, i);
}

/** Unit axis (+Y) of bone entity b in world, into v. */
function axisOf(world: PhysikWorld, b: number): void {
  const R = world.physik.Bone.rot, o = b * 4;
  const x = R[o]!, y = R[o + 1]!, z = R[o + 2]!, w = R[o + 3]!;
  v[0] = 2 * (x * y - z * w); v[1] = 1 - 2 * (x * x + z * z); v[2] = 2 * (y * z + x * w);
}

/** Goal points: effective target less the offset's x/z part, rotated by the bone's rotation. */
function goalPoints(world: PhysikWorld, rig: RigRecord, m: number): void {
  const { Bone, ControlPoint } = world.physik;
  for (let g = 0; g < m; g++) {
    const cp = gCp[g]!, c3 = cp * 3, g3 = g * 3;
    const o = rig.bones[gOwn[g]!]! * 4;
    const x = Bone.rot[o]!, y = Bone.rot[o + 1]!, z = Bone.rot[o + 2]!, w = Bone.rot[o + 3]!;
    const ox = ControlPoint.offset[c3]!, oz = ControlPoint.offset[c3 + 2]!;
    gD[g3] = ControlPoint.effective[c3]! - ((1 - 2 * (y * y + z * z)) * ox + 2 * (x * z + y * w) * oz);
    gD[g3 + 1] = ControlPoint.effective[c3 + 1]! - (2 * (x * y + z * w) * ox + 2 * (y * z - x * w) * oz);
    gD[g3 + 2] = ControlPoint.effective[c3 + 2]! - (2 * (x * z - y * w) * ox + (1 - 2 * (x * x + y * y)) * oz);
  }
}

/** Largest distance of a goal's attachment point from its effective target. */
/** The largest goal error (NaN propagates) into errOut[0]. */
function goalError(world: PhysikWorld, rig: RigRecord, m: number): void {
  const { Bone, ControlPoint } = world.physik;
  let err = 0;
  for (let g = 0; g < m; g++) {
    const cp = gCp[g]!, c3 = cp * 3, i = gOwn[g]!, b = rig.bones[i]!, o = b * 4, i3 = i * 3;
    const x = Bone.rot[o]!, y = Bone.rot[o + 1]!, z = Bone.rot[o + 2]!, w = Bone.rot[o + 3]!;
    const ox = ControlPoint.offset[c3]!, oy = ControlPoint.at[cp]! * Bone.length[b]! + ControlPoint.offset[c3 + 1]!, oz = ControlPoint.offset[c3 + 2]!;
    const px = hp[i3]! + (1 - 2 * (y * y + z * z)) * ox + 2 * (x * y - z * w) * oy + 2 * (x * z + y * w) * oz;
    const py = hp[i3 + 1]! + 2 * (x * y + z * w) * ox + (1 - 2 * (x * x + z * z)) * oy + 2 * (y * z - x * w) * oz;
    const pz = hp[i3 + 2]! + 2 * (x * z - y * w) * ox + 2 * (y * z + x * w) * oy + (1 - 2 * (x * x + y * y)) * oz;
    const dx = px - ControlPoint.effective[c3]!, dy = py - ControlPoint.effective[c3 + 1]!, dz = pz - ControlPoint.effective[c3 + 2]!;
    const e = Math.sqrt(dx * dx + dy * dy + dz * dz);
    if (!(e <= err)) err = e; // NaN propagates
  }
  errOut[0] = err;
}

function addRequest(i: number, U: Float64Array, uo: number, D: Float64Array, o: number): void {
  const i3 = i * 3, u = U[uo]!;
  accN[i] += 1; accU[i] += u; accUU[i] += u * u;
  accD[i3] += D[o]!; accD[i3 + 1] += D[o + 1]!; accD[i3 + 2] += D[o + 2]!;
  accUD[i3] += u * D[o]!; accUD[i3 + 1] += u * D[o + 1]!; accUD[i3 + 2] += u * D[o + 2]!;
}

/** Backward reaching: effectors toward the root, children before parents. */
function backward(world: PhysikWorld, rig: RigRecord, m: number): void {
  const n = rig.bones.length;
  accN.fill(0, 0, n); accU.fill(0, 0, n); accUU.fill(0, 0, n);
  accD.fill(0, 0, n * 3); accUD.fill(0, 0, n * 3);
  for (let g = 0; g < m; g++) if (gBone[g]! >= 0) addRequest(gBone[g]!, gU, g, gD, g * 3);
  for (let i = n - 1; i >= 0; i--) {
    const cnt = accN[i]!;
    if (cnt === 0) continue;
    const i3 = i * 3, L = len[i]!;
    const ub = accU[i]! / cnt;
    const dx = accD[i3]! / cnt, dy = accD[i3 + 1]! / cnt, dz = accD[i3 + 2]! / cnt;
    const spread = accUU[i]! - cnt * ub * ub; // Σ (u − ū)²
    let hx: number, hy: number, hz: number;
    if (spread > 1e-12) {
      // requests at different fractions: least-squares line, direction Σ (u − ū)(D − D̄)
      let wx = accUD[i3]! - cnt * ub * dx, wy = accUD[i3 + 1]! - cnt * ub * dy, wz = accUD[i3 + 2]! - cnt * ub * dz;
      const wl = Math.sqrt(wx * wx + wy * wy + wz * wz);
      if (wl > 1e-12 * L) { wx /= wl; wy /= wl; wz /= wl; } else { axisOf(world, rig.bones[i]!); wx = v[0]!; wy = v[1]!; wz = v[2]!; }
      hx = dx - ub * L * wx; hy = dy - ub * L * wy; hz = dz - ub * L * wz;
    } else if (Math.abs(ub) * L > 1e-12 * L) {
      // the usual FABRIK step: the point goes to D̄, the head follows from where it was
      let ex = dx - hp[i3]!, ey = dy - hp[i3 + 1]!, ez = dz - hp[i3 + 2]!;
      const el = Math.sqrt(ex * ex + ey * ey + ez * ez);
      if (el > 1e-12 * L) { const s = (ub < 0 ? -1 : 1) / el; ex *= s; ey *= s; ez *= s; } else { axisOf(world, rig.bones[i]!); ex = v[0]!; ey = v[1]!; ez = v[2]!; }
      hx = dx - ub * L * ex; hy = dy - ub * L * ey; hz = dz - ub * L * ez;
    } else {
      hx = dx; hy = dy; hz = dz; // only the head is asked for
    }
    bh[i3] = hx; bh[i3 + 1] = hy; bh[i3 + 2] = hz;
    if (par[i]! >= 0) addRequest(par[i]!, frac, i, bh, i3);
  }
}

/**
 * Pole k: turn the backward positions of its section about the line from the base c
 * (= hp[top]) to the effector, so that the joint (B's backward head) lies in the plane of
 * base, effector and pole, on the pole's side.
 */
function applyPole(world: PhysikWorld, k: number): void {
  const { ControlPoint } = world.physik;
  const top = pTop[k]!, bi = pB[k]!, g = pGoal[k]!;
  const t3 = top * 3, g3 = g * 3, b3 = bi * 3, c3 = pCp[k]! * 3;
  const cx = hp[t3]!, cy = hp[t3 + 1]!, cz = hp[t3 + 2]!;
  let ax = gD[g3]! - cx, ay = gD[g3 + 1]! - cy, az = gD[g3 + 2]! - cz;
  const al = Math.sqrt(ax * ax + ay * ay + az * az);
  const scale = len[bi]! + len[par[bi]!]!;
  if (!(al > 1e-9 * scale)) return;
  ax /= al; ay /= al; az /= al;
  let jx = bh[b3]! - cx, jy = bh[b3 + 1]! - cy, jz = bh[b3 + 2]! - cz;
  let d = jx * ax + jy * ay + jz * az;
  jx -= d * ax; jy -= d * ay; jz -= d * az;
  let px = ControlPoint.effective[c3]! - cx, py = ControlPoint.effective[c3 + 1]! - cy, pz = ControlPoint.effective[c3 + 2]! - cz;
  d = px * ax + py * ay + pz * az;
  px -= d * ax; py -= d * ay; pz -= d * az;
  const jl = Math.sqrt(jx * jx + jy * jy + jz * jz), pl = Math.sqrt(px * px + py * py + pz * pz);
  if (!(jl > 1e-9 * scale) || !(pl > 1e-12 * scale)) return; // no bend, or pole on the line
  const sin = ax * (jy * pz - jz * py) + ay * (jz * px - jx * pz) + az * (jx * py - jy * px);
  const cos = jx * px + jy * py + jz * pz;
  const theta = Math.atan2(sin, cos);
  if (theta === 0) return;
  const s = Math.sin(0.5 * theta);
  r[0] = ax * s; r[1] = ay * s; r[2] = az * s; r[3] = Math.cos(0.5 * theta);
  // the path from the effector's bone up to the section's first bone
  for (let i = gBone[g]!; ; i = par[i]!) {
    const i3 = i * 3, cnt = accN[i]!, su = accU[i]!;
    rotateAbout(accD, i3, cnt, cx, cy, cz);
    rotateAbout(accUD, i3, su, cx, cy, cz);
    rotateAbout(bh, i3, 1, cx, cy, cz);
    if (i === top) break;
  }
}

/** a[o..o+2] ← w·c + R (a − w·c), R = r: a weighted sum of points turned about c. */
function rotateAbout(a: Float64Array, o: number, wgt: number, cx: number, cy: number, cz: number): void {
  const vx = a[o]! - wgt * cx, vy = a[o + 1]! - wgt * cy, vz = a[o + 2]! - wgt * cz;
  const x = r[0]!, y = r[1]!, z = r[2]!, w = r[3]!;
  const tx = 2 * (y * vz - z * vy), ty = 2 * (z * vx - x * vz), tz = 2 * (x * vy - y * vx);
  a[o] = wgt * cx + vx + w * tx + (y * tz - z * ty);
  a[o + 1] = wgt * cy + vy + w * ty + (z * tx - x * tz);
  a[o + 2] = wgt * cz + vz + w * tz + (x * ty - y * tx);
}

/**
 * Forward reaching: root first. Each bone's head follows from its parent; a bone with a
 * direction to aim at gets the shortest arc from its rest direction, others keep their
 * rotation relative to the parent; then the limits. `straight`: one goal beyond reach, the
 * bones that carry it point along (sx, sy, sz). Returns false on a non-finite result.
 */
function forward(world: PhysikWorld, rig: RigRecord, nPoles: number, straight: boolean): boolean {
  const sx = straightDir[0]!, sy = straightDir[1]!, sz = straightDir[2]!;
  const { Bone } = world.physik;
  const R = Bone.rot;
  for (let i = 0; i < rig.bones.length; i++) {
    const b = rig.bones[i]!, p = par[i]!, b4 = b * 4, i3 = i * 3, L = len[i]!;
    headOf(world, rig, i);
    if (!straight) for (let k = 0; k < nPoles; k++) if (pTop[k] === i) applyPole(world, k);
    const hx = hp[i3]!, hy = hp[i3 + 1]!, hz = hp[i3 + 2]!;
    let wx: number, wy: number, wz: number;
    if (straight) {
      if (contrib[i]! > 1e-12 * L) { wx = sx; wy = sy; wz = sz; } else { wx = 0; wy = 0; wz = 0; }
    } else {
      const su = accU[i]!;
      wx = accUD[i3]! - su * hx; wy = accUD[i3 + 1]! - su * hy; wz = accUD[i3 + 2]! - su * hz; // Σ u (D − H)
    }
    const wl = Math.sqrt(wx * wx + wy * wy + wz * wz);
    if (wl > 1e-12 * L) {
      wx /= wl; wy /= wl; wz /= wl;
      // rest frame carried by the parent: parentWorld · restLocal (the root: restWorld)
      if (p >= 0) quatMul(frame, 0, R, rig.bones[p]! * 4, Bone.restLocal, b4);
      else { frame[0] = Bone.restWorld[b4]!; frame[1] = Bone.restWorld[b4 + 1]!; frame[2] = Bone.restWorld[b4 + 2]!; frame[3] = Bone.restWorld[b4 + 3]!; }
      const fx = frame[0]!, fy = frame[1]!, fz = frame[2]!, fw = frame[3]!;
      const rx = 2 * (fx * fy - fz * fw), ry = 1 - 2 * (fx * fx + fz * fz), rz = 2 * (fy * fz + fx * fw); // rest direction
      const dot = rx * wx + ry * wy + rz * wz;
      if (dot < -1 + 1e-12) {
        // half turn about the frame's x axis (perpendicular to the rest direction)
        q[0] = 1 - 2 * (fy * fy + fz * fz); q[1] = 2 * (fx * fy + fz * fw); q[2] = 2 * (fx * fz - fy * fw); q[3] = 0;
      } else {
        q[0] = ry * wz - rz * wy; q[1] = rz * wx - rx * wz; q[2] = rx * wy - ry * wx; q[3] = 1 + dot;
      }
      quatNormalize(q, 0);
      quatMul(q, 0, q, 0, frame, 0);
    } else if (p >= 0) {
      quatMul(q, 0, R, rig.bones[p]! * 4, loc, i * 4);
    } else {
      q[0] = loc[0]!; q[1] = loc[1]!; q[2] = loc[2]!; q[3] = loc[3]!;
    }
    quatNormalize(q, 0);
    if (!Number.isFinite(q[0]! + q[1]! + q[2]! + q[3]!) || !Number.isFinite(hx + hy + hz)) return false;
    R[b4] = q[0]!; R[b4 + 1] = q[1]!; R[b4 + 2] = q[2]!; R[b4 + 3] = q[3]!;
    clampToLimits(world, b);
  }
  return true;
}

function restore(world: PhysikWorld, rig: RigRecord, from: Float64Array): void {
  const R = world.physik.Bone.rot;
  for (let i = 0; i < rig.bones.length; i++) {
    const b4 = rig.bones[i]! * 4, i4 = i * 4;
    R[b4] = from[i4]!; R[b4 + 1] = from[i4 + 1]!; R[b4 + 2] = from[i4 + 2]!; R[b4 + 3] = from[i4 + 3]!;
  }
}

function save(world: PhysikWorld, rig: RigRecord, to: Float64Array): void {
  const R = world.physik.Bone.rot;
  for (let i = 0; i < rig.bones.length; i++) {
    const b4 = rig.bones[i]! * 4, i4 = i * 4;
    to[i4] = R[b4]!; to[i4 + 1] = R[b4 + 1]!; to[i4 + 2] = R[b4 + 2]!; to[i4 + 3] = R[b4 + 3]!;
  }
}

/** The root's centre from its (fixed) head and its rotation, for a floating root's forward kinematics. */
function placeRootCentre(world: PhysikWorld, rig: RigRecord): void {
  const { Bone } = world.physik;
  const root = rig.bones[0]!;
  axisOf(world, root);
  const h = 0.5 * Bone.length[root]!;
  Bone.centre[root * 3] = base[0]! + h * v[0]!;
  Bone.centre[root * 3 + 1] = base[1]! + h * v[1]!;
  Bone.centre[root * 3 + 2] = base[2]! + h * v[2]!;
}

function diverged(world: PhysikWorld, rig: RigRecord, iterations: number): SolveResult {
  const root = rig.bones[0]!;
  restore(world, rig, backup);
  copyDoubles(world.physik.Bone.centre, root * 3, rootCentre);
  refreshPose(world, rig);
  return solved(iterations, STATUS_DIVERGED);
}

export function fabrik(world: PhysikWorld, rig: RigRecord): SolveResult {
  const { Bone, ControlPoint, Rig } = world.physik;
  const bones = rig.bones, n = bones.length, cps = rig.controlPoints;
  const s = rig.settings;
  growBones(n);
  growControlPoints(cps.length);
  let maxEid = 0;
  for (let i = 0; i < n; i++) if (bones[i]! > maxEid) maxEid = bones[i]!;
  growIndex(maxEid);

  // topology (depth-first indices)
  for (let i = 0; i < n; i++) idxOf[bones[i]!] = i;
  for (let i = 0; i < n; i++) {
    const b = bones[i]!, p = Bone.parent[b]!;
    par[i] = p >= 0 ? idxOf[p]! : -1;
    len[i] = Bone.length[b]!;
    frac[i] = p >= 0 ? Bone.attach[b * 3 + 1]! / Bone.length[p]! : 0;
  }
  const root = bones[0]!;
  save(world, rig, backup);
  rootCentre[0] = Bone.centre[root * 3]!; rootCentre[1] = Bone.centre[root * 3 + 1]!; rootCentre[2] = Bone.centre[root * 3 + 2]!;

  // the fixed base: the pin, or where a floating root's head is now
  const src = Rig.pinned[rig.eid] ? Rig.pin : Bone.head;
  const so = Rig.pinned[rig.eid] ? rig.eid * 3 : root * 3;
  base[0] = src[so]!; base[1] = src[so + 1]!; base[2] = src[so + 2]!;

  if (s.ikMode === 'path-independent') {
    for (let i = 0; i < n; i++) {
      const b4 = bones[i]! * 4;
      Bone.rot[b4] = Bone.restWorld[b4]!; Bone.rot[b4 + 1] = Bone.restWorld[b4 + 1]!;
      Bone.rot[b4 + 2] = Bone.restWorld[b4 + 2]!; Bone.rot[b4 + 3] = Bone.restWorld[b4 + 3]!;
    }
  }
  for (let i = 0; i < n; i++) {
    const b4 = bones[i]! * 4;
    if (par[i]! >= 0) quatMulConjA(loc, i * 4, Bone.rot, bones[par[i]!]! * 4, Bone.rot, b4);
    else { loc[0] = Bone.rot[b4]!; loc[1] = Bone.rot[b4 + 1]!; loc[2] = Bone.rot[b4 + 2]!; loc[3] = Bone.rot[b4 + 3]!; }
  }

  // goals
  let m = 0, movable = 0, single = -1;
  onChain.fill(0, 0, n); hasGoal.fill(0, 0, n); chainKids.fill(0, 0, n); contrib.fill(0, 0, n);
  for (let c = 0; c < cps.length; c++) {
    const cp = cps[c]!;
    if (!ControlPoint.active[cp] || ControlPoint.pole[cp]) continue;
    const c3 = cp * 3;
    if (!Number.isFinite(ControlPoint.effective[c3]! + ControlPoint.effective[c3 + 1]! + ControlPoint.effective[c3 + 2]!)) return diverged(world, rig, 0);
    const own = idxOf[ControlPoint.bone[cp]!]!;
    let i = own, u = (ControlPoint.at[cp]! * len[own]! + ControlPoint.offset[c3 + 1]!) / len[own]!;
    if (Math.abs(u) < 1e-9) { u = par[i]! >= 0 ? frac[i]! : 0; i = par[i]!; } // a goal at the head is the parent's
    gCp[m] = cp; gOwn[m] = own; gBone[m] = i; gU[m] = u;
    if (i >= 0) {
      movable++; single = m;
      hasGoal[i] = 1;
      for (let k = i; k >= 0 && !onChain[k]; k = par[k]!) onChain[k] = 1;
    }
    m++;
  }
  for (let i = 1; i < n; i++) if (onChain[i]) chainKids[par[i]!]! += 1;
  // one goal: how far a straight chain reaches, and what each bone adds to it
  let reach = 0;
  if (movable === 1) {
    let k = gBone[single]!;
    contrib[k] = gU[single]! * len[k]!;
    reach = contrib[k]!;
    for (; par[k]! >= 0; k = par[k]!) { contrib[par[k]!] = frac[k]! * len[par[k]!]!; reach += contrib[par[k]!]!; }
  } else single = -1;

  // poles
  let nPoles = 0;
  for (let c = 0; c < cps.length; c++) {
    const cp = cps[c]!;
    if (!ControlPoint.active[cp] || !ControlPoint.pole[cp]) continue;
    if (!Number.isFinite(ControlPoint.effective[cp * 3]! + ControlPoint.effective[cp * 3 + 1]! + ControlPoint.effective[cp * 3 + 2]!)) return diverged(world, rig, 0);
    const bi = idxOf[ControlPoint.bone[cp]!]!;
    const k0 = par[bi]!;
    if (k0 < 0 || !onChain[bi] || hasGoal[k0] || chainKids[k0]! >= 2) continue; // no bend at B's head to turn
    let eff = -1;
    for (let g = 0; g < m && eff < 0; g++) {
      for (let k = gBone[g]!; k >= 0; k = par[k]!) if (k === bi) { eff = g; break; }
    }
    if (eff < 0) continue;
    let top = k0;
    while (par[top]! >= 0 && !hasGoal[par[top]!] && chainKids[par[top]!]! < 2) top = par[top]!;
    pCp[nPoles] = cp; pB[nPoles] = bi; pTop[nPoles] = top; pGoal[nPoles] = eff;
    nPoles++;
  }

  const tol = s.ikTolerance * Rig.height[rig.eid]!;
  placeAll(world, rig);
  goalError(world, rig, m);
  let err = errOut[0]!;
  if (!Number.isFinite(err)) return diverged(world, rig, 0);
  let iterations = 0;
  // a pole turns the bend even when the goals are already met: one iteration at least
  if ((err > tol || nPoles > 0) && movable > 0) {
    let bestErr = Number.POSITIVE_INFINITY, prev = err;
    for (let it = 0; it < s.ikIterations; it++) {
      goalPoints(world, rig, m);
      let straight = false, sx = 0, sy = 0, sz = 0;
      if (single >= 0 && reach > 0) {
        const g3 = single * 3;
        sx = gD[g3]! - base[0]!; sy = gD[g3 + 1]! - base[1]!; sz = gD[g3 + 2]! - base[2]!;
        const dl = Math.sqrt(sx * sx + sy * sy + sz * sz);
        if (dl >= reach) { straight = true; sx /= dl; sy /= dl; sz /= dl; }
      }
      if (!straight) backward(world, rig, m);
      iterations++;
      straightDir[0] = sx; straightDir[1] = sy; straightDir[2] = sz;
      if (!forward(world, rig, nPoles, straight)) return diverged(world, rig, iterations);
      goalError(world, rig, m);
      err = errOut[0]!;
      if (!Number.isFinite(err)) return diverged(world, rig, iterations);
      if (err < bestErr) { bestErr = err; save(world, rig, best); }
      if (err <= tol || straight) break;
      if (Math.abs(prev - err) <= 1e-12 * Rig.height[rig.eid]!) break; // no longer moving
      prev = err;
    }
    if (err > bestErr) {
      restore(world, rig, best);
      placeAll(world, rig);
      err = bestErr;
    }
  }
  placeRootCentre(world, rig);
  refreshPose(world, rig);
  return solved(iterations, err <= tol ? STATUS_CONVERGED : STATUS_STALLED);
}
