/**
 * Capture benchmark: a 60-second mocap take at 120 Hz (7200 frames) on the CMU walk's 31-joint
 * skeleton, captured with world markers on the hips, hands and feet and every other joint free
 * (the capture-walk scene's setup), recorded at the clip's rate. The take is the 2.9 s walk
 * looped (loopWalk) until it lasts a minute.
 * Prints the capture's CPU time (this process's, so other work on a shared machine is not
 * counted; the least of 5 rounds after an untimed warm-up, with the median beside), its wall
 * time, how many times faster than real time it ran and the time per step; the goal is 0.3 s
 * (200× real time) on one core. Then how many steps the coupled joint solve took again in its
 * accurate form, and where one more round spent its CPU time, by source file (node:inspector's
 * sampling profiler: the capture's own files, src/capture and src/world/clipPose.ts, beside
 * the step's systems).
 * Not a test: it only prints. `node --import tsx tests/bench/capture.ts` runs it alone; `npm run
 * bench` runs it as its `capture` section.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { Session } from 'node:inspector/promises';
import { createPhysikWorld, addRig } from '../../src/core';
import { importBvh } from '../../src/io/bvhImport';
import { dropReferenceFrame, motionFromBvh, type SourceMotion } from '../../src/capture/source';
import { bindClip } from '../../src/capture/bind';
import { attachClip, captureClip, captureSettings } from '../../src/capture/capture';
import { coupledSolveForm } from '../../systems/interJointSolve';

const here = fileURLToPath(new URL('.', import.meta.url));
const walkFile = join(here, '../fixtures/external/cmu_subject02_walk_delfem2.bvh');

/**
 * The walk looped until it has `frames` frames: the stretch between the two frames at least a
 * second apart whose poses (every joint's rotation relative to the root's, and the root's
 * height) differ least, repeated with the root moved on by the stretch's travel each time, so
 * the walker keeps walking; each loop's first frames crossfade from the frames that follow the
 * stretch in the take, so a seam is no jump.
 */
export function loopWalk(clip: SourceMotion, frames: number): SourceMotion {
  const n = clip.joints.length, F = clip.frameCount, R = clip.rotations, P = clip.positions;
  const root = clip.joints.findIndex((j) => j.parent < 0);
  // each joint's rotation relative to the root's, per frame
  const rel = new Float64Array(F * n * 4);
  for (let f = 0; f < F; f++) {
    const r = (f * n + root) * 4;
    const ax = -R[r]!, ay = -R[r + 1]!, az = -R[r + 2]!, aw = R[r + 3]!;
    for (let j = 0; j < n; j++) {
      const q = (f * n + j) * 4;
      const bx = R[q]!, by = R[q + 1]!, bz = R[q + 2]!, bw = R[q + 3]!;
      rel[q] = aw * bx + ax * bw + ay * bz - az * by;
      rel[q + 1] = aw * by - ax * bz + ay * bw + az * bx;
      rel[q + 2] = aw * bz + ax * by - ay * bx + az * bw;
      rel[q + 3] = aw * bw - ax * bx - ay * by - az * bz;
    }
  }
  const minGap = Math.round(clip.fps);
  let best = Infinity, a = 0, b = F - 1;
  for (let i = 0; i < F; i++) {
    for (let k = i + minGap; k < F; k++) {
      let d = Math.abs(P[(i * n + root) * 3 + 1]! - P[(k * n + root) * 3 + 1]!);
      for (let j = 0; j < n && d < best; j++) {
        const p = (i * n + j) * 4, q = (k * n + j) * 4;
        d += 1 - Math.abs(rel[p]! * rel[q]! + rel[p + 1]! * rel[q + 1]! + rel[p + 2]! * rel[q + 2]! + rel[p + 3]! * rel[q + 3]!);
      }
      if (d < best) { best = d; a = i; b = k; }
    }
  }
  const span = b - a;
  const travel = [0, 2].map((c) => P[(b * n + root) * 3 + c]! - P[(a * n + root) * 3 + c]!);
  const out: SourceMotion = { ...clip, frameCount: frames, positions: new Float64Array(frames * n * 3), rotations: new Float64Array(frames * n * 4), notes: [] };
  // the first frames of each loop blend from where the last loop would have gone on (frames
  // after b), so the seam is a short crossfade, not a jump
  const blend = Math.min(24, F - 1 - b);
  for (let f = 0; f < frames; f++) {
    const cycle = Math.floor(f / span), k = f % span, src = a + k;
    const u = cycle > 0 && k < blend ? (k + 1) / (blend + 1) : 1, prev = b + k;
    for (let j = 0; j < n; j++) {
      const o = (f * n + j) * 3, i = (src * n + j) * 3, p = (prev * n + j) * 3;
      for (const c of [0, 1, 2]) {
        const along = c === 1 ? 0 : cycle * travel[c === 0 ? 0 : 1]!;
        const before = c === 1 ? 0 : (cycle - 1) * travel[c === 0 ? 0 : 1]!;
        out.positions[o + c] = u === 1 ? P[i + c]! + along : (1 - u) * (P[p + c]! + before) + u * (P[i + c]! + along);
      }
      const q = (f * n + j) * 4, qi = (src * n + j) * 4, qp = (prev * n + j) * 4;
      if (u === 1) { out.rotations.set(R.subarray(qi, qi + 4), q); continue; }
      // normalised lerp the short way (the poses are close)
      const sign = R[qi]! * R[qp]! + R[qi + 1]! * R[qp + 1]! + R[qi + 2]! * R[qp + 2]! + R[qi + 3]! * R[qp + 3]! < 0 ? -1 : 1;
      let len = 0;
      for (let c = 0; c < 4; c++) { const v = (1 - u) * sign * R[qp + c]! + u * R[qi + c]!; out.rotations[q + c] = v; len += v * v; }
      len = Math.sqrt(len);
      for (let c = 0; c < 4; c++) out.rotations[q + c] = out.rotations[q + c]! / len;
    }
  }
  return out;
}

