/**
 * A rig's dynamic state saved to be put back: per bone its rotation, angular velocity,
 * velocity, centre and joint force (everything else of the pose follows from these by forward
 * kinematics). Used by the divergence guard's retries and the hybrid finish to undo a try.
 * A saved state grows once to the largest rig it holds; saving and restoring allocate nothing.
 */
import type { PhysikWorld, RigRecord } from './world';
import { forwardKinematicsOf } from './forwardKinematics';

const PER_BONE = 16;

export interface SavedRigState { data: Float64Array }

export const savedRigState = (): SavedRigState => ({ data: new Float64Array(0) });

export function saveRigState(world: PhysikWorld, rig: RigRecord, into: SavedRigState): void {
  const { rot, angVel, vel, centre, jointForce } = world.physik.Bone;
  const n = rig.bones.length;
  if (into.data.length < n * PER_BONE) into.data = new Float64Array(n * PER_BONE);
  const d = into.data;
  for (let i = 0; i < n; i++) {
    const b = rig.bones[i]!, o = i * PER_BONE;
    for (let a = 0; a < 4; a++) d[o + a] = rot[b * 4 + a]!;
    for (let a = 0; a < 3; a++) {
      d[o + 4 + a] = angVel[b * 3 + a]!;
      d[o + 7 + a] = vel[b * 3 + a]!;
      d[o + 10 + a] = centre[b * 3 + a]!;
      d[o + 13 + a] = jointForce[b * 3 + a]!;
    }
  }
}

/** Back to the saved state (of this same rig), positions and velocities recomputed from it. */
export function restoreRigState(world: PhysikWorld, rig: RigRecord, from: SavedRigState): void {
  const { rot, angVel, vel, centre, jointForce } = world.physik.Bone;
  const d = from.data;
  for (let i = 0; i < rig.bones.length; i++) {
    const b = rig.bones[i]!, o = i * PER_BONE;
    for (let a = 0; a < 4; a++) rot[b * 4 + a] = d[o + a]!;
    for (let a = 0; a < 3; a++) {
      angVel[b * 3 + a] = d[o + 4 + a]!;
      vel[b * 3 + a] = d[o + 7 + a]!;
      centre[b * 3 + a] = d[o + 10 + a]!;
      jointForce[b * 3 + a] = d[o + 13 + a]!;
    }
  }
  forwardKinematicsOf(world, rig);
}
