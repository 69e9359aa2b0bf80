/**
 * The step's conservation budget, taken after the joint solve and before integration: the
 * rig's linear and angular momentum now, what the external loads should leave them at by the
 * end of the step, and its mechanical energy now (kinetic + control springs + limit springs).
 * systems/conservationProjection.ts holds the integrated state to it.
 *
 * Momentum changes only by external loads: the joint forces act in equal and opposite pairs at
 * one point, limit torques in equal and opposite pairs, and the gyroscopic torque is each bone's
 * own rotation. So over the step
 *   dP/dt = Σ m a,   dL/dt = Σ (c − o) × m a + I α − τ_gyro
 * with the solved accelerations (a, α) and the bones' true masses and inertias: what the
 * implicit damping and spring terms add to the effective mass is the implicit force itself.
 * The budget is exact where the rig carries no external load (a floating rig with no spring
 * pulling and no damping): there the momentum must not change at all. Under a load, a budget
 * from the loads at the step's start is only first-order accurate, no better than the
 * integrator: projecting onto it made things worse (a flicked hand overshot its limit further;
 * docs/physics.md has the figures), so only the energy is budgeted then (Rig.conserve 2).
 *
 * Energy: the guard's reference is the lowest energy the rig has had since it was last changed
 * from outside the step (a target moved, a setting, a pose set through the API). Measured from
 * it rather than from each step's start, the guard lets the integrator's energy wobble by its
 * small band and does not ratchet it down (clipping every upward half of a wobble drains much of
 * a free chain's energy over a long run; docs/physics.md has the figures).
 */
import type { PhysikWorld } from '../src/world/world';
import { steppingRigs } from '../src/world/world';
import { addLimitEnergy } from './torsionSprings';
import { controlSpringEnergy } from './controlSprings';

const energy = new Float64Array(1);

