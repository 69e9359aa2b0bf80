/**
 * physik command line (headless, Node).
 *   physik run <scene.json> [--steps N] [--json]   run a scene and print its metrics
 *   physik validate <scene.json>                    check a scene; every error, exit 1 if any
 * Errors are printed as messages naming the file and the JSON path, never as a bare stack.
 */
import { loadSceneFile } from '../scene/loadFile';
import { SceneError } from '../scene/load';
import { runScene, checkExpect } from '../scene/run';

const usage = `usage:
  physik run <scene.json> [--steps N] [--json]
  physik validate <scene.json>`;

class UsageError extends Error {}

interface Parsed { command: string; file: string; steps?: number; json: boolean }

export function parseArgs(argv: string[]): Parsed {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h') throw new UsageError(usage);
  if (command !== 'run' && command !== 'validate') throw new UsageError(`unknown command "${command}"\n${usage}`);
  let file: string | undefined;
  let steps: number | undefined;
  let json = false;
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    if (a === '--json' && command === 'run') json = true;
    else if (a === '--steps' && command === 'run') {
      const v = rest[++i];
      if (v === undefined || !/^\d+$/.test(v)) throw new UsageError(`--steps expects a non-negative integer, got ${v === undefined ? 'nothing' : `"${v}"`}`);
      steps = Number(v);
      if (steps > 10_000_000) throw new UsageError(`--steps ${v} is too large (at most 10000000)`);
    } else if (a.startsWith('-')) throw new UsageError(`unknown option "${a}" for ${command}\n${usage}`);
    else if (file === undefined) file = a;
    else throw new UsageError(`unexpected argument "${a}" (one scene file per call)`);
  }
  if (!file) throw new UsageError(`${command}: missing <scene.json>\n${usage}`);
  return { command, file, steps, json };
}

function fmt(v: number): string {
  return Math.abs(v) >= 1e-3 || v === 0 ? v.toFixed(4) : v.toExponential(2);
}

export function main(argv: string[], out: (s: string) => void = console.log, err: (s: string) => void = console.error): number {
  try {
    const args = parseArgs(argv);
    const scene = loadSceneFile(args.file);
    if (args.command === 'validate') {
      out(`${args.file}: valid (${scene.rig.bones.length} bones, ${scene.controlPoints.length} control points, ${scene.script.length} script events)`);
      return 0;
    }
    const summary = runScene(scene, { steps: args.steps });
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
    if (scene.expect && args.steps === undefined) {
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
