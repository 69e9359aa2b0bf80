/**
 * The benchmark (`npm run bench`; `npm run -s bench -- --json` prints one JSON object on stdout,
 * progress goes to stderr; `-- --only step,crowd` runs some sections; `-- --detached` detaches an
 * ArrayBuffer first, see detached.ts). Not part of the tests: it only prints. Everything is
 * measured in this one process, after a warm-up, in the order step, crowd, alloc, peers,
 * rapier, converge, memory (this project's own sections before any package that detaches a
 * buffer is loaded).
 *
 * Sections:
 *  Every rig is kept awake (rigs.ts AWAKE: a converged rig sleeps by default and its steps then
 *  cost next to nothing), except the crowd section's sleeping row.
 *  step    Time per PhysIK step (µs, median over repeats, min, max, interquartile range) and
 *          inter-joint passes per step, for the humanoid scene and for straight chains and
 *          seeded random trees (rigs.ts) of 10, 100, 1000 and 10,000 bones, with the paper's
 *          iterative joint solve and with the exact tree solve. Each rig is built once and a
 *          snapshot taken; a repeat restores the snapshot (bit-identical to a fresh rig) and
 *          times `steps` calls of step(world, 1) from the start of the move, its figure being
 *          the mean per step; the repeats of all cases are interleaved in rounds (see
 *          measureInterleaved), after each case's warm-up. Pass caps (`maxPasses`), steps that hit them ('stalled') and
 *          steps the divergence guard caught ('diverged') are reported per case. The exponent a
 *          of time per step ~ bones^a is a least-squares fit on log-log over the sizes, per
 *          family and solve; exponentExact / exponentIterative are the larger of the chain and
 *          tree fits.
 *  rapier  Rapier's world.step() on the same rigs through src/rapier's mirror (impulse and
 *          multibody joints), and PhysIK / Rapier per rig; reported missing if src/rapier is not
 *          there.
 *  converge  Time from a target jump to convergence (1% of the rig's height), PhysIK against
 *          its Rapier mirror, in steps and ms (converge.ts).
 *  peers   Our CCD against three.js's CCDIKSolver and our DLS against closed-chain-ik on 10- and
 *          100-bone chains at equal error (peers.ts, which `npm run bench:peers` runs alone).
 *  crowd   1, 10, 100 and 1000 humanoids of the crowd scene (rigs.ts crowdInputs, after
 *          src/scene/crowd.ts) in one world: time per world step and steps per second of the
 *          whole world, on one core; every rig awake, and 1000 with converged rigs sleeping.
 *  memory  Bytes of component storage per bone (layouts, and what the stores of the largest
 *          chain actually hold), and the rig's solver scratch per bone.
 *  alloc   Bytes allocated per step (alloc.ts: used-heap growth over windows no garbage
 *          collection overlapped), for the humanoid under PhysIK (both solves) and under every
 *          kinematic solver, a chain, a tree and a crowd; with the allocating functions
 *          (sampling heap profiler) where a case allocates.
 *
 * A rig that cannot be built (a RangeError from the builder) is skipped with the reason printed.
 */
import os from 'node:os';
import { existsSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  createPhysikWorld, addRig, addRigs, step, setSettings, createSnapshot, restoreRig, readMetrics,
  type PhysikWorld, type RigInput, type RigSnapshot,
} from '../../src/core';
import type { Settings } from '../../src/scene/types';
import {
  bytesPerEntity, BoneLayout, JointLayout, AngularLimitLayout, ControlPointLayout, RigLayout,
  STATUS_STALLED, STATUS_DIVERGED,
} from '../../components';
import { spread, logLogSlope, table, fixed as f, type Spread } from './stats';
import { chainInput, treeInput, humanoidInput, humanoidScene, crowdScene, crowdInputs, type Family, type Solve } from './rigs';
import { countAllocations, allocationSources, type AllocationCount, type AllocationSource, type Windowed } from './alloc';
import { runPeers, formatPeersSummary, type PeersResult } from './peers';
import { convergeSection, formatConverge, type ConvergeSection } from './converge';
import { DETACHED_FLAG, detachOneBuffer } from './detached';

const PAPER = { msPerStep: 98, passesPerStep: 20, label: 'PhysIK paper (Python add-on): ~98 ms per humanoid step, ~20 passes per step' };
const SIZES = [10, 100, 1000, 10_000] as const;
const ITERATIVE_10K_STEPS = 20;
const SECTIONS = ['step', 'rapier', 'converge', 'peers', 'crowd', 'memory', 'alloc'] as const;
type Section = (typeof SECTIONS)[number];
const log = (s: string) => process.stderr.write(`${s}\n`);

// ---------- building rigs ----------

interface Built { world: PhysikWorld; rig: number; joints: number; snapshot: RigSnapshot }

/** A world holding one rig, and a snapshot of it as built. */
function build(input: RigInput): Built {
  const world = createPhysikWorld();
  const { rig } = addRig(world, input);
  const record = world.physik.rigs[0]!;
  return { world, rig, joints: record.joints.length, snapshot: createSnapshot(world, rig) };
}

/** Build, or the reason it could not be built (a deep chain overflowing the stack). */
function tryBuild(input: RigInput): Built | string {
  try {
    return build(input);
  } catch (err) {
    if (err instanceof RangeError) {
      return `the rig builder (src/core/rig.ts) failed on ${input.rig.bones.length} bones: ${err.message}`;
    }
    throw err;
  }
}