export function momentumBudget(world: PhysikWorld): void {
  const { Bone, Rig, ControlPoint } = world.physik;
  const { rot, inertia, mass, centre, vel, angVel, acc, angAcc, gyroTorque } = Bone;
  const rigs = steppingRigs(world);
  for (let ri = 0; ri < rigs.length; ri++) {
    const rig = rigs[ri]!;
    const r = rig.eid;
    if (rig.settings.solver !== 'physik' || rig.settings.conservation !== 'project') { Rig.conserve[r] = 0; continue; }
    const dt = rig.settings.dt;
    const bones = rig.bones;
    const pinned = Rig.pinned[r] === 1;
    // free: nothing outside the rig acts on it this step
    let free = !pinned && !(rig.settings.angularDamping > 0);
    for (let bi = 0; free && bi < bones.length; bi++) if (Bone.damping[bones[bi]!]! > 0) free = false;
    for (let ci = 0; free && ci < rig.controlPoints.length; ci++) {
      const cp = rig.controlPoints[ci]!;
      if (ControlPoint.active[cp] && !ControlPoint.pole[cp] && ControlPoint.stiffness[cp]! > 0) free = false;
    }
    // the reference point: the pin, or the last measured centre of mass (any fixed point serves:
    // the projection measures about the same one)
    const ref = pinned ? Rig.pin : Rig.centreOfMass;
    const ox = ref[r * 3]!, oy = ref[r * 3 + 1]!, oz = ref[r * 3 + 2]!;
    let px = 0, py = 0, pz = 0, lx = 0, ly = 0, lz = 0;
    let dpx = 0, dpy = 0, dpz = 0, dlx = 0, dly = 0, dlz = 0;
    // the kinetic energy damping summed (with the gyroscopic torque); the momentum of a free rig
    const ke = Rig.kineticEnergyStart[r]!;
    for (let bi = 0; free && bi < bones.length; bi++) {
      const b = bones[bi]!, b3 = b * 3, q = b * 4, mb = mass[b]!;
      const x = rot[q]!, y = rot[q + 1]!, z = rot[q + 2]!, w = rot[q + 3]!;
      const r00 = 1 - 2 * (y * y + z * z), r01 = 2 * (x * y - z * w), r02 = 2 * (x * z + y * w);
      const r10 = 2 * (x * y + z * w), r11 = 1 - 2 * (x * x + z * z), r12 = 2 * (y * z - x * w);
      const r20 = 2 * (x * z - y * w), r21 = 2 * (y * z + x * w), r22 = 1 - 2 * (x * x + y * y);
      const ix = inertia[b3]!, iy = inertia[b3 + 1]!, iz = inertia[b3 + 2]!;
      const vx = vel[b3]!, vy = vel[b3 + 1]!, vz = vel[b3 + 2]!;
      const wx = angVel[b3]!, wy = angVel[b3 + 1]!, wz = angVel[b3 + 2]!;
      const sx = r00 * wx + r10 * wy + r20 * wz, sy = r01 * wx + r11 * wy + r21 * wz, sz = r02 * wx + r12 * wy + r22 * wz;
      const hx = ix * sx, hy = iy * sy, hz = iz * sz;
      // momentum: m v and (c − o) × m v + I ω
      const dx = centre[b3]! - ox, dy = centre[b3 + 1]! - oy, dz = centre[b3 + 2]! - oz;
      px += mb * vx; py += mb * vy; pz += mb * vz;
      lx += mb * (dy * vz - dz * vy) + r00 * hx + r01 * hy + r02 * hz;
      ly += mb * (dz * vx - dx * vz) + r10 * hx + r11 * hy + r12 * hz;
      lz += mb * (dx * vy - dy * vx) + r20 * hx + r21 * hy + r22 * hz;
      // rates: m a and (c − o) × m a + I α − τ_gyro
      const ax = acc[b3]!, ay = acc[b3 + 1]!, az = acc[b3 + 2]!;
      const gx = angAcc[b3]!, gy = angAcc[b3 + 1]!, gz = angAcc[b3 + 2]!;
      const tx = (r00 * gx + r10 * gy + r20 * gz) * ix, ty = (r01 * gx + r11 * gy + r21 * gz) * iy, tz = (r02 * gx + r12 * gy + r22 * gz) * iz;
      dpx += mb * ax; dpy += mb * ay; dpz += mb * az;
      dlx += mb * (dy * az - dz * ay) + r00 * tx + r01 * ty + r02 * tz - gyroTorque[b3]!;
      dly += mb * (dz * ax - dx * az) + r10 * tx + r11 * ty + r12 * tz - gyroTorque[b3 + 1]!;
      dlz += mb * (dx * ay - dy * ax) + r20 * tx + r21 * ty + r22 * tz - gyroTorque[b3 + 2]!;
    }
    const e6 = r * 6;
    const E = Rig.expectedMomentum;
    E[e6] = px + dt * dpx; E[e6 + 1] = py + dt * dpy; E[e6 + 2] = pz + dt * dpz;
    E[e6 + 3] = lx + dt * dlx; E[e6 + 4] = ly + dt * dly; E[e6 + 5] = lz + dt * dlz;
    Rig.momentumPoint[r * 3] = ox; Rig.momentumPoint[r * 3 + 1] = oy; Rig.momentumPoint[r * 3 + 2] = oz;
    // potential energy: control springs at the attachments controlSprings measured, limits at
    // the angles torsionSprings measured (both this step's start)
    controlSpringEnergy(world, rig, false, energy, 0);
    addLimitEnergy(world, rig, false, energy, 0);
    const pe = energy[0]!;
    const e = ke + pe;
    Rig.energyStart[r] = e;
    // the guard's reference: the lowest energy since something other than the step changed it
    // (a target moved, a setting, the state set from outside): then this step's start differs
    // from where the last step ended
    const last = Rig.energyEnd[r]!;
    if (!(Math.abs(e - last) <= 1e-9 * (Math.abs(e) + Math.abs(last))) || !(e >= Rig.energyReference[r]!)) Rig.energyReference[r] = e;
    Rig.conserve[r] = free ? 1 : 2;
  }
}
