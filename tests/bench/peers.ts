/**
 * Peer benchmark of the kinematic solvers (`npm run bench:peers`, add `-- --json` for one JSON
 * object on stdout; progress goes to stderr). One file of this length because the three pairs
 * share their chains, their equal-error search, their timing and their table.
 *
 * Pairs compared, on the same chains and the same target:
 *  - our `ccd` (systems/ik/ccd.ts) vs three.js's CCDIKSolver (three/examples/jsm/animation/
 *    CCDIKSolver.js, headless: a SkinnedMesh bound to a Skeleton of Bones, the target a bone of
 *    its own under the mesh, `iks = [{ effector: tip, target, links: bones n-1 … 0, iteration: N }]`);
 *  - our `fabrik` (systems/ik/fabrik.ts) vs THREE.IK (npm `three-ik`, FABRIK on three.js bones:
 *    bones b0 … bn, one IKChain of their n + 1 joints with the target an Object3D; loaded with a
 *    small shim for the installed three.js, tests/bench/threeIk.ts). One IK.solve() is one
 *    FABRIK iteration, so its N is N calls; its bones are reset inside the timed solve;
 *  - our `dls` (systems/ik/jacobian.ts) vs closed-chain-ik (gkjohnson/closed-chain-ik-js,
 *    npm `closed-chain-ik`, its core Solver: Link → Joint(EX, EY, EZ) → Link → … → a fixed
 *    Joint to a tip Link, closed by a position-only Goal (DOF X, Y, Z)). If the package cannot
 *    be loaded the pair is skipped with a printed note and its ratios are null.
 *
 * Chains: 10 and 100 bones, straight along +X from a pinned root at the origin, every bone
 * 1/n long (chain length L = 1), 3 rotational DOF per joint, no limits. The effector is the
 * tip of the last bone; the target is (0.4, 0.5, 0.3) · L, 0.71 L from the root (reachable,
 * off to the side and up, so the straight start has to bend).
 *
 * One solve = one full solve from the rest pose to the target with N iterations:
 *  - ours: one `step(world, 1)` of a rig with solver 'ccd' | 'dls', ikMode 'path-independent'
 *    (the solver resets the chain to its rest pose itself), interpolation 'none', ikIterations
 *    N and ikTolerance 1e-12 (so it does not stop early on tolerance; it may still stop early
 *    when an iteration changes nothing), sleepWhenConverged false (a converged rig would
 *    otherwise sleep through the next solves). The step is the whole pipeline (the other systems
 *    skip kinematic rigs; forward kinematics and metrics still run); the solver alone
 *    (kinematicSolvers[name](world, rig), rest reset included) is timed too, at the
 *    equal-error point.
 *  - three.js: put every link's quaternion back to identity and update the chain's world
 *    matrices (the rest pose; both inside the timed solve, as ours resets inside its step),
 *    then `update()` with ik.iteration = N.
 *  - closed-chain-ik: every joint's DOF values back to 0 (dirty flags set; timed likewise),
 *    then `solve()` with maxIterations = N. Settings: dampingFactor = 0.05 · L (the λ our dls
 *    uses by default, dlsLambda 0.05 × rig height; the package's default 0.001 diverges on
 *    this straight start, which is measured and printed as a note), restPoseFactor = 0 (no
 *    joint has a rest pose; otherwise it still forms a DOF×DOF nullspace projection every
 *    iteration), stallThreshold = 0 and translationConvergeThreshold = 1e-12 (so it, too,
 *    runs its N iterations), the rest its defaults (no SVD, error clamp 0.1, divergence check).
 *    Its frames are Float32Array, so its error floors near 1e-7 · L.
 * Error = distance from the chain tip to the target after the solve (ours from readPose, three
 * from the effector bone's matrixWorld, closed-chain-ik from the tip link's world position).
 *
 * Timing: in one process, after a warm-up of every solver; each measurement alternates
 * blocks of ours and theirs (BLOCKS in the sweep, EQUAL_BLOCKS at equal error), a block being
 * as many back-to-back solves as fill about BLOCK_MS (at least one); a block's figure is its
 * mean µs per solve. Times are the median over blocks with the interquartile range; a ratio
 * ours/theirs is the median over neighbouring block pairs of ours' block / theirs' block (the
 * pair shares the machine's load at the time, which on a shared VM moves single medians by
 * 10-30 %), with its IQR; the ratio of the two medians is in the JSON too.
 *
 * Sweep: N = 1, 2, 4, 8, … (both at the same N) until both are within the threshold, at least
 * up to 16 and at most SWEEP_MAX: time and error of each at equal iterations.
 * Equal error: the threshold is 1e-3 · L. For each solver its smallest N reaching it: the first
 * power of two of the sweep whose error is ≤ the threshold, then bisection on N between it and
 * the power before (errors are deterministic; a solve is re-run per probe). Both are timed at
 * their own N (alternating blocks, as above), and the ratio is ours / theirs: µs per solve at
 * equal error (both ≤ 1e-3 · L; "equal error" means exactly this: each side at the fewest
 * iterations that brings its tip within 1e-3 · L of the target, not the same final error to
 * the digit), lower is better for us. If one side never gets there within
 * SWEEP_MAX iterations the ratio is null and a note says so.
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { threeChain } from '../support/threeChain';
import { threeIkChain } from './threeIk';
import { createPhysikWorld, addRig, setTarget, step, setSettings, readPose, readMetrics } from '../../src/core';
import { kinematicSolvers } from '../../systems/ik/registry';
import type { BoneDescription } from '../../src/scene/types';
import { spread, table, type Spread } from './stats';
import { DETACHED_FLAG, detachOneBuffer } from './detached';

const L = 1;
const TARGET: [number, number, number] = [0.4 * L, 0.5 * L, 0.3 * L];
const THRESHOLD = 1e-3 * L;
const SIZES = [10, 100] as const;
const SWEEP_MIN = 16;
const SWEEP_MAX = 1024;
const BLOCKS = 9;
const EQUAL_BLOCKS = 21;
const BLOCK_MS = 20;
const WARMUP_MS = 150;

// ---------- statistics ----------



// ---------- contenders ----------

interface Contender {
  label: string;
  setIterations(n: number): void;
  /** One full solve from the rest pose (the reset included). */
  solve(): void;
  /** Distance of the chain tip to the target after the last solve. */
  error(): number;
  /** Status and iterations used by the last solve, where the solver reports them. */
  info(): string;
  /** A second figure timed at the equal-error point: ours the solver alone, theirs the reset alone. */
  part: { label: string; run(): void };
}

