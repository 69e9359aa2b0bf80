/**
 * Work and memory bounds of a headless command over a parsed scene, checked before anything
 * is built or stepped, so a legal-looking scene or command line that would take hours or run
 * out of memory is refused at once with the limit named (`physik validate` runs the same
 * checks; `--allow-large` raises every limit tenfold). Plain functions over the scene and the
 * command's options; each problem is an issue with the JSON path (or the command-line flag)
 * that made the number large.
 *
 * How the limits were set: from the peak memory and the time per unit of work of CLI runs
 * (docs/performance.md has the figures).
 *
 * - World bones, MAX_WORLD_BONES = 200,000: a world's memory grows with its bones once built
 *   (stores, bitecs entities, the rig records; more per bone for a crowd of small rigs, for each
 *   copy's wander script and records). At the bound a world peaks near the memory the recording
 *   bound allows; far larger ones ran V8 out of heap.
 * - Recorded frame-bones, MAX_RECORD_FRAME_BONES = 2,500,000: a recording keeps 56 bytes per
 *   frame and bone (rotation and head, in arrays grown by doubling) and the exporters build the
 *   whole file in memory, JSON taking the most. At the bound every format peaks near the world
 *   bound's memory, and the JSON text stays under V8's largest string (2^29 characters).
 * - Work, MAX_WORK = 1e9 units: a bone-step (one bone through one step of the pipeline) and one
 *   joint in one Gauss-Seidel pass of the iterative inter-joint solve cost about the same, so
 *   1e9 of them is about half an hour at most.
 *   Counted in the worst case: every run a command makes (compare: two per solver and
 *   finish, its warm-up and its timed run; the expect block's variants when it is checked)
 *   for all its steps; the iterative
 *   solve at its pass cap every step (settings.maxPasses, or 5 × joints² when 0, and never
 *   more than a million joint visits a step: systems/interJointSolve.ts); a kinematic solver at
 *   settings.ikIterations every step.
 */
import { settingEnums } from '../core/settings';
import type { Scene, Settings } from './types';
import { iterativePassCap, MAX_JOINT_VISITS_PER_STEP } from '../../systems/interJointSolve';

export const MAX_WORLD_BONES = 200_000;
export const MAX_RECORD_FRAME_BONES = 2_500_000;
export const MAX_WORK = 1e9;
/** How much `--allow-large` raises every limit. */
export const LARGE_FACTOR = 10;
/** Simulated seconds `record` runs when it is given no --steps. */
export const RECORD_SECONDS = 10;

export type BoundCommand = 'run' | 'record' | 'compare' | 'crosscheck';

export interface BoundOptions {
  /** The command (default 'run': the scene as written, what `validate` checks). */
  command?: BoundCommand;
  /** --steps: steps of every run instead of the scene's (record: instead of RECORD_SECONDS / dt). */
  steps?: number;
  /** --solver: the solver of the run instead of the scene's. */
  solver?: string;
  /** record: --fps (default 30). */
  fps?: number;
  allowLarge?: boolean;
}

export interface BoundIssue {
  /** A JSON path of the scene, or the command-line flag ("--steps") that made the number large. */
  path: string;
  message: string;
  /** True when a command-line flag made it large (the CLI exits 2 then, 1 for the scene's own). */
  argument: boolean;
}

/** 2500000, or 2.7e7 and 1e9 for the large ones. */
const count = (n: number) => (n < 1e7 ? String(Math.round(n)) : n.toExponential(2).replace(/\.?0+e/, 'e').replace('e+', 'e'));
const raise = (o: BoundOptions) => (o.allowLarge ? 'already raised by --allow-large' : '--allow-large raises it tenfold');
const limitOf = (limit: number, o: BoundOptions) => limit * (o.allowLarge ? LARGE_FACTOR : 1);

/** Bones stepped in the scene's world: its rig and every crowd copy. */
export function worldBones(scene: Scene): number {
  return scene.rig.bones.length * (1 + (scene.crowd?.count ?? 0));
}

/** Steps each run of the command makes, and where that number comes from. */
export function stepsOf(scene: Scene, options: BoundOptions = {}): { steps: number; path: string } {
  if (options.steps !== undefined) return { steps: options.steps, path: '--steps' };
  if (options.command === 'record') return { steps: Math.ceil(RECORD_SECONDS / scene.settings.dt), path: 'settings.dt' };
  return { steps: scene.steps, path: 'steps' };
}

