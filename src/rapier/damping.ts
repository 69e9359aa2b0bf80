/**
 * PhysIK's damping (section 3.2: F = −c v at the head and the tail of every bone, plus the
 * angular damping) on the Rapier mirror's bodies.
 *
 * Rapier's own body damping does not fit: it scales the velocity after the step's positions
 * were integrated with the undamped one (a free body pushed for one step moves as far with
 * heavy damping as with none; docs/physics.md), so a heavily damped light bone lurches each
 * step where PhysIK's creeps. PhysIK's implicit damping instead evaluates −c v at the end of the step,
 * which is the same as giving each bone end a point mass c·dt (the core's damping system):
 *
 *   m_eff v₁ = m v₀ + dt F             m_eff = m + 2c dt
 *   I_eff ω₁ = I ω₀ + dt τ  (bone frame)  I_eff = I (1 + β dt) + 2c dt (L/2)² on x and z,
 *                                         I_y (1 + β_y dt) on the bone's axis,
 *                                         β_y = β + c L² / (2 I_x) (the twist damping)
 *
 * and Rapier can do exactly that, as the core does: each body gets the effective mass and
 * inertia as its mass properties, and the explicit part of the damping, −(m_eff − m)/dt v₀ =
 * −2c v₀ and −(I_eff − I)/dt ω₀ = −(β I + c L²/2) ω₀ on x and z (−β_y I_y ω₀ on y), as a force and torque;
 * then m_eff (v₁ − v₀) = dt (F − 2c v₀) is the line above. Rapier's step solves its joints
 * against the effective masses (as PhysIK's joint solve does) and integrates positions with
 * v₁ (with one Rapier substep, as semi-implicit Euler: the mirror's default). Setting the
 * velocities instead of applying the force gave the same numbers, but multibody links take
 * no velocity from outside.
 * c is the bone's own coefficient (`Bone.damping`: the setting, or automatic damping's). The
 * paper's explicit mode is mirrored as explicit forces −2c v and torques −(c L²/2) ω⊥ on
 * plain masses; 'halve' halves the ω₀ the mirror reads back (and a torque −I ω₀/dt takes the
 * body's own ω' = 2 ω₀ down to it).
 */
import type { PhysikWorld, RigRecord } from '../world/world';

/**
 * Per depth-first index, into `out` (4 per index): the effective mass and principal inertia
 * x, y, z (bone frame) of the damping; into `coefficient` each bone's c. Returns true when the
 * damping is explicit (the paper's): then the caller adds −2c v and −(c L²/2) ω⊥ as forces.
 */
export function dampingModel(world: PhysikWorld, record: RigRecord, out: Float64Array, coefficient: Float64Array): boolean {
  const { Bone } = world.physik;
  const s = record.settings, dt = s.dt;
  const implicit = s.dampingMode === 'implicit';
  const angularImplicit = s.angularDampingMode === 'implicit';
  const beta = angularImplicit ? s.angularDamping : 0;
  const angularScale = 1 + beta * dt;
  for (let i = 0; i < record.bones.length; i++) {
    const b = record.bones[i]!, b3 = b * 3, o = i * 4;
    const own = Bone.damping[b]!;
    const c = own >= 0 && Number.isFinite(own) ? own : s.damping;
    coefficient[i] = c;
    const L = Bone.length[b]!;
    const point = implicit ? c * dt : 0;
    const ends = 2 * point * 0.25 * L * L;
    out[o] = Bone.mass[b]! + 2 * point;
    out[o + 1] = Bone.inertia[b3]! * angularScale + ends;
    // the twist damping, as systems/damping.ts: β + c L² / (2 I_x) on the bone's axis
    const betaTwist = angularImplicit ? beta + (2 * c * 0.25 * L * L) / Bone.inertia[b3]! : 0;
    out[o + 2] = Bone.inertia[b3 + 1]! * (1 + betaTwist * dt);
    out[o + 3] = Bone.inertia[b3 + 2]! * angularScale + ends;
  }
  return !implicit;
}