function ours(solver: 'ccd' | 'dls' | 'fabrik', n: number): Contender {
  const bones: BoneDescription[] = [];
  for (let i = 0; i < n; i++) {
    const b: BoneDescription = { name: `b${i}`, parent: i === 0 ? null : `b${i - 1}`, direction: [1, 0, 0], length: L / n };
    if (i === 0) b.head = [0, 0, 0];
    bones.push(b);
  }
  const world = createPhysikWorld();
  const handle = addRig(world, {
    rig: { name: `chain${n}`, root: 'pinned', bones },
    controlPoints: [{ name: 'tip', bone: `b${n - 1}` }],
    // (awake: a rig that converged would sleep through the next solves)
    settings: { solver, ikMode: 'path-independent', ikIterations: 1, ikTolerance: 1e-12, interpolation: 'none', sleepWhenConverged: false },
  });
  setTarget(world, handle.controlPoints.tip!, TARGET);
  const record = world.physik.rigs.find((r) => r.eid === handle.rig)!;
  const solveOnly = kinematicSolvers[solver]!;
  const tipName = `b${n - 1}`;
  return {
    label: `physik-ecs ${solver}`,
    setIterations: (N) => setSettings(world, handle.rig, { ikIterations: N }),
    solve: () => step(world, 1),
    error: () => {
      const t = readPose(world, handle.rig)[tipName]!.tail;
      return Math.hypot(t[0] - TARGET[0], t[1] - TARGET[1], t[2] - TARGET[2]);
    },
    info: () => { const m = readMetrics(world, handle.rig); return `${m.solveStatus} ${m.passes}`; },
    part: { label: 'solver alone', run: () => { solveOnly(world, record); } },
  };
}