export interface PlannedRun {
  settings: Settings;
  /** Where the run's settings come from (a JSON path, or --solver). */
  path: string;
  /** Whether the run steps the scene's crowd beside its rig (record and the Rapier mirror do not). */
  crowd: boolean;
}

/** Every run of the scene the command makes, with the settings of each and where they come from. */
export function runsOf(scene: Scene, options: BoundOptions = {}): PlannedRun[] {
  const base = { ...scene.settings, ...(options.solver ? { solver: options.solver } : {}) };
  const runs: PlannedRun[] = [];
  const command = options.command ?? 'run';
  if (command === 'compare') {
    // each solver's run and its warm-up (the same run, untimed)
    for (const solver of settingEnums.solver!) {
      const run: PlannedRun = { settings: { ...scene.settings, solver, finish: 'none' }, path: 'settings', crowd: true };
      runs.push(run, run);
    }
    for (const finish of settingEnums.finish!) {
      if (finish === 'none') continue;
      const run: PlannedRun = { settings: { ...scene.settings, solver: 'physik', finish: finish as Settings['finish'] }, path: 'settings', crowd: true };
      runs.push(run, run);
    }
  } else if (command === 'crosscheck') {
    // PhysIK and its Rapier mirror, counted alike
    runs.push({ settings: { ...scene.settings, solver: 'physik' }, path: 'settings', crowd: false }, { settings: { ...scene.settings, solver: 'physik' }, path: 'settings', crowd: false });
  } else {
    runs.push({ settings: base, path: options.solver ? '--solver' : 'settings', crowd: command === 'run' });
  }
  // the expect block is checked on the scene as written: one more run of it (compare,
  // crosscheck) and one of each compared variant
  if (command !== 'record' && scene.expect && options.steps === undefined && !options.solver) {
    if (command !== 'run') runs.push({ settings: scene.settings, path: 'settings', crowd: true });
    (scene.expect.compare ?? []).forEach((c, i) => runs.push({ settings: { ...scene.settings, ...c.variant.settings }, path: `expect.compare[${i}].variant.settings`, crowd: true }));
  }
  return runs;
}

/** Bones in the world: the rig times one plus the crowd's copies (when the command steps the crowd). */
export function checkWorldBones(scene: Scene, options: BoundOptions = {}): BoundIssue[] {
  const limit = limitOf(MAX_WORLD_BONES, options), n = scene.rig.bones.length, total = worldBones(scene);
  if (total <= limit || !runsOf(scene, options).some((r) => r.crowd)) return [];
  const copies = Math.max(0, Math.floor(limit / n) - 1);
  return [{
    path: 'crowd.count', argument: false,
    message: `expected at most ${copies} copies of this ${n}-bone rig (a world holds at most ${limit} bones, about ${(limit * 8e-6).toFixed(1)} GB of memory; ${raise(options)}), got ${scene.crowd?.count} (${total} bones)`,
  }];
}

/**
 * Work of the command in the worst case: bone-steps of every run, the iterative inter-joint
 * solve at its pass cap, kinematic solvers at their iteration cap; each total within MAX_WORK.
 */
