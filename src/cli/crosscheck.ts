/**
 * `physik crosscheck <scene.json> [--json] [--steps N] [--joints impulse|multibody]`: the scene
 * run by PhysIK and by its Rapier mirror for the same simulated time (src/rapier), with the
 * distance between the two rigs' bone tips per bone and overall, the step each came to rest
 * and the time per step of each. `--dynamics` adds (or, without a scene, is) the dynamics
 * check: two undamped rigs' tip paths over 2 s against Rapier multibody joints at a small step
 * (src/rapier/dynamics.ts); with a scene and --json its result is the field `dynamics`.
 * Bad arguments exit 2, a bad scene exits 1 (as `run`), and so does a scene whose expect
 * block the scene as written does not meet (checked on one more run of it, without --steps;
 * each failed check on stderr). A scene over the work and memory bounds (src/scene/bounds.ts)
 * is refused before anything is built (`--allow-large` raises them). Rapier is imported only
 * when this command runs.
 */
import { loadSceneFile } from '../scene/loadFile';
import { SceneError } from '../scene/load';
import { runScene, checkExpect, type ExpectResult } from '../scene/run';
import { workBounds } from '../scene/bounds';
import { expectFailures } from './batch';
import type { CrosscheckResult } from '../rapier/crosscheck';
import type { DynamicsCheckResult } from '../rapier/dynamics';
import type { JointModel } from '../rapier/jointPlan';
import { commandSpec, readOptions, stepsOption, UsageError } from './options';

const jointChoices: readonly JointModel[] = ['impulse', 'multibody'];

interface Args { file?: string; json: boolean; steps?: number; joints: JointModel; dynamics: boolean; allowLarge: boolean }

function parse(argv: string[]): Args {
  const spec = commandSpec('crosscheck')!;
  const usage = `usage: physik crosscheck ${spec.args}`;
  const { values, positionals } = readOptions(spec, argv);
  let joints: JointModel = 'impulse';
  if (values.has('joints')) {
    const v = values.get('joints') as string | undefined;
    if (!jointChoices.includes(v as JointModel)) throw new UsageError(`--joints expects impulse or multibody, got ${v === undefined ? 'nothing' : `"${v}"`}`);
    joints = v as JointModel;
  }
  const steps = values.has('steps') ? stepsOption(values.get('steps') as string | undefined) : undefined;
  if (positionals.length > 1) throw new UsageError(`unexpected argument "${positionals[1]}" (one scene file per call)`);
  const file = positionals[0];
  const dynamics = values.has('dynamics');
  if (!file && !dynamics) throw new UsageError(`crosscheck: missing <scene.json>\n${usage}`);
  if (!file && (steps !== undefined || values.has('joints'))) throw new UsageError('crosscheck: --steps and --joints apply to a scene (the dynamics check runs its own rigs)');
  return { file, json: values.has('json'), steps, joints, dynamics, allowLarge: values.has('allow-large') };
}

const pct = (v: number) => `${(v * 100).toFixed(2)}%`;
const num = (v: number) => (Math.abs(v) >= 1e-3 || v === 0 ? v.toFixed(4) : v.toExponential(2));
const us = (ms: number) => `${(ms * 1000).toFixed(1)} us`;

