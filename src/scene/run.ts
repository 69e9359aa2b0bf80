/**
 * Running a scene headless: build a world with the scene's rig, play its script for the
 * scene's steps, and summarise what a user would look at (the CLI's JSON, the scene tests).
 * Peaks over the run (kinetic energy, limit violation, end speed) and path lengths are
 * tracked here, outside the step, from the stores the metrics system fills. A scene with a
 * `crowd` block steps its crowd in the same world (behind the scene's rig, as the sandbox places
 * it); every figure but `crowd` and the step times is the scene's own rig's.
 */
import { createPhysikWorld, addRig, addRigs, step, readMetrics, readPose, type BonePose } from '../core';
import type { Scene, Settings } from './types';
import { copyDoubles } from '../../components/doubles';
import { sceneCrowd } from './crowd';
import { metricPath } from '../core/validation/check';
import { attachSceneCapture } from '../capture/scene';
import type { CaptureStats } from '../capture/capture';
import { findRig } from '../world/world';
import { solveNoteOf } from '../../systems/ik/solveNotes';

export interface RunOptions {
  steps?: number;
  settings?: Partial<Settings>;
}

/**
 * A capture over a run (src/capture): the world markers' stray from the clip while tied (max
 * over them, and the mean of their means; per marker bone too), the largest difference of a bone
 * no marker ties, the largest of any bone, all ÷ the rig's height, and the largest limit violation.
 */
export interface CaptureSummary {
  maxMarkerStray: number;
  meanMarkerStray: number;
  markers: Record<string, { marker: string; max: number; mean: number }>;
  freeMax: number;
  freeBone: string;
  maxPoseError: number;
  maxLimitViolationDeg: number;
}

export interface RunSummary {
  scene: string;
  solver: string;
  steps: number;
  /** At rest at the end (every bone end slower than restSpeed × height); `status` says whether converged. */
  converged: boolean;
  /** The step from which the rig stayed at rest to the end, or null. */
  stepsToConverge: number | null;
  status: string;
  /** What the kinematic solver could not honour by its nature in its last solve ('' when nothing; systems/ik/solveNotes.ts). */
  solveNote: string;
  /**
   * Static balance at the end (RigMetrics): the largest net load on a bone, the control springs'
   * total pull, the residual over the load it is judged against, and whether the rig is static
   * (what 'converged' needs besides its goals).
   */
  loadResidual: number;
  springLoad: number;
  loadRatio: number;
  static: boolean;
  /** The fastest bone end at the end of the run (units per second). */
  maxEndSpeed: number;
  maxTargetError: number;
  meanTargetError: number;
  targetErrors: Record<string, number>;
  maxJointGap: number;
  maxLimitViolationDeg: number;
  kineticEnergy: number;
  passesPerStep: { mean: number; max: number };
  /** Wall time per step of the whole world (the scene's rig and its crowd), over the whole run. */
  msPerStep: number;
  /**
   * The same over the last STEADY_STEPS steps (all of them in a shorter run): the first few
   * hundred steps of a process run before V8 has compiled the step's systems, many times slower
   * than the steady step (docs/performance.md has the humanoid's figures), so a short run's
   * msPerStep is mostly that warm-up.
   */
  msPerStepSteady: number;
  /**
   * The median wall time of the steps in which the rig was stepped (not asleep): what one step
   * of the solver costs, with the few slow steps of a cold process (V8 compiling) and the free
   * steps of a sleeping rig both out of the middle. `physik compare` reports it after a warm-up.
   */
  msPerStepMedian: number;
  finite: boolean;
  divergedSteps: number;
  peakKineticEnergy: number;
  peakLimitViolationDeg: number;
  peakEndSpeed: number;
  /** Path length of the centres of the scene's `secondaryBones` over the run. */
  secondaryMotion: number;
  /** Distance the root's head moved from its rest position. */
  rootTravel: number;
  height: number;
  /** The same as passesPerStep, named for kinematic solvers: iterations per step. */
  iterations: { mean: number; max: number };
  /** The same as msPerStep: time per solve. */
  msPerSolve: number;
  /** Smoothness: the largest change (deg) of the angle between a bone and its parent from rest. */
  maxBendDeg: number;
  /** Smoothness: Σ over parent/child joint pairs of (change of bend − parent joint's change)², rad². */
  bendVariation: number;
  /** Mean distance of bone centres from the rest pose, as a fraction of the rig's height. */
  restDeviation: number;
  pose: Record<string, { head: number[]; tail: number[]; local: number[] }>;
  /** The scene's crowd at the end of the run (absent without a `crowd` block). */
  crowd?: CrowdSummary;
  /** How the rig kept to its clip over the run (absent without a `capture` block). */
  capture?: CaptureSummary;
}

