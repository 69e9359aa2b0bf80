/**
 * Settings that derive from a rig's size, masses and control points, per bone: the damping
 * coefficient of each end and the inertia scale of each joint's limit stiffness, recomputed
 * when what they depend on changes; and the capped spring's default cap.
 */
import type { PhysikWorld, RigRecord } from './world';
import type { Settings } from './types';

/**
 * Inertia scale of each joint, per axis of its frame, so a limit's stiffness (kappa × this)
 * follows what that axis turns:
 * - swing (x, z): the bone's effective transverse inertia about its head, counting the
 *   implicit damping's point mass c·dt at its tail (what the integrator moves);
 * - twist (y): its effective inertia about its own axis, I_y with the implicit part of its
 *   twist damping (systems/damping.ts). The head lies on that axis, so neither the bone's mass
 *   nor its end dampers add a lever arm: I_y is 1/17 of I_x at the default radius (0.1 L) and
 *   the swing scale about the head ~4 I_x, so a twist limit scaled by the swing value was many
 *   times stiffer for what it turns (docs/physics.md has the figure).
 * Both get the control-spring floor: it stands for the load a limit must hold, not for what
 * it turns, and a pull twists a bone as hard as it swings it (a knee's locked twist carries the
 * foot's sideways pull on a lever as long as the foot). Without it on twist the hand scene's
 * fingers ended twisted far past their locked twist (docs/physics.md has the figure).
 * (A scale from the whole subtree held limits tighter but made chains of 30+ limited bones
 * unstable, because the implicit torsion term only covers the two bones at the joint.)
 */
export function limitInertiaScale(world: PhysikWorld, record: RigRecord): void {
  const { Bone } = world.physik;
  const s = record.settings;
  const implicit = s.dampingMode === 'implicit' ? s.dt : 0;
  const angularImplicit = s.angularDampingMode === 'implicit';
  const angular = angularImplicit ? 1 + s.angularDamping * s.dt : 1;
  // a floor from the control springs: ρ k H² is the torque per radian of the stiffest spring
  // pulling at the rig's full height, so a limit holds against it whatever the bone's inertia
  const H = world.physik.Rig.height[record.eid]!;
  const extra = s.limitControlRatio > 0 && s.limitStiffness > 0 ? (s.limitControlRatio * largestControlStiffness(world, record) * H * H) / s.limitStiffness : 0;
  for (const b of record.bones) {
    const L = Bone.length[b]!;
    const c = Bone.damping[b]!;
    const mu = c * implicit;
    const Ix = Bone.inertia[b * 3]!;
    Bone.limitInertia[b * 2] = Ix * angular + Bone.mass[b]! * 0.25 * L * L + mu * L * L + extra;
    // twist damping rate β + c L² / (2 I_x) (systems/damping.ts), its dt part in the inertia
    const twist = angularImplicit ? 1 + (s.angularDamping + (c * L * L) / (2 * Ix)) * s.dt : 1;
    Bone.limitInertia[b * 2 + 1] = Bone.inertia[b * 3 + 1]! * twist + extra;
  }
}

/** Largest stiffness of the rig's goal (non-pole) control points; the setting when there are none. */
function largestControlStiffness(world: PhysikWorld, record: RigRecord): number {
  const { ControlPoint } = world.physik;
  let max = 0;
  for (const cp of record.controlPoints) {
    if (!ControlPoint.pole[cp] && ControlPoint.stiffness[cp]! > max) max = ControlPoint.stiffness[cp]!;
  }
  return max > 0 ? max : record.settings.stiffness;
}

/**
 * Each bone's damping coefficient c (per end, F = −c v): the \`damping\` setting, or with
 * \`dampingAuto\` c = ζ √(k m) from the bone's mass m and the rig's stiffest control spring k
 * (ζ = \`dampingRatio\`). The two ends together give 2ζ√(k m), so a bone pulled by that
 * spring alone is damped at ratio ζ (1 = critical), whatever its mass or the rig's units:
 * light hands are no longer drowned by a damping sized for a torso, and heavy rigs no
 * longer float. (Compared on the paper scenes against a damping proportional to mass from
 * the rig's total stiffness: that one let long chains diverge; this one settled all.)
 */
export function boneDamping(world: PhysikWorld, record: RigRecord): void {
  const { Bone } = world.physik;
  const s = record.settings;
  if (!s.dampingAuto) {
    for (const b of record.bones) Bone.damping[b] = s.damping;
    return;
  }
  const k = largestControlStiffness(world, record);
  for (const b of record.bones) Bone.damping[b] = s.dampingRatio * Math.sqrt(k * Bone.mass[b]!);
}

/** Settings that depend on the rig's scale or size. */
export function applyDerivedSettings(world: PhysikWorld, record: RigRecord): void {
  const s = record.settings;
  record.defaultCap = s.cap > 0 ? s.cap : s.capFraction * world.physik.Rig.height[record.eid]!;
  const key = limitScaleKey(s, record);
  if (!record.limitScaleKey || record.limitScaleKey !== key) {
    boneDamping(world, record);
    limitInertiaScale(world, record);
    record.limitScaleKey = key;
  }
}

/** What the derived damping and limit scale depend on (they are recomputed when it changes). */
const limitScaleKey = (s: Settings, record: RigRecord) =>
  `${s.dampingMode} ${s.damping} ${s.dampingAuto} ${s.dampingRatio} ${s.limitControlRatio} ${s.limitStiffness} ${s.stiffness} ${record.controlPointsVersion} ${s.dt} ${s.angularDampingMode} ${s.angularDamping}`;
