/**
 * Force reset and damping (PhysIK section 3.2, "Damping"). Clears each bone's external force
 * and torque, then applies F = -c v at the head and tail of every bone and an angular
 * damping torque. Also sets each bone's effective mass and inertia for this step:
 *
 * - implicit (default): the damping force uses the end-of-step velocity,
 *   -c v(t+dt) = -c v(t) - c dt a, so the -c dt a part acts as a point mass c·dt at each end.
 *   Unconditionally stable; the paper's explicit form explodes for bones lighter than
 *   about c·dt (the design notes measured ~2 mass units at c = 20, dt = 0.05).
 * - explicit: the paper's F = -c v(t) only.
 *
 * Angular damping: 'implicit' applies -β I ω with β a rate (1/s) and I the bone's inertia
 * (scale-free), again with the β·dt·I part moved into the inertia; 'halve' is the paper's
 * halving of angular velocity each step, done by the integrator.
 */
import type { PhysikWorld, RigRecord } from '../src/core/world';
import { steppingRigs } from '../src/core/world';
import { applyDerivedSettings } from '../src/core/rig';
import { quatRotateArr, quatRotateInvArr, rotatedDiagonalArr } from '../src/math/quat';

const local = new Float64Array(3);
/** Control point set each rig's derived damping was computed for (automatic damping follows it). */
const derivedFor = new WeakMap<RigRecord, number>();

export function damping(world: PhysikWorld): void {
  const { Bone } = world.physik;
  const { rot, angVel, vel, force, torque, effMass, effInertia, effInertiaWorld, inertia, mass, length } = Bone;
  const rigs = steppingRigs(world);
  for (let ri = 0; ri < rigs.length; ri++) {
    const rig = rigs[ri]!;
    if (rig.settings.solver !== 'physik') continue; // posed by its kinematic solver
    const s = rig.settings;
    if (derivedFor.get(rig) !== rig.controlPointsVersion) {
      applyDerivedSettings(world, rig);
      derivedFor.set(rig, rig.controlPointsVersion);
    }
    const dt = s.dt;
    const implicitDt = s.dampingMode === 'implicit' ? dt : 0;
    const beta = s.angularDampingMode === 'implicit' ? s.angularDamping : 0;
    const angularScale = 1 + beta * dt;
    for (let bi = 0; bi < rig.bones.length; bi++) {
      const b = rig.bones[bi]!;
      const b3 = b * 3, q = b * 4;
      const c = Bone.damping[b]!;
      const pointMass = c * implicitDt;
      const half = 0.5 * length[b]!;
      // d = R (0, L/2, 0): centre → tail
      const qx = rot[q]!, qy = rot[q + 1]!, qz = rot[q + 2]!, qw = rot[q + 3]!;
      const dx = 2 * (qx * qy - qz * qw) * half;
      const dy = (1 - 2 * (qx * qx + qz * qz)) * half;
      const dz = 2 * (qy * qz + qx * qw) * half;
      const wx = angVel[b3]!, wy = angVel[b3 + 1]!, wz = angVel[b3 + 2]!;
      // v_tail − v_head = ω × 2d; forces −c v at both ends sum to −2c v_centre
      const vx = vel[b3]!, vy = vel[b3 + 1]!, vz = vel[b3 + 2]!;
      force[b3] = -2 * c * vx;
      force[b3 + 1] = -2 * c * vy;
      force[b3 + 2] = -2 * c * vz;
      // torque = d × (−c v_tail) + (−d) × (−c v_head) = −c d × (v_tail − v_head) = −2c d × (ω × d)
      const ux = wy * dz - wz * dy, uy = wz * dx - wx * dz, uz = wx * dy - wy * dx;
      let tx = -2 * c * (dy * uz - dz * uy);
      let ty = -2 * c * (dz * ux - dx * uz);
      let tz = -2 * c * (dx * uy - dy * ux);
      const Ix = inertia[b3]!, Iy = inertia[b3 + 1]!, Iz = inertia[b3 + 2]!;
      if (beta > 0) {
        // −β I_world ω with I_world = R diag(I) Rᵀ
        // (through scratch arrays: helpers returning numbers would box them when not inlined)
        quatRotateInvArr(local, 0, rot, q, angVel, b3);
        local[0] = -beta * Ix * local[0]!; local[1] = -beta * Iy * local[1]!; local[2] = -beta * Iz * local[2]!;
        quatRotateArr(local, 0, rot, q, local, 0);
        tx += local[0]!; ty += local[1]!; tz += local[2]!;
      }
      torque[b3] = tx; torque[b3 + 1] = ty; torque[b3 + 2] = tz;
      effMass[b] = mass[b]! + 2 * pointMass;
      const endInertia = 2 * pointMass * half * half;
      effInertia[b3] = Ix * angularScale + endInertia;
      effInertia[b3 + 1] = Iy * angularScale;
      effInertia[b3 + 2] = Iz * angularScale + endInertia;
      // world-frame copy; implicit torsion springs add to it next
      rotatedDiagonalArr(effInertiaWorld, b * 6, rot, q, effInertia, b3);
    }
  }
}