export interface CaptureBench {
  frames: number;
  joints: number;
  clipSeconds: number;
  /** CPU time of the capture (this process, user + system): the least over the rounds, and their median. */
  seconds: number;
  medianSeconds: number;
  rounds: number;
  /** Wall time of the round with the least CPU time. */
  wallSeconds: number;
  realTimeRate: number;
  usPerStep: number;
  maxMarkerStray: number;
  maxLimitViolationDeg: number;
  /** Steps the divergence guard had retried in substeps, or took with clamped speeds. */
  retriedSteps: number;
  clampedSteps: number;
  /** Steps whose coupled joint solve failed its check and ran again in the accurate form (systems/interJointSolve.ts). */
  accurateSteps: number;
  steps: number;
  /** Where a profiled round spent its CPU time: share of the samples by source file, largest first. */
  profile: { file: string; share: number }[];
}

const MARKERS = [
  { name: 'hips', kind: 'world' as const, bones: ['Hips'] },
  { name: 'hands', kind: 'world' as const, bones: ['LeftHand', 'RightHand'] },
  { name: 'feet', kind: 'world' as const, bones: ['LeftFoot', 'RightFoot'] },
];

/** CPU time of this process (user + system), ms: a shared machine's other work is not counted. */
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };

/** A fresh world with the take attached to the walk's rig, ready to capture. */
function prepare(text: string, clip: SourceMotion) {
  const rig = importBvh(text, walkFile, { motion: false }).scene.rig;
  const world = createPhysikWorld();
  const { rig: r } = addRig(world, { rig, settings: captureSettings(clip.fps) });
  const handle = attachClip(world, r, bindClip(world, r, clip).track, { markers: MARKERS });
  return { world, r, handle };
}

/** The walk looped to `frames` frames, attached as the benchmark attaches it (the allocation section's capture row). */
export function walkCapture(frames: number) {
  const text = readFileSync(walkFile, 'utf8');
  const { world, r, handle } = prepare(text, loopWalk(dropReferenceFrame(motionFromBvh(text, walkFile)), frames));
  return { world, rig: r, handle };
}

/** The take captured once on a fresh world: the result, its wall time and the guard's and the solve's counts. */
function captureOnce(text: string, clip: SourceMotion) {
  const { world, r, handle } = prepare(text, clip);
  const accurate0 = coupledSolveForm.accurateSteps;
  const w0 = performance.now();
  const result = captureClip(world, handle, cpu);
  const wall = (performance.now() - w0) / 1000;
  return { result, wall, retried: world.physik.Rig.retriedSteps[r]!, clamped: world.physik.Rig.clampedSteps[r]!, accurate: coupledSolveForm.accurateSteps - accurate0 };
}