function threeCcd(n: number): Contender {
  const { bones, ik, solver } = threeChain(n, L, TARGET);
  const reset = () => {
    for (let i = 0; i < n; i++) bones[i]!.quaternion.set(0, 0, 0, 1);
    bones[0]!.updateMatrixWorld(true);
  };
  const tip = bones[n]!;
  return {
    label: 'three.js CCDIKSolver',
    setIterations: (N) => { ik.iteration = N; },
    solve: () => { reset(); solver.update(); },
    error: () => {
      const e = tip.matrixWorld.elements;
      return Math.hypot(e[12]! - TARGET[0], e[13]! - TARGET[1], e[14]! - TARGET[2]);
    },
    info: () => '',
    part: { label: 'reset alone', run: reset },
  };
}

function threeIk(n: number): Contender {
  const c = threeIkChain(n, L, TARGET);
  const tip = c.bones[n]!;
  let N = 1;
  return {
    label: 'THREE.IK (three-ik)',
    // one IK.solve() is one FABRIK iteration (a forward and a backward pass)
    setIterations: (k) => { N = k; },
    solve: () => { c.reset(); for (let k = 0; k < N; k++) c.ik.solve(); },
    error: () => {
      const e = tip.matrixWorld.elements;
      return Math.hypot(e[12]! - TARGET[0], e[13]! - TARGET[1], e[14]! - TARGET[2]);
    },
    info: () => '',
    part: { label: 'reset alone', run: c.reset },
  };
}

/** The parts of closed-chain-ik's core used here (its .d.ts is loose: `Number`, ambient const enums). */
interface CcFrame {
  addChild(c: CcFrame): void;
  setPosition(x: number, y: number, z: number): void;
  getWorldPosition(out: Float32Array): void;
}
interface CcJoint extends CcFrame {
  setDoF(...dof: number[]): void;
  dofValues: Float32Array;
  setMatrixDoFNeedsUpdate(): void;
  makeClosure(link: CcFrame): void;
}
interface CcSolver {
  maxIterations: number; stallThreshold: number; dampingFactor: number; divergeThreshold: number; restPoseFactor: number;
  translationConvergeThreshold: number; translationErrorClamp: number; useSVD: boolean;
  solve(): number[];
}
interface CcModule {
  Link: new () => CcFrame;
  Joint: new () => CcJoint;
  Goal: new () => CcJoint;
  Solver: new (roots: CcFrame | CcFrame[]) => CcSolver;
  DOF: { X: number; Y: number; Z: number; EX: number; EY: number; EZ: number };
  SOLVE_STATUS_NAMES: string[];
}

function closedChainIk(cc: CcModule, n: number, packageDefaults = false): Contender {
  const { Link, Joint, Goal, Solver, DOF } = cc;
  const root = new Link();
  const joints: CcJoint[] = [];
  let parent = root;
  for (let i = 0; i < n; i++) {
    const j = new Joint();
    j.setDoF(DOF.EX, DOF.EY, DOF.EZ);
    if (i > 0) j.setPosition(L / n, 0, 0);
    parent.addChild(j);
    const link = new Link();
    j.addChild(link);
    parent = link;
    joints.push(j);
  }
  const tipJoint = new Joint(); // fixed (no DOF): the tip of the last bone
  tipJoint.setPosition(L / n, 0, 0);
  parent.addChild(tipJoint);
  const tip = new Link();
  tipJoint.addChild(tip);
  const goal = new Goal();
  goal.setDoF(DOF.X, DOF.Y, DOF.Z);
  goal.setPosition(...TARGET);
  goal.makeClosure(tip);
  const solver = new Solver(root);
  if (!packageDefaults) {
    solver.dampingFactor = 0.05 * L;
    solver.restPoseFactor = 0;
    solver.stallThreshold = 0;
    solver.translationConvergeThreshold = 1e-12;
  }
  const reset = () => {
    for (let i = 0; i < n; i++) { joints[i]!.dofValues.fill(0); joints[i]!.setMatrixDoFNeedsUpdate(); }
  };
  const p = new Float32Array(3);
  let status = '';
  return {
    label: 'closed-chain-ik Solver',
    setIterations: (N) => { solver.maxIterations = N; },
    solve: () => { reset(); status = cc.SOLVE_STATUS_NAMES[solver.solve()[0]!] ?? '?'; },
    error: () => { tip.getWorldPosition(p); return Math.hypot(p[0]! - TARGET[0], p[1]! - TARGET[1], p[2]! - TARGET[2]); },
    info: () => status.toLowerCase(),
    part: { label: 'reset alone', run: reset },
  };
}

