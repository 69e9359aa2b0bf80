/**
 * The long fuzz run (`npm run fuzz`): many random rigs (tests/fuzz/rigs.ts), each run for many
 * steps and checked every step, then run again in a fresh world for determinism.
 *
 *   npm run fuzz -- [--seeds 500] [--from 1] [--steps 2000] [--workers 2]
 *                   [--settings any|default|random] [--json] [--shrink-seconds 120] [--no-shrink]
 *                   [--out results.jsonl]
 *
 * Seed s stands for the case `caseForSeed(s, { settings })` (the generator's first value with
 * that seed), so any seed can be rerun alone: `--from s --seeds 1`. Seeds are spread over
 * worker threads. The summary gives the number of non-finite values, the largest joint gap,
 * bone length and quaternion errors, the largest limit violation at peak and at the end of the
 * runs, the guarded (diverged) steps, determinism failures and the wall time. For every kind of
 * failure (structural: NaN, gaps, lengths, quaternions, pin; limits; determinism) the first
 * failing seed is shrunk with fast-check (within --shrink-seconds) and printed with
 * describeCase. Exit code 1 when anything failed. For clean JSON on stdout, keep npm quiet:
 * `npm run -s fuzz -- --json`.
 */
import fc from 'fast-check';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { BOUNDS, determinismFailure, limitFailure, runCase, structuralFailure, type CaseResult } from './rigs';
import { caseArb, caseForSeed, describeCase, summarizeCase, type CaseOptions, type FuzzCase } from './cases';

type Kind = 'structural' | 'limits' | 'determinism';

/** The measures of a case result a seed's report keeps (posted from the worker threads). */
const KEPT = [
  'nonFinite', 'maxGap', 'maxGapRel', 'maxLengthErrRel', 'maxQuatErr', 'maxPinErr', 'peakLimitDeg', 'finalLimitDeg',
  'peakExcessDeg', 'finalExcessDeg', 'peakGrowthDeg', 'infeasibleJoints', 'divergedSteps', 'divergedTail',
  'clampedSteps', 'clampedTail', 'retriedSteps', 'settled',
] as const satisfies readonly (keyof CaseResult)[];

type SeedResult = Pick<CaseResult, (typeof KEPT)[number]> & {
  seed: number;
  settings: 'default' | 'random';
  bones: number;
  ms: number;
  failures: Partial<Record<Kind, string>>;
};

interface Options {
  seeds: number;
  from: number;
  steps: number;
  workers: number;
  settings: CaseOptions['settings'];
  json: boolean;
  shrinkSeconds: number;
  /** Write every seed's result to this file, one JSON object a line. */
  out: string | null;
}

function parseArgs(argv: string[]): Options {
  const o: Options = { seeds: 500, from: 1, steps: 2000, workers: Math.min(2, os.availableParallelism?.() ?? 2), settings: 'any', json: false, shrinkSeconds: 120, out: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const num = () => {
      const v = Number(argv[++i]);
      if (!Number.isFinite(v)) throw new Error(`${a} needs a number`);
      return v;
    };
    if (a === '--seeds') o.seeds = num();
    else if (a === '--from') o.from = num();
    else if (a === '--steps') o.steps = num();
    else if (a === '--workers') o.workers = Math.max(1, num());
    else if (a === '--shrink-seconds') o.shrinkSeconds = num();
    else if (a === '--no-shrink') o.shrinkSeconds = 0;
    else if (a === '--json') o.json = true;
    else if (a === '--out') o.out = argv[++i] ?? null;
    else if (a === '--settings') {
      const v = argv[++i];
      if (v !== 'any' && v !== 'default' && v !== 'random') throw new Error('--settings is any, default or random');
      o.settings = v;
    } else if (a === '--help' || a === '-h') {
      console.log('npm run fuzz -- [--seeds N] [--from S] [--steps M] [--workers K] [--settings any|default|random] [--json] [--shrink-seconds T] [--no-shrink] [--out results.jsonl]');
      process.exit(0);
    } else throw new Error(`unknown argument ${a}`);
  }
  return o;
}

