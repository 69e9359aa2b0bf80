/**
 * physik command line (headless, Node).
 *   physik run <scene.json> [--steps N] [--solver NAME] [--json]   run a scene, print its metrics
 *   physik run <a.json> <b.json> … [--workers N] [...]             run many, in worker threads (batch.ts)
 *   physik compare <scene.json> [--steps N] [--json]                the scene under PhysIK and every solver
 *   physik compare <rig.glb|.gltf|.bvh> [--seed N]                   the same on a character, goals it can reach
 *   physik validate <scene.json>                                    check a scene; every error, exit 1 if any
 *   physik record <scene.json> [--steps N] [--fps F] [--solver NAME] --out <file.glb|.bvh|.json>
 *                                                                   record the run as animation
 *   physik import <file.glb|.gltf|.bvh> --out <scene.json> [--control-points N] [--up auto|y|z] [--scale S]
 *                                                                   a rig from glTF or BVH, as a scene file
 *   physik crosscheck <scene.json> [--json] [--steps N] [--joints impulse|multibody] [--dynamics]
 *                                                                   PhysIK against a Rapier mirror (crosscheck.ts)
 *   physik crosscheck --dynamics [--json]                          undamped swings against Rapier multibody joints
 *   physik capture <rig.glb|.gltf|.bvh> [--clip NAME] [--markers A,B,…] [--drive A,B,…|all]
 *          [--stiffness S] [--damping-ratio Z] --out <file.glb|.bvh|.json>   physics on top of a clip (capture.ts)
 * run, compare, validate, record and crosscheck also take --allow-large (bounds.ts's limits, tenfold).
 * Errors are printed as messages naming the file and the JSON path, never as a bare stack.
 * Exit codes: 0 done (and every checked expect block met), 1 a bad or unreadable file, a file
 * that cannot be written, or an expect block not met (each failed check on stderr as
 * `file: expect.path: expected …, got …`), 2 bad arguments. A scene over the work and memory
 * bounds (src/scene/bounds.ts) is refused before anything is built (`--allow-large` raises
 * them). Output files are written whole or not at all (src/io/atomicWrite.ts) and never over
 * an input of the same command. When the reader of stdout goes away (`| head`) the command
 * stops and exits 0; a full device exits 1 with one line on stderr.
 */