export function checkWork(scene: Scene, options: BoundOptions = {}): BoundIssue[] {
  const issues: BoundIssue[] = [];
  const limit = limitOf(MAX_WORK, options);
  const { steps, path: stepsPath } = stepsOf(scene, options);
  const runs = runsOf(scene, options);
  const n = scene.rig.bones.length, copies = scene.crowd?.count ?? 0, joints = scene.rig.bones.filter((b) => b.parent !== null).length;
  const rigsOf = (r: PlannedRun) => (r.crowd ? 1 + copies : 1);
  const minutes = (units: number) => `about ${Math.max(1, Math.round((units * 2e-6) / 60))} minutes`;
  const runsText = runs.length > 1 ? `${runs.length} runs of ` : '';

  const bonesPerStep = runs.reduce((sum, r) => sum + n * rigsOf(r), 0); // over every run
  const boneSteps = steps * bonesPerStep;
  if (boneSteps > limit) {
    const most = Math.floor(limit / bonesPerStep);
    const bones = n * Math.max(...runs.map(rigsOf));
    issues.push({
      path: stepsPath, argument: stepsPath.startsWith('--'),
      message: `expected at most ${most} steps for ${runsText}this ${bones}-bone world (at most ${count(limit)} bone-steps a command, ${minutes(limit)}; ${raise(options)}), got ${steps} (${count(boneSteps)} bone-steps)`,
    });
  }

  // the iterative inter-joint solve: up to its pass cap every step, each pass over every joint
  const iterative = runs.filter((r) => r.settings.solver === 'physik' && r.settings.interJoint === 'iterative');
  if (iterative.length && joints > 0) {
    const cap = (s: Settings) => iterativePassCap(joints, s.maxPasses);
    const passes = iterative.reduce((sum, r) => sum + steps * cap(r.settings) * joints * rigsOf(r), 0);
    if (passes > limit) {
      const first = iterative[0]!, rigs = rigsOf(first);
      const capText = `${cap(first.settings)} passes a step (settings.maxPasses ${first.settings.maxPasses}: ${first.settings.maxPasses > 0 ? 'as set' : '5 × joints²'}, at most ${MAX_JOINT_VISITS_PER_STEP} / joints)`;
      const maxPasses = Math.floor(limit / (steps * joints * iterative.reduce((sum, r) => sum + rigsOf(r), 0)));
      const where = first.path === '--solver' ? 'settings' : first.path;
      issues.push({
        path: `${where}.interJoint`, argument: false,
        message: `expected at most ${count(limit)} joint passes in the worst case (${minutes(limit)}; ${raise(options)}), got ${count(passes)}: "iterative" may take up to ${capText} over ${joints} joints${rigs > 1 ? ` in each of ${rigs} rigs` : ''}, for ${steps} steps${iterative.length > 1 ? ` in ${iterative.length} runs` : ''}; ${maxPasses >= 1 ? `set settings.maxPasses to at most ${maxPasses}, ` : ''}use "exact" or fewer steps`,
      });
    }
  }

  // kinematic solvers: up to ikIterations sweeps over the bones every step
  const kinematic = runs.filter((r) => r.settings.solver !== 'physik');
  if (kinematic.length) {
    const sweeps = kinematic.reduce((sum, r) => sum + steps * n * rigsOf(r) * r.settings.ikIterations, 0);
    if (sweeps > limit && kinematic.some((r) => r.settings.ikIterations > 1)) {
      const first = kinematic.find((r) => r.settings.ikIterations > 1)!;
      const where = first.path === '--solver' ? 'settings' : first.path;
      issues.push({
        path: `${where}.ikIterations`, argument: false,
        message: `expected at most ${count(limit)} bone iterations in the worst case (${minutes(limit)}; ${raise(options)}), got ${count(sweeps)}: ${first.settings.ikIterations} iterations a step over ${n * rigsOf(first)} bones for ${steps} steps${kinematic.length > 1 ? ` in ${kinematic.length} kinematic runs` : ''}; lower settings.ikIterations or the steps`,
      });
    }
  }
  return issues;
}

/** Frames a recording of `steps` steps of `dt` at `fps` holds (frame 0 is the pose before the first step). */
export function recordedFrames(steps: number, dt: number, fps: number): number {
  return Math.floor(steps * dt * fps + 1e-6) + 1;
}

/** record: frames × bones of the recording within MAX_RECORD_FRAME_BONES. */
export function checkRecordFrames(scene: Scene, options: BoundOptions = {}): BoundIssue[] {
  const limit = limitOf(MAX_RECORD_FRAME_BONES, options);
  const { steps, path: stepsPath } = stepsOf(scene, { ...options, command: 'record' });
  const fps = options.fps ?? 30, bones = scene.rig.bones.length;
  const frames = recordedFrames(steps, scene.settings.dt, fps);
  if (frames * bones <= limit) return [];
  const path = stepsPath === '--steps' ? '--steps' : options.fps !== undefined ? '--fps' : stepsPath;
  const seconds = (Math.floor(limit / bones) - 1) / fps;
  const secondsText = seconds >= 100 ? String(Math.floor(seconds)) : String(Number(seconds.toPrecision(3)));
  return [{
    path, argument: path.startsWith('--'),
    message: `expected at most ${count(limit)} recorded frame-bones (frames × bones, about ${(limit * 6e-7).toFixed(1)} GB of memory at the most; ${raise(options)}), got ${count(frames * bones)}: ${frames} frames (${steps} steps of ${scene.settings.dt} s at ${fps} fps) of ${bones} bones; record at most ${secondsText} s at ${fps} fps, or a lower --fps`,
  }];
}

/** Every bound of the command: the world's bones, the work, and for `record` the recording's size. */
export function workBounds(scene: Scene, options: BoundOptions = {}): BoundIssue[] {
  const world = checkWorldBones(scene, options);
  if (world.length) return world; // the work figures would only repeat it
  return [...checkWork(scene, options), ...(options.command === 'record' ? checkRecordFrames(scene, options) : [])];
}
