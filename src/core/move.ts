/**
 * Moving a whole rig rigidly: placing a built rig somewhere else, turned any way, with its
 * rest pose, current pose and motion, targets and scripted moves carried along. Stepping a
 * moved rig gives the moved result of stepping it where it was (PhysIK: every scale the step
 * derives is rotation-invariant, see rigScale.ts; the `gravity` setting of the mass-spring
 * solver keeps its world direction).
 *
 * A rig's rest pose is defined by its bones' directions in world axes, so turning a scene's
 * JSON directions gives a different rig (each bone's roll frame is built from its direction
 * relative to the world axes); moving the built rig does not.
 */
import { findRig, type PhysikWorld } from '../world/world';
import { wakeRig } from '../world/wake';
import { rigScale } from '../world/rigScale';
import { applyInertiaFloor, computeBoneDerived } from '../world/derived';
import { applyDerivedSettings } from './rig';
import { MAX_MAGNITUDE } from '../world/limits';
import { copyDoubles, type Doubles } from '../../components/doubles';
import { quatMulConjA } from '../math/quat';

/** Rotation matrix, row major, of the current move (a move allocates nothing per element). */
const M = new Float64Array(9);

function setMatrix(x: number, y: number, z: number, w: number): void {
  M[0] = 1 - 2 * (y * y + z * z); M[1] = 2 * (x * y - z * w); M[2] = 2 * (x * z + y * w);
  M[3] = 2 * (x * y + z * w); M[4] = 1 - 2 * (x * x + z * z); M[5] = 2 * (y * z - x * w);
  M[6] = 2 * (x * z - y * w); M[7] = 2 * (y * z + x * w); M[8] = 1 - 2 * (x * x + y * y);
}

/** a[o..o+2] ← R a + s t (s = 1 for a point, 0 for a vector). */
function apply(a: Doubles, o: number, t: ArrayLike<number>, s: number): void {
  const x = a[o]!, y = a[o + 1]!, z = a[o + 2]!;
  a[o] = M[0]! * x + M[1]! * y + M[2]! * z + s * t[0]!;
  a[o + 1] = M[3]! * x + M[4]! * y + M[5]! * z + s * t[1]!;
  a[o + 2] = M[6]! * x + M[7]! * y + M[8]! * z + s * t[2]!;
}

/** Largest coordinate of R a + t (for the range check before anything is written). */
function movedMax(a: ArrayLike<number>, o: number, t: ArrayLike<number>): number {
  const x = a[o]!, y = a[o + 1]!, z = a[o + 2]!;
  return Math.max(
    Math.abs(M[0]! * x + M[1]! * y + M[2]! * z + t[0]!),
    Math.abs(M[3]! * x + M[4]! * y + M[5]! * z + t[1]!),
    Math.abs(M[6]! * x + M[7]! * y + M[8]! * z + t[2]!),
  );
}

/** Symmetric 3×3 (xx, xy, xz, yy, yz, zz) at a[o]: S ← R S Rᵀ. */
function applySym(a: Doubles, o: number): void {
  const xx = a[o]!, xy = a[o + 1]!, xz = a[o + 2]!, yy = a[o + 3]!, yz = a[o + 4]!, zz = a[o + 5]!;
  // rows of R S
  const p0 = M[0]! * xx + M[1]! * xy + M[2]! * xz, p1 = M[0]! * xy + M[1]! * yy + M[2]! * yz, p2 = M[0]! * xz + M[1]! * yz + M[2]! * zz;
  const q0 = M[3]! * xx + M[4]! * xy + M[5]! * xz, q1 = M[3]! * xy + M[4]! * yy + M[5]! * yz, q2 = M[3]! * xz + M[4]! * yz + M[5]! * zz;
  const r0 = M[6]! * xx + M[7]! * xy + M[8]! * xz, r1 = M[6]! * xy + M[7]! * yy + M[8]! * yz, r2 = M[6]! * xz + M[7]! * yz + M[8]! * zz;
  a[o] = p0 * M[0]! + p1 * M[1]! + p2 * M[2]!;
  a[o + 1] = p0 * M[3]! + p1 * M[4]! + p2 * M[5]!;
  a[o + 2] = p0 * M[6]! + p1 * M[7]! + p2 * M[8]!;
  a[o + 3] = q0 * M[3]! + q1 * M[4]! + q2 * M[5]!;
  a[o + 4] = q0 * M[6]! + q1 * M[7]! + q2 * M[8]!;
  a[o + 5] = r0 * M[6]! + r1 * M[7]! + r2 * M[8]!;
}

/** q[o] ← r ⊗ q[o]. */
function turn(q: Doubles, o: number, rx: number, ry: number, rz: number, rw: number): void {
  const x = q[o]!, y = q[o + 1]!, z = q[o + 2]!, w = q[o + 3]!;
  q[o] = rw * x + rx * w + ry * z - rz * y;
  q[o + 1] = rw * y - rx * z + ry * w + rz * x;
  q[o + 2] = rw * z + rx * y - ry * x + rz * w;
  q[o + 3] = rw * w - rx * x - ry * y - rz * z;
}