// ---------- measuring ----------

/** Back-to-back runs of fn that fill about BLOCK_MS (at least one). */
function runsPerBlock(fn: () => void): number {
  let runs = 0;
  const t0 = performance.now();
  let elapsed = 0;
  do { fn(); runs++; elapsed = performance.now() - t0; } while (elapsed < 2 && runs < 1000);
  return Math.max(1, Math.round((BLOCK_MS * runs) / elapsed));
}

function block(fn: () => void, runs: number): number {
  const t0 = performance.now();
  for (let i = 0; i < runs; i++) fn();
  return ((performance.now() - t0) * 1000) / runs;
}

/**
 * µs per call of a and of b, alternating blocks, and the ratio a/b: the median over pairs of
 * neighbouring blocks (which share the machine's load at the time), with its spread.
 */
function timePair(a: () => void, b: () => void, blocks = BLOCKS): { a: Spread; b: Spread; ratio: Spread } {
  const ka = runsPerBlock(a), kb = runsPerBlock(b);
  const ta: number[] = [], tb: number[] = [], r: number[] = [];
  for (let i = 0; i < blocks; i++) {
    ta.push(block(a, ka)); tb.push(block(b, kb));
    r.push(ta[i]! / tb[i]!);
  }
  return { a: spread(ta), b: spread(tb), ratio: spread(r) };
}

function warm(c: Contender): void {
  for (const N of [1, 2, 4, 8, 16]) {
    c.setIterations(N);
    const t0 = performance.now();
    do c.solve(); while (performance.now() - t0 < WARMUP_MS / 5);
  }
  const t0 = performance.now();
  do c.part.run(); while (performance.now() - t0 < WARMUP_MS / 5);
}

function errorAt(c: Contender, N: number): number {
  c.setIterations(N);
  c.solve();
  return c.error();
}

/** Smallest N with error ≤ threshold, by bisection in (lo, hi] where hi reaches it. */
function smallestN(c: Contender, lo: number, hi: number): number {
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (errorAt(c, mid) <= THRESHOLD) hi = mid; else lo = mid;
  }
  return hi;
}

interface SweepRow {
  iterations: number;
  oursUs: Spread; theirsUs: Spread; ratio: number;
  oursError: number; theirsError: number;
  oursInfo: string; theirsInfo: string;
}

interface Side { label: string; iterations: number; us: Spread; error: number; info: string; partLabel: string; partUs: Spread; usPerIteration: number }

interface Comparison {
  key: string;
  pair: string;
  bones: number;
  threshold: number;
  sweep: SweepRow[];
  /** ratio: median over neighbouring block pairs of ours/theirs (the headline); ratioOfMedians for reference. */
  equalError: { ours: Side; theirs: Side; ratio: number; ratioSpread: Spread; ratioOfMedians: number } | null;
  note?: string;
}

