/**
 * Force reset, damping and the gyroscopic torque: the loads that come from each bone's own
 * motion. Clears each bone's external force and torque, then applies F = -c v at the head and
 * tail of every bone (PhysIK section 3.2, "Damping"), an angular damping torque, and the
 * gyroscopic torque −ω × (I ω) (below). Also sets each bone's effective mass and inertia for
 * this step:
 *
 * - implicit (default): the damping force uses the end-of-step velocity,
 *   -c v(t+dt) = -c v(t) - c dt a, so the -c dt a part acts as a point mass c·dt at each end.
 *   Unconditionally stable; the paper's explicit form explodes for bones lighter than
 *   about c·dt (docs/physics.md has the measured threshold).
 * - explicit: the paper's F = -c v(t) only.
 *
 * Angular damping: 'implicit' applies -β I ω per bone axis with β a rate (1/s) and I the
 * bone's inertia about that axis (scale-free), again with the β·dt·I part moved into the
 * inertia; 'halve' is the paper's halving of angular velocity each step, done by the
 * integrator.
 *
 * Twist: the end dampers sit on the bone's own axis and cannot damp spin about it, so with
 * β alone a bone twisted at rate β while it swung at β + c L²/(2 I_x) (the two ends' 2c(L/2)²
 * about the centre over I_x: on a light hand under automatic damping, many times β), and a
 * thigh under a far reach spun round (docs/physics.md has the figures). With 'implicit' the
 * bone's own axis gets the swing's total rate,
 * -(β + c L²/(2 I_x)) I_y ω_y in the bone frame, implicit like the rest: its dt part goes into
 * the effective inertia's y term, so a free twist is scaled by I_y / (I_y + dt D_y) ∈ (0, 1]
 * each step, whatever D_y and dt (no step can flip or grow it). Limits scale their twist
 * stiffness by the same effective inertia (src/world/derivedSettings.ts limitInertiaScale).
 *
 * Gyroscopic torque: the −ω × (I ω) term of each bone's Euler equation (PhysIK eq. 1 written in
 * the world frame), in Bone.gyroTorque and added to Bone.torque.
 * - implicit (default): the torque that turns ω into the solution ω₂ of the torque-free,
 *   body-frame backward-Euler step I (ω₂ − ω) + dt ω₂ × I ω₂ = 0, after one Newton iteration
 *   from ω, as (I (ω₂ − ω) / dt) in the world. Taken explicitly, ω × (I ω) pumps energy into a
 *   bone spinning off a principal axis (a free undamped chain's kinetic energy grew by orders of
 *   magnitude; docs/physics.md has the figures); the backward step only ever removes a little,
 *   O(dt²) per step (the treatment of Catto's "Numerical methods" talk, GDC 2015).
 * - explicit (the paper's eq. 1): −ω × (I ω) at the start of the step.
 * It uses the bone's true inertia: the implicit damping and spring terms added to the effective
 * inertia are not part of its momentum. The rig's kinetic energy at the step's start, which
 * needs the same body-frame ω and I ω, is summed on the way (Rig.kineticEnergyStart, for the
 * conservation budget). (One pass with the damping, which has the bone's rotation matrix at hand:
 * a pass of its own cost about 3% of the humanoid's step more.)
 */
import type { PhysikWorld } from '../src/world/world';
import { steppingRigs } from '../src/world/world';
import { applyDerivedSettings } from '../src/world/derivedSettings';
import { perRig, perRigGet, perRigSet } from '../src/world/perRig';

/** Control point set each rig's derived damping was computed for (automatic damping follows it). */
const derivedFor = perRig<number>();

