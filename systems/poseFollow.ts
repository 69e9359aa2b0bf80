/**
 * Pose follow (physics on top of motion; src/world/clipPose.ts), after integration and first of
 * the awake rigs' systems: followed bones take the clip's rotation and angular velocity exactly
 * (a followed root its head's position and velocity too), a world marker in follow mode by its
 * bone and every ancestor.
 */
import type { PhysikWorld } from '../src/world/world';
import { steppingRigs } from '../src/world/world';
import { activePoseDrives } from '../src/world/clipPose';

export function poseFollow(world: PhysikWorld): void {
  const map = activePoseDrives(world);
  if (!map) return;
  const { Bone, Rig } = world.physik;
  const { rot, angVel, centre, vel, length } = Bone;
  const rigs = steppingRigs(world);
  for (let ri = 0; ri < rigs.length; ri++) {
    const rig = rigs[ri]!;
    const rec = map.get(rig.eid);
    if (rec === undefined || rig.settings.solver !== 'physik') continue;
    const n = rig.bones.length;
    for (let i = 0; i < n; i++) {
      if (!rec.follow[i]) continue;
      const b = rig.bones[i]!, b3 = b * 3, b4 = b * 4, o4 = i * 4, o3 = i * 3;
      const x = rec.rotB[o4]!, y = rec.rotB[o4 + 1]!, z = rec.rotB[o4 + 2]!, w = rec.rotB[o4 + 3]!;
      rot[b4] = x; rot[b4 + 1] = y; rot[b4 + 2] = z; rot[b4 + 3] = w;
      const wx = rec.omega[o3]!, wy = rec.omega[o3 + 1]!, wz = rec.omega[o3 + 2]!;
      angVel[b3] = wx; angVel[b3 + 1] = wy; angVel[b3 + 2] = wz;
      if (i === 0 && !Rig.pinned[rig.eid]) {
        // the root's centre from the clip's head: head + R (0, L/2, 0)
        const h = 0.5 * length[b]!;
        const ax = 2 * (x * y - z * w) * h, ay = (1 - 2 * (x * x + z * z)) * h, az = 2 * (y * z + x * w) * h;
        centre[b3] = rec.headB[0]! + ax; centre[b3 + 1] = rec.headB[1]! + ay; centre[b3 + 2] = rec.headB[2]! + az;
        vel[b3] = rec.rootVel[0]! + wy * az - wz * ay;
        vel[b3 + 1] = rec.rootVel[1]! + wz * ax - wx * az;
        vel[b3 + 2] = rec.rootVel[2]! + wx * ay - wy * ax;
      }
    }
  }
}