/** Self time of a profiled capture (the steps and the recording, not the setup) by source file (node:inspector's sampling CPU profiler). */
async function profileCapture(text: string, clip: SourceMotion): Promise<{ file: string; share: number }[]> {
  const { world, handle } = prepare(text, clip);
  const session = new Session();
  session.connect();
  interface Node { id: number; callFrame: { url: string; functionName: string } }
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 50 });
    await session.post('Profiler.start');
    captureClip(world, handle);
    const { profile } = (await session.post('Profiler.stop')) as { profile: { nodes: Node[]; samples: number[] } };
    const fileOf = new Map<number, string>();
    for (const n of profile.nodes) {
      const url = n.callFrame.url.replace(/^file:\/\//, '');
      const m = /\/((?:src|systems|components|tests)\/.*)$/.exec(url);
      fileOf.set(n.id, m ? m[1]! : url === '' ? `(${n.callFrame.functionName || 'vm'})` : '(node)');
    }
    const counts = new Map<string, number>();
    let total = 0;
    for (const id of profile.samples) {
      const f = fileOf.get(id) ?? '(vm)';
      if (f === '(idle)' || f === '(program)') continue;
      counts.set(f, (counts.get(f) ?? 0) + 1);
      total++;
    }
    return [...counts].map(([file, c]) => ({ file, share: c / total })).sort((a, b) => b.share - a.share);
  } finally {
    await session.post('Profiler.disable').catch(() => undefined);
    session.disconnect();
  }
}

/**
 * The take captured `rounds` times after a warm-up, timed by CPU time (the least is the
 * figure: another process only ever slows a round), and once more under the sampling profiler
 * for where the time goes.
 */
export async function captureBench(seconds = 60, rounds = 5): Promise<CaptureBench> {
  const text = readFileSync(walkFile, 'utf8');
  const walk = dropReferenceFrame(motionFromBvh(text, walkFile));
  const take = loopWalk(walk, Math.round(seconds * walk.fps) + 1);
  captureOnce(text, loopWalk(walk, 2400)); // warm-up: V8 compiles the step
  const runs = Array.from({ length: rounds }, () => captureOnce(text, take));
  const cpus = runs.map((r) => r.result.seconds).sort((a, b) => a - b);
  const best = runs.reduce((a, b) => (b.result.seconds < a.result.seconds ? b : a));
  const profile = await profileCapture(text, take);
  const { result } = best;
  const steps = result.stats.steps;
  return {
    frames: take.frameCount,
    joints: take.joints.length,
    clipSeconds: (take.frameCount - 1) / take.fps,
    seconds: result.seconds,
    medianSeconds: cpus[cpus.length >> 1]!,
    rounds,
    wallSeconds: best.wall,
    realTimeRate: result.realTimeRate,
    usPerStep: (result.seconds * 1e6) / Math.max(1, steps),
    maxMarkerStray: Math.max(...result.stats.markers.map((m) => m.max)),
    maxLimitViolationDeg: result.stats.maxLimitViolationDeg,
    retriedSteps: best.retried,
    clampedSteps: best.clamped,
    accurateSteps: best.accurate,
    steps,
    profile,
  };
}

export function formatCaptureBench(b: CaptureBench): string[] {
  const shown = b.profile.filter((p) => p.share >= 0.01);
  return [
    `take: ${b.clipSeconds.toFixed(1)} s at 120 Hz (${b.frames} frames), ${b.joints} joints; markers on hips, hands and feet, the rest free`,
    `captured in ${b.seconds.toFixed(3)} s of CPU time (least of ${b.rounds} rounds; median ${b.medianSeconds.toFixed(3)} s; ${b.wallSeconds.toFixed(3)} s wall): ${b.realTimeRate.toFixed(0)}× real time, ${b.usPerStep.toFixed(1)} µs per step (goal: ≤ 0.3 s, 200×)`,
    `largest marker stray ${(100 * b.maxMarkerStray).toFixed(2)}% of the height, largest limit violation ${b.maxLimitViolationDeg.toFixed(2)}°; ${b.retriedSteps} steps retried in substeps, ${b.clampedSteps} with clamped speeds; ${b.accurateSteps} of ${b.steps} steps (${(100 * b.accurateSteps / Math.max(1, b.steps)).toFixed(0)}%) solved again in the accurate coupled form`,
    'CPU time by source file (sampling profiler, one more round; files with 1% or more):',
    ...shown.map((p) => `  ${(100 * p.share).toFixed(1).padStart(5)}%  ${p.file}`),
  ];
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.stdout.write(`${formatCaptureBench(await captureBench()).join('\n')}\n`);
}