export interface CrowdSummary {
  /** Copies stepped beside the scene's rig. */
  rigs: number;
  /** Every copy's pose and energy finite. */
  finite: boolean;
  /** Largest and mean over the copies of their largest target error at the end. */
  maxTargetError: number;
  meanTargetError: number;
  /** Copies converged at the end (their wander scripts may still be moving them). */
  converged: number;
  /** Steps of the whole world per second of wall time (a figure, not a test: it varies by machine). */
  stepsPerSecond: number;
}

type Pose = Record<string, BonePose>;

function axis(b: BonePose): number[] {
  const d = [b.tail[0] - b.head[0], b.tail[1] - b.head[1], b.tail[2] - b.head[2]];
  const n = Math.hypot(d[0]!, d[1]!, d[2]!) || 1;
  return d.map((x) => x / n);
}

function angle(a: number[], b: number[]): number {
  const cx = a[1]! * b[2]! - a[2]! * b[1]!, cy = a[2]! * b[0]! - a[0]! * b[2]!, cz = a[0]! * b[1]! - a[1]! * b[0]!;
  return Math.atan2(Math.hypot(cx, cy, cz), a[0]! * b[0]! + a[1]! * b[1]! + a[2]! * b[2]!);
}

/** Smoothness and distance from rest of a pose, given each bone's parent name. */
export function poseShape(pose: Pose, rest: Pose, parents: Record<string, string | null>, height: number) {
  const bendChange = new Map<string, number>(); // by bone name: any name, `toString` too
  let maxBend = 0, variation = 0, deviation = 0, n = 0;
  for (const [name, b] of Object.entries(pose)) {
    const r = rest[name]!;
    const mid = (p: BonePose) => [0, 1, 2].map((i) => (p.head[i]! + p.tail[i]!) / 2);
    const m = mid(b), mr = mid(r);
    deviation += Math.hypot(m[0]! - mr[0]!, m[1]! - mr[1]!, m[2]! - mr[2]!);
    n++;
    const parent = parents[name];
    if (!parent) continue;
    const change = angle(axis(pose[parent]!), axis(b)) - angle(axis(rest[parent]!), axis(r));
    bendChange.set(name, change);
    maxBend = Math.max(maxBend, Math.abs(change));
  }
  for (const [name, change] of bendChange) {
    const parentChange = bendChange.get(parents[name]!);
    if (parentChange !== undefined) variation += (change - parentChange) ** 2;
  }
  return { maxBendDeg: (maxBend * 180) / Math.PI, bendVariation: variation, restDeviation: deviation / n / height };
}

function allFinite(pose: Record<string, BonePose>): boolean {
  for (const b of Object.values(pose)) {
    for (const v of [...b.head, ...b.tail, ...b.local]) if (!Number.isFinite(v)) return false;
  }
  return true;
}

/** Steps at the end of a run that msPerStepSteady is measured over. */
export const STEADY_STEPS = 100;

