/** The step section of `npm run bench` (tests/bench/run.ts says what it measures). */
import { performance } from 'node:perf_hooks';
import { step, restoreRig, readMetrics } from '../../src/core';
import { STATUS_STALLED, STATUS_DIVERGED } from '../../components';
import { spread, logLogSlope, table, fixed as f, type Spread } from './stats';
import { chainInput, treeInput, humanoidInput, humanoidScene, type Family, type Solve } from './rigs';
import { Built, build, log, tryBuild, withSolve } from './building';

export const PAPER = { msPerStep: 98, passesPerStep: 20, label: 'PhysIK paper (Python add-on): ~98 ms per humanoid step, ~20 passes per step' };
export const SIZES = [10, 100, 1000, 10_000] as const;
export const ITERATIVE_10K_STEPS = 20;


export interface StepCase {
  name: string;
  family: Family;
  solve: Solve;
  bones: number;
  steps: number;
  repeats: number;
  warmup: number;
}

export interface StepResult {
  name: string;
  family: Family;
  solve: Solve;
  bones: number;
  joints: number;
  steps: number;
  repeats: number;
  warmup: number;
  usPerStep: Spread;
  usPerBone: number;
  passesPerStep: { mean: number; max: number };
  usPerPass: number;
  maxPasses: number;
  stalledSteps: number;
  divergedSteps: number;
  finalTargetError: number;
  skipped?: string;
}

export interface Repeat { us: number; stalled: number; diverged: number; passesMean: number; passesMax: number; targetError: number }

/** One repeat: back to the snapshot, then `steps` timed steps. */
export function runOnce(b: Built, steps: number): Repeat {
  restoreRig(b.world, b.rig, b.snapshot);
  const R = b.world.physik.Rig;
  let stalled = 0, diverged = 0;
  const t0 = performance.now();
  for (let s = 0; s < steps; s++) {
    step(b.world, 1);
    const status = R.solveStatus[b.rig];
    if (status === STATUS_STALLED) stalled++;
    else if (status === STATUS_DIVERGED) diverged++;
  }
  const us = ((performance.now() - t0) * 1000) / steps;
  const m = readMetrics(b.world, b.rig);
  return { us, stalled, diverged, passesMean: m.passesPerStep.mean, passesMax: m.passesPerStep.max, targetError: m.maxTargetError };
}

export function measureStep(c: StepCase, b: Built): StepResult {
  for (let i = 0; i < c.warmup; i++) runOnce(b, c.steps);
  const reps: Repeat[] = [];
  for (let i = 0; i < c.repeats; i++) reps.push(runOnce(b, c.steps));
  return summarise(c, b, reps);
}

export function summarise(c: StepCase, b: Built, reps: Repeat[]): StepResult {
  const s = b.world.physik.rigs[0]!.settings;
  const usPerStep = spread(reps.map((r) => r.us));
  const passesMean = reps.reduce((a, r) => a + r.passesMean, 0) / reps.length;
  return {
    ...c,
    joints: b.joints,
    usPerStep,
    usPerBone: usPerStep.median / c.bones,
    passesPerStep: { mean: passesMean, max: Math.max(...reps.map((r) => r.passesMax)) },
    usPerPass: usPerStep.median / passesMean,
    maxPasses: s.maxPasses > 0 ? s.maxPasses : 5 * b.joints * b.joints,
    // repeats run the same steps from the same state: take the worst
    stalledSteps: Math.max(...reps.map((r) => r.stalled)),
    divergedSteps: Math.max(...reps.map((r) => r.diverged)),
    finalTargetError: Math.max(...reps.map((r) => r.targetError)),
  };
}

/**
 * Every case's repeats spread over the same rounds: each round runs one repeat of the cases
 * due in it (a case's repeats evenly over the rounds), so a burst of other work on this shared
 * machine lands on a repeat of every case, not on all repeats of one (a case measured in one
 * block was measured twice as slow as in the next run).
 */