/** Every failure of a case (its first run's result is reused for determinism). */
function check(c: FuzzCase, steps: number) {
  const r = runCase(c, steps);
  const failures: Partial<Record<Kind, string>> = {};
  const s = structuralFailure(c, r);
  if (s) failures.structural = s;
  const l = limitFailure(c, r);
  if (l) failures.limits = l;
  const d = determinismFailure(c, steps, r);
  if (d) failures.determinism = d;
  return { r, failures };
}

function runSeed(seed: number, o: Options): SeedResult {
  const t0 = performance.now();
  const c = caseForSeed(seed, { settings: o.settings });
  const { r, failures } = check(c, o.steps);
  const kept = Object.fromEntries(KEPT.map((k) => [k, r[k]])) as Pick<CaseResult, (typeof KEPT)[number]>;
  return {
    seed, settings: Object.keys(c.settings).length === 0 ? 'default' : 'random', bones: c.bones.length,
    ms: performance.now() - t0, failures, ...kept,
  };
}

/** Shrink a failing seed's case, keeping the same kind of failure. */
function shrink(seed: number, kind: Kind, o: Options): { original: FuzzCase; shrunk: FuzzCase; failure: string; shrinks: number } {
  const original = caseForSeed(seed, { settings: o.settings });
  const fails = (c: FuzzCase) => {
    const { failures } = check(c, o.steps);
    return failures[kind] ?? null;
  };
  const out = fc.check(fc.property(caseArb({ settings: o.settings }), (c) => fails(c) === null), {
    seed, numRuns: 1, skipAllAfterTimeLimit: o.shrinkSeconds * 1000,
  });
  const shrunk = out.counterexample ? out.counterexample[0] : original;
  return { original, shrunk, failure: fails(shrunk) ?? fails(original) ?? '(did not fail again)', shrinks: out.numShrinks };
}

// ---------- summary ----------

const fmt = (x: number, d = 3) => (x === 0 ? '0' : Math.abs(x) < 1e-3 || Math.abs(x) >= 1e5 ? x.toExponential(2) : x.toFixed(d));

function summarize(results: SeedResult[], o: Options, wallMs: number) {
  const max = (xs: number[]) => xs.reduce((m, x) => (x > m || Number.isNaN(x) ? x : m), 0);
  const group = (rs: SeedResult[]) => ({
    seeds: rs.length,
    nonFiniteValues: rs.reduce((s, r) => s + r.nonFinite, 0),
    seedsWithNonFinite: rs.filter((r) => r.nonFinite > 0).length,
    largestJointGap: max(rs.map((r) => r.maxGap)),
    largestJointGapRel: max(rs.map((r) => r.maxGapRel)),
    largestLengthErrRel: max(rs.map((r) => r.maxLengthErrRel)),
    largestQuatErr: max(rs.map((r) => r.maxQuatErr)),
    largestPinErr: max(rs.map((r) => r.maxPinErr)),
    limitViolationDeg: {
      peak: max(rs.map((r) => r.peakLimitDeg)),
      final: max(rs.map((r) => r.finalLimitDeg)),
      peakBeyondUnavoidable: max(rs.map((r) => r.peakExcessDeg)),
      finalBeyondUnavoidable: max(rs.map((r) => r.finalExcessDeg)),
      peakGrowthOverRestPose: max(rs.map((r) => r.peakGrowthDeg)),
    },
    seedsWithInfeasibleLimits: rs.filter((r) => r.infeasibleJoints > 0).length,
    guardedSteps: rs.reduce((s, r) => s + r.divergedSteps, 0),
    seedsGuarded: rs.filter((r) => r.divergedSteps > 0).length,
    seedsGuardedInLastQuarter: rs.filter((r) => r.divergedTail > 0).length,
    seedsGuardedEveryStep: rs.filter((r) => r.divergedSteps >= o.steps).length,
    retriedSteps: rs.reduce((s, r) => s + r.retriedSteps, 0),
    clampedSteps: rs.reduce((s, r) => s + r.clampedSteps, 0),
    seedsClamped: rs.filter((r) => r.clampedSteps > 0).length,
    seedsClampedInLastQuarter: rs.filter((r) => r.clampedTail > 0).length,
    seedsSettled: rs.filter((r) => r.settled).length,
    structuralFailures: rs.filter((r) => r.failures.structural).length,
    limitFailures: rs.filter((r) => r.failures.limits).length,
    determinismFailures: rs.filter((r) => r.failures.determinism).length,
  });
  const running = (rs: SeedResult[]) => rs.filter((r) => r.divergedTail === 0 && r.clampedTail === 0);
  const def = results.filter((r) => r.settings === 'default');
  const rnd = results.filter((r) => r.settings === 'random');
  return {
    seeds: results.length, from: o.from, steps: o.steps, workers: o.workers, settings: o.settings,
    wallSeconds: wallMs / 1000,
    all: group(results),
    defaultSettings: group(def),
    /** Default settings, seeds whose last quarter had no refused step and no clamped speeds. */
    defaultSettingsRunning: group(running(def)),
    randomSettings: group(rnd),
    randomSettingsRunning: group(running(rnd)),
    bounds: BOUNDS,
  };
}

