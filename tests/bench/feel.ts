/**
 * How the sandbox feels to drag, headless:
 * `npx tsx tests/bench/feel.ts [--quick] [--default] [--scenes]`.
 *
 * The humanoid scene settles its scripted reach, then the right hand's target is flicked
 * 0.35 m the way a mouse does it: one target move per 60 Hz frame over FLICK_S, the
 * simulation stepping at its own dt in between. Per flick direction it records:
 * - reach: simulated seconds from the flick's start until the hand's tip comes within 2 cm of
 *   the handle and stays there (to the end of the run); rest: until the rig is at rest;
 * - follow-through: the torso's peak tilt (from before the flick) against its settled tilt,
 *   how far the head's tip and the torso's top swing past their settled places along their
 *   travel, and how far the hand overshoots the handle along the flick; the largest limit
 *   excess;
 * then how far the hand trails a steady drag (0.5 m at 0.5 m/s), and the torso's tilt from the
 * vertical before and after a slow 0.6 m lift of the hand.
 *
 * Rows: the scene's own settings with the drag's moves interpolated (the sandbox before the
 * feel knobs) and at once, the sandbox's default knobs both ways, then (unless --default) a
 * grid of responsiveness × liveliness through the sandbox's own code (src/app/feel.ts).
 * --quick: three directions; --scenes: every scene of scenes/ as stated and as the sandbox
 * opens it (rest, divergence, limit excess, final error).
 */
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { addRig, createPhysikWorld, readMetrics, readPose, setTarget, step, type PhysikWorld } from '../../src/core';
import { loadSceneFile } from '../../src/scene/loadFile';
import type { Scene } from '../../src/scene/types';
import { applyFeel, sceneStatesOwnFeel, SANDBOX_FEEL, setTargetNow, type Feel } from '../../src/app/feel';

const FLICK = 0.35;
const FLICK_S = 0.1;
const FRAME_S = 1 / 60;
const WITHIN = 0.02;
const RUN_S = 12;
const LIFT = 0.6;
const DRAG = 0.5;
const DRAG_SPEED = 0.5;

type V = [number, number, number];
const sub = (a: V, b: V): V => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const norm = (a: V) => Math.hypot(a[0], a[1], a[2]);
const dot = (a: V, b: V) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];

const scene: Scene = loadSceneFile(fileURLToPath(new URL('../../scenes/humanoid.json', import.meta.url)));

interface Built { world: PhysikWorld; rig: number; hand: number; dt: number }

/** The humanoid as the sandbox builds it, the feel applied (null: the scene's own settings), its scripted reach settled. */
function build(feel: Feel | null): Built {
  const world = createPhysikWorld();
  const h = addRig(world, { rig: scene.rig, controlPoints: scene.controlPoints, script: scene.script, settings: scene.settings });
  if (feel) applyFeel(world, h.rig, feel);
  const dt = scene.settings.dt;
  for (let i = 0; i < 2000 && !(i > 20 && readMetrics(world, h.rig).atRest); i++) step(world, 1);
  return { world, rig: h.rig, hand: h.controlPoints.handR!, dt };
}

const tip = (b: Built) => readPose(b.world, b.rig)['hand.R']!.tail as V;
const headTip = (b: Built) => readPose(b.world, b.rig)['head']!.tail as V;
const torsoTop = (b: Built) => readPose(b.world, b.rig)['torso']!.tail as V;
const torsoUp = (b: Built): V => {
  const p = readPose(b.world, b.rig)['torso']!;
  const d = sub(p.tail, p.head);
  const n = norm(d);
  return [d[0] / n, d[1] / n, d[2] / n];
};
const angleDeg = (a: V, b: V) => (Math.acos(Math.min(1, Math.max(-1, dot(a, b)))) * 180) / Math.PI;
const targetOf = (b: Built): V => {
  const t = b.world.physik.ControlPoint.target, c = b.hand * 3;
  return [t[c]!, t[c + 1]!, t[c + 2]!];
};

export interface FlickResult {
  reachS: number | null;
  /** Simulated seconds until the rig is at rest (its own rest test), null: not in the run. */
  restS: number | null;
  peakTiltDeg: number;
  settledTiltDeg: number;
  /** Largest distance the head's tip and the torso's top swing past their settled places, along their own travel. */
  headPast: number;
  torsoPast: number;
  /** The hand tip's largest distance past the handle along the flick, once the flick is over. */
  overshoot: number;
  /** Largest limit excess during the run (degrees). */
  limitDeg: number;
}

