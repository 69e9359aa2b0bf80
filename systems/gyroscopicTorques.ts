/**
 * Gyroscopic torques: the −ω × (I ω) term of each bone's Euler equation (PhysIK eq. 1 written
 * in the world frame), added to Bone.torque before the joint solve.
 *
 * - implicit (default): the torque that turns ω into the solution ω₂ of the torque-free,
 *   body-frame backward-Euler step I (ω₂ − ω) + dt ω₂ × I ω₂ = 0, after one Newton iteration
 *   from ω, as (I (ω₂ − ω) / dt) in the world. Taken explicitly, ω × (I ω) pumps energy into a
 *   bone spinning off a principal axis (a free undamped chain's kinetic energy grew by orders of
 *   magnitude; docs/physics.md has the figures); the backward step only ever removes a little,
 *   O(dt²) per step (the treatment of Catto's "Numerical methods" talk, GDC 2015).
 * - explicit (the paper's eq. 1): −ω × (I ω) at the start of the step.
 *
 * The true inertia of the bone is used: the implicit damping and spring terms that the
 * damping system adds to the effective inertia are not part of the bone's momentum. The rig's
 * kinetic energy at the step's start, which needs the same body-frame ω and I ω, is summed on the
 * way (Rig.kineticEnergyStart, for the conservation budget).
 */
import type { PhysikWorld } from '../src/world/world';
import { steppingRigs } from '../src/world/world';

export function gyroscopicTorques(world: PhysikWorld): void {
  const { Bone, Rig } = world.physik;
  const { rot, angVel, torque, inertia, gyroTorque, mass, vel } = Bone;
  const rigs = steppingRigs(world);
  for (let ri = 0; ri < rigs.length; ri++) {
    const rig = rigs[ri]!;
    if (rig.settings.solver !== 'physik') continue; // posed by its kinematic solver
    const implicit = rig.settings.gyroscopic === 'implicit';
    const dt = rig.settings.dt;
    const bones = rig.bones;
    let ke = 0;
    for (let bi = 0; bi < bones.length; bi++) {
      const b = bones[bi]!, b3 = b * 3, q = b * 4;
      const x = rot[q]!, y = rot[q + 1]!, z = rot[q + 2]!, w = rot[q + 3]!;
      const r00 = 1 - 2 * (y * y + z * z), r01 = 2 * (x * y - z * w), r02 = 2 * (x * z + y * w);
      const r10 = 2 * (x * y + z * w), r11 = 1 - 2 * (x * x + z * z), r12 = 2 * (y * z - x * w);
      const r20 = 2 * (x * z - y * w), r21 = 2 * (y * z + x * w), r22 = 1 - 2 * (x * x + y * y);
      const wx = angVel[b3]!, wy = angVel[b3 + 1]!, wz = angVel[b3 + 2]!;
      // ω in the bone frame (Rᵀ ω) and the body angular momentum h = I ω there
      const ox = r00 * wx + r10 * wy + r20 * wz, oy = r01 * wx + r11 * wy + r21 * wz, oz = r02 * wx + r12 * wy + r22 * wz;
      const ix = inertia[b3]!, iy = inertia[b3 + 1]!, iz = inertia[b3 + 2]!;
      const hx = ix * ox, hy = iy * oy, hz = iz * oz;
      // (the kinetic energy comes almost free here: the conservation budget's, momentumBudget.ts)
      const vx = vel[b3]!, vy = vel[b3 + 1]!, vz = vel[b3 + 2]!;
      ke += 0.5 * (mass[b]! * (vx * vx + vy * vy + vz * vz) + ox * hx + oy * hy + oz * hz);
      // ω × h in the bone frame
      const cx = oy * hz - oz * hy, cy = oz * hx - ox * hz, cz = ox * hy - oy * hx;
      let tx = -cx, ty = -cy, tz = -cz;
      if (implicit) {
        // Newton: ω₂ = ω − Jf⁻¹ f, f = dt ω × h, Jf = I + dt ([ω]ₓ I − [h]ₓ); torque I (ω₂ − ω)/dt = −I Jf⁻¹ (ω × h)
        const a00 = ix, a01 = dt * (-oz * iy + hz), a02 = dt * (oy * iz - hy);
        const a10 = dt * (oz * ix - hz), a11 = iy, a12 = dt * (-ox * iz + hx);
        const a20 = dt * (-oy * ix + hy), a21 = dt * (ox * iy - hx), a22 = iz;
        const A = a11 * a22 - a12 * a21, B = a12 * a20 - a10 * a22, C = a10 * a21 - a11 * a20;
        const det = a00 * A + a01 * B + a02 * C;
        if (det > 0 && Number.isFinite(det)) {
          const s = 1 / det;
          // d = Jf⁻¹ (ω × h)
          const dx = (A * cx + (a02 * a21 - a01 * a22) * cy + (a01 * a12 - a02 * a11) * cz) * s;
          const dy = (B * cx + (a00 * a22 - a02 * a20) * cy + (a02 * a10 - a00 * a12) * cz) * s;
          const dz = (C * cx + (a01 * a20 - a00 * a21) * cy + (a00 * a11 - a01 * a10) * cz) * s;
          tx = -ix * dx; ty = -iy * dy; tz = -iz * dz;
        }
      }
      // back to the world: R t
      const gx = r00 * tx + r01 * ty + r02 * tz, gy = r10 * tx + r11 * ty + r12 * tz, gz = r20 * tx + r21 * ty + r22 * tz;
      gyroTorque[b3] = gx; gyroTorque[b3 + 1] = gy; gyroTorque[b3 + 2] = gz;
      torque[b3] = torque[b3]! + gx; torque[b3 + 1] = torque[b3 + 1]! + gy; torque[b3 + 2] = torque[b3 + 2]! + gz;
    }
    Rig.kineticEnergyStart[rig.eid] = ke;
  }
}