type Summary = ReturnType<typeof summarize>;

function printGroup(name: string, g: Summary['all']) {
  if (g.seeds === 0) return;
  const l = g.limitViolationDeg;
  console.log(`${name}: ${g.seeds} seeds`);
  console.log(`  non-finite values ${g.nonFiniteValues} (seeds ${g.seedsWithNonFinite}); largest joint gap ${fmt(g.largestJointGap)} (relative ${fmt(g.largestJointGapRel)}); length error (rel) ${fmt(g.largestLengthErrRel)}; | |q|-1 | ${fmt(g.largestQuatErr)}; pin ${fmt(g.largestPinErr)}`);
  console.log(`  limit violation °: peak ${fmt(l.peak, 2)}, final ${fmt(l.final, 2)}; beyond the unavoidable: peak ${fmt(l.peakBeyondUnavoidable, 2)}, final ${fmt(l.finalBeyondUnavoidable, 2)}; largest growth over the rest pose ${fmt(l.peakGrowthOverRestPose, 2)} (seeds with infeasible limits ${g.seedsWithInfeasibleLimits})`);
  console.log(`  refused (diverged) steps ${g.guardedSteps}: seeds ${g.seedsGuarded}, in the last quarter ${g.seedsGuardedInLastQuarter}, on every step ${g.seedsGuardedEveryStep}; settled ${g.seedsSettled}`);
  console.log(`  retried steps ${g.retriedSteps}; steps with clamped speeds ${g.clampedSteps}: seeds ${g.seedsClamped}, in the last quarter ${g.seedsClampedInLastQuarter}`);
  console.log(`  failures: structural ${g.structuralFailures}, limits ${g.limitFailures}, determinism ${g.determinismFailures}`);
}

// ---------- threads ----------

