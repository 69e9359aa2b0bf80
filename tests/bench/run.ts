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
 *  capture A 60 s mocap take at 120 Hz on a 31-joint skeleton captured with markers (capture.ts):
 *          CPU time (the least of 5 rounds) and the rate against real time, the steps the
 *          coupled solve took again in its accurate form, and the CPU time by source file.
 *  alloc   Bytes allocated per step (alloc.ts: used-heap growth over windows no garbage
 *          collection overlapped), for the humanoid under PhysIK (both solves) and under every
 *          kinematic solver, a chain, a tree, a crowd and a capture; with the allocating functions
 *          (sampling heap profiler) where a case allocates.
 *
 * A rig that cannot be built (a RangeError from the builder) is skipped with the reason printed.
 *
 * Each section lives in a file of its own (stepSection.ts, rapierSection.ts, converge.ts, peers.ts,
 * crowdSection.ts, memorySection.ts, allocSection.ts; rigs built by building.ts); this file runs
 * the ones asked for and prints the goals.
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { table, fixed as f } from './stats';
import { runPeers, formatPeersSummary, type PeersResult } from './peers';
import { convergeSection, formatConverge, type ConvergeSection } from './converge';
import { DETACHED_FLAG, detachOneBuffer } from './detached';
import { log } from './building';
import { PAPER, StepSection, formatStep, stepSection } from './stepSection';
import { RapierSection, formatRapier, rapierSection } from './rapierSection';
import { CrowdRow, crowdSection, formatCrowd } from './crowdSection';
import { formatMemory, memorySection } from './memorySection';
import { AllocRow, allocSection, formatAlloc } from './allocSection';
import { captureBench, formatCaptureBench, type CaptureBench } from './capture';

const SECTIONS = ['step', 'rapier', 'converge', 'peers', 'crowd', 'memory', 'alloc', 'capture'] as const;
type Section = (typeof SECTIONS)[number];

// ---------- goals ----------

interface Goal { goal: string; target: string; measured: string; met: boolean | null }

interface Results {
  step: StepSection | null; rapier: RapierSection | null; converge: ConvergeSection | null; peers: PeersResult | null;
  crowd: CrowdRow[] | null; alloc: AllocRow[] | null; capture?: CaptureBench | null;
}

function goals(r: Results): Goal[] {
  const out: Goal[] = [];
  if (r.capture) out.push({ goal: 'capture of a 60 s mocap take at 120 Hz, 31 joints (markers on hips, hands, feet)', target: '≤ 0.3 s (≥ 200× real time)', measured: `${f(r.capture.seconds, 3)} s (${f(r.capture.realTimeRate, 0)}×)`, met: r.capture.seconds <= 0.3 });
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
  if (want('capture')) log('capture ...');
  const capture = want('capture') ? await captureBench() : null;
  const peers = want('peers') ? await runPeers((s) => log(`peers: ${s}`)) : null;
  const rapier = want('rapier') ? await rapierSection(stepSec) : null;
  const humanoidExact = stepSec?.cases.find((r) => r.name === 'humanoid exact' && !r.skipped)?.usPerStep.median;
  const converge = want('converge') ? await convergeSection(log, new Map(humanoidExact === undefined ? [] : [['humanoid', humanoidExact]])) : null;
  log('memory ...');
  const memory = want('memory') ? memorySection(stepSec?.built) : null;
  stepSec?.built.clear(); // the big rigs are not needed any more
  const goalRows = goals({ step: stepSec, rapier, converge, peers, crowd, alloc, capture });
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
      rapier, converge, peers, crowd, memory, allocations: alloc, capture, goals: goalRows, paper: PAPER, seconds,
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
  if (capture) out.push('== capture (physics on top of motion) ==', ...formatCaptureBench(capture), '');
  if (goalRows.length) {
    out.push('== performance goals ==', table([['goal', 'target', 'measured', 'met'], ...goalRows.map((g) => [g.goal, g.target, g.measured, g.met === null ? 'n/a' : g.met ? 'yes' : 'no'])]), '');
  }
  out.push(`bench took ${f(seconds, 1)} s`);
  process.stdout.write(`${out.join('\n')}\n`);
}

await main();
