/**
 * The plugin's public API over a physik world: move targets, change settings, read the pose
 * and the metrics. Every write is checked first, so a bad value throws and the world is
 * left as it was.
 */
import { findRig, type PhysikWorld, type RigRecord, type SettleListener } from '../world/world';
import { wakeRig } from '../world/wake';
import { setTargetOf, setActiveOf } from '../world/targets';
import { applyDerivedSettings, attachmentPoint, centreOfMass, placeAtStart, resetRigMetrics } from './rig';
import { measureDiagnostics } from '../../systems/metrics';
import { statusNames, type SolveStatus } from '../../components';
import { settingsPatchSchema } from './validation/schema';
import { issuesFromZod, SceneError } from './validation/parse';
import { checkSettingsLimits, checkStructure } from './validation/check';
import type { Settings } from '../world/types';
import { quatMulConjA } from '../math/quat';
import { copyDoubles } from '../../components/doubles';

function rigOfControlPoint(world: PhysikWorld, cp: number): RigRecord {
  for (const r of world.physik.rigs) if (r.controlPoints.includes(cp)) return r;
  throw new Error(`no control point with entity id ${cp} in this world`);
}

/** Move a control point's target; starts interpolation when the move is large enough. */
export function setTarget(world: PhysikWorld, cp: number, target: ArrayLike<number>): void {
  const rig = rigOfControlPoint(world, cp);
  if (target.length !== 3) throw new Error(`target must have 3 components, got ${target.length}`);
  setTargetOf(world, rig, cp, target[0]!, target[1]!, target[2]!);
}

export function setControlPointActive(world: PhysikWorld, cp: number, active: boolean): void {
  setActiveOf(world, rigOfControlPoint(world, cp), cp, active);
}

/** Change a rig's settings; throws (world unchanged) when a value is out of range. */
export function setSettings(world: PhysikWorld, rig: number, patch: Partial<Settings>): void {
  const record = findRig(world, rig);
  // nesting no settings patch has is refused before the patch is read
  const structure = checkStructure(patch, ['settings']);
  if (structure.length) throw new SceneError(structure, `rig "${record.name}"`);
  const parsed = settingsPatchSchema.safeParse(patch, { reportInput: true });
  const issues = [...(parsed.success ? [] : issuesFromZod(parsed.error.issues, ['settings'])), ...checkSettingsLimits(patch, ['settings'])];
  if (!parsed.success || issues.length) throw new SceneError(issues, `rig "${record.name}"`);
  Object.assign(record.settings, parsed.data);
  applyDerivedSettings(world, record);
  wakeRig(world, rig); // a sleeping rig follows its new settings
}

/**
 * Listen to rigs' settling status: called after the step in which a rig's status changes
 * ('settling', 'converged', 'stalled', 'diverged'; systems/settling.ts). Returns the
 * function that removes the listener.
 */
export function onSettle(world: PhysikWorld, listener: SettleListener): () => void {
  const listeners = world.physik.settleListeners;
  listeners.push(listener);
  return () => {
    const i = listeners.indexOf(listener);
    if (i >= 0) listeners.splice(i, 1);
  };
}

export function getSettings(world: PhysikWorld, rig: number): Readonly<Settings> {
  return findRig(world, rig).settings;
}

export interface BonePose {
  head: [number, number, number];
  tail: [number, number, number];
  /** Rotation relative to the parent (the root's is its world rotation), x, y, z, w. */
  local: [number, number, number, number];
  world: [number, number, number, number];
}

const q = new Float64Array(4);

/**
 * The pose: per bone name, world head and tail, local and world rotation. The object has no
 * prototype, so a bone may be called anything (`__proto__`, `constructor`) and is still a key.
 */
export function readPose(world: PhysikWorld, rig: number): Record<string, BonePose> {
  const record = findRig(world, rig);
  const { Bone } = world.physik;
  const out = Object.create(null) as Record<string, BonePose>;
  record.bones.forEach((b, i) => {
    const p = Bone.parent[b]!;
    if (p >= 0) quatMulConjA(q, 0, Bone.rot, p * 4, Bone.rot, b * 4);
    else copyDoubles(q, 0, Bone.rot, b * 4, 4);
    out[record.boneNames[i]!] = {
      head: [Bone.head[b * 3]!, Bone.head[b * 3 + 1]!, Bone.head[b * 3 + 2]!],
      tail: [Bone.tail[b * 3]!, Bone.tail[b * 3 + 1]!, Bone.tail[b * 3 + 2]!],
      local: [q[0]!, q[1]!, q[2]!, q[3]!],
      world: [Bone.rot[b * 4]!, Bone.rot[b * 4 + 1]!, Bone.rot[b * 4 + 2]!, Bone.rot[b * 4 + 3]!],
    };
  });
  return out;
}

