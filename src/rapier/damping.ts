/**
 * PhysIK's damping (section 3.2: F = −c v at the head and the tail of every bone, plus the
 * angular damping) on the Rapier mirror's bodies.
 *
 * Rapier's own body damping does not fit: it scales the velocity after the step's positions
 * were integrated with the undamped one (measured: a free body pushed for one step moves as far
 * with damping 40/s as with none), so a heavily damped light bone lurches each step where
 * PhysIK's creeps. PhysIK's implicit damping instead evaluates −c v at the end of the step,
 * which is the same as giving each bone end a point mass c·dt (the core's damping system):
 *
 *   m_eff v₁ = m v₀ + dt F             m_eff = m + 2c dt
 *   I_eff ω₁ = I ω₀ + dt τ  (bone frame)  I_eff = I (1 + β dt) + 2c dt (L/2)² on x and z,
 *                                         I_y (1 + β dt) on the bone's axis
 *
 * and Rapier can do exactly that: each body gets the effective mass and inertia as its mass
 * properties, and before each step its velocities are set to m v₀ / m_eff and
 * I_eff⁻¹ I ω₀; Rapier's step then adds dt·F/m_eff (and the joints' impulses, which see the
 * effective masses, as in PhysIK's joint solve) and integrates positions with the result
 * (with one Rapier substep, as semi-implicit Euler: the mirror's default).
 * c is the bone's own coefficient (`Bone.damping`: the setting, or automatic damping's). The
 * paper's explicit mode is mirrored as explicit forces −2c v and torques −(c L²/2) ω⊥ on
 * plain masses; 'halve' halves the ω₀ the mirror reads back.
 */
import type { PhysikWorld, RigRecord } from '../core/world';

/**
 * Per depth-first index, into `out` (4 per index): the effective mass and principal inertia
 * x, y, z (bone frame) of the damping; into `coefficient` each bone's c. Returns true when the
 * damping is explicit (the paper's): then the caller adds −2c v and −(c L²/2) ω⊥ as forces.
 */
export function dampingModel(world: PhysikWorld, record: RigRecord, out: Float64Array, coefficient: Float64Array): boolean {
  const { Bone } = world.physik;
  const s = record.settings, dt = s.dt;
  const implicit = s.dampingMode === 'implicit';
  const beta = s.angularDampingMode === 'implicit' ? s.angularDamping : 0;
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
    out[o + 2] = Bone.inertia[b3 + 1]! * angularScale;
    out[o + 3] = Bone.inertia[b3 + 2]! * angularScale + ends;
  }
  return !implicit;
}
