/**
 * Local pose over the goal tree (goalTree.ts), for the Jacobian solvers: local rotations read
 * from and rebuilt into world rotations (with the limits clamped root first), the pose at the
 * start of a solve and before an iteration kept and put back, the rest pose, and a joint's
 * frame, pivot and locked axes.
 */
import type { PhysikWorld, RigRecord } from '../../src/world/world';
import { quatMul, quatMulConjA, quatTurnWorld } from '../../src/math/quat';
import type { Doubles } from '../../components/doubles';
import { clampToLimits, refreshPose } from './common';
import type { IkRig } from './goalTree';

/** Keep the pose at the start of the solve. */
export function saveStart(world: PhysikWorld, rig: RigRecord, T: IkRig): void {
  const rot = T.rot, centre = T.centre, start = T.startRot;
  for (let i = 0; i < T.n; i++) {
    const q = rig.bones[i]! * 4;
    for (let k = 0; k < 4; k++) start[i * 4 + k] = rot[q + k]!;
  }
  const r3 = rig.bones[0]! * 3;
  T.startCentre[0] = centre[r3]!; T.startCentre[1] = centre[r3 + 1]!; T.startCentre[2] = centre[r3 + 2]!;
}

/** Put back the pose of the start of the solve (after something went non-finite). */
export function restoreStart(world: PhysikWorld, rig: RigRecord, T: IkRig): void {
  const rot = T.rot, centre = T.centre;
  for (let i = 0; i < T.n; i++) {
    const q = rig.bones[i]! * 4;
    for (let k = 0; k < 4; k++) rot[q + k] = T.startRot[i * 4 + k]!;
  }
  const r3 = rig.bones[0]! * 3;
  centre[r3] = T.startCentre[0]!; centre[r3 + 1] = T.startCentre[1]!; centre[r3 + 2] = T.startCentre[2]!;
  refreshPose(world, rig);
}

/** Keep the pose (world and local rotations) before an iteration. */
export function keepPose(world: PhysikWorld, rig: RigRecord, T: IkRig): void {
  const rot = T.rot;
  for (let i = 0; i < T.n; i++) {
    const q = rig.bones[i]! * 4;
    for (let c = 0; c < 4; c++) { T.keepRot[i * 4 + c] = rot[q + c]!; T.keepLocal[i * 4 + c] = T.local[i * 4 + c]!; }
  }
}

/** Undo an iteration: the kept pose back, heads and tails refreshed. */
export function undoPose(world: PhysikWorld, rig: RigRecord, T: IkRig): void {
  const rot = T.rot;
  for (let i = 0; i < T.n; i++) {
    const q = rig.bones[i]! * 4;
    for (let c = 0; c < 4; c++) { rot[q + c] = T.keepRot[i * 4 + c]!; T.local[i * 4 + c] = T.keepLocal[i * 4 + c]!; }
  }
  refreshPose(world, rig);
}

/** Path-independent mode: every bone back to its rest world rotation; the root's centre (or pin) stays. */
export function resetToRest(world: PhysikWorld, rig: RigRecord): void {
  const { rot, restWorld } = world.physik.Bone;
  for (let i = 0; i < rig.bones.length; i++) {
    const q = rig.bones[i]! * 4;
    for (let k = 0; k < 4; k++) rot[q + k] = restWorld[q + k]!;
  }
  refreshPose(world, rig);
}

/** Local rotations of all bones from the world rotations. */
export function computeLocals(world: PhysikWorld, rig: RigRecord, T: IkRig): void {
  const rot = T.rot;
  for (let i = 0; i < T.n; i++) localFromWorld(rot, rig, T, i);
}

