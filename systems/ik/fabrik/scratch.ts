/**
 * FABRIK's working set (fabrik.ts): per bone and per goal arrays indexed by depth-first bone
 * index, grown when a larger rig comes and never shrunk, so a solve allocates nothing; the small
 * arrays through which helpers hand numbers to each other (a floating-point argument or return
 * value would be boxed); and the helpers that read and write them: heads from rotations, goal
 * points and errors, the requests a bone collects in the backward pass and where a bone aims
 * in the forward pass.
 */
import type { PhysikWorld, RigRecord } from '../../../src/world/world';

export let boneCap = 0;

export let par = new Int32Array(0); // parent index (depth-first index), -1 for the root

export let frac = new Float64Array(0); // attach point along the parent, as a fraction of its length

export let len = new Float64Array(0);

/**
 * Off-axis attachments (imported characters: a leg on the hips' side, an arm on the chest's):
 * offAx[i] 1 when bone i's head is attached off its parent's axis (Bone.attach has an x or z
 * part), offReq[i] 1 when a request on bone i lies off its axis (such a chain child, or a goal at
 * such a child's head). Those bones are fitted to their request points as points of a rigid body
 * (`fitPoints` in passes.ts, `rigidFit` forward) instead of as fractions along the axis.
 */
export let offAx = new Uint8Array(0);

export let offReq = new Uint8Array(0);

export let hp = new Float64Array(0); // head positions (3 per bone)

export let bh = new Float64Array(0); // backward-pass head positions

export let bq = new Float64Array(0); // backward-pass world rotations (4 per bone)

export let hasBq = new Uint8Array(0); // 1 when bq holds this iteration's backward rotation

export let rollMiss = new Float64Array(0); // per bone and pass: the error at no roll when a roll search last found nothing (0: none)

export let accN = new Float64Array(0); // requests: count, Σu, Σu², ΣD, Σu·D

export let accU = new Float64Array(0);

export let accUU = new Float64Array(0);

export let accD = new Float64Array(0);

export let accUD = new Float64Array(0);

export let loc = new Float64Array(0); // rotation relative to the parent at the start of the solve

export let backup = new Float64Array(0); // world rotations as they were (restored on divergence)

export let best = new Float64Array(0); // world rotations of the best iteration

export let onChain = new Uint8Array(0);

export let hasGoal = new Uint8Array(0);

export let chainKids = new Int32Array(0);

export let soleKid = new Int32Array(0); // the one chain child when it is the bone's only request, else -1

export let kidOf = new Int32Array(0); // a chain child of each bone (the last found; the one when chainKids is 1)

export let limited = new Uint8Array(0); // any axis of the bone's joint limited

export let hinge = new Int8Array(0); // the joint's one free axis (0 x, 1 y, 2 z) when the other two are locked at 0; 3 all locked; -1 otherwise

export let lo = new Float64Array(0); // box of the joint rotation vector (3 per bone; ±Infinity: free axis)

export let hi = new Float64Array(0);

export let contrib = new Float64Array(0); // single goal: length each bone adds along a straight chain

export let locked = new Uint8Array(0); // every axis of the bone's joint locked (the bone moves rigidly with its parent)

export let firstKid = new Int32Array(0); // child lists (depth-first indices), -1 ends

export let nextSib = new Int32Array(0);

/**
 * Rigid points: the points bone i carries to its requests in the forward pass, through chains of
 * locked joints (a locked child is part of the bone): local point (3, in i's frame), what it
 * reaches for (a goal, or the backward head of a bone), per bone a range [rpStart, rpStart+rpCount).
 */
export let rpStart = new Int32Array(0);

export let rpCount = new Int32Array(0);

export let rpFit = new Uint8Array(0); // 1: the bone's rotation is fitted to its rigid points (several, or through a locked joint)

export let rpLocal = new Float64Array(0);

export let rpGoal = new Int32Array(0);

export let rpFrom = new Int32Array(0);

export let rpCap = 0;

export let stBone = new Int32Array(0); // the walk through locked children: bone, transform (offset 3, rotation 4)

export let stT = new Float64Array(0);

export let cpCap = 0;

export let gCp = new Int32Array(0); // goal control point

export let gOwn = new Int32Array(0); // index of the bone it is attached to

export let gBone = new Int32Array(0); // index of the bone that reaches for it (-1: unmovable)

export let gU = new Float64Array(0); // fraction along gBone

export let gD = new Float64Array(0); // point gBone's axis must reach (3 per goal)

