/**
 * Which Rapier joint mirrors each PhysIK joint, and which of the rig's angular limits Rapier
 * enforces itself versus which the mirror emulates with PhysIK's torsion springs. Rapier's JS
 * bindings (0.21) have limits only on revolute (and prismatic) impulse joints: none on
 * spherical joints and none on any multibody joint. So, per joint-frame axis of a bone
 * (x, y, z; y along the bone), an axis limited to [0, 0] is "locked", any other limit is
 * "limited", no limit is "free":
 *
 * - no unlocked axis          → fixed joint (Rapier holds all three)
 * - exactly one unlocked axis → revolute joint about it (Rapier holds the two locked ones);
 *                               its limit is Rapier's `setLimits` on impulse joints, and
 *                               emulated on multibody joints
 * - two unlocked (no twist)   → impulse: generic joint with that axis locked (Rapier holds it),
 *                               the open axes' limits emulated; multibody: spherical joint with
 *                               all three emulated (a two-axis multibody joint panics in
 *                               Rapier 0.21: "unreachable")
 * - three unlocked            → spherical joint; every limited axis is emulated
 *
 * `capabilityTable` is the same statement as a table for the README and the CLI.
 */
import type { PhysikWorld, RigRecord } from '../core/world';

export type JointModel = 'impulse' | 'multibody';
export const jointModels: readonly JointModel[] = ['impulse', 'multibody'];

export type MirrorJointKind = 'floating root' | 'pinned root' | 'spherical' | 'generic' | 'revolute' | 'fixed';
export type AxisName = 'x' | 'y' | 'z';
const AXES: readonly AxisName[] = ['x', 'y', 'z'];

export interface JointPlanEntry {
  /** Bone name and its depth-first index in the rig. */
  bone: string;
  index: number;
  kind: MirrorJointKind;
  /** Revolute: the joint-frame axis it turns about; generic: the axis it locks (0 x, 1 y, 2 z); -1 otherwise. */
  axis: number;
  /** Axes Rapier holds itself (locked axes of fixed and revolute joints, a revolute impulse joint's limit). */
  enforced: AxisName[];
  /** Axes whose limits the mirror applies as torsion-spring torques every step. */
  emulated: AxisName[];
}

/** Joint of every bone of a rig, in depth-first order (the root's entry says floating or pinned). */
export function planJoints(world: PhysikWorld, record: RigRecord, jointModel: JointModel): JointPlanEntry[] {
  const { AngularLimit, Rig } = world.physik;
  const { enabled, min, max } = AngularLimit;
  const plan: JointPlanEntry[] = [];
  for (let i = 0; i < record.bones.length; i++) {
    const b = record.bones[i]!, b3 = b * 3;
    const bone = record.boneNames[i]!;
    if (i === 0) {
      plan.push({ bone, index: 0, kind: Rig.pinned[record.eid] ? 'pinned root' : 'floating root', axis: -1, enforced: [], emulated: [] });
      continue;
    }
    const locked = [0, 1, 2].map((a) => enabled[b3 + a] === 1 && min[b3 + a] === 0 && max[b3 + a] === 0);
    const limited = [0, 1, 2].map((a) => enabled[b3 + a] === 1 && !locked[a]);
    const open = [0, 1, 2].filter((a) => !locked[a]);
    const lockedNames = AXES.filter((_, a) => locked[a]);
    if (open.length === 0) {
      plan.push({ bone, index: i, kind: 'fixed', axis: -1, enforced: lockedNames, emulated: [] });
    } else if (open.length === 1) {
      const a = open[0]!;
      const byRapier = limited[a] && jointModel === 'impulse';
      plan.push({
        bone, index: i, kind: 'revolute', axis: a,
        enforced: byRapier ? AXES.filter((_, k) => locked[k] || k === a) : lockedNames,
        emulated: limited[a] && !byRapier ? [AXES[a]!] : [],
      });
    } else if (open.length === 2 && jointModel === 'impulse') {
      const a = [0, 1, 2].find((k) => locked[k])!;
      plan.push({ bone, index: i, kind: 'generic', axis: a, enforced: lockedNames, emulated: AXES.filter((_, k) => limited[k]) });
    } else {
      plan.push({ bone, index: i, kind: 'spherical', axis: -1, enforced: [], emulated: AXES.filter((_, a) => enabled[b3 + a] === 1) });
    }
  }
  return plan;
}

/** Counts of a plan, for one-line summaries: "12 spherical (4 emulated limits), 4 revolute, ...". */
export function summarisePlan(plan: readonly JointPlanEntry[]): string {
  const kinds: Record<string, number> = {};
  let emulated = 0;
  for (const e of plan) {
    kinds[e.kind] = (kinds[e.kind] ?? 0) + 1;
    if (e.emulated.length > 0) emulated++;
  }
  const parts = Object.entries(kinds).map(([k, n]) => `${n} ${k}`);
  return `${parts.join(', ')}; ${emulated} joint${emulated === 1 ? '' : 's'} with emulated limits`;
}

/** What Rapier does itself and what the mirror emulates (README and `physik crosscheck --help`). */
export const capabilityTable = `| rig feature | Rapier, impulse joints (default) | Rapier, multibody joints |
| --- | --- | --- |
| bone | dynamic body at the bone's centre, the bone's mass and solid-cylinder inertia, no collider | same |
| free joint (no limits) | spherical joint (Rapier) | spherical multibody joint (Rapier) |
| one unlocked axis, others [0, 0] (elbow, knee) | revolute joint (Rapier); its limit by Rapier's setLimits (a hard limit, PhysIK's is a stiff spring) | revolute multibody joint (Rapier); its limit emulated |
| all axes [0, 0] (collarbone, hip) | fixed joint (Rapier) | fixed multibody joint (Rapier) |
| limits on two or three axes (wrist, ankle, neck) | spherical joint (Rapier) + emulated limits | same |
| emulated limit | PhysIK's torsion spring each step (same per-axis angles in the joint frame, stiffness κ × the bone's limit inertia, same torque direction and cap), torque on the bone and its opposite on the parent; explicit, so without PhysIK's implicit dt² term | same |
| PhysIK's hard stop a little past a limit | not mirrored | not mirrored |
| pinned root | spherical joint to a fixed body at the pin | the same joint as the multibody's first link |
| floating root | free body | free multibody root |
| control springs | force at the attachment point each step, same law (linear or capped), toward the effective target read from the PhysIK world | same |
| damping at both bone ends, F = −c v | Rapier's linear damping 2c/m (exact for the centre's velocity) and angular damping (c L²/2)/I⊥ + β (exact about the transverse axes; Rapier's one rate also damps spin about the bone's axis, where PhysIK only applies β); implicit per body, not through the joints as PhysIK's | the same rates set on the links |
| gravity | none (PhysIK has none; \`gravity\` is a massSpring setting) | none |`;