/** How far a point's path goes past its last place, along the way it travelled (0 when it hardly moved). */
function pastEnd(path: V[]): number {
  const end = path[path.length - 1]!, travel = sub(end, path[0]!), n = norm(travel);
  if (n < 1e-3) return 0;
  const u: V = [travel[0] / n, travel[1] / n, travel[2] / n];
  return Math.max(0, ...path.map((p) => dot(sub(p, end), u)));
}

/** Flick the hand's target by `move` over FLICK_S in 60 Hz moves; measure as the header says. */
export function flick(feel: Feel | null, move: V, now = true): FlickResult {
  const b = build(feel);
  const from = targetOf(b);
  const up0 = torsoUp(b);
  const frames = Math.max(1, Math.round(FLICK_S / FRAME_S));
  const steps = Math.round(RUN_S / b.dt);
  const dist: number[] = [], tilt: number[] = [], heads: V[] = [headTip(b)], tops: V[] = [torsoTop(b)], along: number[] = [];
  const dir: V = [move[0] / norm(move), move[1] / norm(move), move[2] / norm(move)];
  let clock = 0, frame = 0, restS: number | null = null, limitDeg = 0;
  for (let s = 0; s < steps; s++) {
    // the pointer moves of this step's span of wall time, then the step
    while (frame < frames && frame * FRAME_S <= clock) {
      frame++;
      const f = frame / frames;
      (now ? setTargetNow : setTarget)(b.world, b.hand, [from[0] + f * move[0], from[1] + f * move[1], from[2] + f * move[2]]);
    }
    step(b.world, 1);
    clock += b.dt;
    const t = tip(b), goal = targetOf(b);
    dist.push(norm(sub(t, goal)));
    tilt.push(angleDeg(torsoUp(b), up0));
    heads.push(headTip(b));
    tops.push(torsoTop(b));
    along.push(frame >= frames ? dot(sub(t, goal), dir) : 0);
    const m = readMetrics(b.world, b.rig);
    limitDeg = Math.max(limitDeg, m.maxLimitViolationDeg);
    if (restS === null && frame >= frames && m.atRest) restS = clock;
    else if (!m.atRest) restS = null;
  }
  let last = -1;
  dist.forEach((d, i) => { if (d > WITHIN) last = i; });
  return {
    reachS: last === dist.length - 1 ? null : (last + 1) * b.dt,
    restS,
    peakTiltDeg: Math.max(...tilt),
    settledTiltDeg: tilt[tilt.length - 1]!,
    headPast: pastEnd(heads),
    torsoPast: pastEnd(tops),
    overshoot: Math.max(0, ...along),
    limitDeg,
  };
}

/**
 * How closely the hand follows a steady drag: the handle moved DRAG m at DRAG_SPEED (m/s) in
 * 60 Hz moves, along `dir`; the tip's mean and largest distance from the handle while it moves.
 */
export function follow(feel: Feel | null, dir: V): { mean: number; max: number } {
  const b = build(feel);
  const from = targetOf(b);
  const frames = Math.round((DRAG / DRAG_SPEED) / FRAME_S);
  let clock = 0, frame = 0, sum = 0, n = 0, max = 0;
  while (frame < frames) {
    while (frame < frames && frame * FRAME_S <= clock) {
      frame++;
      const f = (DRAG * frame) / frames;
      setTargetNow(b.world, b.hand, [from[0] + f * dir[0], from[1] + f * dir[1], from[2] + f * dir[2]]);
    }
    step(b.world, 1);
    clock += b.dt;
    const d = norm(sub(tip(b), targetOf(b)));
    sum += d; n++; max = Math.max(max, d);
  }
  return { mean: sum / n, max };
}

/**
 * The torso's tilt from the vertical (degrees) before and after the hand's target is raised
 * LIFT (in 60 small moves, one a step, as a steady drag) and the rig has settled.
 */
export function lift(feel: Feel | null, now = true): { before: number; after: number; change: number } {
  const b = build(feel);
  const from = targetOf(b);
  const up0 = torsoUp(b);
  for (let i = 1; i <= 60; i++) {
    (now ? setTargetNow : setTarget)(b.world, b.hand, [from[0], from[1] + (LIFT * i) / 60, from[2]]);
    step(b.world, 1);
  }
  step(b.world, Math.round(RUN_S / b.dt));
  const up1 = torsoUp(b);
  return { before: angleDeg(up0, [0, 1, 0]), after: angleDeg(up1, [0, 1, 0]), change: angleDeg(up1, up0) };
}

/**
 * Every scene of scenes/ run through its script (and as long again) as the scene states it and
 * as the sandbox opens it (the feel on top unless the scene sets its own): the step it came to
 * rest, diverged steps, the largest limit excess and the final target error.
 */
