/**
 * physik command line (headless, Node).
 *   physik run <scene.json> [--steps N] [--solver NAME] [--json]   run a scene, print its metrics
 *   physik compare <scene.json> [--steps N] [--json]                the scene under PhysIK and every solver
 *   physik validate <scene.json>                                    check a scene; every error, exit 1 if any
 * Errors are printed as messages naming the file and the JSON path, never as a bare stack.
 */
import { loadSceneFile } from '../scene/loadFile';
import { SceneError } from '../scene/load';
import { runScene, checkExpect, type RunSummary } from '../scene/run';
import { settingEnums } from '../core/settings';

const usage = `usage:
  physik run <scene.json> [--steps N] [--solver NAME] [--json]
  physik compare <scene.json> [--steps N] [--json]
  physik validate <scene.json>`;

class UsageError extends Error {}

interface Parsed { command: string; file: string; steps?: number; solver?: string; json: boolean }

export function parseArgs(argv: string[]): Parsed {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h') throw new UsageError(usage);
  if (command !== 'run' && command !== 'validate' && command !== 'compare') throw new UsageError(`unknown command "${command}"\n${usage}`);
  let file: string | undefined;
  let steps: number | undefined;
  let solver: string | undefined;
  let json = false;
  const runs = command === 'run' || command === 'compare';
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    if (a === '--json' && runs) json = true;
    else if (a === '--solver' && command === 'run') {
      const v = rest[++i];
      const known = settingEnums.solver!;
      if (v === undefined || !known.includes(v)) throw new UsageError(`--solver expects one of ${known.join(', ')}, got ${v === undefined ? 'nothing' : `"${v}"`}`);
      solver = v;
    } else if (a === '--steps' && runs) {
      const v = rest[++i];
      if (v === undefined || !/^\d+$/.test(v)) throw new UsageError(`--steps expects a non-negative integer, got ${v === undefined ? 'nothing' : `"${v}"`}`);
      steps = Number(v);
      if (steps > 10_000_000) throw new UsageError(`--steps ${v} is too large (at most 10000000)`);
    } else if (a.startsWith('-')) throw new UsageError(`unknown option "${a}" for ${command}\n${usage}`);
    else if (file === undefined) file = a;
    else throw new UsageError(`unexpected argument "${a}" (one scene file per call)`);
  }
  if (!file) throw new UsageError(`${command}: missing <scene.json>\n${usage}`);
  return { command, file, steps, solver, json };
}

function fmt(v: number): string {
  return Math.abs(v) >= 1e-3 || v === 0 ? v.toFixed(4) : v.toExponential(2);
}

/** The scene under PhysIK and every kinematic solver: one row each (a solver that cannot serve the rig says why). */
function compare(scene: Parameters<typeof runScene>[0], args: Parsed, out: (s: string) => void): number {
  const rows: { solver: string; summary?: RunSummary; error?: string }[] = [];
  for (const solver of settingEnums.solver!) {
    try {
      rows.push({ solver, summary: runScene(scene, { steps: args.steps, settings: { solver } }) });
    } catch (e) {
      rows.push({ solver, error: e instanceof Error ? e.message : String(e) });
    }
  }
  if (args.json) {
    out(JSON.stringify({
      scene: scene.name,
      solvers: rows.map((r) => r.summary
        ? { solver: r.solver, status: r.summary.status, finite: r.summary.finite, maxTargetError: r.summary.maxTargetError, maxLimitViolationDeg: r.summary.maxLimitViolationDeg,
            iterations: r.summary.iterations, msPerSolve: r.summary.msPerSolve, maxBendDeg: r.summary.maxBendDeg, bendVariation: r.summary.bendVariation, restDeviation: r.summary.restDeviation }
        : { solver: r.solver, error: r.error }),
    }));
    return 0;
  }
  const head = ['solver', 'status', 'target error', 'limit viol. deg', 'iter/step', 'us/solve', 'max bend deg', 'bend var.', 'off rest'];
  const table = [head, ...rows.map((r) => r.summary
    ? [r.solver, r.summary.finite ? r.summary.status : 'NaN', fmt(r.summary.maxTargetError), fmt(r.summary.maxLimitViolationDeg), r.summary.iterations.mean.toFixed(1),
        (r.summary.msPerSolve * 1000).toFixed(1), fmt(r.summary.maxBendDeg), fmt(r.summary.bendVariation), fmt(r.summary.restDeviation)]
    : [r.solver, `cannot: ${r.error}`, '', '', '', '', '', '', ''])];
  const widths = head.map((_, i) => Math.max(...table.map((row) => (row[i]!.length > 60 ? 0 : row[i]!.length))));
  out(`scene ${scene.name}`);
  for (const row of table) out(row.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  '));
  return 0;
}

export function main(argv: string[], out: (s: string) => void = console.log, err: (s: string) => void = console.error): number {
  try {
    const args = parseArgs(argv);
    const scene = loadSceneFile(args.file);
    if (args.command === 'validate') {
      out(`${args.file}: valid (${scene.rig.bones.length} bones, ${scene.controlPoints.length} control points, ${scene.script.length} script events)`);
      return 0;
    }
    if (args.command === 'compare') return compare(scene, args, out);
    const summary = runScene(scene, { steps: args.steps, settings: args.solver ? { solver: args.solver } : undefined });
    if (args.json) {
      out(JSON.stringify(summary));
      return 0;
    }
    out(`scene ${summary.scene} · solver ${summary.solver} · ${summary.steps} steps`);
    out(`  status            ${summary.status}${summary.converged ? ` (at rest since step ${summary.stepsToConverge})` : ''}`);
    out(`  finite            ${summary.finite}`);
    out(`  target error      max ${fmt(summary.maxTargetError)}  mean ${fmt(summary.meanTargetError)}`);
    for (const [name, e] of Object.entries(summary.targetErrors)) out(`    ${name.padEnd(16)}${fmt(e)}`);
    out(`  limit violation   ${fmt(summary.maxLimitViolationDeg)} deg (peak ${fmt(summary.peakLimitViolationDeg)})`);
    out(`  joint gap         ${fmt(summary.maxJointGap)}`);
    out(`  kinetic energy    ${fmt(summary.kineticEnergy)} (peak ${fmt(summary.peakKineticEnergy)})`);
    out(`  passes per step   mean ${summary.passesPerStep.mean.toFixed(2)}  max ${summary.passesPerStep.max}`);
    out(`  time per step     ${(summary.msPerStep * 1000).toFixed(1)} us`);
    out(`  shape             largest bend change ${fmt(summary.maxBendDeg)} deg, bend variation ${fmt(summary.bendVariation)}, off rest ${fmt(summary.restDeviation)} × height`);
    if (scene.expect && args.steps === undefined && !args.solver) {
      const result = checkExpect(scene, summary);
      out(`  expect            ${result.ok ? 'met' : 'NOT met'}`);
      for (const c of result.checks) out(`    ${c.ok ? 'ok  ' : 'FAIL'} ${c.what}: ${c.detail}`);
    }
    return 0;
  } catch (e) {
    if (e instanceof UsageError) { err(e.message); return 2; }
    if (e instanceof SceneError) { err(e.message); return 1; }
    err(`physik: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  }
}