function compare(key: string, pair: string, n: number, a: Contender, b: Contender, log: (s: string) => void): Comparison {
  log(`${pair}, ${n} bones: warm-up ...`);
  warm(a); warm(b);
  const sweep: SweepRow[] = [];
  let reachA = -1, reachB = -1, bestA = Infinity, bestB = Infinity;
  for (let N = 1; N <= SWEEP_MAX; N *= 2) {
    log(`${pair}, ${n} bones: N = ${N} ...`);
    a.setIterations(N); b.setIterations(N);
    const t = timePair(a.solve, b.solve);
    a.solve(); b.solve();
    const ea = a.error(), eb = b.error();
    bestA = Math.min(bestA, ea); bestB = Math.min(bestB, eb);
    sweep.push({ iterations: N, oursUs: t.a, theirsUs: t.b, ratio: t.ratio.median, oursError: ea, theirsError: eb, oursInfo: a.info(), theirsInfo: b.info() });
    if (reachA < 0 && ea <= THRESHOLD) reachA = N;
    if (reachB < 0 && eb <= THRESHOLD) reachB = N;
    if (reachA > 0 && reachB > 0 && N >= SWEEP_MIN) break;
  }
  if (reachA < 0 || reachB < 0) {
    const who = [reachA < 0 ? `${a.label} (best ${bestA.toExponential(2)})` : '', reachB < 0 ? `${b.label} (best ${bestB.toExponential(2)})` : ''].filter(Boolean).join(' and ');
    return { key, pair, bones: n, threshold: THRESHOLD, sweep, equalError: null, note: `${who} did not reach ${THRESHOLD} within ${SWEEP_MAX} iterations: no equal-error ratio` };
  }
  log(`${pair}, ${n} bones: equal error ...`);
  const nA = smallestN(a, reachA / 2, reachA), nB = smallestN(b, reachB / 2, reachB);
  a.setIterations(nA); b.setIterations(nB);
  const t = timePair(a.solve, b.solve, EQUAL_BLOCKS);
  a.solve(); b.solve();
  const ea = a.error(), eb = b.error(), ia = a.info(), ib = b.info();
  const parts = timePair(a.part.run, b.part.run);
  const side = (c: Contender, N: number, us: Spread, error: number, info: string, part: Spread): Side =>
    ({ label: c.label, iterations: N, us, error, info, partLabel: c.part.label, partUs: part, usPerIteration: us.median / N });
  return {
    key, pair, bones: n, threshold: THRESHOLD, sweep,
    equalError: {
      ours: side(a, nA, t.a, ea, ia, parts.a), theirs: side(b, nB, t.b, eb, ib, parts.b),
      ratio: t.ratio.median, ratioSpread: t.ratio, ratioOfMedians: t.a.median / t.b.median,
    },
  };
}

// ---------- output ----------

const f = (x: number, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : String(x));
const e2 = (x: number) => (Number.isFinite(x) ? x.toExponential(1) : String(x));


export interface PeersResult {
  machine: { cpu: string; cores: number; node: string; platform: string };
  problem: { chainLength: number; bones: readonly number[]; target: [number, number, number]; threshold: number; blocks: number; blockMs: number };
  ccdVsThree10: number | null;
  ccdVsThree100: number | null;
  fabrikVsThreeIk10: number | null;
  fabrikVsThreeIk100: number | null;
  dlsVsClosedChainIk10: number | null;
  dlsVsClosedChainIk100: number | null;
  comparisons: Comparison[];
  notes: string[];
  seconds: number;
}

