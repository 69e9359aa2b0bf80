/**
 * The cross-check: a scene run by PhysIK and by its Rapier mirror side by side, for the same
 * simulated time. The PhysIK world plays the scene's script and interpolates its targets;
 * each step the mirror reads the effective targets PhysIK used (springs.ts), so both rigs
 * are pulled toward the same points at every step, then steps Rapier. Reported: the distance
 * between the two rigs' bone tips at the end, per bone and overall (max, mean, and as a
 * fraction of the rig's height), the largest tip distance seen during the run, the step from
 * which each rig stayed at rest (PhysIK's own rest test, applied to both: no target moving
 * and every bone end slower than restSpeed × height), and the time per step of each.
 * Runs in Node and in the browser (no file access here).
 */
import { createPhysikWorld, addRig, step, readMetrics } from '../core';
import type { Scene } from '../scene/types';
import { loadRapier } from './load';
import { buildRapierMirror } from './mirror';
import { summarisePlan, type JointModel, type MirrorJointKind } from './jointPlan';
import type { Doubles } from '../../components/doubles';

export interface CrosscheckOptions {
  /** Steps to run (default: the scene's). */
  steps?: number;
  jointModel?: JointModel;
  /** Rapier's constraint-solver iterations per step (default 4). */
  solverIterations?: number;
}

export interface CrosscheckBone {
  bone: string;
  /** The Rapier joint at the bone's head. */
  joint: MirrorJointKind;
  /** Limit axes Rapier holds itself, and those the mirror emulates (torsion springs). */
  enforced: string[];
  emulated: string[];
  /** Distance between the two rigs' tips of this bone at the end, absolute and / height. */
  tipDistance: number;
  normalized: number;
  /** Largest tip distance of this bone at any step. */
  peakTipDistance: number;
}

export interface CrosscheckResult {
  scene: string;
  jointModel: JointModel;
  steps: number;
  dt: number;
  simulatedSeconds: number;
  height: number;
  /** At the end: the largest and the mean tip distance over the bones, and both / height. */
  maxTipDistance: number;
  meanTipDistance: number;
  normalizedMaxDistance: number;
  normalizedMeanDistance: number;
  /** The largest tip distance at any step of the run (transients included). */
  peakTipDistance: number;
  /** The step from which each rig stayed at rest to the end, or null. */
  physikRestStep: number | null;
  rapierRestStep: number | null;
  physikMsPerStep: number;
  rapierMsPerStep: number;
  /** rapierMsPerStep / physikMsPerStep. */
  rapierOverPhysik: number;
  physikFinite: boolean;
  rapierFinite: boolean;
  /** Set when Rapier itself failed (a panic inside its WebAssembly); it was stepped no further. */
  rapierError?: string;
  /** The mirror's joints, counted ("12 spherical, 4 revolute, ...; 4 joints with emulated limits"). */
  joints: string;
  /** How the mirror is driven. */
  targets: string;
  perBone: CrosscheckBone[];
}