export function runScene(scene: Scene, options: RunOptions = {}): RunSummary {
  const settings = { ...scene.settings, ...options.settings };
  const world = createPhysikWorld();
  const handle = addRig(world, { rig: scene.rig, controlPoints: scene.controlPoints, settings, script: scene.script, ...(scene.start ? { start: scene.start } : {}) });
  const steps = options.steps ?? scene.steps;
  const { Bone } = world.physik;
  const secondary = (scene.secondaryBones ?? []).map((n) => handle.bones[n]!);
  const last = new Float64Array(secondary.length * 3);
  secondary.forEach((b, i) => copyDoubles(last, i * 3, Bone.centre, b * 3, 3));
  const root = world.physik.Rig.root[handle.rig]!;
  const rootStart = Bone.head.slice(root * 3, root * 3 + 3);
  const restPose = readPose(world, handle.rig);
  const crowd = scene.crowd ? addRigs(world, sceneCrowd({ ...scene, settings }, world.physik.Rig.height[handle.rig]!)).map((h) => h.rig) : [];
  const capture = scene.capture ? attachSceneCapture(world, handle.rig, scene.capture) : undefined;

  let peakKE = 0, peakLimit = 0, peakSpeed = 0, secondaryMotion = 0, elapsed = 0, steadyElapsed = 0;
  const steadyFrom = Math.max(0, steps - STEADY_STEPS);
  const awakeTimes = new Float64Array(steps);
  let awakeSteps = 0;
  for (let s = 0; s < steps; s++) {
    const asleep = world.physik.Rig.sleeping[handle.rig] === 1;
    const t0 = performance.now();
    step(world, 1);
    const dt = performance.now() - t0;
    elapsed += dt;
    if (s >= steadyFrom) steadyElapsed += dt;
    if (!asleep) awakeTimes[awakeSteps++] = dt;
    const m = readMetrics(world, handle.rig);
    if (m.kineticEnergy > peakKE) peakKE = m.kineticEnergy;
    if (m.maxLimitViolationDeg > peakLimit) peakLimit = m.maxLimitViolationDeg;
    if (m.maxEndSpeed > peakSpeed) peakSpeed = m.maxEndSpeed;
    secondary.forEach((b, i) => {
      const b3 = b * 3, i3 = i * 3;
      secondaryMotion += Math.hypot(Bone.centre[b3]! - last[i3]!, Bone.centre[b3 + 1]! - last[i3 + 1]!, Bone.centre[b3 + 2]! - last[i3 + 2]!);
      copyDoubles(last, i3, Bone.centre, b3, 3);
    });
  }
  const m = readMetrics(world, handle.rig);
  const pose = readPose(world, handle.rig);
  // the divergence guard keeps the world finite; divergedSteps says how often it had to
  const finite = allFinite(pose) && Number.isFinite(m.kineticEnergy);
  const parents = Object.fromEntries(scene.rig.bones.map((b) => [b.name, b.parent]));
  const shape = poseShape(pose, restPose, parents, m.height);
  let crowdSummary: CrowdSummary | undefined;
  if (scene.crowd) {
    let crowdFinite = true, maxErr = 0, sumErr = 0, converged = 0;
    for (const r of crowd) {
      const cm = readMetrics(world, r);
      crowdFinite &&= allFinite(readPose(world, r)) && Number.isFinite(cm.kineticEnergy);
      if (!(cm.maxTargetError <= maxErr)) maxErr = cm.maxTargetError; // NaN propagates
      sumErr += cm.maxTargetError;
      if (cm.atRest) converged++;
    }
    crowdSummary = {
      rigs: crowd.length, finite: crowdFinite, maxTargetError: maxErr, meanTargetError: sumErr / crowd.length, converged,
      stepsPerSecond: elapsed > 0 ? (1000 * steps) / elapsed : 0,
    };
  }
  return {
    scene: scene.name,
    solver: settings.solver,
    steps,
    converged: m.atRest,
    stepsToConverge: m.restSince,
    status: m.status,
    solveNote: solveNoteOf(findRig(world, handle.rig)),
    loadResidual: m.loadResidual,
    springLoad: m.springLoad,
    loadRatio: m.loadRatio,
    static: m.static,
    maxEndSpeed: m.maxEndSpeed,
    maxTargetError: m.maxTargetError,
    meanTargetError: m.meanTargetError,
    targetErrors: m.targetErrors,
    maxJointGap: m.maxJointGap,
    maxLimitViolationDeg: m.maxLimitViolationDeg,
    kineticEnergy: m.kineticEnergy,
    passesPerStep: m.passesPerStep,
    msPerStep: steps > 0 ? elapsed / steps : 0,
    msPerStepSteady: steps > 0 ? steadyElapsed / (steps - steadyFrom) : 0,
    msPerStepMedian: median(awakeTimes.subarray(0, awakeSteps)),
    finite,
    divergedSteps: m.divergedSteps,
    peakKineticEnergy: peakKE,
    peakLimitViolationDeg: peakLimit,
    peakEndSpeed: peakSpeed,
    secondaryMotion,
    rootTravel: Math.hypot(Bone.head[root * 3]! - rootStart[0]!, Bone.head[root * 3 + 1]! - rootStart[1]!, Bone.head[root * 3 + 2]! - rootStart[2]!),
    height: m.height,
    iterations: m.passesPerStep,
    msPerSolve: steps > 0 ? elapsed / steps : 0,
    ...shape,
    pose: Object.fromEntries(Object.entries(pose).map(([k, v]) => [k, { head: v.head, tail: v.tail, local: v.local }])),
    ...(crowdSummary ? { crowd: crowdSummary } : {}),
    ...(capture ? { capture: captureSummary(capture.stats) } : {}),
  };
}

