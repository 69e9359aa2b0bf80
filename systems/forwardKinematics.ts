/**
 * Forward kinematics: head, tail and centre of every bone from the root and the world
 * rotations, in depth-first order; and the velocities of centres and heads from the root's
 * velocity and the angular velocities. A floating root is placed by its centre (its state);
 * a pinned root by its head.
 */
import type { PhysikWorld, RigRecord } from '../src/core/world';
import { rotX, rotY, rotZ } from '../src/math/quat';

export function forwardKinematics(world: PhysikWorld): void {
  for (const rig of world.physik.rigs) forwardKinematicsOf(world, rig);
}

export function forwardKinematicsOf(world: PhysikWorld, rig: RigRecord): void {
  const { Bone, Rig } = world.physik;
  const { rot, head, tail, centre, length, attach, parent: parentOf, angVel, vel, headVel } = Bone;
  {
    const pinned = Rig.pinned[rig.eid] === 1;
    for (let bi = 0; bi < rig.bones.length; bi++) {
      const b = rig.bones[bi]!;
      const b3 = b * 3, q = b * 4;
      const x = rot[q]!, y = rot[q + 1]!, z = rot[q + 2]!, w = rot[q + 3]!;
      const L = length[b]!;
      // bone axis R (0, L, 0)
      const ax = 2 * (x * y - z * w) * L, ay = (1 - 2 * (x * x + z * z)) * L, az = 2 * (y * z + x * w) * L;
      const p = parentOf[b]!;
      const wx = angVel[b3]!, wy = angVel[b3 + 1]!, wz = angVel[b3 + 2]!;
      if (p < 0) {
        if (pinned) {
          const pin = rig.eid * 3;
          head[b3] = Rig.pin[pin]!; head[b3 + 1] = Rig.pin[pin + 1]!; head[b3 + 2] = Rig.pin[pin + 2]!;
          centre[b3] = head[b3]! + 0.5 * ax; centre[b3 + 1] = head[b3 + 1]! + 0.5 * ay; centre[b3 + 2] = head[b3 + 2]! + 0.5 * az;
          headVel[b3] = 0; headVel[b3 + 1] = 0; headVel[b3 + 2] = 0;
        } else {
          head[b3] = centre[b3]! - 0.5 * ax; head[b3 + 1] = centre[b3 + 1]! - 0.5 * ay; head[b3 + 2] = centre[b3 + 2]! - 0.5 * az;
          // v_head = v_centre + ω × (−axis/2)
          headVel[b3] = vel[b3]! - 0.5 * (wy * az - wz * ay);
          headVel[b3 + 1] = vel[b3 + 1]! - 0.5 * (wz * ax - wx * az);
          headVel[b3 + 2] = vel[b3 + 2]! - 0.5 * (wx * ay - wy * ax);
        }
      } else {
        const p3 = p * 3, pq = p * 4;
        const px = rot[pq]!, py = rot[pq + 1]!, pz = rot[pq + 2]!, pw = rot[pq + 3]!;
        const ox = attach[b3]!, oy = attach[b3 + 1]!, oz = attach[b3 + 2]!;
        const rx = rotX(px, py, pz, pw, ox, oy, oz), ry = rotY(px, py, pz, pw, ox, oy, oz), rz = rotZ(px, py, pz, pw, ox, oy, oz);
        head[b3] = head[p3]! + rx; head[b3 + 1] = head[p3 + 1]! + ry; head[b3 + 2] = head[p3 + 2]! + rz;
        centre[b3] = head[b3]! + 0.5 * ax; centre[b3 + 1] = head[b3 + 1]! + 0.5 * ay; centre[b3 + 2] = head[b3 + 2]! + 0.5 * az;
        // v_head = v_parentCentre + ω_p × (head − parentCentre)
        const pwx = angVel[p3]!, pwy = angVel[p3 + 1]!, pwz = angVel[p3 + 2]!;
        const lx = head[b3]! - centre[p3]!, ly = head[b3 + 1]! - centre[p3 + 1]!, lz = head[b3 + 2]! - centre[p3 + 2]!;
        headVel[b3] = vel[p3]! + pwy * lz - pwz * ly;
        headVel[b3 + 1] = vel[p3 + 1]! + pwz * lx - pwx * lz;
        headVel[b3 + 2] = vel[p3 + 2]! + pwx * ly - pwy * lx;
      }
      tail[b3] = head[b3]! + ax; tail[b3 + 1] = head[b3 + 1]! + ay; tail[b3 + 2] = head[b3 + 2]! + az;
      if (p >= 0 || pinned) {
        // v_centre = v_head + ω × axis/2
        vel[b3] = headVel[b3]! + 0.5 * (wy * az - wz * ay);
        vel[b3 + 1] = headVel[b3 + 1]! + 0.5 * (wz * ax - wx * az);
        vel[b3 + 2] = headVel[b3 + 2]! + 0.5 * (wx * ay - wy * ax);
      }
    }
  }
}