import { loadSceneFile, readInputFile } from '../scene/loadFile';
import { SceneError } from '../scene/load';
import { runScene, checkExpect, STEADY_STEPS, type RunSummary } from '../scene/run';
import { settingEnums } from '../core/settings';
import { realpathSync, statSync, writeSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { writeFileAtomic } from '../io/atomicWrite';
import { workBounds, stepsOf, type BoundOptions } from '../scene/bounds';
import { reachableGoals } from '../scene/reachableGoals';
import { addRig, createPhysikWorld } from '../core';
import { recordSteps } from '../io/recorder';
import { recordingToJson, RecordingError } from '../io/recordingJson';
import { recordingToBvh } from '../io/bvhExport';
import { importBvh } from '../io/bvhImport';
import { ImportError } from '../io/skeleton';
import type { Scene, Settings } from '../scene/types';
import { crosscheckCommand } from './crosscheck';
import { commandHelp, commandSpec, loadOptional, mainHelp, packageVersion, readOptions, stepsOption, usageLines, UsageError } from './options';
import { runBatch, defaultWorkers, cpuCount, expectFailures, type BatchResult } from './batch';

async function recordCommand(scene: Scene, args: Parsed, out: (s: string) => void): Promise<number> {
  const world = createPhysikWorld();
  const settings = { ...scene.settings, ...(args.solver ? { solver: args.solver } : {}) };
  const { rig } = addRig(world, { rig: scene.rig, controlPoints: scene.controlPoints, settings, script: scene.script, ...(scene.start ? { start: scene.start } : {}) });
  // without --steps: 10 s of simulated time (bounds.ts's RECORD_SECONDS), whatever the scene's steps
  const { steps } = stepsOf(scene, { command: 'record', steps: args.steps });
  const rec = recordSteps(world, rig, steps, { fps: args.fps ?? 30 });
  const file = args.out!;
  const kind = extOf(file);
  // (three.js writes glTF: loaded only for a .glb, so the rest works without it)
  const glb = async () => (await loadOptional(() => import('../io/gltfExport'), 'three', 'writing .glb')).recordingToGlb(rec);
  const data = kind === '.glb' ? new Uint8Array(await glb()) : kind === '.bvh' ? recordingToBvh(rec) : recordingToJson(rec);
  writeFileAtomic(file, data);
  const bytes = typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength;
  out(`${file}: ${rec.frameCount} frames at ${rec.fps} fps (${(rec.times[rec.frameCount - 1] ?? 0).toFixed(2)} s, ${steps} steps of ${scene.name}), ${rec.bones.length} bones, ${bytes} bytes`);
  return 0;
}

/** A character file imported as a scene (the notes the importer wrote beside it). */
async function importScene(args: Parsed): Promise<{ scene: Scene; warnings: string[] }> {
  const kind = extOf(args.file);
  let bytes: Buffer;
  try {
    bytes = readInputFile(args.file, 512 * 1024 * 1024); // a .glb with its meshes and textures may be large
  } catch (e) {
    throw new ImportError(args.file, (e as Error).message);
  }
  const options = { controlPoints: args.controlPoints ?? 2, ...(args.up ? { up: args.up } : {}), ...(args.scale ? { scale: args.scale } : {}) };
  return kind === '.bvh'
    ? importBvh(bytes.toString('utf8'), args.file, options)
    : await (await loadOptional(() => import('../io/gltfImport'), 'three', 'reading glTF')).importGltf(kind === '.gltf' ? bytes.toString('utf8') : new Uint8Array(bytes), args.file, options);
}

async function importCommand(args: Parsed, out: (s: string) => void): Promise<number> {
  const result = await importScene(args);
  writeFileAtomic(args.out!, `${JSON.stringify(result.scene, null, 2)}\n`);
  const { scene } = result;
  out(`${args.out}: rig "${scene.rig.name}", ${scene.rig.bones.length} bones, ${scene.controlPoints.length} control points (${scene.controlPoints.map((c) => `${c.name} on ${c.bone}`).join(', ') || 'none'})`);
  for (const w of result.warnings) out(`  note: ${w}`);
  return 0;
}

interface Parsed {
  command: string; file: string; steps?: number; solver?: string; json: boolean;
  /** Every scene file named (run takes several: a batch); file is the first. */
  files: string[]; workers?: number;
  /** Raise the work and memory bounds tenfold (src/scene/bounds.ts). */
  allowLarge: boolean;
  out?: string; fps?: number; controlPoints?: number; up?: 'auto' | 'y' | 'z'; scale?: number;
  /** compare on a character file: the random pose its goals come from. */
  seed?: number;
}

/** File kinds `record --out` writes and `import` reads, by extension. */
const recordKinds = ['.glb', '.bvh', '.json'];
const importKinds = ['.glb', '.gltf', '.bvh'];
const extOf = (f: string) => (/\.[^./\\]+$/.exec(f)?.[0] ?? '').toLowerCase();

function positiveNumber(option: string, v: string | undefined, max: number): number {
  const n = v === undefined ? NaN : Number(v);
  if (!(Number.isFinite(n) && n > 0 && n <= max)) throw new UsageError(`${option} expects a number in (0, ${max}], got ${v === undefined ? 'nothing' : `"${v}"`}`);
  return n;
}

/** The arguments of a command other than crosscheck (which reads its own: crosscheck.ts), checked. */
export function parseArgs(argv: string[]): Parsed {
  const [command, ...rest] = argv;
  if (!command) throw new UsageError(usageLines());
  const spec = commandSpec(command);
  if (!spec || command === 'crosscheck' || command === 'capture') throw new UsageError(`unknown command "${command}"\n${usageLines()}`);
  const { values, positionals } = readOptions(spec, rest);
  const text = (name: string) => values.get(name) as string | undefined;
  const got = (v: string | undefined) => (v === undefined ? 'nothing' : `"${v}"`);
  const parsed: Parsed = { command, file: '', files: [], json: values.has('json'), allowLarge: values.has('allow-large') };
  if (values.has('out')) {
    const out = text('out');
    if (out === undefined || out.startsWith('-')) throw new UsageError(`--out expects a file name, got ${got(out)}`);
    const kinds = command === 'record' ? recordKinds : ['.json'];
    if (!kinds.includes(extOf(out))) throw new UsageError(`--out ${out}: ${command} writes ${kinds.join(', ')} files (by extension)`);
    parsed.out = out;
  }
  if (values.has('fps')) parsed.fps = positiveNumber('--fps', text('fps'), 1000);
  if (values.has('scale')) parsed.scale = positiveNumber('--scale', text('scale'), 1e6);
  if (values.has('up')) {
    const v = text('up');
    if (v !== 'auto' && v !== 'y' && v !== 'z') throw new UsageError(`--up expects auto, y or z, got ${got(v)}`);
    parsed.up = v;
  }
  if (values.has('control-points')) {
    const v = text('control-points');
    if (v === undefined || !/^\d+$/.test(v) || Number(v) > 64) throw new UsageError(`--control-points expects a whole number from 0 to 64, got ${got(v)}`);
    parsed.controlPoints = Number(v);
  }
  if (values.has('solver')) {
    const v = text('solver');
    const known = settingEnums.solver!;
    if (v === undefined || !known.includes(v)) throw new UsageError(`--solver expects one of ${known.join(', ')}, got ${got(v)}`);
    parsed.solver = v;
  }
  if (values.has('steps')) parsed.steps = stepsOption(text('steps'));
  if (values.has('seed')) {
    const v = text('seed');
    if (v === undefined || !/^\d+$/.test(v) || Number(v) > 0xffffffff) throw new UsageError(`--seed expects a whole number from 0 to 4294967295, got ${got(v)}`);
    parsed.seed = Number(v);
  }
  if (values.has('workers')) {
    const v = text('workers');
    if (v === undefined || !/^\d+$/.test(v) || Number(v) < 1 || Number(v) > 64) throw new UsageError(`--workers expects a whole number from 1 to 64, got ${got(v)}`);
    parsed.workers = Number(v);
  }
  for (const a of positionals) {
    if (!parsed.file) { parsed.file = a; parsed.files.push(a); }
    else if (command === 'run') parsed.files.push(a);
    else throw new UsageError(`unexpected argument "${a}" (one ${command === 'import' ? 'file' : 'scene file'} per call)`);
  }
  if (!parsed.file) throw new UsageError(`${command}: missing ${command === 'import' ? '<file.glb|.gltf|.bvh>' : '<scene.json>'}\nusage: physik ${spec.name} ${spec.args}`);
  if ((command === 'record' || command === 'import') && !parsed.out) throw new UsageError(`${command}: missing --out <file>\nusage: physik ${spec.name} ${spec.args}`);
  if (command === 'compare' && parsed.seed !== undefined && !importKinds.includes(extOf(parsed.file))) throw new UsageError(`--seed: only a character file (${importKinds.join(', ')}) takes it; a scene's goals are its own`);
  if (command === 'import' && !importKinds.includes(extOf(parsed.file))) throw new UsageError(`import reads ${importKinds.join(', ')} files (by extension), got ${parsed.file}`);
  return parsed;
}

function fmt(v: number): string {
  return Math.abs(v) >= 1e-3 || v === 0 ? v.toFixed(4) : v.toExponential(2);
}

/**
 * The scene under PhysIK and every kinematic solver: one row each (a solver that cannot serve
 * the rig says why). Without --steps, the scene's expect block is checked on the run of the
 * scene as written (the row with its own solver and finish, else one more run): exit 1 when
 * it is not met.
 */
function compare(scene: Scene, args: Parsed, out: (s: string) => void, err: (s: string) => void): number {
  const rows: { solver: string; summary?: RunSummary; error?: string }[] = [];
  // every solver alone, and PhysIK with each hybrid finish (systems/settling.ts)
  const variants: [string, Partial<Settings>][] = [
    ...settingEnums.solver!.map((solver): [string, Partial<Settings>] => [solver, { solver, finish: 'none' }]),
    ...settingEnums.finish!.filter((f) => f !== 'none').map((finish): [string, Partial<Settings>] => [`physik+${finish}`, { solver: 'physik', finish: finish as Settings['finish'] }]),
  ];
  // every run once untimed first, so the time column is the solvers', not V8 compiling them
  // (the step and the systems every solver shares are compiled after some thousands of steps)
  for (const [, settings] of variants) {
    try { runScene(scene, { steps: args.steps, settings }); } catch { /* reported by the timed run */ }
  }
  for (const [solver, settings] of variants) {
    try {
      rows.push({ solver, summary: runScene(scene, { steps: args.steps, settings }) });
    } catch (e) {
      rows.push({ solver, error: e instanceof Error ? e.message : String(e) });
    }
  }
  let expectResult: ReturnType<typeof checkExpect> | undefined;
  let failures: string[] = [];
  if (scene.expect && args.steps === undefined) {
    const own = variants.findIndex(([, v]) => v.solver === scene.settings.solver && v.finish === scene.settings.finish);
    const summary = (own >= 0 ? rows[own]!.summary : undefined) ?? runScene(scene);
    expectResult = checkExpect(scene, summary);
    failures = expectResult.ok ? [] : expectFailures(args.file, scene, summary, expectResult);
  }
  const code = expectDone(failures, err);
  if (args.json) {
    out(JSON.stringify({
      scene: scene.name,
      ...(expectResult ? { expect: expectResult } : {}),
      solvers: rows.map((r) => r.summary
        ? {
          solver: r.solver, status: r.summary.status, ...(r.summary.solveNote ? { solveNote: r.summary.solveNote } : {}), finite: r.summary.finite,
          stepsToConverge: r.summary.stepsToConverge, maxTargetError: r.summary.maxTargetError, maxLimitViolationDeg: r.summary.maxLimitViolationDeg,
          iterations: r.summary.iterations, msPerSolve: r.summary.msPerSolve, msPerStepMedian: r.summary.msPerStepMedian,
          maxBendDeg: r.summary.maxBendDeg, bendVariation: r.summary.bendVariation, restDeviation: r.summary.restDeviation,
        }
        : { solver: r.solver, error: r.error }),
    }));
    return code;
  }
  const head = ['solver', 'status', 'at rest from', 'target error', 'limit viol. deg', 'iter/step', 'us/step (median, warm)', 'max bend deg', 'bend var.', 'off rest'];
  // what a solver cannot honour by its nature: a mark in the status column, the note under the table
  const notes: string[] = [];
  const noteMark = (note: string): string => {
    if (!note) return '';
    notes.push(note);
    return ` [${notes.length}]`;
  };
  const table = [head, ...rows.map((r) => r.summary
    ? [r.solver, (r.summary.finite ? r.summary.status : 'NaN') + noteMark(r.summary.solveNote), r.summary.stepsToConverge === null ? '-' : String(r.summary.stepsToConverge), fmt(r.summary.maxTargetError), fmt(r.summary.maxLimitViolationDeg), r.summary.iterations.mean.toFixed(1),
        (r.summary.msPerStepMedian * 1000).toFixed(1), fmt(r.summary.maxBendDeg), fmt(r.summary.bendVariation), fmt(r.summary.restDeviation)]
    : [r.solver, `cannot: ${r.error}`, '', '', '', '', '', '', '', ''])];
  const widths = head.map((_, i) => Math.max(...table.map((row) => (row[i]!.length > 60 ? 0 : row[i]!.length))));
  out(`scene ${scene.name}`);
  for (const row of table) out(row.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  '));
  notes.forEach((note, i) => out(`[${i + 1}] ${note}`));
  if (expectResult) out(`expect of ${scene.settings.solver}${scene.settings.finish !== 'none' ? `+${scene.settings.finish}` : ''} as written: ${expectResult.ok ? 'met' : 'NOT met'}`);
  return code;
}

/** Print the expect checks not met on stderr; the exit code: 1 when there are any. */
function expectDone(failures: readonly string[], err: (s: string) => void): number {
  for (const f of failures) err(f);
  return failures.length ? 1 : 0;
}

/** The real path of `p`, or for a file not there yet its directory's real path and its name. */
function realPathOf(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    try { return join(realpathSync(dirname(resolve(p))), basename(p)); } catch { return resolve(p); }
  }
}

/** Refuse (exit 2) an --out that is one of the command's inputs: the same real path, or a hard link to it. */
function refuseOverwritingInput(command: string, out: string, inputs: readonly string[]): void {
  const target = realPathOf(out);
  let outStat: { dev: number; ino: number } | undefined;
  try { outStat = statSync(out); } catch { /* not there yet */ }
  for (const input of inputs) {
    let same = realPathOf(input) === target;
    if (!same && outStat) {
      try { const s = statSync(input); same = s.dev === outStat.dev && s.ino === outStat.ino; } catch { /* unreadable inputs are reported when read */ }
    }
    if (same) throw new UsageError(`--out ${out} is ${input}, the file ${command} reads: it would be overwritten; write to another file`);
  }
}

/**
 * Bounds of the command (src/scene/bounds.ts), before anything is built: over them, a
 * SceneError naming the file and the JSON path (exit 1), or a UsageError naming the flag
 * (exit 2) when a command-line option made the number large.
 */
function checkBounds(file: string, scene: Scene, options: BoundOptions): void {
  const issues = workBounds(scene, options);
  if (!issues.length) return;
  if (issues.some((i) => i.argument)) throw new UsageError(issues.map((i) => `${file}: ${i.path}: ${i.message}`).join('\n'));
  throw new SceneError(issues.map(({ path, message }) => ({ path, message })), file);
}

/**
 * The process's stdout and stderr, when main writes to them: a reader that went away (EPIPE,
 * `physik run … | head`) ends the command at once with exit 0; any other write error (ENOSPC
 * on a full device) ends it with exit 1 and one line on stderr. Never an unhandled 'error'
 * event with its stack.
 */
let streamsGuarded = false;
function guardStdStreams(): void {
  if (streamsGuarded) return;
  streamsGuarded = true;
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(0);
    const why = e.code === 'ENOSPC' ? 'no space left on the device' : e.message;
    try { writeSync(2, `physik: cannot write to standard output: ${why}\n`); } catch { /* stderr gone too */ }
    process.exit(1);
  });
  // nowhere left to report a failure of stderr itself: the exit code still says what happened
  process.stderr.on('error', () => {});
}