if (!isMainThread) {
  const { seeds, o } = workerData as { seeds: number[]; o: Options };
  for (const seed of seeds) parentPort!.postMessage(runSeed(seed, o));
} else {
  await main();
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const t0 = performance.now();
  const all = Array.from({ length: o.seeds }, (_, i) => o.from + i);
  const results: SeedResult[] = [];
  let lastReport = t0;
  const progress = () => {
    const now = performance.now();
    if (now - lastReport < 10_000 && results.length !== all.length) return;
    lastReport = now;
    const el = (now - t0) / 1000;
    const eta = results.length ? (el / results.length) * (all.length - results.length) : NaN;
    const failed = results.filter((r) => Object.keys(r.failures).length > 0).length;
    process.stderr.write(`fuzz: ${results.length}/${all.length} seeds, ${el.toFixed(0)} s, eta ${eta.toFixed(0)} s, failing seeds ${failed}, guarded steps ${results.reduce((s, r) => s + r.divergedSteps, 0)}\n`);
  };
  if (o.workers <= 1) {
    for (const seed of all) { results.push(runSeed(seed, o)); progress(); }
  } else {
    // interleaved, so every worker gets a similar mix of sizes
    const parts = Array.from({ length: o.workers }, (_, w) => all.filter((_, i) => i % o.workers === w));
    await Promise.all(parts.map((seeds) => new Promise<void>((resolve, reject) => {
      if (seeds.length === 0) return resolve();
      const w = new Worker(new URL('./worker-boot.mjs', import.meta.url), { workerData: { entry: import.meta.url, seeds, o } });
      w.on('message', (r: SeedResult) => { results.push(r); progress(); });
      w.on('error', reject);
      w.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`worker exited with ${code}`))));
    })));
  }
  results.sort((a, b) => a.seed - b.seed);
  const wall = performance.now() - t0;
  const summary = summarize(results, o, wall);
  if (o.out) writeFileSync(o.out, results.map((r) => JSON.stringify(r)).join('\n') + '\n');

  // the first failing seed of each kind, shrunk
  const counterexamples: { kind: Kind; seed: number; failingSeeds: number[]; failure: string; summary: string; shrinks: number; case: string; original: string }[] = [];
  for (const kind of ['structural', 'determinism', 'limits'] as Kind[]) {
    const failing = results.filter((r) => r.failures[kind]);
    if (failing.length === 0) continue;
    const seed = failing[0]!.seed;
    if (o.shrinkSeconds > 0) {
      if (!o.json) process.stderr.write(`fuzz: shrinking seed ${seed} (${kind}) for up to ${o.shrinkSeconds} s\n`);
      const s = shrink(seed, kind, o);
      counterexamples.push({
        kind, seed, failingSeeds: failing.map((r) => r.seed), failure: s.failure,
        summary: summarizeCase(s.shrunk), shrinks: s.shrinks, case: describeCase(s.shrunk), original: describeCase(s.original),
      });
    } else {
      const c = caseForSeed(seed, { settings: o.settings });
      counterexamples.push({
        kind, seed, failingSeeds: failing.map((r) => r.seed), failure: failing[0]!.failures[kind]!,
        summary: summarizeCase(c), shrinks: 0, case: describeCase(c), original: describeCase(c),
      });
    }
  }

  if (o.json) {
    console.log(JSON.stringify({ ...summary, counterexamples }, null, 2));
  } else {
    console.log(`fuzz: ${summary.seeds} seeds (${o.from}..${o.from + o.seeds - 1}) × ${o.steps} steps, settings ${o.settings}, ${o.workers} workers, wall time ${summary.wallSeconds.toFixed(1)} s`);
    printGroup('all', summary.all);
    printGroup('default settings', summary.defaultSettings);
    printGroup('default settings, not guarded in the last quarter', summary.defaultSettingsRunning);
    printGroup('random settings', summary.randomSettings);
    printGroup('random settings, not guarded in the last quarter', summary.randomSettingsRunning);
    console.log(`bounds: ${JSON.stringify(BOUNDS)}`);
    for (const ce of counterexamples) {
      const more = ce.failingSeeds.length > 1 ? ` (${ce.failingSeeds.length} seeds fail so: ${ce.failingSeeds.slice(0, 20).join(', ')}${ce.failingSeeds.length > 20 ? ', ...' : ''})` : '';
      console.log(`\nFAIL ${ce.kind}: seed ${ce.seed}${more}`);
      console.log(`  shrunk (${ce.shrinks} shrinks): ${ce.failure}`);
      console.log(`  ${ce.summary}`);
      console.log(`  ${ce.case}`);
    }
  }
  const failed = summary.all.structuralFailures + summary.all.limitFailures + summary.all.determinismFailures > 0;
  process.exitCode = failed ? 1 : 0;
}