export let gP = new Float64Array(0); // the goal's point in gBone's frame (3 per goal): (0, gU·length, 0), or an off-axis attachment

export let pCp = new Int32Array(0); // pole control point

export let pB = new Int32Array(0); // bone index B (the pole's joint is B's head)

export let pTop = new Int32Array(0); // first bone of the section (its head is the chain's base)

export let pGoal = new Int32Array(0); // goal index of the effector

export let idxOf = new Int32Array(0); // depth-first index by bone entity

export const base = new Float64Array(3);

export const q = new Float64Array(4);

export const frame = new Float64Array(4);

export const r = new Float64Array(4);

export const v = new Float64Array(3);

export const rootCentre = new Float64Array(3);

/**
 * Numbers handed to and from helpers V8 does not inline go through these arrays: a
 * floating-point argument or return value would be boxed (an allocation per call).
 * errOut[0]: goalError's result, errOut[1]: the rig's height; straightDir: forward's straight-line direction.
 */
export const errOut = new Float64Array(2);

export const straightDir = new Float64Array(3);

/** The two unit vectors of a shortest arc (quatArc: from 0..2 onto 3..5), and the arc, `arcQ`. */
export const av = new Float64Array(6);

export const arcQ = new Float64Array(4);

export const tv = new Float64Array(8);

export function growBones(n: number): void {
  if (n <= boneCap) return;
  const c = Math.max(n, boneCap * 2, 16);
  boneCap = c;
  par = new Int32Array(c); frac = new Float64Array(c); len = new Float64Array(c); offAx = new Uint8Array(c); offReq = new Uint8Array(c);
  hp = new Float64Array(c * 3); bh = new Float64Array(c * 3); bq = new Float64Array(c * 4); hasBq = new Uint8Array(c); rollMiss = new Float64Array(c * 2);
  accN = new Float64Array(c); accU = new Float64Array(c); accUU = new Float64Array(c);
  accD = new Float64Array(c * 3); accUD = new Float64Array(c * 3);
  loc = new Float64Array(c * 4); backup = new Float64Array(c * 4); best = new Float64Array(c * 4);
  onChain = new Uint8Array(c); hasGoal = new Uint8Array(c); chainKids = new Int32Array(c); soleKid = new Int32Array(c); kidOf = new Int32Array(c);
  limited = new Uint8Array(c); hinge = new Int8Array(c); lo = new Float64Array(c * 3); hi = new Float64Array(c * 3);
  contrib = new Float64Array(c);
  locked = new Uint8Array(c); firstKid = new Int32Array(c); nextSib = new Int32Array(c);
  rpStart = new Int32Array(c); rpCount = new Int32Array(c); rpFit = new Uint8Array(c);
  stBone = new Int32Array(c); stT = new Float64Array(c * 7);
}

export function growRigidPoints(k: number): void {
  if (k <= rpCap) return;
  const c = Math.max(k, rpCap * 2, 16);
  rpCap = c;
  rpLocal = new Float64Array(c * 3); rpGoal = new Int32Array(c); rpFrom = new Int32Array(c);
}

export function growControlPoints(m: number): void {
  if (m <= cpCap) return;
  const c = Math.max(m, cpCap * 2, 8);
  cpCap = c;
  gCp = new Int32Array(c); gOwn = new Int32Array(c); gBone = new Int32Array(c);
  gU = new Float64Array(c); gD = new Float64Array(c * 3); gP = new Float64Array(c * 3);
  pCp = new Int32Array(c); pB = new Int32Array(c); pTop = new Int32Array(c); pGoal = new Int32Array(c);
}

export function growIndex(maxEid: number): void {
  if (maxEid < idxOf.length) return;
  idxOf = new Int32Array(Math.max(maxEid + 1, idxOf.length * 2, 64));
}