export function measureInterleaved(list: { c: StepCase; b: Built }[]): StepResult[] {
  for (const { c, b } of list) {
    log(`step: warm-up ${c.name} (${c.warmup} × ${c.steps} steps) ...`);
    for (let i = 0; i < c.warmup; i++) runOnce(b, c.steps);
  }
  const rounds = Math.max(...list.map(({ c }) => c.repeats));
  const reps: Repeat[][] = list.map(() => []);
  for (let r = 0; r < rounds; r++) {
    if (r % 5 === 0) log(`step: round ${r + 1} of ${rounds} ...`);
    list.forEach(({ c, b }, k) => {
      if (Math.floor(((r + 1) * c.repeats) / rounds) > Math.floor((r * c.repeats) / rounds)) reps[k]!.push(runOnce(b, c.steps));
    });
  }
  return list.map(({ c, b }, k) => summarise(c, b, reps[k]!));
}

export const skippedStep = (c: StepCase, joints: number, reason: string): StepResult => ({
  ...c, joints, usPerStep: { median: NaN, min: NaN, max: NaN, q1: NaN, q3: NaN }, usPerBone: NaN,
  passesPerStep: { mean: NaN, max: NaN }, usPerPass: NaN, maxPasses: NaN, stalledSteps: 0, divergedSteps: 0, finalTargetError: NaN, skipped: reason,
});

/** Pass cap of the chains and trees: the default 5 × joints² up to 100 bones' worth, else 200 (passes are warm-started). */
export const passCap = (n: number) => (n <= 10 ? 0 : 200);

/** Repeats and warm-up repeats per size: a repeat of 10,000 bones takes seconds (iterative: many). */
export function plan(n: number, solve: Solve): { steps: number; repeats: number; warmup: number } {
  if (n <= 10) return { steps: 200, repeats: 30, warmup: 5 };
  if (n <= 100) return { steps: 200, repeats: 15, warmup: 3 };
  if (n <= 1000) return { steps: 200, repeats: 5, warmup: 1 };
  // The code is warm from the 1000-bone case. The iterative solve needs up to its pass cap
  // (200 passes of ~3 ms) per step at this size once the chain swings: 200 steps would take
  // minutes, so it runs the first ITERATIVE_10K_STEPS steps once (and is left out of the fit).
  return solve === 'exact' ? { steps: 200, repeats: 3, warmup: 1 } : { steps: ITERATIVE_10K_STEPS, repeats: 1, warmup: 0 };
}

export interface StepSection {
  cases: StepResult[];
  /** Exponent of time per step against bones, per family and solve (chains and trees 10 → 10,000). */
  exponents: Record<Solve, { chain: number; tree: number; perPassChain: number; perPassTree: number }>;
  exponentExact: number;
  exponentIterative: number;
  built: Map<string, Built>;
}

export function stepSection(): StepSection {
  const built = new Map<string, Built>();
  const scene = humanoidScene();
  const humanoid = build(humanoidInput(scene));
  built.set('humanoid', humanoid);
  const order: (StepCase & { skipped?: string })[] = [];
  const list: { c: StepCase; b: Built }[] = [];
  for (const solve of ['iterative', 'exact'] as const) {
    const c: StepCase = { name: `humanoid ${solve}`, family: 'humanoid', solve, bones: scene.rig.bones.length, steps: 200, repeats: 30, warmup: 5 };
    order.push(c); list.push({ c, b: withSolve(humanoid, solve) });
  }
  for (const family of ['chain', 'tree'] as const) {
    for (const n of SIZES) {
      log(`step: building ${family} ${n} ...`);
      const b = tryBuild(family === 'chain' ? chainInput(n, passCap(n)) : treeInput(n, passCap(n)));
      if (typeof b !== 'string') built.set(`${family} ${n}`, b);
      for (const solve of ['exact', 'iterative'] as const) {
        const c: StepCase = { name: `${family} ${n} ${solve}`, family, solve, bones: n, ...plan(n, solve) };
        if (typeof b === 'string') { order.push({ ...c, skipped: b }); continue; }
        order.push(c); list.push({ c, b: withSolve(b, solve) });
      }
    }
  }
  const measured = measureInterleaved(list);
  const cases = order.map((c) => (c.skipped ? skippedStep(c, NaN, c.skipped) : measured.find((r) => r.name === c.name)!));
  // time per step is fitted over the sizes run for the same steps (the same part of the move);
  // time per pass over every size
  const fit = (family: Family, solve: Solve, perPass = false) => {
    const rows = cases.filter((r) => r.family === family && r.solve === solve && !r.skipped && (perPass || r.steps === 200));
    return logLogSlope(rows.map((r) => r.bones), rows.map((r) => (perPass ? r.usPerPass : r.usPerStep.median)));
  };
  const exponents = {
    exact: { chain: fit('chain', 'exact'), tree: fit('tree', 'exact'), perPassChain: fit('chain', 'exact', true), perPassTree: fit('tree', 'exact', true) },
    iterative: { chain: fit('chain', 'iterative'), tree: fit('tree', 'iterative'), perPassChain: fit('chain', 'iterative', true), perPassTree: fit('tree', 'iterative', true) },
  };
  return {
    cases, exponents, built,
    exponentExact: Math.max(exponents.exact.chain, exponents.exact.tree),
    exponentIterative: Math.max(exponents.iterative.chain, exponents.iterative.tree),
  };
}