function scenes(feel: Feel): void {
  const dir = fileURLToPath(new URL('../../scenes/', import.meta.url));
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
    const sc = loadSceneFile(dir + file);
    const own = sceneStatesOwnFeel(sc);
    const run = (withFeel: boolean) => {
      const world = createPhysikWorld();
      const h = addRig(world, { rig: sc.rig, controlPoints: sc.controlPoints, script: sc.script, settings: sc.settings });
      if (withFeel) applyFeel(world, h.rig, feel);
      let rest: number | null = null, worstLimit = 0;
      const n = 2 * Math.max(sc.steps, ...sc.script.map((e) => e.step + 1));
      for (let i = 0; i < n; i++) {
        step(world, 1);
        const m = readMetrics(world, h.rig);
        worstLimit = Math.max(worstLimit, m.maxLimitViolationDeg);
        if (m.atRest && rest === null && i >= Math.max(0, ...sc.script.map((e) => e.step))) rest = i + 1;
        if (!m.atRest) rest = null;
      }
      const m = readMetrics(world, h.rig);
      return `rest ${rest === null ? '-' : rest * sc.settings.dt}s diverged ${m.divergedSteps} limit ${worstLimit.toFixed(1)}° error ${m.maxTargetError.toFixed(3)} ${m.status}`;
    };
    console.log(`${file.padEnd(20)} as stated: ${run(false).padEnd(62)} sandbox: ${own ? '(its own feel)' : run(true)}`);
  }
}

export const directions: Record<string, V> = {
  down: [0, -1, 0], up: [0, 1, 0], out: [-1, 0, 0], in: [1, 0, 0], fwd: [0, 0, 1], back: [0, 0, -1],
  'down-out': [-Math.SQRT1_2, -Math.SQRT1_2, 0],
};

function row(label: string, feel: Feel | null, dirs: string[], now = true): void {
  const rs = dirs.map((d) => flick(feel, directions[d]!.map((x) => x * FLICK) as V, now));
  const worstOf = (xs: (number | null)[]) => (xs.some((r) => r === null) ? null : Math.max(...(xs as number[])));
  const reach = rs.map((r) => r.reachS);
  const fmt = (x: number | null) => (x === null ? '   >12' : x.toFixed(2).padStart(6));
  const mean = (f: (r: FlickResult) => number) => rs.reduce((a, r) => a + f(r), 0) / rs.length;
  const cm = (x: number) => (100 * x).toFixed(1);
  const l = lift(feel, now);
  const lag = dirs.map((d) => follow(feel, directions[d]!));
  console.log(
    `${label.padEnd(28)} reach s:${reach.map(fmt).join('')} worst ${fmt(worstOf(reach))} rest ${fmt(worstOf(rs.map((r) => r.restS)))}`
    + ` | tilt peak/settled ${mean((r) => r.peakTiltDeg).toFixed(1)}/${mean((r) => r.settledTiltDeg).toFixed(1)}°`
    + ` past: head ${cm(mean((r) => r.headPast))} torso ${cm(mean((r) => r.torsoPast))} hand ${cm(mean((r) => r.overshoot))} cm`
    + ` limit ${Math.max(...rs.map((r) => r.limitDeg)).toFixed(1)}°`
    + ` | drag lag mean/max ${cm(lag.reduce((a, x) => a + x.mean, 0) / lag.length)}/${cm(Math.max(...lag.map((x) => x.max)))} cm`
    + ` | lift: torso ${l.before.toFixed(1)}→${l.after.toFixed(1)}° from vertical (turned ${l.change.toFixed(1)}°)`,
  );
}

function main(): void {
  const quick = process.argv.includes('--quick');
  const dirs = quick ? ['down', 'out', 'down-out'] : Object.keys(directions);
  console.log(`flick ${FLICK} m over ${FLICK_S} s, within ${WITHIN * 100} cm; directions: ${dirs.join(' ')}; means over directions`);
  const d = `default ${SANDBOX_FEEL.responsiveness}/${SANDBOX_FEEL.liveliness}`;
  row('before: scene, interpolated', null, dirs, false);
  row('scene, drag at once', null, dirs);
  row(`${d}, interpolated`, SANDBOX_FEEL, dirs, false);
  row(d, SANDBOX_FEEL, dirs);
  if (process.argv.includes('--scenes')) scenes(SANDBOX_FEEL);
  if (process.argv.includes('--default')) return;
  for (const responsiveness of [1, 2, 3, 4, 6]) {
    for (const liveliness of [0, 0.5, 0.6, 0.65, 0.7]) row(`R ${responsiveness} L ${liveliness}`, { responsiveness, liveliness }, dirs);
  }
}

// run when started as a script (not when imported)
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
