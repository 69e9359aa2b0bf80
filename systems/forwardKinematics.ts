/**
 * The forward-kinematics system: every stepping rig's heads, tails and centres from its root
 * and world rotations, and the velocities of centres and heads from the angular velocities
 * (src/world/forwardKinematics.ts does the pass).
 *
 * The Bone store's arrays are read once per call and handed to the per-rig pass: the store has
 * more fields than V8 keeps as fast properties, so each `Bone.x` is a dictionary lookup, which
 * per rig (a crowd of 1000) added up.
 */
import type { PhysikWorld } from '../src/world/world';
import { steppingRigs } from '../src/world/world';
import { placeBones } from '../src/world/forwardKinematics';

export function forwardKinematics(world: PhysikWorld): void {
  const { Bone, Rig } = world.physik;
  const rigs = steppingRigs(world);
  const { rot, head, tail, centre, length, attach, parent, angVel, vel, headVel } = Bone;
  const { pinned, pin } = Rig;
  for (let ri = 0; ri < rigs.length; ri++) {
    const rig = rigs[ri]!;
    placeBones(rot, head, tail, centre, length, attach, parent, angVel, vel, headVel, pinned[rig.eid] === 1, pin, rig.eid * 3, rig.bones);
  }
}