export function formatStep(sec: StepSection): string[] {
  const rows = [['case', 'bones', 'joints', 'steps×reps', 'µs/step median', 'min', 'max', 'IQR', 'µs/bone', 'passes mean', 'max', 'cap', 'stalled', 'diverged', 'µs/pass']];
  for (const r of sec.cases) {
    if (r.skipped) { rows.push([r.name, String(r.bones), '–', '–', 'skipped', '', '', '', '', '', '', '', '', '', '']); continue; }
    rows.push([
      r.name, String(r.bones), String(r.joints), `${r.steps}×${r.repeats}`,
      f(r.usPerStep.median), f(r.usPerStep.min), f(r.usPerStep.max), `${f(r.usPerStep.q1)}–${f(r.usPerStep.q3)}`, f(r.usPerBone, 2),
      f(r.passesPerStep.mean), String(r.passesPerStep.max), String(r.maxPasses), `${r.stalledSteps}/${r.steps}`, `${r.divergedSteps}/${r.steps}`, f(r.usPerPass, 2),
    ]);
  }
  const { exact, iterative } = sec.exponents;
  const h = sec.cases.find((r) => r.name === 'humanoid iterative')!, hx = sec.cases.find((r) => r.name === 'humanoid exact')!;
  return [
    table(rows),
    ...sec.cases.filter((r) => r.skipped).map((r) => `skipped: ${r.name}: ${r.skipped}`),
    ...sec.cases.filter((r) => r.divergedSteps > 0).map((r) =>
      `note: ${r.name} hit the divergence guard on ${r.divergedSteps}/${r.steps} steps (the guard holds the rig still), so its times are not those of a moving rig`),
    ...sec.cases.filter((r) => r.warmup === 0 && !r.skipped).map((r) =>
      `note: ${r.name}: ${r.repeats} repeat of the first ${r.steps} steps only, no warm-up repeat of its own (the 1000-bone case warmed the same code): its passes climb to the cap (${r.maxPasses}) as the chain swings, ~${f(r.usPerPass / 1000, 1)} ms a pass, so 200 steps would take minutes; left out of the time-per-step fit`),
    '',
    `time per step ~ bones^a (least squares on log-log over the sizes run for 200 steps; per pass over all sizes):`,
    `  exact:     chains a = ${f(exact.chain, 2)}, trees a = ${f(exact.tree, 2)}   → exponentExact = ${f(sec.exponentExact, 2)}`,
    `  iterative: chains a = ${f(iterative.chain, 2)}, trees a = ${f(iterative.tree, 2)}   → exponentIterative = ${f(sec.exponentIterative, 2)}  (per pass: chains ${f(iterative.perPassChain, 2)}, trees ${f(iterative.perPassTree, 2)}; capped chains stall, see 'stalled')`,
    '',
    PAPER.label,
    `physik-ecs: ${f(h.usPerStep.median)} µs per humanoid step, ${f(h.passesPerStep.mean)} passes per step (max ${h.passesPerStep.max})  →  ${f((PAPER.msPerStep * 1000) / h.usPerStep.median, 0)}× faster`,
    `            ${f(hx.usPerStep.median)} µs per humanoid step with the exact solve  →  ${f((PAPER.msPerStep * 1000) / hx.usPerStep.median, 0)}× faster`,
  ];
}