const stdoutLine = (s: string) => console.log(s);
const stderrLine = (s: string) => console.error(s);

export async function main(argv: string[], out: (s: string) => void = stdoutLine, err: (s: string) => void = stderrLine): Promise<number> {
  if (out === stdoutLine || err === stderrLine) guardStdStreams();
  // help and version, on stdout with exit 0
  if (argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    const spec = argv[1] ? commandSpec(argv[1]) : undefined;
    out(spec ? commandHelp(spec) : mainHelp(packageVersion()));
    return 0;
  }
  if (argv[0] === '--version' || argv[0] === '-v') { out(packageVersion()); return 0; }
  const asked = argv[0] ? commandSpec(argv[0]) : undefined;
  if (asked && argv.slice(1).some((a) => a === '--help' || a === '-h')) { out(commandHelp(asked)); return 0; }
  if (argv[0] === 'crosscheck') return crosscheckCommand(argv.slice(1), out, err);
  if (argv[0] === 'capture') return (await import('./capture')).captureCommand(argv.slice(1), out, err);
  try {
    const args = parseArgs(argv);
    if (args.out) refuseOverwritingInput(args.command, args.out, args.files);
    if (args.command === 'import') return await importCommand(args, out);
    if (args.command === 'run' && args.files.length > 1) return await batchCommand(args, out, err);
    if (args.command === 'compare' && importKinds.includes(extOf(args.file))) {
      const seed = args.seed ?? 1;
      const { scene: imported } = await importScene(args);
      const scene = reachableGoals(imported, seed);
      checkBounds(args.file, scene, { command: 'compare', steps: args.steps, allowLarge: args.allowLarge });
      const goals = scene.controlPoints.filter((c) => c.role !== 'pole').map((c) => `${c.name} on ${c.bone}`);
      out(`${args.file}: rig "${scene.rig.name}", ${scene.rig.bones.length} bones; goals ${goals.join(', ') || 'none'} moved to a pose within the joints' limits (seed ${seed})`);
      return compare(scene, args, out, err);
    }
    const scene = loadSceneFile(args.file);
    // validate checks the scene as `run` runs it
    const command = args.command === 'validate' ? 'run' : (args.command as 'run' | 'record' | 'compare');
    checkBounds(args.file, scene, { command, steps: args.steps, solver: args.solver, fps: args.fps, allowLarge: args.allowLarge });
    if (args.command === 'record') return await recordCommand(scene, args, out);
    if (args.command === 'validate') {
      out(`${args.file}: valid (${scene.rig.bones.length} bones, ${scene.controlPoints.length} control points, ${scene.script.length} script events)`);
      return 0;
    }
    if (args.command === 'compare') return compare(scene, args, out, err);
    const summary = runScene(scene, { steps: args.steps, settings: args.solver ? { solver: args.solver } : undefined });
    // the expect block holds for the scene as written (its steps and solver)
    const expectResult = scene.expect && args.steps === undefined && !args.solver ? checkExpect(scene, summary) : undefined;
    const failures = expectResult && !expectResult.ok ? expectFailures(args.file, scene, summary, expectResult) : [];
    if (args.json) out(JSON.stringify(summary));
    else printRun(summary, expectResult, out);
    return expectDone(failures, err);
  } catch (e) {
    if (e instanceof UsageError) { err(e.message); return 2; }
    if (e instanceof SceneError || e instanceof ImportError || e instanceof RecordingError) { err(e.message); return 1; }
    err(`physik: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  }
}

/**
 * `run` over several scene files: a batch (batch.ts), in worker threads, results in file order
 * (the same blocks as one run each, or one JSON array of { file, summary, expect, failures }
 * and { file, error }); exit 1 if any file could not be run or any expect block was not met
 * (each failed check on stderr). More --workers than the machine's CPUs are cut to the CPUs.
 */
async function batchCommand(args: Parsed, out: (s: string) => void, err: (s: string) => void): Promise<number> {
  let workers = args.workers ?? defaultWorkers(args.files.length);
  const cpus = cpuCount();
  if (workers > cpus) {
    err(`physik: --workers ${workers} is more than the ${cpus} CPUs of this machine (os.availableParallelism()); using ${cpus}`);
    workers = cpus;
  }
  const t0 = performance.now();
  const results: BatchResult[] = await runBatch(args.files.map((file) => ({ file, steps: args.steps, solver: args.solver, allowLarge: args.allowLarge })), workers);
  const seconds = (performance.now() - t0) / 1000;
  const failed = results.filter((r) => r.error).length;
  const failures = results.flatMap((r) => r.failures ?? []);
  if (args.json) {
    out(JSON.stringify(results));
    expectDone(failures, err);
    return failed || failures.length ? 1 : 0;
  }
  for (const r of results) {
    if (r.error) { err(r.error); continue; }
    out(`${r.file}:`);
    printRun(r.summary!, r.expect, out);
  }
  const checked = results.filter((r) => r.expect), met = checked.filter((r) => r.expect!.ok).length;
  out(`${results.length} scenes: ${results.length - failed} ran${checked.length ? ` (expect met in ${met} of ${checked.length})` : ''}, ${failed} could not be run; ${Math.min(workers, results.length) > 1 ? `${Math.min(workers, results.length)} worker threads` : 'in this thread'}, ${seconds.toFixed(1)} s`);
  expectDone(failures, err);
  return failed || failures.length ? 1 : 0;
}

/** The text report of one run (and its scene's expect block, when checked). */
function printRun(summary: RunSummary, expectResult: ReturnType<typeof checkExpect> | undefined, out: (s: string) => void): void {
  out(`scene ${summary.scene} · solver ${summary.solver} · ${summary.steps} steps`);
  out(`  status            ${summary.status}${summary.converged ? ` (at rest since step ${summary.stepsToConverge})` : ''}`);
  out(`  finite            ${summary.finite}`);
  out(`  target error      max ${fmt(summary.maxTargetError)}  mean ${fmt(summary.meanTargetError)}`);
  for (const [name, e] of Object.entries(summary.targetErrors)) out(`    ${name.padEnd(16)}${fmt(e)}`);
  out(`  limit violation   ${fmt(summary.maxLimitViolationDeg)} deg (peak ${fmt(summary.peakLimitViolationDeg)})`);
  out(`  joint gap         ${fmt(summary.maxJointGap)}`);
  out(`  kinetic energy    ${fmt(summary.kineticEnergy)} (peak ${fmt(summary.peakKineticEnergy)})`);
  out(`  static balance    ${summary.static ? 'static' : 'not static'}: load residual ${fmt(summary.loadResidual)}, ${fmt(summary.loadRatio)} of the spring load ${fmt(summary.springLoad)} (each spring at least at its pull at the tolerance); fastest end ${fmt(summary.maxEndSpeed / summary.height)} × height/s`);
  out(`  passes per step   mean ${summary.passesPerStep.mean.toFixed(2)}  max ${summary.passesPerStep.max}`);
  const steadySteps = Math.min(STEADY_STEPS, summary.steps);
  out(`  time per step     ${(summary.msPerStepSteady * 1000).toFixed(1)} us over the last ${steadySteps} steps, ${(summary.msPerStep * 1000).toFixed(1)} us over the run${summary.crowd ? ' (the whole world)' : ''}; the first few hundred steps of a process run before V8 has compiled the step`);
  const c = summary.crowd;
  if (c) out(`  crowd             ${c.rigs} copies, finite ${c.finite}, target error max ${fmt(c.maxTargetError)} mean ${fmt(c.meanTargetError)}, ${c.converged} at rest, ${c.stepsPerSecond.toFixed(0)} world steps/s`);
  out(`  shape             largest bend change ${fmt(summary.maxBendDeg)} deg, bend variation ${fmt(summary.bendVariation)}, off rest ${fmt(summary.restDeviation)} × height`);
  if (expectResult) {
    out(`  expect            ${expectResult.ok ? 'met' : 'NOT met'}`);
    for (const c of expectResult.checks) out(`    ${c.ok ? 'ok  ' : 'FAIL'} ${c.what}: ${c.detail}`);
  }
}