/**
 * Move rig `rig` by the rigid motion p ↦ R p + t: `rotation` is R as a quaternion (x, y, z, w;
 * normalised here), `translation` is t. Moves the rest and starting poses (what resetRig returns to), the
 * pose, velocities and the joint solve's warm start, the pin of a pinned root, every control
 * point's target (also as added, for reset) and the targets of its script's moves. Limits and
 * attachment offsets are relative and need no change; the rest rotations relative to the
 * parents, the rig's scale (Rig.height) and what derives from it are derived again from the
 * moved rest pose, as addRig derives them. Wakes the rig. Throws (rig unchanged) on a rotation or translation that is not finite, a
 * zero rotation, or a moved position beyond ±1e9.
 *
 * Kinematic solvers' warm-start caches (systems/ik) live outside the world and are not moved:
 * move a rig that uses one before stepping it. A snapshot taken before the move restores the
 * rig where it was, but keeps its script moved.
 */
export function moveRig(world: PhysikWorld, rig: number, rotation: ArrayLike<number>, translation: ArrayLike<number>): void {
  const record = findRig(world, rig);
  if (rotation.length !== 4 || translation.length !== 3) throw new Error(`moveRig: rotation must be a quaternion (x, y, z, w) and translation 3 numbers, got ${rotation.length} and ${translation.length}`);
  const n = Math.hypot(rotation[0]!, rotation[1]!, rotation[2]!, rotation[3]!);
  if (!Number.isFinite(n) || n === 0) throw new Error(`moveRig: rotation must be a finite, non-zero quaternion, got [${Array.from(rotation).join(', ')}]`);
  const t = [translation[0]!, translation[1]!, translation[2]!];
  if (!t.every(Number.isFinite)) throw new Error(`moveRig: translation must be three finite numbers, got [${t.join(', ')}]`);
  const rx = rotation[0]! / n, ry = rotation[1]! / n, rz = rotation[2]! / n, rw = rotation[3]! / n;
  setMatrix(rx, ry, rz, rw);
  const { Bone, ControlPoint, Rig } = world.physik;

  // check every moved position first, so a refused move changes nothing
  let far = movedMax(Rig.pin, rig * 3, t);
  for (const b of record.bones) far = Math.max(far, movedMax(Bone.head, b * 3, t), movedMax(Bone.tail, b * 3, t), movedMax(Bone.centre, b * 3, t));
  for (const cp of record.controlPoints) far = Math.max(far, movedMax(ControlPoint.target, cp * 3, t), movedMax(ControlPoint.effective, cp * 3, t));
  for (let i = 0; i < record.initialTargets.length; i += 3) far = Math.max(far, movedMax(record.initialTargets, i, t));
  for (const ev of record.script) if (ev.target) far = Math.max(far, movedMax(ev.target, 0, t));
  if (record.start) far = Math.max(far, movedMax(record.start, 4 * record.bones.length, t));
  if (!(far <= MAX_MAGNITUDE)) throw new Error(`moveRig: the move takes rig "${record.name}" beyond ±${MAX_MAGNITUDE} (${far})`);

  for (const b of record.bones) {
    const b3 = b * 3, b4 = b * 4, b6 = b * 6;
    turn(Bone.restWorld, b4, rx, ry, rz, rw);
    turn(Bone.rot, b4, rx, ry, rz, rw);
    // the rest rotation relative to the parent, from the moved rest pose as addRig derives it:
    // turned rotations keep it only up to rounding, and a joint at rest on a limit (an elbow
    // straight at rest, limited to [0°, 150°]) would then sit 1e-17 past it, pressing it
    const p = Bone.parent[b]!;
    if (p < 0) copyDoubles(Bone.restLocal, b4, Bone.restWorld, b4, 4);
    else quatMulConjA(Bone.restLocal, b4, Bone.restWorld, p * 4, Bone.restWorld, b4);
    apply(Bone.head, b3, t, 1);
    apply(Bone.tail, b3, t, 1);
    apply(Bone.centre, b3, t, 1);
    for (const v of [Bone.angVel, Bone.vel, Bone.headVel, Bone.force, Bone.torque, Bone.acc, Bone.angAcc, Bone.jointForce]) apply(v, b3, t, 0);
    applySym(Bone.effInertiaWorld, b6);
    applySym(Bone.invInertiaWorld, b6);
  }
  for (const cp of record.controlPoints) {
    const c3 = cp * 3;
    apply(ControlPoint.target, c3, t, 1);
    apply(ControlPoint.effective, c3, t, 1);
    apply(ControlPoint.attachment, c3, t, 1);
    apply(ControlPoint.springForce, c3, t, 0);
  }
  for (let i = 0; i < record.initialTargets.length; i += 3) apply(record.initialTargets, i, t, 1);
  if (record.start) {
    // the starting pose too (what resetRig returns to): every rotation turned, the root's centre moved
    const n = record.bones.length;
    for (let i = 0; i < n; i++) turn(record.start, 4 * i, rx, ry, rz, rw);
    apply(record.start, 4 * n, t, 1);
  }
  apply(Rig.pin, rig * 3, t, 1);
  apply(Rig.centreOfMass, rig * 3, t, 1);
  // every event, played ones too (resetRig plays them again); moved copies, since the events
  // may be shared with the scene they came from
  record.script = record.script.map((ev) => {
    if (!ev.target) return ev;
    const target = Float64Array.from(ev.target);
    apply(target, 0, t, 1);
    return { ...ev, target: [target[0]!, target[1]!, target[2]!] };
  });
  // measured again from the moved rest pose, with all that derives from it, as if the rig had
  // been built here (the scale is rotation-invariant, so this changes it by rounding at most)
  const height = rigScale(Bone, record.bones, Rig.pin, rig * 3);
  Rig.height[rig] = height;
  for (const b of record.bones) { computeBoneDerived(Bone, b); applyInertiaFloor(Bone, b, height); }
  record.limitScaleKey = '';
  applyDerivedSettings(world, record);
  wakeRig(world, rig);
}