export function damping(world: PhysikWorld): void {
  const { Bone, Rig } = world.physik;
  const { rot, angVel, vel, force, torque, effMass, effInertiaWorld, inertia, mass, length, gyroTorque } = Bone;
  const dampingOf = Bone.damping;
  const rigs = steppingRigs(world);
  for (let ri = 0; ri < rigs.length; ri++) {
    const rig = rigs[ri]!;
    if (rig.settings.solver !== 'physik') continue; // posed by its kinematic solver
    const s = rig.settings;
    if (perRigGet(derivedFor, rig) !== rig.controlPointsVersion) {
      applyDerivedSettings(world, rig);
      perRigSet(derivedFor, rig, rig.controlPointsVersion);
    }
    const dt = s.dt;
    const implicitDt = s.dampingMode === 'implicit' ? dt : 0;
    const angularImplicit = s.angularDampingMode === 'implicit';
    const beta = angularImplicit ? s.angularDamping : 0;
    const angularScale = 1 + beta * dt;
    const bones = rig.bones;
    const gyroImplicit = s.gyroscopic === 'implicit';
    let ke = 0;
    // the rotations written out in registers, without a scratch array
    for (let bi = 0; bi < bones.length; bi++) {
      const b = bones[bi]!;
      const b3 = b * 3, q = b * 4;
      const c = dampingOf[b]!;
      const pointMass = c * implicitDt;
      const half = 0.5 * length[b]!;
      const qx = rot[q]!, qy = rot[q + 1]!, qz = rot[q + 2]!, qw = rot[q + 3]!;
      const wx = angVel[b3]!, wy = angVel[b3 + 1]!, wz = angVel[b3 + 2]!;
      // forces −c v at both ends sum to −2c v_centre
      const vx = vel[b3]!, vy = vel[b3 + 1]!, vz = vel[b3 + 2]!;
      force[b3] = -2 * c * vx;
      force[b3 + 1] = -2 * c * vy;
      force[b3 + 2] = -2 * c * vz;
      const Ix = inertia[b3]!, Iy = inertia[b3 + 1]!, Iz = inertia[b3 + 2]!;
      // the bone's rotation matrix R (its columns: the bone's axes in the world), and ω in the
      // bone frame, Rᵀ ω
      const r00 = 1 - 2 * (qy * qy + qz * qz), r01 = 2 * (qx * qy - qz * qw), r02 = 2 * (qx * qz + qy * qw);
      const r10 = 2 * (qx * qy + qz * qw), r11 = 1 - 2 * (qx * qx + qz * qz), r12 = 2 * (qy * qz - qx * qw);
      const r20 = 2 * (qx * qz - qy * qw), r21 = 2 * (qy * qz + qx * qw), r22 = 1 - 2 * (qx * qx + qy * qy);
      const ox = r00 * wx + r10 * wy + r20 * wz, oy = r01 * wx + r11 * wy + r21 * wz, oz = r02 * wx + r12 * wy + r22 * wz;
      // the torques, in the bone frame (d = (0, L/2, 0) from the centre to the tail):
      // - the end dampers', d × (−c v_tail) + (−d) × (−c v_head) = −2c d × (ω × d) = −2c (L/2)² (ω_x, 0, ω_z);
      // - angular damping, −D ω with D = diag(β I_x, β_y I_y, β I_z), the twist rate β_y being β
      //   plus the end dampers' swing rate c L² / (2 I_x) (see header)
      const endRate = 2 * c * half * half;
      const betaTwist = angularImplicit ? beta + endRate / Ix : 0;
      const lx = -(beta * Ix + endRate) * ox, ly = -betaTwist * Iy * oy, lz = -(beta * Iz + endRate) * oz;
      // in the world, R l
      const tx = r00 * lx + r01 * ly + r02 * lz;
      const ty = r10 * lx + r11 * ly + r12 * lz;
      const tz = r20 * lx + r21 * ly + r22 * lz;
      effMass[b] = mass[b]! + 2 * pointMass;
      const endInertia = 2 * pointMass * half * half;
      const ex = Ix * angularScale + endInertia, ey = Iy * (1 + betaTwist * dt), ez = Iz * angularScale + endInertia;
      // in the world frame, R diag(e) Rᵀ; implicit springs add to it next
      const o = b * 6;
      effInertiaWorld[o] = r00 * r00 * ex + r01 * r01 * ey + r02 * r02 * ez;
      effInertiaWorld[o + 1] = r00 * r10 * ex + r01 * r11 * ey + r02 * r12 * ez;
      effInertiaWorld[o + 2] = r00 * r20 * ex + r01 * r21 * ey + r02 * r22 * ez;
      effInertiaWorld[o + 3] = r10 * r10 * ex + r11 * r11 * ey + r12 * r12 * ez;
      effInertiaWorld[o + 4] = r10 * r20 * ex + r11 * r21 * ey + r12 * r22 * ez;
      effInertiaWorld[o + 5] = r20 * r20 * ex + r21 * r21 * ey + r22 * r22 * ez;
      // the gyroscopic torque (see header): h = I ω in the bone frame
      const hx = Ix * ox, hy = Iy * oy, hz = Iz * oz;
      ke += 0.5 * (mass[b]! * (vx * vx + vy * vy + vz * vz) + ox * hx + oy * hy + oz * hz);
      // ω × h in the bone frame
      const cx = oy * hz - oz * hy, cy = oz * hx - ox * hz, cz = ox * hy - oy * hx;
      let gx = -cx, gy = -cy, gz = -cz;
      if (gyroImplicit) {
        // Newton: ω₂ = ω − Jf⁻¹ f, f = dt ω × h, Jf = I + dt ([ω]ₓ I − [h]ₓ); torque I (ω₂ − ω)/dt = −I Jf⁻¹ (ω × h)
        const a00 = Ix, a01 = dt * (-oz * Iy + hz), a02 = dt * (oy * Iz - hy);
        const a10 = dt * (oz * Ix - hz), a11 = Iy, a12 = dt * (-ox * Iz + hx);
        const a20 = dt * (-oy * Ix + hy), a21 = dt * (ox * Iy - hx), a22 = Iz;
        const A = a11 * a22 - a12 * a21, B = a12 * a20 - a10 * a22, C = a10 * a21 - a11 * a20;
        const det = a00 * A + a01 * B + a02 * C;
        if (det > 0 && Number.isFinite(det)) {
          const inv = 1 / det;
          // d = Jf⁻¹ (ω × h)
          const dx = (A * cx + (a02 * a21 - a01 * a22) * cy + (a01 * a12 - a02 * a11) * cz) * inv;
          const dy = (B * cx + (a00 * a22 - a02 * a20) * cy + (a02 * a10 - a00 * a12) * cz) * inv;
          const dz = (C * cx + (a01 * a20 - a00 * a21) * cy + (a00 * a11 - a01 * a10) * cz) * inv;
          gx = -Ix * dx; gy = -Iy * dy; gz = -Iz * dz;
        }
      }
      // back to the world: R g
      const wgx = r00 * gx + r01 * gy + r02 * gz, wgy = r10 * gx + r11 * gy + r12 * gz, wgz = r20 * gx + r21 * gy + r22 * gz;
      gyroTorque[b3] = wgx; gyroTorque[b3 + 1] = wgy; gyroTorque[b3 + 2] = wgz;
      torque[b3] = tx + wgx; torque[b3 + 1] = ty + wgy; torque[b3 + 2] = tz + wgz;
    }
    Rig.kineticEnergyStart[rig.eid] = ke;
  }
}