/** Run a scene under PhysIK and its Rapier mirror together (Rapier is loaded once, lazily). */
export async function runCrosscheck(scene: Scene, options: CrosscheckOptions = {}): Promise<CrosscheckResult> {
  const R = await loadRapier();
  const jointModel = options.jointModel ?? 'impulse';
  const steps = options.steps ?? scene.steps;
  if (!(Number.isInteger(steps) && steps >= 0)) throw new Error(`crosscheck: steps must be a non-negative integer, got ${steps}`);
  // PhysIK's physics, whatever solver the scene picks: a kinematic solver has no dynamics to compare
  const world = createPhysikWorld();
  const { rig } = addRig(world, {
    rig: scene.rig, controlPoints: scene.controlPoints, script: scene.script,
    settings: { ...scene.settings, solver: 'physik' },
  });
  const record = world.physik.rigs[0]!;
  const { Bone, ControlPoint, Rig } = world.physik;
  const mirror = buildRapierMirror(R, world, rig, { jointModel, solverIterations: options.solverIterations });
  try {
    const n = record.bones.length;
    const tips = new Float64Array(3 * n);
    const peak = new Float64Array(n);
    const height = Rig.height[rig]!;
    let physikMs = 0, rapierMs = 0, rapierRest = -1;
    let rapierError: string | undefined, rapierSteps = 0;
    for (let s = 1; s <= steps; s++) {
      let t0 = performance.now();
      step(world, 1);
      physikMs += performance.now() - t0;
      if (rapierError !== undefined) continue;
      t0 = performance.now();
      try {
        mirror.step();
      } catch (e) {
        rapierError = `Rapier failed at step ${s}: ${e instanceof Error ? e.message : String(e)}`;
        rapierRest = -1;
        continue;
      }
      rapierMs += performance.now() - t0;
      rapierSteps++;
      mirror.tipPositions(tips);
      for (let i = 0; i < n; i++) {
        const d = tipDistance(Bone.tail, record.bones[i]!, tips, i);
        if (d > peak[i]!) peak[i] = d;
      }
      // PhysIK's rest test (metrics system) on the mirror
      let interpolating = false;
      for (const cp of record.controlPoints) if (ControlPoint.interpStep[cp]! < ControlPoint.interpSteps[cp]!) interpolating = true;
      const resting = !interpolating && mirror.finite() && mirror.maxEndSpeed() < record.settings.restSpeed * height;
      if (!resting) rapierRest = -1;
      else if (rapierRest < 0) rapierRest = s;
    }
    if (rapierError !== undefined) tips.fill(NaN);
    else mirror.tipPositions(tips);
    const perBone: CrosscheckBone[] = mirror.plan.map((e) => {
      const d = tipDistance(Bone.tail, record.bones[e.index]!, tips, e.index);
      return { bone: e.bone, joint: e.kind, enforced: e.enforced, emulated: e.emulated, tipDistance: d, normalized: d / height, peakTipDistance: peak[e.index]! };
    });
    const finalDistances = perBone.map((b) => b.tipDistance);
    const maxTip = n > 0 ? Math.max(...finalDistances) : 0;
    const meanTip = n > 0 ? finalDistances.reduce((a, b) => a + b, 0) / n : 0;
    const metrics = readMetrics(world, rig);
    let physikFinite = Number.isFinite(metrics.kineticEnergy);
    for (const b of record.bones) for (let a = 0; a < 3; a++) if (!Number.isFinite(Bone.tail[b * 3 + a]!)) physikFinite = false;
    const physikMsPerStep = steps > 0 ? physikMs / steps : 0;
    const rapierMsPerStep = rapierSteps > 0 ? rapierMs / rapierSteps : 0;
    return {
      scene: scene.name,
      jointModel,
      steps,
      dt: record.settings.dt,
      simulatedSeconds: steps * record.settings.dt,
      height,
      maxTipDistance: maxTip,
      meanTipDistance: meanTip,
      normalizedMaxDistance: maxTip / height,
      normalizedMeanDistance: meanTip / height,
      peakTipDistance: n > 0 ? Math.max(...peak) : 0,
      physikRestStep: metrics.restSince,
      rapierRestStep: rapierRest > 0 ? rapierRest : null,
      physikMsPerStep,
      rapierMsPerStep,
      rapierOverPhysik: physikMsPerStep > 0 ? rapierMsPerStep / physikMsPerStep : 0,
      physikFinite,
      rapierFinite: rapierError === undefined && mirror.finite(),
      ...(rapierError !== undefined ? { rapierError } : {}),
      joints: summarisePlan(mirror.plan),
      targets: 'each step the Rapier springs pull toward the effective targets the PhysIK world used in that step (script and interpolation run once, in PhysIK)',
      perBone,
    };
  } finally {
    // after a panic Rapier's memory may still be borrowed: freeing would throw over the report
    try { mirror.dispose(); } catch { /* nothing more to free */ }
  }
}

function tipDistance(tail: Doubles, b: number, tips: Float64Array, i: number): number {
  return Math.hypot(tail[b * 3]! - tips[i * 3]!, tail[b * 3 + 1]! - tips[i * 3 + 1]!, tail[b * 3 + 2]! - tips[i * 3 + 2]!);
}
