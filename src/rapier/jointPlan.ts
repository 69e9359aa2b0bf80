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
import type { PhysikWorld, RigRecord } from '../world/world';

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
| bone | dynamic body at the bone's centre: the bone's mass and solid-cylinder inertia, no collider | same |
| joint with no limits | spherical joint (Rapier) | spherical (Rapier) |
| one open axis, the others [0, 0] (elbow, knee) | revolute joint; its limit by Rapier (\`setLimits\`, a hard limit where PhysIK's is a stiff spring) | revolute; its limit emulated |
| every axis [0, 0] (collarbone, hip) | fixed joint (Rapier) | fixed (Rapier) |
| two open axes, one [0, 0] (twist-free links) | generic joint, that axis locked by Rapier; the open axes' limits emulated | spherical, all three emulated (a two-axis multibody joint panics in Rapier 0.21) |
| limits on three open axes (wrist, ankle, neck) | spherical joint; limits emulated | same |
| emulated limit | PhysIK's torsion spring, same angles (joint-frame rotation vector), stiffness (κ × limit inertia, hard stop 50× past its band) and damping k·dt, through the joint's angular motors (force-based, solved implicitly by Rapier); torque along the joint-frame axis (PhysIK's default is the conservative direction, equal to second order) | the same torque applied by the mirror, with PhysIK's implicit term as extra isotropic inertia 2k dt² on both bones |
| pinned root | spherical joint to a fixed body at the pin | same, as the multibody's first link |
| floating root | free body | free multibody root |
| control springs | force at the attachment point, same law (linear or capped) toward the effective target read from the PhysIK world each step; PhysIK's implicit spring terms (−k dt v, extra mass and inertia) as PhysIK applies them | same |
| damping, F = −c v at both bone ends + angular | PhysIK's implicit damping exactly: effective mass m + 2c dt and inertia I(1 + β dt) + c dt L²/2 as the body's mass properties, the explicit part −2c v, −(βI + c L²/2) ω as forces (Rapier's own damping would scale velocities after the positions moved) | same |
| gravity | none (PhysIK has none; \`gravity\` is a massSpring setting) | none |
| integration | one substep, 4 solver iterations (Rapier's own default is 4 substeps: its positions then lag PhysIK's semi-implicit Euler) | same |`;