/** Head of bone index i (into hp) from its parent's head and rotation; the base for the root. */
export function headOf(world: PhysikWorld, rig: RigRecord, i: number): void {
  const { Bone } = world.physik;
  const p = par[i]!, i3 = i * 3;
  if (p < 0) { hp[i3] = base[0]!; hp[i3 + 1] = base[1]!; hp[i3 + 2] = base[2]!; return; }
  const b = rig.bones[i]!, pq4 = rig.bones[p]! * 4, p3 = p * 3;
  const x = Bone.rot[pq4]!, y = Bone.rot[pq4 + 1]!, z = Bone.rot[pq4 + 2]!, w = Bone.rot[pq4 + 3]!;
  const ox = Bone.attach[b * 3]!, oy = Bone.attach[b * 3 + 1]!, oz = Bone.attach[b * 3 + 2]!;
  hp[i3] = hp[p3]! + (1 - 2 * (y * y + z * z)) * ox + 2 * (x * y - z * w) * oy + 2 * (x * z + y * w) * oz;
  hp[i3 + 1] = hp[p3 + 1]! + 2 * (x * y + z * w) * ox + (1 - 2 * (x * x + z * z)) * oy + 2 * (y * z - x * w) * oz;
  hp[i3 + 2] = hp[p3 + 2]! + 2 * (x * z - y * w) * ox + 2 * (y * z + x * w) * oy + (1 - 2 * (x * x + y * y)) * oz;
}

/** All heads from the rotations in Bone.rot (depth-first). */
export function placeAll(world: PhysikWorld, rig: RigRecord): void {
  for (let i = 0; i < rig.bones.length; i++) headOf(world, rig, i);
}

/** Unit axis (+Y) of bone entity b in world, into v. */
export function axisOf(world: PhysikWorld, b: number): void {
  const R = world.physik.Bone.rot, o = b * 4;
  const x = R[o]!, y = R[o + 1]!, z = R[o + 2]!, w = R[o + 3]!;
  v[0] = 2 * (x * y - z * w); v[1] = 1 - 2 * (x * x + z * z); v[2] = 2 * (y * z + x * w);
}

/** Goal points: effective target less the offset's x/z part, rotated by the bone's rotation. */
export function goalPoints(world: PhysikWorld, rig: RigRecord, m: number): void {
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

/** The largest distance of a goal's attachment point from its effective target (NaN propagates) into errOut[0]. */
export function goalError(world: PhysikWorld, rig: RigRecord, m: number): void {
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

export function addRequest(i: number, U: Float64Array, uo: number, D: Float64Array, o: number): void {
  const i3 = i * 3, u = U[uo]!;
  accN[i] = accN[i]! + 1; accU[i] = accU[i]! + u; accUU[i] = accUU[i]! + u * u;
  accD[i3] = accD[i3]! + D[o]!; accD[i3 + 1] = accD[i3 + 1]! + D[o + 1]!; accD[i3 + 2] = accD[i3 + 2]! + D[o + 2]!;
  accUD[i3] = accUD[i3]! + u * D[o]!; accUD[i3 + 1] = accUD[i3 + 1]! + u * D[o + 1]!; accUD[i3 + 2] = accUD[i3 + 2]! + u * D[o + 2]!;
}

/** a[o..o+2] ← w·c + R (a − w·c), R = r: a weighted sum of points turned about c. */
export function rotateAbout(a: Float64Array, o: number, wgt: number, cx: number, cy: number, cz: number): void {
  const vx = a[o]! - wgt * cx, vy = a[o + 1]! - wgt * cy, vz = a[o + 2]! - wgt * cz;
  const x = r[0]!, y = r[1]!, z = r[2]!, w = r[3]!;
  const tx = 2 * (y * vz - z * vy), ty = 2 * (z * vx - x * vz), tz = 2 * (x * vy - y * vx);
  a[o] = wgt * cx + vx + w * tx + (y * tz - z * ty);
  a[o + 1] = wgt * cy + vy + w * ty + (z * tx - x * tz);
  a[o + 2] = wgt * cz + vz + w * tz + (x * ty - y * tx);
}

/**
 * Where bone c (depth-first index) must point in the forward pass, its head at tv[0..2]: into
 * v, true if it has a direction. Straight: along the straight line if it adds to the reach.
 */
export function aimOf(c: number, straight: boolean): boolean {
  const L = len[c]!;
  let wx: number, wy: number, wz: number;
  if (straight) {
    if (!(contrib[c]! > 1e-12 * L)) return false;
    wx = straightDir[0]!; wy = straightDir[1]!; wz = straightDir[2]!;
  } else {
    const c3 = c * 3, su = accU[c]!;
    wx = accUD[c3]! - su * tv[0]!; wy = accUD[c3 + 1]! - su * tv[1]!; wz = accUD[c3 + 2]! - su * tv[2]!; // Σ u (D − H)
  }
  const wl = Math.sqrt(wx * wx + wy * wy + wz * wz);
  if (!(wl > 1e-12 * L)) return false;
  v[0] = wx / wl; v[1] = wy / wl; v[2] = wz / wl;
  return true;
}