/** Every pair on every chain, in this process; progress lines go to `log`. */
export async function runPeers(log: (s: string) => void): Promise<PeersResult> {
  const machine = { cpu: os.cpus()[0]?.model ?? 'unknown', cores: os.cpus().length, node: process.version, platform: `${os.platform()} ${os.arch()}` };
  const started = performance.now();
  const notes: string[] = [];

  const comparisons: Comparison[] = [];
  // the CCD pairs first, before closed-chain-ik is imported: importing it (through tsx's
  // loader thread) detaches an ArrayBuffer, after which this project's typed-array code runs
  // 10-30 % slower and three.js's objects do not (CCD / three.js 0.21-0.23 against 0.16-0.19;
  // detached.ts); `--detached` measures both pairs in that state
  for (const n of SIZES) comparisons.push(compare(`ccdVsThree${n}`, 'ccd vs three.js CCDIKSolver', n, ours('ccd', n), threeCcd(n), log));
  let threeIkLoaded = true;
  try { threeIkChain(2, L, TARGET).ik.solve(); } catch (err) {
    threeIkLoaded = false;
    notes.push(`three-ik skipped: could not be loaded or run (${(err as Error).message}); install it with npm install -D three-ik`);
  }
  for (const n of SIZES) {
    comparisons.push(threeIkLoaded
      ? compare(`fabrikVsThreeIk${n}`, 'fabrik vs THREE.IK', n, ours('fabrik', n), threeIk(n), log)
      : { key: `fabrikVsThreeIk${n}`, pair: 'fabrik vs THREE.IK', bones: n, threshold: THRESHOLD, sweep: [], equalError: null, note: 'three-ik not available' });
  }
  let cc: CcModule | null = null;
  try {
    cc = (await import('closed-chain-ik/src/core/index.js')) as unknown as CcModule;
    closedChainIk(cc, 2).solve();
  } catch (err) {
    cc = null;
    notes.push(`closed-chain-ik skipped: could not be loaded or run in Node (${(err as Error).message}); install it with npm install -D closed-chain-ik`);
  }
  if (cc) {
    for (const n of SIZES) comparisons.push(compare(`dlsVsClosedChainIk${n}`, 'dls vs closed-chain-ik', n, ours('dls', n), closedChainIk(cc, n), log));
    for (const n of SIZES) {
      const d = closedChainIk(cc, n, true);
      const e = errorAt(d, 64);
      notes.push(`closed-chain-ik with its default settings (dampingFactor 0.001, stallThreshold 1e-4, divergeThreshold 0.01), ${n} bones, maxIterations 64: ${d.info()}, error ${e2(e)} (from ${e2(Math.hypot(L - TARGET[0], TARGET[1], TARGET[2]))} at rest); hence dampingFactor 0.05 · L here`);
    }
  } else {
    for (const n of SIZES) comparisons.push({ key: `dlsVsClosedChainIk${n}`, pair: 'dls vs closed-chain-ik', bones: n, threshold: THRESHOLD, sweep: [], equalError: null, note: 'closed-chain-ik not available' });
  }
  for (const c of comparisons) if (c.note) notes.push(`${c.pair}, ${c.bones} bones: ${c.note}`);
  const ratio = (key: string) => comparisons.find((c) => c.key === key)?.equalError?.ratio ?? null;
  return {
    machine,
    problem: { chainLength: L, bones: SIZES, target: TARGET, threshold: THRESHOLD, blocks: BLOCKS, blockMs: BLOCK_MS },
    ccdVsThree10: ratio('ccdVsThree10'),
    ccdVsThree100: ratio('ccdVsThree100'),
    fabrikVsThreeIk10: ratio('fabrikVsThreeIk10'),
    fabrikVsThreeIk100: ratio('fabrikVsThreeIk100'),
    dlsVsClosedChainIk10: ratio('dlsVsClosedChainIk10'),
    dlsVsClosedChainIk100: ratio('dlsVsClosedChainIk100'),
    comparisons,
    notes,
    seconds: (performance.now() - started) / 1000,
  };
}

const ratioText = (r: number | null) => (r === null ? 'n/a' : f(r, 3));

