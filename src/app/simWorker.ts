/**
 * The simulation worker (worker mode, `?worker=1`): a module Web Worker that owns the PhysIK
 * world. It builds the scene (and crowd) from the same scene JSON as the page
 * (simScene.ts), steps it at the main rig's fixed dt on its own clock, and after each batch
 * of steps publishes every rig's pose into the shared pose buffer (poseBuffer.ts) and the
 * step count into the control ints; the page's view reads them each frame. Targets, pause,
 * single step, reset, settings, feel, scene and crowd changes arrive as messages (simProtocol.ts),
 * and so do the steps of the undo history, whose states (snapshots of the main rig, edits.ts)
 * stay here: only their labels live on the page.
 * The main rig gets the feel knobs the page sends with the scene (feel.ts), as the page's copy does.
 *
 * Clock: a fixed-step accumulator like the page's, ticked by setTimeout; at most
 * MAX_STEPS_PER_TICK steps and about STEP_BUDGET_MS of stepping per tick, so messages (a
 * drag) are handled between ticks even when a step is slow; a backlog beyond that is dropped
 * (the simulation then runs slower than real time instead of spiralling).
 *
 * Limits: one world; a step that throws pauses the worker and reports the reason; the
 * settings of the crowd copies stay the scene's. Per step nothing is allocated here beyond
 * what the core does (the timer of each tick aside).
 */
import {
  addControlPoint, createPhysikWorld, getScript, getSettings, removeControlPoint, resetRig, setControlPointActive, setScript,
  setSettings, setTarget, step, type PhysikWorld,
} from '../core';
import { createHistory } from './history';
import { createUndoable, type PendingStep, type RigRef } from './edits';
import { addSceneRig, replaceCrowd, replaceScene } from './simScene';
import { createPoseWriter, type PoseWriter } from './poseBuffer';
import { CONTROL_INTS, CONTROL_PAUSED, CONTROL_STEPS, type SimCommand, type SimReport } from './simProtocol';
import type { Scene } from '../scene/types';
import { applyFeel, setTargetNow } from './feel';

const MAX_STEPS_PER_TICK = 8;
const STEP_BUDGET_MS = 12;

const scope = self as unknown as {
  postMessage(message: SimReport): void;
  onmessage: ((e: MessageEvent<SimCommand>) => void) | null;
};

let world: PhysikWorld | null = null;
let scene: Scene | null = null;
let rig = -1;
let crowd: number[] = [];
let writer: PoseWriter | null = null;
let control: Int32Array<ArrayBufferLike> = new Int32Array(CONTROL_INTS);
let paused = false;
let steps = 0, applied = 0, stepMs = 0;
let acc = 0, last = -1;
let timer: ReturnType<typeof setTimeout> | undefined;
const to = new Float64Array(3);

// undo by state of the main rig (edits.ts), as the page's history says (simProtocol.ts)
const history = createHistory();
const ref: RigRef = { get world() { return world!; }, get rig() { return rig; } };
const undoable = createUndoable(ref, history, {
  extra: () => getScript(world!, rig),
  restoreExtra(script) { setScript(world!, rig, script); acc = 0; },
});
let pending: PendingStep | null = null;

const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e));

function report(message: string, pause: boolean): void {
  if (pause) setPaused(true);
  scope.postMessage({ type: 'error', message, paused: pause });
}

function setPaused(p: boolean): void {
  paused = p;
  acc = 0;
  Atomics.store(control, CONTROL_PAUSED, p ? 1 : 0);
}

/** One step; false (paused, the reason reported) when a system throws. */
function stepOnce(w: PhysikWorld): boolean {
  const t0 = performance.now();
  try {
    step(w, 1);
  } catch (e) {
    report(`The simulation stopped at step ${w.physik.Rig.step[rig]}:\n${errorText(e)}\n(paused: change the solver or the control points, then play)`, true);
    return false;
  }
  stepMs = performance.now() - t0;
  steps++;
  return true;
}

function publish(): void {
  if (!world || !writer) return;
  writer.publish(world, steps, applied, stepMs);
  Atomics.store(control, CONTROL_STEPS, steps);
}