function print(r: CrosscheckResult, out: (s: string) => void): void {
  out(`scene ${r.scene} · ${r.steps} steps of ${r.dt} s (${r.simulatedSeconds.toFixed(2)} s simulated) · Rapier ${r.jointModel} joints: ${r.joints}`);
  if (r.rapierError) out(`  ${r.rapierError}`);
  else if (!r.rapierFinite) out('  Rapier diverged: its state is not finite (distances are NaN)');
  if (!r.physikFinite) out('  PhysIK is not finite');
  const head = ['bone', 'Rapier joint', 'limits by Rapier', 'emulated', 'tip distance', '/ height', 'peak in run'];
  const rows = r.perBone.map((b) => [b.bone, b.joint, b.enforced.join('') || '-', b.emulated.join('') || '-', num(b.tipDistance), pct(b.normalized), num(b.peakTipDistance)]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  for (const row of [head, ...rows]) out(`  ${row.map((c, i) => (i < 4 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')}`);
  out(`  tip distance   max ${num(r.maxTipDistance)} (${pct(r.normalizedMaxDistance)} of the rig's height ${num(r.height)}), mean ${num(r.meanTipDistance)} (${pct(r.normalizedMeanDistance)}); largest during the run ${num(r.peakTipDistance)}`);
  out(`  at rest from   PhysIK step ${r.physikRestStep ?? 'never'}, Rapier step ${r.rapierRestStep ?? 'never'}`);
  out(`  time per step  PhysIK ${us(r.physikMsPerStep)}, Rapier ${us(r.rapierMsPerStep)} (Rapier / PhysIK ${r.rapierOverPhysik.toFixed(2)})`);
  out(`  targets        ${r.targets}`);
}

function printDynamics(r: DynamicsCheckResult, out: (s: string) => void): void {
  out(`dynamics · tip paths over ${r.seconds} s, PhysIK against Rapier multibody joints at dt ${r.rapierDt} (undamped; distances / the rig's height)`);
  for (const c of r.cases) {
    out(`  ${c.name}: ${c.description}`);
    out(`    height ${num(c.height)}, the tip moves up to ${pct(c.tipExcursion)} of it${c.rapierFinite ? '' : ' · Rapier diverged'}; Rapier's own error ${pct(c.rapierError)} (against half its step), its energy change ${pct(c.rapierEnergyChange)}`);
    const head = ['PhysIK dt', 'centripetal', 'max', 'RMS', 'at the end', 'energy change', 'retried steps'];
    const rows = c.runs.map((x) => [String(x.dt), x.centripetal ? 'on' : 'off', pct(x.maxTipDifference), pct(x.rmsTipDifference), pct(x.finalTipDifference), pct(x.energyChange), String(x.retriedSteps)]);
    const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
    for (const row of [head, ...rows]) out(`    ${row.map((cell, i) => (i === 1 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ')}`);
  }
}

/** Run the command; returns the exit code. */
export async function crosscheckCommand(argv: string[], out: (s: string) => void, err: (s: string) => void): Promise<number> {
  let args: Args;
  try {
    args = parse(argv);
  } catch (e) {
    err((e as Error).message);
    return 2;
  }
  try {
    let result: CrosscheckResult | undefined;
    let expect: ExpectResult | undefined;
    let failures: string[] = [];
    if (args.file) {
      const scene = loadSceneFile(args.file);
      const bounds = workBounds(scene, { command: 'crosscheck', steps: args.steps, allowLarge: args.allowLarge });
      if (bounds.some((b) => b.argument)) {
        err(bounds.map((b) => `${args.file}: ${b.path}: ${b.message}`).join('\n'));
        return 2;
      }
      if (bounds.length) throw new SceneError(bounds.map(({ path, message }) => ({ path, message })), args.file);
      const { runCrosscheck } = await import('../rapier/crosscheck');
      result = await runCrosscheck(scene, { steps: args.steps, jointModel: args.joints });
      // the scene's expect block holds for the scene as written (its own steps and solver)
      if (scene.expect && args.steps === undefined) {
        const summary = runScene(scene);
        expect = checkExpect(scene, summary);
        if (!expect.ok) failures = expectFailures(args.file, scene, summary, expect);
      }
    }
    let dynamics: DynamicsCheckResult | undefined;
    if (args.dynamics) {
      const { runDynamicsCheck } = await import('../rapier/dynamics');
      dynamics = await runDynamicsCheck();
    }
    if (args.json) out(JSON.stringify(result ? { ...result, ...(expect ? { expect } : {}), ...(dynamics ? { dynamics } : {}) } : dynamics));
    else {
      if (result) print(result, out);
      if (expect) out(`  expect         ${expect.ok ? 'met' : 'NOT met'} by the scene as written`);
      if (dynamics) printDynamics(dynamics, out);
    }
    for (const f of failures) err(f);
    return failures.length ? 1 : 0;
  } catch (e) {
    if (e instanceof SceneError) { err(e.message); return 1; }
    err(`physik crosscheck: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  }
}