/** A capture's figures for the summary (every distance ÷ the rig's height). */
function captureSummary(st: CaptureStats): CaptureSummary {
  const tied = st.markers.filter((m) => m.steps > 0);
  return {
    maxMarkerStray: tied.reduce((a, m) => Math.max(a, m.max), 0),
    meanMarkerStray: tied.length ? tied.reduce((a, m) => a + m.mean, 0) / tied.length : 0,
    markers: Object.fromEntries(st.markers.map((m) => [m.bone, { marker: m.marker, max: m.max, mean: m.mean }])),
    freeMax: st.free.max,
    freeBone: st.free.bone,
    maxPoseError: st.maxPoseError,
    maxLimitViolationDeg: st.maxLimitViolationDeg,
  };
}

/** Numeric metrics of a summary by name (for expect blocks; names as check.ts's metricPath reads them). */
export function summaryMetric(summary: RunSummary, metric: string): number {
  let v: unknown = summary;
  // own keys only: `constructor` or `__proto__` name no metric
  for (const p of metricPath(metric)) v = v !== null && typeof v === 'object' && Object.hasOwn(v, p) ? (v as Record<string, unknown>)[p] : undefined;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (v === null) return NaN; // stepsToConverge of a run not at rest: no range holds it
  if (typeof v !== 'number') throw new Error(`unknown or non-numeric metric "${metric}"`);
  return v;
}

export interface ExpectResult {
  ok: boolean;
  checks: { what: string; ok: boolean; detail: string }[];
}

/** Check a scene's expect block against a run; variants for `compare` entries run here. */
export function checkExpect(scene: Scene, summary: RunSummary): ExpectResult {
  const checks: ExpectResult['checks'] = [];
  const e = scene.expect ?? {};
  const range = (what: string, v: number, r: { min?: number; max?: number }) => {
    const ok = (r.min === undefined || v >= r.min) && (r.max === undefined || v <= r.max);
    checks.push({ what, ok, detail: `${v} in [${r.min ?? '-inf'}, ${r.max ?? 'inf'}]` });
  };
  if (e.finite !== undefined) checks.push({ what: 'finite', ok: summary.finite === e.finite, detail: `finite = ${summary.finite}` });
  if (e.converged !== undefined) checks.push({ what: 'converged', ok: summary.converged === e.converged, detail: `converged = ${summary.converged} (status ${summary.status}, since step ${summary.stepsToConverge})` });
  for (const [name, r] of Object.entries(e.metrics ?? {})) range(`metric ${name}`, summaryMetric(summary, name), r);
  for (const [name, r] of Object.entries(e.targets ?? {})) range(`target ${name}`, summary.targetErrors[name]!, r);
  for (const c of e.compare ?? []) {
    const variant = runScene(scene, { settings: c.variant.settings });
    const a = summaryMetric(summary, c.metric), b = summaryMetric(variant, c.metric);
    const ok = c.relation === 'less' ? a < b : a > b;
    checks.push({ what: `compare: ${c.name}`, ok, detail: `${c.metric}: ${a} ${c.relation === 'less' ? '<' : '>'} ${b} (variant ${JSON.stringify(c.variant.settings ?? {})})` });
    // a variant may lose the comparison, but it must never blow up
    checks.push({ what: `compare: ${c.name}: variant finite`, ok: variant.finite, detail: `variant finite = ${variant.finite}` });
  }
  return { ok: checks.every((c) => c.ok), checks };
}

/** The median of some values (0 for none); sorts them in place. */
function median(values: Float64Array): number {
  if (values.length === 0) return 0;
  values.sort();
  const h = values.length >> 1;
  return values.length % 2 === 1 ? values[h]! : 0.5 * (values[h - 1]! + values[h]!);
}