/** Switch the built rig's joint solve and take the snapshot repeats start from. */
function withSolve(b: Built, solve: Solve): Built {
  restoreRig(b.world, b.rig, b.snapshot);
  setSettings(b.world, b.rig, { interJoint: solve });
  return { ...b, snapshot: createSnapshot(b.world, b.rig) };
}

// ---------- step section ----------

interface StepCase {
  name: string;
  family: Family;
  solve: Solve;
  bones: number;
  steps: number;
  repeats: number;
  warmup: number;
}

interface StepResult {
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

interface Repeat { us: number; stalled: number; diverged: number; passesMean: number; passesMax: number; targetError: number }

/** One repeat: back to the snapshot, then `steps` timed steps. */
function runOnce(b: Built, steps: number): Repeat {
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

function measureStep(c: StepCase, b: Built): StepResult {
  for (let i = 0; i < c.warmup; i++) runOnce(b, c.steps);
  const reps: Repeat[] = [];
  for (let i = 0; i < c.repeats; i++) reps.push(runOnce(b, c.steps));
  return summarise(c, b, reps);
}

function summarise(c: StepCase, b: Built, reps: Repeat[]): StepResult {
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
function measureInterleaved(list: { c: StepCase; b: Built }[]): StepResult[] {
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

const skippedStep = (c: StepCase, joints: number, reason: string): StepResult => ({
  ...c, joints, usPerStep: { median: NaN, min: NaN, max: NaN, q1: NaN, q3: NaN }, usPerBone: NaN,
  passesPerStep: { mean: NaN, max: NaN }, usPerPass: NaN, maxPasses: NaN, stalledSteps: 0, divergedSteps: 0, finalTargetError: NaN, skipped: reason,
});

/** Pass cap of the chains and trees: the default 5 × joints² up to 100 bones' worth, else 200 (passes are warm-started). */
const passCap = (n: number) => (n <= 10 ? 0 : 200);

/** Repeats and warm-up repeats per size: a repeat of 10,000 bones takes seconds (iterative: many). */
function plan(n: number, solve: Solve): { steps: number; repeats: number; warmup: number } {
  if (n <= 10) return { steps: 200, repeats: 30, warmup: 5 };
  if (n <= 100) return { steps: 200, repeats: 15, warmup: 3 };
  if (n <= 1000) return { steps: 200, repeats: 5, warmup: 1 };
  // The code is warm from the 1000-bone case. The iterative solve needs up to its pass cap
  // (200 passes of ~3 ms) per step at this size once the chain swings: 200 steps would take
  // minutes, so it runs the first ITERATIVE_10K_STEPS steps once (and is left out of the fit).
  return solve === 'exact' ? { steps: 200, repeats: 3, warmup: 1 } : { steps: ITERATIVE_10K_STEPS, repeats: 1, warmup: 0 };
}

interface StepSection {
  cases: StepResult[];
  /** Exponent of time per step against bones, per family and solve (chains and trees 10 → 10,000). */
  exponents: Record<Solve, { chain: number; tree: number; perPassChain: number; perPassTree: number }>;
  exponentExact: number;
  exponentIterative: number;
  built: Map<string, Built>;
}

function stepSection(): StepSection {
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

function formatStep(sec: StepSection): string[] {
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

// ---------- rapier section ----------

interface RapierRow {
  rig: string; bones: number; jointModel: string; steps: number; repeats: number;
  /** mirror.step(): the mirror's forces (springs, damping, emulated limits) and Rapier's world.step(). */
  mirrorUs: Spread | null;
  /** Rapier's world.step() alone, timed inside mirror.step(). */
  worldStepUs: Spread | null;
  /** PhysIK's exact step on the same rig, measured as the step section does (alone, warm). */
  physikUs: number;
  /** PhysIK exact step / Rapier world.step(), and / mirror.step(). */
  ratio: number | null;
  ratioMirror: number | null;
  finite: boolean;
  note?: string;
}
interface RapierSection {
  available: boolean; note?: string; rows: RapierRow[]; humanoidVsRapier: number | null; humanoidVsRapierMultibody: number | null;
  /** The humanoid, PhysIK and Rapier (impulse) timed in alternating blocks at the same time (see pairedHumanoid). */
  paired: { ratio: Spread; physikUs: Spread; rapierUs: Spread; blocks: number } | null;
}

/** The parts of src/rapier's mirror the bench uses (`createRapierMirror(world, rig, { jointModel })`). */
interface Mirror { step(): void; finite(): boolean; dispose(): void }
type CreateMirror = (world: PhysikWorld, rig: number, options: { jointModel: 'impulse' | 'multibody' }) => Promise<Mirror>;

async function loadRapierMirror(): Promise<{ create: CreateMirror | null; note?: string }> {
  const entry = fileURLToPath(new URL('../../src/rapier/index.ts', import.meta.url));
  if (!existsSync(entry)) return { create: null, note: 'src/rapier is missing: no Rapier rows, humanoidVsRapier is null' };
  try {
    const mod = (await import(pathToFileURL(entry).href)) as Record<string, unknown>;
    const create = mod.createRapierMirror;
    if (typeof create !== 'function') return { create: null, note: 'src/rapier/index.ts has no createRapierMirror export: no Rapier rows' };
    return { create: create as CreateMirror };
  } catch (err) {
    return { create: null, note: `src/rapier could not be loaded (${(err as Error).message}): no Rapier rows` };
  }
}

/**
 * Times Rapier's world.step() inside mirror.step(), by wrapping the step of the mirror's Rapier
 * world (its private field `rworld`); null when the mirror does not have one.
 */
function wrapWorldStep(mirror: Mirror): { elapsed: () => number } | null {
  const rworld = (mirror as unknown as { rworld?: { step: (...a: unknown[]) => void } }).rworld;
  if (!rworld || typeof rworld.step !== 'function') return null;
  const inner = rworld.step.bind(rworld);
  let ms = 0;
  rworld.step = (...a: unknown[]) => { const t0 = performance.now(); inner(...a); ms += performance.now() - t0; };
  return { elapsed: () => ms };
}

/**
 * `steps` steps of the mirror, µs per step of mirror.step() and of Rapier's world.step() inside
 * it (null if it cannot be reached); the PhysIK world is stepped too (not timed), so the mirror
 * follows the same moving targets.
 */
function timedMirrorSteps(world: PhysikWorld, m: Mirror, steps: number): { mirrorUs: number; worldStepUs: number | null } {
  const inner = wrapWorldStep(m);
  let ms = 0;
  for (let s = 0; s < steps; s++) {
    step(world, 1);
    const t0 = performance.now();
    m.step();
    ms += performance.now() - t0;
  }
  return { mirrorUs: (ms * 1000) / steps, worldStepUs: inner ? (inner.elapsed() * 1000) / steps : null };
}

/** Multibody joints cost about bones³ in Rapier (docs/rapier.md has the timing): no 1000-bone rows. */
const MULTIBODY_MAX_BONES = 100;

async function rapierSection(stepSec: StepSection | null): Promise<RapierSection> {
  const { create, note } = await loadRapierMirror();
  if (!create) return { available: false, note, rows: [], humanoidVsRapier: null, humanoidVsRapierMultibody: null, paired: null };
  const rows: RapierRow[] = [];
  // a rig to mirror: a fresh one per repeat (a Rapier world cannot be put back); the
  // 10,000-bone rigs are the step section's, put back to their start (building one takes seconds)
  type Source = () => { world: PhysikWorld; rig: number } | null;
  const fresh = (input: () => RigInput): Source => () => { const world = createPhysikWorld(); return { world, rig: addRig(world, input()).rig }; };
  const rigs: [string, Source, number, () => RigInput][] = [['humanoid', fresh(() => humanoidInput()), 18, () => humanoidInput()]];
  for (const family of ['chain', 'tree'] as const) {
    for (const n of [10, 100, 1000]) {
      const input = () => (family === 'chain' ? chainInput(n, passCap(n)) : treeInput(n, passCap(n)));
      rigs.push([`${family} ${n}`, fresh(input), n, input]);
    }
    rigs.push([`${family} 10000`, () => {
      const b = stepSec?.built.get(`${family} 10000`);
      if (!b) return null;
      restoreRig(b.world, b.rig, b.snapshot);
      setSettings(b.world, b.rig, { interJoint: 'exact' });
      return { world: b.world, rig: b.rig };
    }, 10_000, () => (family === 'chain' ? chainInput(10_000, passCap(10_000)) : treeInput(10_000, passCap(10_000)))]);
  }
  // PhysIK's side of each ratio: its exact step as the step section measures it (warm,
  // alone, the same rig and steps), taken from that section or measured here the same way,
  // before any Rapier work: run beside the mirror, PhysIK measured several times slower than
  // alone (the mirror's garbage is collected during PhysIK's steps, and each evicts the
  // other's data and code from the caches), which is Rapier's cost, not PhysIK's
  const physikUs = new Map<string, number>();
  for (const [name, , bones, input] of rigs) {
    const known = stepSec?.cases.find((r) => r.name === `${name} exact` && !r.skipped)?.usPerStep.median;
    if (known !== undefined) { physikUs.set(name, known); continue; }
    if (bones >= 10_000) continue; // only from the step section (a build takes seconds)
    log(`rapier: PhysIK reference for ${name} ...`);
    // (a fresh process needs a few thousand steps before V8 has optimised the systems)
    const plan = { steps: 200, ...(bones >= 1000 ? { repeats: 3, warmup: 2 } : { repeats: 10, warmup: 15 }) };
    const family: Family = name === 'humanoid' ? 'humanoid' : name.startsWith('tree') ? 'tree' : 'chain';
    const r = measureStep({ name, family, solve: 'exact', bones, ...plan }, withSolve(build(input()), 'exact'));
    physikUs.set(name, r.usPerStep.median);
  }
  // Rapier is WebAssembly: its code tiers up over the first few hundred steps, so a humanoid
  // runs 600 steps first
  {
    log('rapier: warm-up ...');
    const world = createPhysikWorld();
    const { rig } = addRig(world, humanoidInput());
    for (const jointModel of ['impulse', 'multibody'] as const) {
      const m = await create(world, rig, { jointModel });
      for (let s = 0; s < 600; s++) { step(world, 1); m.step(); }
      m.dispose();
    }
  }
  for (const [name, source, bones] of rigs) {
    const physik = physikUs.get(name) ?? NaN;
    for (const jointModel of ['impulse', 'multibody'] as const) {
      const steps = bones >= 10_000 ? 10 : bones >= 1000 ? 20 : jointModel === 'multibody' && bones >= 100 ? 10 : 200;
      const repeats = bones >= 10_000 ? 1 : bones >= 100 ? 3 : 10;
      const base = { rig: name, bones, jointModel, steps, repeats, physikUs: physik };
      if (jointModel === 'multibody' && bones > MULTIBODY_MAX_BONES) {
        rows.push({ ...base, mirrorUs: null, worldStepUs: null, ratio: null, ratioMirror: null, finite: true, note: `skipped: multibody cost grows ~bones³ (see the ${MULTIBODY_MAX_BONES}-bone rows)` });
        continue;
      }
      log(`rapier: ${name} ${jointModel} (${repeats} repeats of ${steps} steps) ...`);
      const mirrorTimes: number[] = [], worldTimes: number[] = [];
      let finite = true, refused = '';
      for (let r = 0; r < repeats; r++) {
        const src = source();
        if (!src) { refused = 'the step section did not build this rig'; break; }
        const { world, rig } = src;
        let m: Mirror;
        try { m = await create(world, rig, { jointModel }); } catch (err) { refused = (err as Error).message; break; }
        const t = timedMirrorSteps(world, m, steps);
        mirrorTimes.push(t.mirrorUs);
        if (t.worldStepUs !== null) worldTimes.push(t.worldStepUs);
        finite &&= m.finite();
        m.dispose();
      }
      if (refused) { rows.push({ ...base, mirrorUs: null, worldStepUs: null, ratio: null, ratioMirror: null, finite: true, note: refused.startsWith('the step') ? `skipped: ${refused}` : `mirror refused: ${refused}` }); continue; }
      const mirrorUs = spread(mirrorTimes), worldStepUs = worldTimes.length ? spread(worldTimes) : null;
      rows.push({
        ...base, mirrorUs, worldStepUs, finite,
        ratio: worldStepUs ? physik / worldStepUs.median : null,
        ratioMirror: physik / mirrorUs.median,
        ...(finite ? {} : { note: 'Rapier went non-finite (NaN) during the run: its times are not those of a working rig' }),
      });
    }
  }
  const ratio = (model: string) => {
    const r = rows.find((row) => row.rig === 'humanoid' && row.jointModel === model);
    return r ? (r.ratio ?? r.ratioMirror) : null;
  };
  return { available: true, rows, humanoidVsRapier: ratio('impulse'), humanoidVsRapierMultibody: ratio('multibody'), paired: await pairedHumanoid(create) };
}

/**
 * The humanoid's ratio measured the way the peers are: PhysIK's exact step and Rapier's
 * world.step() (impulse joints) in alternating blocks of 200 steps, the ratio the median over
 * neighbouring pairs, so both share the machine's speed of the moment (on this VM it drifts by
 * up to 2× between sections, which the headline ratio, PhysIK from the step section and Rapier
 * from this one, does not correct for). PhysIK runs here after Rapier has been loaded, in the
 * state detached.ts describes (measured ~20 % slower than in the step section): this is the
 * ratio an application running both would see. Each side repeats the humanoid's first 200
 * steps (PhysIK from a snapshot; Rapier from a fresh mirror each round, its PhysIK world stepped
 * untimed beside it so it follows the same targets).
 */
async function pairedHumanoid(create: CreateMirror): Promise<RapierSection['paired']> {
  log('rapier: humanoid, PhysIK and Rapier in alternating blocks ...');
  const BLOCKS = 15, STEPS = 200;
  const ours = createPhysikWorld();
  const { rig } = addRig(ours, humanoidInput());
  const snapshot = createSnapshot(ours, rig);
  const physikBlock = (): number => {
    restoreRig(ours, rig, snapshot);
    const t0 = performance.now();
    step(ours, STEPS);
    return ((performance.now() - t0) * 1000) / STEPS;
  };
  const rapierBlock = async (): Promise<number> => {
    const world = createPhysikWorld();
    const other = addRig(world, humanoidInput()).rig;
    const m = await create(world, other, { jointModel: 'impulse' });
    const t = timedMirrorSteps(world, m, STEPS);
    m.dispose();
    return t.worldStepUs ?? t.mirrorUs;
  };
  for (let i = 0; i < 3; i++) { physikBlock(); await rapierBlock(); } // warm-up of both
  const a: number[] = [], b: number[] = [], r: number[] = [];
  for (let i = 0; i < BLOCKS; i++) {
    const x = physikBlock(), y = await rapierBlock();
    a.push(x); b.push(y); r.push(x / y);
  }
  return { ratio: spread(r), physikUs: spread(a), rapierUs: spread(b), blocks: BLOCKS };
}

function formatRapier(sec: RapierSection): string[] {
  if (!sec.available) return [`rapier: ${sec.note}`];
  const rows = [['rig', 'bones', 'joints', 'steps×reps', 'world.step() µs', 'IQR', 'mirror.step() µs', 'PhysIK exact µs', 'PhysIK / world.step()', 'PhysIK / mirror.step()', 'note']];
  for (const r of sec.rows) {
    rows.push([
      r.rig, String(r.bones), r.jointModel, `${r.steps}×${r.repeats}`,
      r.worldStepUs ? f(r.worldStepUs.median) : '–', r.worldStepUs ? `${f(r.worldStepUs.q1)}–${f(r.worldStepUs.q3)}` : '–',
      r.mirrorUs ? f(r.mirrorUs.median) : '–', f(r.physikUs), r.ratio === null ? '–' : f(r.ratio, 3), r.ratioMirror === null ? '–' : f(r.ratioMirror, 3), r.note ?? '',
    ]);
  }
  return [
    'Rapier through src/rapier\'s mirror (one body per bone, joints by the rig\'s limits, 4 solver iterations, 1 substep); world.step() timed inside mirror.step(), which also applies the springs, damping and emulated limits;',
    'each repeat a fresh rig from the start of its move (PhysIK\'s world stepped beside it, untimed, so the mirror follows the same targets), after a 600-step warm-up of Rapier\'s WebAssembly;',
    'PhysIK\'s time is its exact step measured alone as in the step section (beside the mirror it measured several times slower: Rapier\'s garbage collected during its steps, caches shared).',
    table(rows),
    '',
    `humanoidVsRapier = ${sec.humanoidVsRapier === null ? 'n/a' : f(sec.humanoidVsRapier, 3)} (PhysIK exact step / Rapier world.step(), impulse joints), ${sec.humanoidVsRapierMultibody === null ? 'n/a' : f(sec.humanoidVsRapierMultibody, 3)} (multibody)`,
    ...(sec.paired ? [`humanoidVsRapierPaired = ${f(sec.paired.ratio.median, 3)} (IQR ${f(sec.paired.ratio.q1, 3)}–${f(sec.paired.ratio.q3, 3)}): alternating blocks, PhysIK ${f(sec.paired.physikUs.median)} µs (Rapier loaded) / Rapier ${f(sec.paired.rapierUs.median)} µs, ${sec.paired.blocks} pairs`] : []),
  ];
}

// ---------- crowd section ----------

interface CrowdRow {
  rigs: number; bones: number; sleep: boolean; buildMs: number; stepsTimed: number; msPerStep: Spread; stepsPerSecond: number; usPerRigStep: number;
  /** Fraction of the timed rig-steps that were awake (1 when sleep is off). */
  awakeFraction: number;
}

const CROWD_SIZES = [1, 10, 100, 1000] as const;

/**
 * Crowds of the crowd scene (scenes/crowd.json, rigs.ts crowdInputs: its humanoid on a grid, each
 * copy wandering after its own seeded target, a new one every 100 steps), kept awake, and, for the largest,
 * also with the default sleep of converged rigs (a rig that has reached its target and settled
 * costs next to nothing until its next move).
 */
function crowdSection(): CrowdRow[] {
  const scene = crowdScene();
  const rows: CrowdRow[] = [];
  // every size runs the same steps (20 to 220 of the crowd's script: the first move under way,
  // the wander moves at 100 and 200), in blocks of 10; small crowds repeat that window (from
  // snapshots) so each has enough blocks
  const from = 20, to = 220, block = 10;
  const cases: [number, boolean][] = [...CROWD_SIZES.map((n): [number, boolean] => [n, false]), [1000, true]];
  for (const [n, sleep] of cases) {
    log(`crowd: ${n} humanoids${sleep ? ' (sleep on)' : ''} ...`);
    const t0 = performance.now();
    const world = createPhysikWorld();
    const rigs = addRigs(world, crowdInputs(n, !sleep, scene)).map((h) => h.rig); // (as the sandbox spawns a crowd)
    const buildMs = performance.now() - t0;
    step(world, from); // warm-up, and the moves get going
    const snaps = rigs.map((r) => createSnapshot(world, r));
    // small crowds repeat the window; the first half of the repeats is warm-up (after the
    // kinematic peers ran, the physics systems' code re-optimises for a while)
    const repeats = Math.max(1, Math.ceil(200 / n)), warmup = n >= 100 ? 0 : repeats;
    const blocks: number[] = [];
    let awake = 0, seen = 0;
    const sleeping = world.physik.Rig.sleeping;
    for (let rep = 0; rep < warmup + repeats; rep++) {
      rigs.forEach((r, i) => restoreRig(world, r, snaps[i]!));
      for (let s = from; s < to; s += block) {
        const b0 = performance.now();
        step(world, block);
        if (rep >= warmup) {
          blocks.push((performance.now() - b0) / block);
          for (const r of rigs) { seen++; if (!sleeping[r]) awake++; }
        }
      }
    }
    const ms = spread(blocks);
    rows.push({
      rigs: n, bones: n * scene.rig.bones.length, sleep, buildMs, stepsTimed: blocks.length * block, msPerStep: ms,
      stepsPerSecond: 1000 / ms.median, usPerRigStep: (ms.median * 1000) / n, awakeFraction: awake / seen,
    });
  }
  return rows;
}

function formatCrowd(rows: CrowdRow[]): string[] {
  const t = [['crowd', 'bones', 'sleep', 'awake', 'build ms', 'steps timed', 'ms/step median', 'IQR', 'steps/s', 'µs per rig-step']];
  for (const r of rows) {
    t.push([
      `${r.rigs} humanoid${r.rigs > 1 ? 's' : ''}`, String(r.bones), r.sleep ? 'on (default)' : 'off', `${f(100 * r.awakeFraction, 0)}%`, f(r.buildMs, 0), String(r.stepsTimed),
      f(r.msPerStep.median, 3), `${f(r.msPerStep.q1, 3)}–${f(r.msPerStep.q3, 3)}`, f(r.stepsPerSecond, 0), f(r.usPerRigStep),
    ]);
  }
  return [
    'crowd scene: humanoids on a grid, each wandering after its own seeded target (a new one every 100 steps); steps 20–220 of its script, one core;',
    "sleep off: every rig simulated every step (the goal's figure); sleep on: converged rigs sleep until their next move ('awake': share of rig-steps simulated, sampled every 10 steps)",
    table(t),
  ];
}

// ---------- memory section ----------

interface MemorySection {
  boneLayout: number; angularLimitLayout: number; jointLayout: number; perBoneLayouts: number; perEntitySlotAllStores: number;
  measuredOn: string; storeBytesPerBone: number; scratchBytesPerBone: number;
}

function memorySection(built: Map<string, Built> | undefined): MemorySection {
  const bone = bytesPerEntity(BoneLayout), limit = bytesPerEntity(AngularLimitLayout), joint = bytesPerEntity(JointLayout);
  const allStores = bone + limit + joint + bytesPerEntity(ControlPointLayout) + bytesPerEntity(RigLayout);
  // what the largest chain built holds: every typed array of every store, plus the rig's scratch
  const name = [...SIZES].reverse().map((n) => `chain ${n}`).find((k) => built?.has(k)) ?? 'chain 1000';
  const b = built?.get(name) ?? build(chainInput(1000, 200));
  const p = b.world.physik;
  const n = p.rigs[0]!.bones.length;
  let held = 0;
  for (const store of [p.Bone, p.Joint, p.AngularLimit, p.ControlPoint, p.Rig]) {
    for (const arr of Object.values(store)) held += Array.isArray(arr) ? 8 * arr.length : (arr as ArrayBufferView).byteLength; // double fields: plain arrays of 8-byte doubles
  }
  const record = p.rigs[0]!;
  let scratch = 0;
  for (const arr of Object.values(record.scratch)) scratch += arr.byteLength; // (the exact solve's scratch is shared by all rigs)
  for (const arr of [record.bones, record.joints, record.jointSlots, record.jointSlotStart, record.childStart, record.childIndex]) scratch += arr.byteLength;
  return {
    boneLayout: bone, angularLimitLayout: limit, jointLayout: joint, perBoneLayouts: bone + limit + joint, perEntitySlotAllStores: allStores,
    measuredOn: `chain ${n}`, storeBytesPerBone: held / n, scratchBytesPerBone: scratch / n,
  };
}

function formatMemory(m: MemorySection): string[] {
  return [
    `memory per bone: Bone ${m.boneLayout} B + AngularLimit ${m.angularLimitLayout} B + Joint ${m.jointLayout} B = ${m.perBoneLayouts} B of component layout;`,
    `  every entity holds a slot in all five stores (${m.perEntitySlotAllStores} B), so the ${m.measuredOn}'s stores hold ${f(m.storeBytesPerBone, 0)} B per bone`,
    `  (bone and joint entities, capacity doubling) plus ${f(m.scratchBytesPerBone, 0)} B per bone of joint-solve scratch and topology;`,
    `  the double fields are plain arrays, 8 B per value as counted here, whose backing stores V8 may keep up to ~1.5× longer`,
    `  (built by pushing; arrays of the exact length measured 2-6% slower in the step, npm run bench:ab)`,
  ];
}

// ---------- allocation section ----------

interface AllocRow { name: string; count: AllocationCount; sources: AllocationSource[] }

async function allocSection(): Promise<AllocRow[]> {
  const rows: AllocRow[] = [];
  const steps = 200, windows = 9, WARMUP_WINDOWS = 25;
  const rig = (name: string, input: RigInput, settings: Partial<Settings> = {}, from = 0): [string, Windowed] => {
    const b = build(input);
    if (Object.keys(settings).length) setSettings(b.world, b.rig, settings);
    if (from > 0) step(b.world, from);
    const snap = createSnapshot(b.world, b.rig);
    return [name, { prepare: () => restoreRig(b.world, b.rig, snap), run: () => step(b.world, steps), steps }];
  };
  const crowd = (n: number): [string, Windowed] => {
    const world = createPhysikWorld();
    const rigs = crowdInputs(n, true).map((input) => addRig(world, input).rig);
    const snaps = rigs.map((r) => createSnapshot(world, r));
    return [`crowd of ${n} humanoids (whole world)`, { prepare: () => rigs.forEach((r, i) => restoreRig(world, r, snaps[i]!)), run: () => step(world, steps), steps }];
  };
  const cases: [string, Windowed][] = [
    rig('humanoid exact (default)', humanoidInput()),
    // the same steps' cost without the target move each window starts with (the script's one
    // move is at step 0, its interpolation over by step 50): the steady state
    rig('humanoid exact, steady state (windows from step 100: no target move)', humanoidInput(), {}, 100),
    rig('humanoid iterative', humanoidInput(), { interJoint: 'iterative' }),
    rig('chain 100 exact', chainInput(100, 200)),
    rig('tree 100 exact', treeInput(100, 200)),
    crowd(10),
    ...['fabrik', 'ccd', 'jacobianTranspose', 'dls', 'massSpring', 'twoBone', 'triangle', 'bezier'].map((solver) => rig(`humanoid ${solver}`, humanoidInput(), { solver })),
  ];
  for (const [name, w] of cases) {
    log(`alloc: ${name} ...`);
    // warm-up: optimised code, caches built. A system runs once a step, and V8 optimises such a
    // function only after some thousand calls (measured: the two-bone solver first ran optimised
    // after ~1000–1700 steps), so 4 windows left some of them in the interpreter, where every
    // double is an allocation: the steady state is measured after 25 windows (5000 steps).
    for (let i = 0; i < WARMUP_WINDOWS; i++) { w.prepare(); w.run(); }
    const count = await countAllocations(w, windows);
    const sources = count.bytesPerStep > 0.5 || !(count.cleanWindows > 0) ? await allocationSources(w, 3) : [];
    rows.push({ name, count, sources });
  }
  return rows;
}

function formatAlloc(rows: AllocRow[]): string[] {
  const t = [['case', 'B/step', 'median', 'max', 'typed-array B/step', 'clean windows']];
  for (const r of rows) {
    const c = r.count;
    t.push([r.name, f(c.bytesPerStep, 1), f(c.median, 1), f(c.max, 1), f(c.arrayBufferBytesPerStep, 1), `${c.cleanWindows}/${c.windows} × ${c.stepsPerWindow} steps`]);
  }
  const out = [
    'allocation per step: V8 used-heap growth over windows of the same 200 steps that no garbage collection overlapped, minus the readings\' own cost;',
    'B/step is the least over the windows (the steps\' own allocation: more in a window is V8 compiling code on the heap meanwhile), median and max beside:',
    table(t),
  ];
  const withSources = rows.filter((r) => r.sources.length);
  if (withSources.length) {
    out.push('', 'where (sampling heap profiler, estimated B/step by allocating function after inlining):');
    for (const r of withSources) out.push(`  ${r.name}: ${r.sources.slice(0, 6).map((s) => `${s.fn} (${s.file}) ${f(s.bytesPerStep, 1)}`).join('; ')}`);
  }
  return out;
}

// ---------- goals ----------

interface Goal { goal: string; target: string; measured: string; met: boolean | null }

function goals(r: { step: StepSection | null; rapier: RapierSection | null; converge: ConvergeSection | null; peers: PeersResult | null; crowd: CrowdRow[] | null; alloc: AllocRow[] | null }): Goal[] {
  const out: Goal[] = [];
  const known = (x: number | null | undefined): x is number => typeof x === 'number' && Number.isFinite(x);
  if (r.step) out.push({ goal: 'exact-solve cost against bones (chains and trees, 10 → 10,000)', target: '≤ bones^1.1', measured: `bones^${f(r.step.exponentExact, 2)}`, met: known(r.step.exponentExact) ? r.step.exponentExact <= 1.1 : null });
  if (r.rapier) {
    const x = r.rapier.humanoidVsRapier;
    out.push({ goal: 'humanoid exact step / Rapier world.step() (impulse joints)', target: '≤ 0.1', measured: known(x) ? f(x, 3) : 'n/a', met: known(x) ? x <= 0.1 : null });
    const y = r.rapier.paired?.ratio.median;
    if (known(y)) out.push({ goal: '  the same in alternating blocks, Rapier loaded (humanoidVsRapierPaired)', target: '≤ 0.1', measured: f(y, 3), met: y <= 0.1 });
  }
  if (r.converge) {
    const x = r.converge.humanoidConvergeVsRapier;
    out.push({ goal: 'humanoid: time from a target jump to convergence (1% of height) / Rapier\'s', target: '≤ 0.3', measured: known(x) ? f(x, 3) : 'n/a', met: known(x) ? x <= 0.3 : null });
    const y = convergePaired(r.converge, r.rapier);
    if (known(y)) out.push({ goal: '  the same with the step times of the alternating blocks (humanoidConvergeVsRapierPaired)', target: '≤ 0.3', measured: f(y, 3), met: y <= 0.3 });
  }
  if (r.crowd) {
    const c = r.crowd.find((row) => row.rigs === 1000 && !row.sleep);
    const z = r.crowd.find((row) => row.rigs === 1000 && row.sleep);
    out.push({ goal: '1000 humanoids in one world, one core (all awake)', target: '≥ 200 steps/s', measured: c ? `${f(c.stepsPerSecond, 0)} steps/s` : 'n/a', met: c ? c.stepsPerSecond >= 200 : null });
    if (z) out.push({ goal: '1000 humanoids, converged rigs sleeping (default)', target: '(for reference)', measured: `${f(z.stepsPerSecond, 0)} steps/s, ${f(100 * z.awakeFraction, 0)}% awake`, met: null });
  }
  if (r.peers) {
    const p = r.peers;
    const ratioGoal = (goal: string, x: number | null, limit: number) =>
      out.push({ goal, target: `≤ ${limit} (≥ ${f(1 / limit, 0)}× faster)`, measured: known(x) ? `${f(x, 3)} (${f(1 / x, 1)}× faster)` : 'n/a', met: known(x) ? x <= limit : null });
    ratioGoal('ccd / three.js CCDIKSolver, 10 bones, equal error', p.ccdVsThree10, 0.2);
    ratioGoal('ccd / three.js CCDIKSolver, 100 bones, equal error', p.ccdVsThree100, 0.02);
    ratioGoal('dls / closed-chain-ik, 10 bones, equal error', p.dlsVsClosedChainIk10, 0.1);
    ratioGoal('dls / closed-chain-ik, 100 bones, equal error', p.dlsVsClosedChainIk100, 0.1);
  }
  if (r.alloc) {
    const h = r.alloc[0]!.count.bytesPerStep, steady = r.alloc[1]!.count.bytesPerStep;
    out.push({ goal: 'allocation per humanoid step (exact, the default; windows with the target move)', target: '0 B', measured: `${f(h, 1)} B`, met: known(h) ? h < 0.5 : null });
    out.push({ goal: 'allocation per humanoid step, steady state (no target move)', target: '0 B', measured: `${f(steady, 1)} B`, met: known(steady) ? steady < 0.5 : null });
  }
  return out;
}

/**
 * Time to convergence, PhysIK / Rapier, with both engines' time per step from the alternating
 * blocks (humanoidVsRapierPaired) instead of sections minutes apart: steps to convergence (the
 * same every run) × the paired step ratio. Null without both sections or when either never converged.
 */
function convergePaired(converge: ConvergeSection | null, rapier: RapierSection | null): number | null {
  const row = converge?.rows.find((x) => x.rig === 'humanoid');
  const ratio = rapier?.paired?.ratio.median;
  if (!row || ratio === undefined || row.physik.convergedStep === null || !row.rapier.convergedStep) return null;
  return (row.physik.convergedStep / row.rapier.convergedStep) * ratio;
}

// ---------- main ----------

async function main(): Promise<void> {
  const json = process.argv.includes('--json');
  const detached = process.argv.includes(DETACHED_FLAG);
  if (detached) detachOneBuffer();
  const onlyArg = process.argv.find((a, i) => process.argv[i - 1] === '--only' || a.startsWith('--only='));
  const only = onlyArg ? new Set(onlyArg.replace(/^--only=/, '').split(',')) : null;
  for (const s of only ?? []) if (!(SECTIONS as readonly string[]).includes(s)) throw new Error(`--only: unknown section "${s}" (sections: ${SECTIONS.join(', ')})`);
  const want = (s: Section) => !only || only.has(s);
  // the load average says how shared the machine was while measuring (other processes' work)
  const machine = { cpu: os.cpus()[0]?.model ?? 'unknown', cores: os.cpus().length, node: process.version, platform: `${os.platform()} ${os.arch()}`, loadAtStart: os.loadavg()[0]!, loadAtEnd: NaN, arrayBufferDetachedFirst: detached };
  const started = performance.now();

  // This project's sections first, the peers after: loading closed-chain-ik or Rapier detaches
  // an ArrayBuffer, which slows every typed-array access for the rest of the process
  // (detached.ts; measured 10-30 % on the step, and CCD / three.js 0.25 after the Rapier
  // section against 0.16-0.19 before it). `--detached` measures everything in that state.
  const stepSec = want('step') ? stepSection() : null;
  const crowd = want('crowd') ? crowdSection() : null;
  const alloc = want('alloc') ? await allocSection() : null;
  const peers = want('peers') ? await runPeers((s) => log(`peers: ${s}`)) : null;
  const rapier = want('rapier') ? await rapierSection(stepSec) : null;
  const humanoidExact = stepSec?.cases.find((r) => r.name === 'humanoid exact' && !r.skipped)?.usPerStep.median;
  const converge = want('converge') ? await convergeSection(log, new Map(humanoidExact === undefined ? [] : [['humanoid', humanoidExact]])) : null;
  log('memory ...');
  const memory = want('memory') ? memorySection(stepSec?.built) : null;
  stepSec?.built.clear(); // the big rigs are not needed any more
  const goalRows = goals({ step: stepSec, rapier, converge, peers, crowd, alloc });
  const seconds = (performance.now() - started) / 1000;
  machine.loadAtEnd = os.loadavg()[0]!;

  if (json) {
    const { built: _built, ...stepJson } = stepSec ?? { built: null };
    const crowd1000 = crowd?.find((r) => r.rigs === 1000 && !r.sleep);
    const crowd1000Sleep = crowd?.find((r) => r.rigs === 1000 && r.sleep);
    process.stdout.write(`${JSON.stringify({
      machine,
      humanoidVsRapier: rapier?.humanoidVsRapier ?? null,
      humanoidVsRapierMultibody: rapier?.humanoidVsRapierMultibody ?? null,
      humanoidVsRapierPaired: rapier?.paired?.ratio.median ?? null,
      humanoidConvergeVsRapier: converge?.humanoidConvergeVsRapier ?? null,
      humanoidConvergeVsRapierPaired: convergePaired(converge, rapier),
      exponentExact: stepSec?.exponentExact ?? null,
      exponentIterative: stepSec?.exponentIterative ?? null,
      crowd1000StepsPerSecond: crowd1000?.stepsPerSecond ?? null,
      crowd1000StepsPerSecondSleeping: crowd1000Sleep?.stepsPerSecond ?? null,
      ccdVsThree10: peers?.ccdVsThree10 ?? null,
      ccdVsThree100: peers?.ccdVsThree100 ?? null,
      dlsVsClosedChainIk10: peers?.dlsVsClosedChainIk10 ?? null,
      dlsVsClosedChainIk100: peers?.dlsVsClosedChainIk100 ?? null,
      allocationsPerStep: alloc?.[0]?.count.bytesPerStep ?? null,
      allocationsPerStepSteady: alloc?.[1]?.count.bytesPerStep ?? null,
      humanoidUsPerStep: stepSec ? {
        exact: stepSec.cases.find((r) => r.name === 'humanoid exact')!.usPerStep.median,
        iterative: stepSec.cases.find((r) => r.name === 'humanoid iterative')!.usPerStep.median,
      } : null,
      step: stepSec ? stepJson : null,
      rapier, converge, peers, crowd, memory, allocations: alloc, goals: goalRows, paper: PAPER, seconds,
    })}\n`);
    return;
  }
  const out = [`machine: ${machine.cpu} (${machine.cores} cores), node ${machine.node}, ${machine.platform}; 1-minute load average ${f(machine.loadAtStart, 2)} at the start, ${f(machine.loadAtEnd, 2)} at the end`, ''];
  if (stepSec) out.push('== PhysIK step ==', ...formatStep(stepSec), '');
  if (rapier) out.push('== Rapier (src/rapier mirror) ==', ...formatRapier(rapier), '');
  if (converge) out.push('== time to convergence against Rapier ==', ...formatConverge(converge), '');
  if (peers) out.push('== kinematic solvers against their JS peers ==', ...formatPeersSummary(peers), '');
  if (crowd) out.push('== many rigs in one world ==', ...formatCrowd(crowd), '');
  if (memory) out.push('== memory ==', ...formatMemory(memory), '');
  if (alloc) out.push('== allocation ==', ...formatAlloc(alloc), '');
  if (goalRows.length) {
    out.push('== performance goals ==', table([['goal', 'target', 'measured', 'met'], ...goalRows.map((g) => [g.goal, g.target, g.measured, g.met === null ? 'n/a' : g.met ? 'yes' : 'no'])]), '');
  }
  out.push(`bench took ${f(seconds, 1)} s`);
  process.stdout.write(`${out.join('\n')}\n`);
}

await main();