function tick(): void {
  timer = undefined;
  const w = world;
  if (!w) return;
  const now = performance.now();
  const dtMs = 1000 * getSettings(w, rig).dt;
  if (last < 0) last = now;
  if (!paused) acc += Math.min(now - last, MAX_STEPS_PER_TICK * dtMs);
  last = now;
  let n = 0;
  while (!paused && acc >= dtMs && n < MAX_STEPS_PER_TICK) {
    if (!stepOnce(w)) break;
    acc -= dtMs;
    n++;
    if (performance.now() - now > STEP_BUDGET_MS) break;
  }
  if (acc >= dtMs && (n === MAX_STEPS_PER_TICK || performance.now() - now > STEP_BUDGET_MS)) acc = 0; // behind: drop the backlog
  if (n > 0) publish();
  const wait = paused ? 50 : Math.max(0, dtMs - acc);
  timer = setTimeout(tick, wait);
}

function restartClock(): void {
  acc = 0;
  last = -1;
  if (timer !== undefined) clearTimeout(timer);
  timer = setTimeout(tick, 0);
}

function handle(c: SimCommand): void {
  switch (c.type) {
    case 'init': {
      control = new Int32Array(c.control);
      world = createPhysikWorld();
      scene = c.scene;
      rig = addSceneRig(world, c.scene, c.solver);
      applyFeel(world, rig, c.feel);
      crowd = [];
      writer = createPoseWriter(c.pose);
      setPaused(c.paused);
      restartClock();
      break;
    }
    case 'scene': {
      ({ rig, crowd } = replaceScene(world!, c.scene, c.solver, [rig, ...crowd])); // the scene's own crowd too, as the page builds it
      history.clear();
      pending = null;
      applyFeel(world!, rig, c.feel);
      scene = c.scene;
      writer = createPoseWriter(c.pose);
      restartClock();
      break;
    }
    case 'crowd':
      crowd = replaceCrowd(world!, scene!, rig, crowd, c.n);
      writer = createPoseWriter(c.pose);
      break;
    case 'target': {
      const r = world!.physik.rigs[c.rig];
      const cp = r?.controlPoints[c.point];
      if (cp === undefined) throw new Error(`no control point ${c.point} on rig ${c.rig}`);
      to[0] = c.to[0]; to[1] = c.to[1]; to[2] = c.to[2];
      (c.now ? setTargetNow : setTarget)(world!, cp, to);
      break;
    }
    case 'settings':
      setSettings(world!, rig, c.patch);
      break;
    case 'feel':
      applyFeel(world!, rig, c.feel, c.was);
      break;
    case 'pause':
      setPaused(c.paused);
      if (!c.paused) restartClock();
      break;
    case 'step':
      setPaused(true);
      stepOnce(world!);
      break;
    case 'reset':
      for (const r of world!.physik.rigs) resetRig(world!, r.eid);
      acc = 0;
      break;
    case 'begin':
      pending = undoable.begin(c.label);
      break;
    case 'commit':
      pending?.commit(c.label);
      pending = null;
      break;
    case 'cancel':
      pending = null;
      break;
    case 'undo':
    case 'redo':
      if (c.type === 'undo') history.undo();
      else history.redo();
      if (c.pose) writer = createPoseWriter(c.pose); // the step had another set of points
      acc = 0;
      break;
    case 'addPoint':
      addControlPoint(world!, rig, c.point);
      writer = createPoseWriter(c.pose);
      break;
    case 'removePoint': {
      const cp = world!.physik.rigs.find((r) => r.eid === rig)?.controlPoints[c.point];
      if (cp === undefined) throw new Error(`no control point ${c.point} on the main rig`);
      removeControlPoint(world!, cp);
      writer = createPoseWriter(c.pose);
      break;
    }
    case 'active': {
      const cp = world!.physik.rigs.find((r) => r.eid === rig)?.controlPoints[c.point];
      if (cp === undefined) throw new Error(`no control point ${c.point} on the main rig`);
      setControlPointActive(world!, cp, c.active);
      break;
    }
  }
}

scope.onmessage = (e) => {
  const c = e.data;
  try {
    handle(c);
  } catch (err) {
    report(`The simulation worker refused "${c.type}":\n${errorText(err)}`, false);
  }
  applied = c.id;
  // running, the next step publishes; paused (or the topology just changed), publish now so
  // the page sees the command applied
  if (paused || c.type === 'init' || c.type === 'scene' || c.type === 'crowd' || c.type === 'undo' || c.type === 'redo' || c.type === 'addPoint' || c.type === 'removePoint') publish();
};
