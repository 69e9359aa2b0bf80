/**
 * Forward kinematics of a rig: head, tail and centre of every bone from the root and the world
 * rotations, in depth-first order; and the velocities of centres and heads from the root's
 * velocity and the angular velocities. A floating root is placed by its centre (its state);
 * a pinned root by its head.
 *
 * The Bone store's arrays are read once per call and handed to the per-rig loop: the store has
 * more fields than V8 keeps as fast properties, so each `Bone.x` is a dictionary lookup, which
 * per rig (a crowd of 1000) or per solver iteration (forwardKinematicsOf from the kinematic
 * solvers) added up.
 */
import type { PhysikWorld, RigRecord } from './world';
import type { BoneStore, RigStore } from '../../components';
import type { Doubles } from '../../components/doubles';

/** Forward kinematics of one rig. */
export function forwardKinematicsOf(world: PhysikWorld, rig: RigRecord): void {
  const Bone: BoneStore = world.physik.Bone, Rig: RigStore = world.physik.Rig;
  placeBones(Bone.rot, Bone.head, Bone.tail, Bone.centre, Bone.length, Bone.attach, Bone.parent, Bone.angVel, Bone.vel, Bone.headVel, Rig.pinned[rig.eid] === 1, Rig.pin, rig.eid * 3, rig.bones);
}

/**
 * Heads, tails and centres only (no velocities), for the kinematic solvers' pose refreshes
 * between iterations: the forwardKinematics system runs after them and sets the velocities
 * from the angular velocities kinematicSolve derives, so the solvers need positions only.
 * The same pass as forwardKinematics with the velocity part left out.
 */
export function forwardPositionsOf(world: PhysikWorld, rig: RigRecord): void {
  const Bone: BoneStore = world.physik.Bone, Rig: RigStore = world.physik.Rig;
  placeBones(
    Bone.rot, Bone.head, Bone.tail, Bone.centre, Bone.length, Bone.attach, Bone.parent, Bone.angVel, Bone.vel, Bone.headVel,
    Rig.pinned[rig.eid] === 1, Rig.pin, rig.eid * 3, rig.bones, false,
  );
}

/**
 * The pass itself over one rig's bones (parents before children), on the store's arrays read
 * once by the caller; without `velocities` only the positions.
 */
export function placeBones(
  rot: Doubles, head: Doubles, tail: Doubles, centre: Doubles, length: Doubles, attach: Doubles,
  parentOf: Int32Array, angVel: Doubles, vel: Doubles, headVel: Doubles, pinned: boolean, pinArr: Doubles, pin: number, bones: Int32Array,
  velocities = true,
): void {
  for (let bi = 0; bi < bones.length; bi++) {
    const b = bones[bi]!;
    const b3 = b * 3, q = b * 4;
    const x = rot[q]!, y = rot[q + 1]!, z = rot[q + 2]!, w = rot[q + 3]!;
    const L = length[b]!;
    // bone axis R (0, L, 0)
    const ax = 2 * (x * y - z * w) * L, ay = (1 - 2 * (x * x + z * z)) * L, az = 2 * (y * z + x * w) * L;
    const p = parentOf[b]!;
    const wx = angVel[b3]!, wy = angVel[b3 + 1]!, wz = angVel[b3 + 2]!;
    // (the head and its velocity kept in registers as they are written: the arrays may alias, so
    // V8 would read each back)
    let hx: number, hy: number, hz: number, ux = 0, uy = 0, uz = 0;
    if (p < 0) {
      if (pinned) {
        hx = pinArr[pin]!; hy = pinArr[pin + 1]!; hz = pinArr[pin + 2]!;
        head[b3] = hx; head[b3 + 1] = hy; head[b3 + 2] = hz;
        centre[b3] = hx + 0.5 * ax; centre[b3 + 1] = hy + 0.5 * ay; centre[b3 + 2] = hz + 0.5 * az;
        if (velocities) { headVel[b3] = 0; headVel[b3 + 1] = 0; headVel[b3 + 2] = 0; }
      } else {
        hx = centre[b3]! - 0.5 * ax; hy = centre[b3 + 1]! - 0.5 * ay; hz = centre[b3 + 2]! - 0.5 * az;
        head[b3] = hx; head[b3 + 1] = hy; head[b3 + 2] = hz;
      }
      if (velocities && !pinned) {
        // v_head = v_centre + ω × (−axis/2)
        headVel[b3] = vel[b3]! - 0.5 * (wy * az - wz * ay);
        headVel[b3 + 1] = vel[b3 + 1]! - 0.5 * (wz * ax - wx * az);
        headVel[b3 + 2] = vel[b3 + 2]! - 0.5 * (wx * ay - wy * ax);
      }
    } else {
      const p3 = p * 3, pq = p * 4;
      const px = rot[pq]!, py = rot[pq + 1]!, pz = rot[pq + 2]!, pw = rot[pq + 3]!;
      const ox = attach[b3]!, oy = attach[b3 + 1]!, oz = attach[b3 + 2]!;
      // the attachment point rotated by the parent (rotX/rotY/rotZ of src/math/quat written out)
      const rx = (1 - 2 * (py * py + pz * pz)) * ox + 2 * (px * py - pz * pw) * oy + 2 * (px * pz + py * pw) * oz;
      const ry = 2 * (px * py + pz * pw) * ox + (1 - 2 * (px * px + pz * pz)) * oy + 2 * (py * pz - px * pw) * oz;
      const rz = 2 * (px * pz - py * pw) * ox + 2 * (py * pz + px * pw) * oy + (1 - 2 * (px * px + py * py)) * oz;
      hx = head[p3]! + rx; hy = head[p3 + 1]! + ry; hz = head[p3 + 2]! + rz;
      head[b3] = hx; head[b3 + 1] = hy; head[b3 + 2] = hz;
      centre[b3] = hx + 0.5 * ax; centre[b3 + 1] = hy + 0.5 * ay; centre[b3 + 2] = hz + 0.5 * az;
      if (velocities) {
        // v_head = v_parentCentre + ω_p × (head − parentCentre)
        const pwx = angVel[p3]!, pwy = angVel[p3 + 1]!, pwz = angVel[p3 + 2]!;
        const lx = hx - centre[p3]!, ly = hy - centre[p3 + 1]!, lz = hz - centre[p3 + 2]!;
        ux = vel[p3]! + pwy * lz - pwz * ly;
        uy = vel[p3 + 1]! + pwz * lx - pwx * lz;
        uz = vel[p3 + 2]! + pwx * ly - pwy * lx;
        headVel[b3] = ux; headVel[b3 + 1] = uy; headVel[b3 + 2] = uz;
      }
    }
    tail[b3] = hx + ax; tail[b3 + 1] = hy + ay; tail[b3 + 2] = hz + az;
    if (velocities && (p >= 0 || pinned)) {
      // v_centre = v_head + ω × axis/2 (a pinned root's head is still)
      vel[b3] = ux + 0.5 * (wy * az - wz * ay);
      vel[b3 + 1] = uy + 0.5 * (wz * ax - wx * az);
      vel[b3 + 2] = uz + 0.5 * (wx * ay - wy * ax);
    }
  }
}