/** local[i] ← parent⁻¹ · world of bone i (the root: its world rotation). */
export function localFromWorld(rot: Doubles, rig: RigRecord, T: IkRig, i: number): void {
  const b = rig.bones[i]!, p = T.parentIndex[i]!;
  if (p < 0) {
    for (let k = 0; k < 4; k++) T.local[i * 4 + k] = rot[b * 4 + k]!;
  } else {
    quatMulConjA(T.local, i * 4, rot, rig.bones[p]! * 4, rot, b * 4);
  }
}

/**
 * World rotations of bones [from, to) in depth-first order from their locals (world = parent ·
 * local). With `clamp`, each bone is clamped to its limits right after its parent is final, and
 * its local updated to the clamped rotation.
 */
export function rebuildFromLocals(world: PhysikWorld, rig: RigRecord, T: IkRig, from: number, to: number, clamp: boolean): void {
  const rot = T.rot, local = T.local;
  for (let i = from; i < to; i++) {
    const b = rig.bones[i]!, p = T.parentIndex[i]!, o = b * 4;
    if (p < 0) {
      for (let k = 0; k < 4; k++) rot[o + k] = local[i * 4 + k]!;
    } else {
      quatMul(rot, o, rot, rig.bones[p]! * 4, local, i * 4);
    }
    // quatNormalize written out (it was not inlined here), the same arithmetic
    const n = Math.sqrt(rot[o]! * rot[o]! + rot[o + 1]! * rot[o + 1]! + rot[o + 2]! * rot[o + 2]! + rot[o + 3]! * rot[o + 3]!);
    const s = n > 0 ? 1 / n : 0;
    rot[o] = rot[o]! * s; rot[o + 1] = rot[o + 1]! * s; rot[o + 2] = rot[o + 2]! * s; rot[o + 3] = rot[o + 3]! * s;
    if (n === 0) rot[o + 3] = 1;
    if (clamp && p >= 0 && clampToLimits(world, b)) localFromWorld(rot, rig, T, i);
  }
}

/** Pivot of bone b's rotation: its head, or a floating root's centre (the root's state). */
export function pivotOf(world: PhysikWorld, b: number, isRoot: boolean, pinned: boolean, out: Float64Array, o: number): void {
  const { Bone } = world.physik;
  const src = isRoot && !pinned ? Bone.centre : Bone.head;
  out[o] = src[b * 3]!; out[o + 1] = src[b * 3 + 1]!; out[o + 2] = src[b * 3 + 2]!;
}

/** Axis a (0 x, 1 y, 2 z) is locked when limited to a single value. */
export function axisLocked(world: PhysikWorld, b: number, a: number): boolean {
  const L = world.physik.AngularLimit;
  return L.enabled[b * 3 + a] === 1 && L.max[b * 3 + a]! - L.min[b * 3 + a]! <= 1e-12;
}

export function hasLimits(world: PhysikWorld, b: number): boolean {
  const e = world.physik.AngularLimit.enabled;
  return e[b * 3] === 1 || e[b * 3 + 1] === 1 || e[b * 3 + 2] === 1;
}

/**
 * Joint frame of bone b in world (parent · restLocal; the root's frame: world axes, out = identity),
 * as a quaternion to out[o..o+3].
 */
export function jointFrame(world: PhysikWorld, b: number, out: Float64Array, o: number): void {
  const { Bone } = world.physik;
  const p = Bone.parent[b]!;
  if (p < 0) { out[o] = 0; out[o + 1] = 0; out[o + 2] = 0; out[o + 3] = 1; return; }
  quatMul(out, o, Bone.rot, p * 4, Bone.restLocal, b * 4);
}

/** rot[o] ← R(axis u, angle) · rot[o], u unit; returns false (and writes nothing) if non-finite. */
export function rotateWorld(rot: Doubles, o: number, ux: number, uy: number, uz: number, angle: number): boolean {
  turnArgs[0] = ux; turnArgs[1] = uy; turnArgs[2] = uz; turnArgs[3] = angle;
  return quatTurnWorld(rot, o, turnArgs, 0);
}
const turnArgs = new Float64Array(4);