/** The equal-error table and the six ratios (what `npm run bench` prints). */
export function formatPeersSummary(result: PeersResult): string[] {
  const eqRows = [['pair', 'bones', 'ours N', 'ours µs', 'ours err', 'µs/it', 'solver alone µs', 'theirs N', 'theirs µs', 'theirs err', 'µs/it', 'reset µs', 'ours/theirs', 'IQR']];
  for (const c of result.comparisons) {
    const q = c.equalError;
    if (!q) { eqRows.push([c.pair, String(c.bones), '–', '–', '–', '–', '–', '–', '–', '–', '–', '–', 'n/a', '–']); continue; }
    eqRows.push([
      c.pair, String(c.bones),
      String(q.ours.iterations), f(q.ours.us.median), e2(q.ours.error), f(q.ours.usPerIteration, 2), f(q.ours.partUs.median),
      String(q.theirs.iterations), f(q.theirs.us.median), e2(q.theirs.error), f(q.theirs.usPerIteration, 2), f(q.theirs.partUs.median),
      f(q.ratio, 3), `${f(q.ratioSpread.q1, 3)}–${f(q.ratioSpread.q3, 3)}`,
    ]);
  }
  return [
    `equal error (each at its smallest N with error ≤ ${THRESHOLD} = 1e-3 × chain length; ours/theirs < 1 means ours is faster):`,
    'settings: ours: one step(world, 1), ikMode path-independent (reset to rest inside the solve), ikIterations N, ikTolerance 1e-12 (no early stop on tolerance),',
    '  interpolation none, sleepWhenConverged false; three.js CCDIKSolver: links reset to rest inside the timed solve, iteration N (it skips a link turning less than 1e-5 rad',
    '  and stops when none turns); THREE.IK: bones reset inside the timed solve, N calls of IK.solve() (one FABRIK iteration each), no constraints; closed-chain-ik: DOF reset inside the timed solve, maxIterations N, dampingFactor 0.05 L, stallThreshold 0, converge threshold 1e-12; no limits anywhere',
    table(eqRows, 2),
    '',
    `ccdVsThree10 = ${ratioText(result.ccdVsThree10)}, ccdVsThree100 = ${ratioText(result.ccdVsThree100)}, ` +
      `fabrikVsThreeIk10 = ${ratioText(result.fabrikVsThreeIk10)}, fabrikVsThreeIk100 = ${ratioText(result.fabrikVsThreeIk100)}, ` +
      `dlsVsClosedChainIk10 = ${ratioText(result.dlsVsClosedChainIk10)}, dlsVsClosedChainIk100 = ${ratioText(result.dlsVsClosedChainIk100)}`,
    ...result.notes.map((s) => `note: ${s}`),
  ];
}

/** The full report of `npm run bench:peers`: the sweep at equal iterations, then the summary. */
export function formatPeers(result: PeersResult): string[] {
  const sweepRows = [['pair', 'bones', 'N', 'ours µs', 'IQR', 'theirs µs', 'IQR', 'ours/theirs', 'ours err', 'theirs err', 'ours status', 'theirs status']];
  for (const c of result.comparisons) {
    for (const r of c.sweep) {
      sweepRows.push([
        c.pair, String(c.bones), String(r.iterations),
        f(r.oursUs.median), `${f(r.oursUs.q1)}–${f(r.oursUs.q3)}`, f(r.theirsUs.median), `${f(r.theirsUs.q1)}–${f(r.theirsUs.q3)}`,
        f(r.ratio, 2), e2(r.oursError), e2(r.theirsError), r.oursInfo, r.theirsInfo,
      ]);
    }
  }
  const { machine } = result;
  return [
    `machine: ${machine.cpu} (${machine.cores} cores), node ${machine.node}, ${machine.platform}`,
    `chains of ${SIZES.join(' and ')} bones along +X, length ${L}, pinned root; target (${TARGET.join(', ')}); one solve = from the rest pose, N iterations`,
    '',
    "equal iterations (µs per solve, median over blocks; error = |tip − target|; status: ours 'stalled k' = stopped after k iterations without reaching the 1e-12 tolerance, theirs 'timeout' = ran maxIterations):",
    table(sweepRows, 2),
    '',
    ...formatPeersSummary(result),
    '',
    `bench took ${f(result.seconds, 1)} s`,
  ];
}

async function main(): Promise<void> {
  const json = process.argv.includes('--json');
  if (process.argv.includes(DETACHED_FLAG)) detachOneBuffer();
  const result = await runPeers((s) => process.stderr.write(`${s}\n`));
  if (json) process.stdout.write(`${JSON.stringify(result)}\n`);
  else process.stdout.write(`${formatPeers(result).join('\n')}\n`);
}

// `npm run bench:peers` runs this file; `npm run bench` imports runPeers from it
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) void main();