export interface RigMetrics {
  step: number;
  /**
   * The rig's settling status (systems/settling.ts): 'settling', 'converged' (at rest on its
   * goals), 'stalled' (at rest short of them, or moving without progress), 'diverged'.
   */
  status: SolveStatus;
  /** Status of the last step's joint solve (PhysIK) or kinematic solve. */
  solveStatus: SolveStatus;
  passes: number;
  mismatch: number;
  passesPerStep: { mean: number; max: number };
  kineticEnergy: number;
  maxTargetError: number;
  meanTargetError: number;
  /** Per goal control point (not poles); an object without a prototype. */
  targetErrors: Record<string, number>;
  maxJointGap: number;
  maxLimitViolationDeg: number;
  maxEndSpeed: number;
  centreOfMass: [number, number, number];
  height: number;
  atRest: boolean;
  /** The step the current rest began, or null while moving. */
  restSince: number | null;
  divergedSteps: number;
  /** Substeps the last step took (1; more when the guard refused the whole step; 0 refused). */
  substeps: number;
  /** Steps the guard refused and substeps then took. */
  retriedSteps: number;
  /** Not stepped until a target or setting changes (`sleepWhenConverged`). */
  sleeping: boolean;
  /** Hybrid finish since the targets last moved: 'none' (not tried), 'reached' the goals, 'short' of them (PhysIK went on). */
  finish: 'none' | 'reached' | 'short';
  /**
   * Static balance after the last step (systems/metrics.ts measureLoads): the largest net load
   * on a bone (|F| + |τ| / length, a force; at rest, the unbalanced spring and limit load), the
   * active control springs' total pull, and the residual over the load it is judged against
   * (the spring load, at least each spring's pull at settleTolerance × height). 0 for a
   * kinematic rig.
   */
  loadResidual: number;
  springLoad: number;
  loadRatio: number;
  /** At rest, every bone end slower than settleTolerance × height per second and loadRatio within restLoad: what 'converged' needs. */
  static: boolean;
}

export function readMetrics(world: PhysikWorld, rig: number): RigMetrics {
  const record = findRig(world, rig);
  const { Rig, ControlPoint } = world.physik;
  const r = rig;
  const targetErrors = Object.create(null) as Record<string, number>; // keyed by any name (no prototype)
  record.controlPoints.forEach((cp, i) => {
    const c3 = cp * 3;
    if (ControlPoint.pole[cp]) return; // a pole is a direction hint, not a target
    targetErrors[record.controlPointNames[i]!] = Math.hypot(
      ControlPoint.target[c3]! - ControlPoint.attachment[c3]!,
      ControlPoint.target[c3 + 1]! - ControlPoint.attachment[c3 + 1]!,
      ControlPoint.target[c3 + 2]! - ControlPoint.attachment[c3 + 2]!,
    );
  });
  measureDiagnostics(world, record); // joint gaps and limit violations of the pose, if not measured yet
  const solved = Rig.stepsSolved[r]!;
  const solveStatus = statusNames[Rig.solveStatus[r]!]!;
  const atRest = Rig.atRest[r] === 1;
  return {
    step: Rig.step[r]!,
    status: statusNames[Rig.settle[r]!]!,
    solveStatus,
    passes: Rig.passes[r]!,
    mismatch: Rig.mismatch[r]!,
    passesPerStep: { mean: solved > 0 ? Rig.passesTotal[r]! / solved : 0, max: Rig.passesMax[r]! },
    kineticEnergy: Rig.kineticEnergy[r]!,
    maxTargetError: Rig.maxTargetError[r]!,
    meanTargetError: Rig.meanTargetError[r]!,
    targetErrors,
    maxJointGap: Rig.maxJointGap[r]!,
    maxLimitViolationDeg: (Rig.maxLimitViolation[r]! * 180) / Math.PI,
    maxEndSpeed: Rig.maxEndSpeed[r]!,
    centreOfMass: [Rig.centreOfMass[r * 3]!, Rig.centreOfMass[r * 3 + 1]!, Rig.centreOfMass[r * 3 + 2]!],
    height: Rig.height[r]!,
    atRest,
    restSince: Rig.restSince[r]! >= 0 ? Rig.restSince[r]! : null,
    divergedSteps: Rig.diverged[r]!,
    substeps: Rig.substeps[r]!,
    retriedSteps: Rig.retriedSteps[r]!,
    sleeping: Rig.sleeping[r] === 1,
    finish: (['none', 'reached', 'short'] as const)[Rig.finishing[r]!]!,
    loadResidual: Rig.loadResidual[r]!,
    springLoad: Rig.springLoad[r]!,
    loadRatio: Rig.loadScale[r]! > 0 ? Rig.loadResidual[r]! / Rig.loadScale[r]! : 0,
    static: Rig.static[r] === 1,
  };
}

/**
 * Put a rig back as it was added: its starting pose (a scene's `start`, else the rest pose),
 * zero velocities and joint forces, targets and active flags as added, script from the start,
 * metrics cleared. Stepping afterwards gives the same results as a fresh world.
 */
export function resetRig(world: PhysikWorld, rig: number): void {
  const record = findRig(world, rig);
  const { ControlPoint, Rig } = world.physik;
  placeAtStart(world, record);
  record.controlPoints.forEach((cp, i) => {
    copyDoubles(ControlPoint.target, cp * 3, record.initialTargets, i * 3, 3);
    copyDoubles(ControlPoint.effective, cp * 3, record.initialTargets, i * 3, 3);
    ControlPoint.interpStep[cp] = 0;
    ControlPoint.interpSteps[cp] = 0;
    ControlPoint.active[cp] = record.initialActive[i]!;
    attachmentPoint(world, cp, ControlPoint.attachment, cp * 3);
  });
  resetRigMetrics(world, rig);
  Rig.loadResidual[rig] = 0; Rig.springLoad[rig] = 0; Rig.loadScale[rig] = 0; Rig.static[rig] = 0; // as a fresh rig's
  centreOfMass(world, record.bones, rig);
  record.scriptCursor = 0;
}
