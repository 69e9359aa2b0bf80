/**
 * Worker mode (`?worker=1`): the sandbox with its simulation in a Web Worker
 * (simWorker.ts), so rendering and dragging stay smooth while a heavy scene (a crowd of up to
 * 1000 humanoids) steps. `startWorkerMode` returns the same `Sandbox` the main-thread page
 * does, so the panel, the deep links and the tests' handles work on either.
 *
 * The page keeps a copy of the world: the same rigs, built by the same calls (simScene.ts),
 * never stepped. Each animation frame it copies the newest frame the worker published in the
 * shared pose buffer (poseBuffer.ts: rotations, heads, tails, targets, the Rig rows) into that
 * copy, and the view, picking, the HUD and `readPose` / `readMetrics` read it as they read a
 * live world. Edits go the other way as messages (simProtocol.ts): a dragged target moves in
 * the copy at once (the handle follows the pointer) and is posted; the copy keeps its own
 * target until the worker reports the move applied. Pause, single step, reset, settings and
 * the feel knobs (validated on the copy first, so a refused value throws here as on the main
 * thread), a loaded scene or file and the crowd are messages too; a new topology gets a new
 * pose buffer. The feel (feel.ts) works as on the main thread: both worlds' main rigs get it.
 *
 * Bone grabbing and pins (grab.ts), enabling and deleting points work on both worlds: a point
 * added or removed in the copy is added or removed in the worker too (by index in the main
 * rig's points), with a new pose buffer that fits the new set. Undo and redo work as on the
 * main thread (a target drag or move, a grab, a pin, a point edit, a setting, a feel knob, a
 * reset: each one step putting the main rig back exactly, pose and motion): the states are
 * the worker's (it captures them as the messages arrive, in order with the edits), the page
 * keeps the labels and its own settings, feel and control points per step, and rebuilds its
 * copy's points (with a new pose buffer, sent with the undo) when a step had another set.
 *
 * Off in worker mode (each needs the world on the main thread): recording, playback and
 * rewind; keys; compare; the Rapier ghost; onion skins. The host lists them in `unavailable`:
 * the help leaves them out, the panel hides them and names them, and calls say so.
 *
 * Needs SharedArrayBuffer, so a cross-origin isolated page (COOP same-origin + COEP
 * require-corp: vite.config.ts sends them); `workerModeAvailable()` says whether this page is,
 * and main.ts (the entry) falls back to the main thread with a message when it is not.
 */
import {
  addControlPoint, describeControlPoint, getScript, getSettings, removeControlPoint, setControlPointActive, setSettings, setTarget,
} from '../core';
import type { ControlPointDescription } from '../scene/types';
import { createBoneGrabber } from './grab';
import { createPoseBuffer, createPoseReader, poseLayoutOf, META_STEP_MS, type PoseReader } from './poseBuffer';
import { CONTROL_INTS, CONTROL_STEPS, type SimCommand, type SimReport } from './simProtocol';
import type { Scene } from '../scene/types';
import type { Feature, Sandbox } from './sandbox';
import type { SandboxOptions } from './deepLink';
import type { RecordingControls } from './recording';
import { inEffect, setTargetNow } from './feel';
import { createHostCore, sandboxOf } from './host';
import { showError } from './shell';

/** Whether this page can share memory with a worker (cross-origin isolated, with SharedArrayBuffer and Worker). */
export function workerModeAvailable(): boolean {
  return typeof SharedArrayBuffer === 'function' && globalThis.crossOriginIsolated === true && typeof Worker === 'function';
}

/** Shown when `?worker=1` cannot be honoured. */
export const WORKER_UNAVAILABLE = 'Worker mode (?worker=1) needs SharedArrayBuffer, which needs a cross-origin isolated page '
  + '(headers Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy: require-corp, sent by `npm start` and '
  + '`npm run preview`). This page is not isolated: the simulation runs on the main thread.';

/** What worker mode leaves out (each needs the world on the main thread). */
export const WORKER_MODE_OFF: readonly Feature[] = ['keys', 'recording', 'compare', 'rapier', 'onion'];

const WHY_OFF = 'They need the world on the main thread: untick "simulation in a worker" to have them.';
const offMessage = (what: string) => `${what}: off in worker mode (it needs the world on the main thread; open the page without ?worker=1)`;

export interface WorkerSandbox extends Sandbox {
  readonly inWorker: true;
  /** Frames of the worker's pose the view has read. */
  readonly posesRead: number;
  /** Steps the worker takes per second of wall time (measured over about half a second). */
  readonly workerStepsPerSecond: number;
  /** Stop the worker (the page then shows the last pose). */
  terminate(): void;
}

type Command = SimCommand extends infer C ? C extends unknown ? Omit<C, 'id'> : never : never;

export function startWorkerMode(initial: Scene, initialName: string, options: SandboxOptions): WorkerSandbox {
  const core = createHostCore(initial, initialName, options, {
    drag: {
      setTarget: (cp, to) => postTarget(cp, to, true),
      onStart: (cp) => { dragStep = beginStep(`move ${core.selection.nameOf(cp) ?? 'target'}`); },
      onEnd(_cp, moved) {
        if (moved) dragStep?.commit();
        else dragStep?.cancel();
        dragStep = null;
      },
    },
    sceneLoaded: (next) => {
      core.history.clear();
      send({ type: 'scene', pose: newPoseBuffer(), scene: next, feel: inEffect(core.feel) });
    },
    crowdChanged: (n) => send({ type: 'crowd', pose: newPoseBuffer(), n }),
    feelChanged: (feel, was) => send({ type: 'feel', feel, was }),
    recordingOpened: () => off('opening a recording'),
  });
  const { world, record } = core;

  // ---- the worker, its control ints and the pose buffer of the current topology
  const worker = new Worker(new URL('./simWorker.ts', import.meta.url), { type: 'module', name: 'physik simulation' });
  const controlBuffer = new SharedArrayBuffer(CONTROL_INTS * 4);
  const control = new Int32Array(controlBuffer);
  let pose = createPoseBuffer(poseLayoutOf(world));
  let reader: PoseReader = createPoseReader(pose);
  let sent = 0;
  const send = (c: Command): number => {
    const id = ++sent;
    worker.postMessage({ ...c, id } as SimCommand);
    return id;
  };
  /** Control points moved here whose move the worker has not applied yet: the command id. */
  const pendingTargets = new Map<number, number>();
  const keepTarget = (cp: number, applied: number): boolean => {
    const id = pendingTargets.get(cp);
    if (id === undefined) return false;
    if (applied >= id) { pendingTargets.delete(cp); return false; }
    return true;
  };
  /** A new topology: a pose buffer to fit it. */
  const newPoseBuffer = () => {
    pose = createPoseBuffer(poseLayoutOf(world));
    reader = createPoseReader(pose);
    pendingTargets.clear();
    return pose;
  };
  /** Post a target move of control point `cp` (any rig), at once (a drag's) or as a jump, and remember it until applied. */
  function postTarget(cp: number, to: ArrayLike<number>, now: boolean): void {
    const rigs = world.physik.rigs;
    for (let ri = 0; ri < rigs.length; ri++) {
      const i = rigs[ri]!.controlPoints.indexOf(cp);
      if (i < 0) continue;
      (now ? setTargetNow : setTarget)(world, cp, to);
      pendingTargets.set(cp, send({ type: 'target', rig: ri, point: i, to: [to[0]!, to[1]!, to[2]!], now }));
      return;
    }
  }

  let paused = false;
  worker.addEventListener('message', (e: MessageEvent<SimReport>) => {
    const r = e.data;
    if (r.type === 'error') {
      if (r.paused) paused = true;
      showError(r.message);
      core.changed();
    }
  });
  worker.addEventListener('error', (e) => {
    e.preventDefault();
    showError(`The simulation worker failed: ${e.message || 'it could not start'}`);
  });
  worker.addEventListener('messageerror', () => showError('The simulation worker could not read a message'));
  send({ type: 'init', control: controlBuffer, pose, scene: core.scene, solver: options.solver, paused: false, feel: inEffect(core.feel) });

  // ---- undo: the states stay in the worker (simProtocol.ts begin/commit/undo/redo); the page
  // keeps the steps' labels in its history and, per step, what it holds beside its copy of the
  // world (the settings shown and validated here, the feel knobs), put back with them
  const pageState = () => ({
    settings: { ...getSettings(world, core.rig) },
    feel: core.feelState,
    points: Array.from(record().controlPoints, (cp) => describeControlPoint(world, cp)),
  });
  type PageState = ReturnType<typeof pageState>;
  /**
   * Ask the worker to undo or redo and put back what the page holds for that step: its
   * copy's control points rebuilt when the step had another set (the worker rebuilds its own
   * from its state, in the same order; a new pose buffer fits both), settings and feel.
   */
  const restoreStep = (type: 'undo' | 'redo', s: PageState) => {
    const names = record().controlPointNames;
    const sameSet = names.length === s.points.length && s.points.every((p, i) => p.name === names[i]);
    if (!sameSet) {
      for (const cp of Array.from(record().controlPoints)) removeControlPoint(world, cp);
      for (const p of s.points) addControlPoint(world, core.rig, p);
    }
    send(sameSet ? { type } : { type, pose: newPoseBuffer() });
    setSettings(world, core.rig, s.settings);
    core.feelState = s.feel;
    // the selected point may be gone
    const sel = core.selection.name;
    if (sel !== null && !record().controlPointByName.has(sel)) core.selection.select(null);
    core.changed();
  };
  /** Control points of the main rig added or removed here and in the worker (a new pose buffer fits the new set). */
  const addPoint = (point: ControlPointDescription): number => {
    const cp = addControlPoint(world, core.rig, point); // throws, nothing changed, when refused
    send({ type: 'addPoint', pose: newPoseBuffer(), point: describeControlPoint(world, cp) });
    return cp;
  };
  const removePoint = (cp: number): void => {
    const i = record().controlPoints.indexOf(cp);
    if (i < 0) throw new Error(`no control point ${cp} on the main rig`);
    removeControlPoint(world, cp);
    send({ type: 'removePoint', pose: newPoseBuffer(), point: i });
  };
  /** An action starting: the worker takes the state now; `commit` makes it one step of the history. */
  function beginStep(label: string): { commit(final?: string): void; cancel(): void } {
    const before = pageState();
    send({ type: 'begin', label });
    return {
      commit(final = label) {
        label = final;
        send({ type: 'commit', label });
        const after = pageState();
        core.history.push({
          label,
          undo: () => restoreStep('undo', before),
          redo: () => restoreStep('redo', after),
        });
      },
      cancel() { send({ type: 'cancel' }); },
    };
  }
  /** Run `apply` as one step (nothing recorded when it throws). */
  function asStep<R>(label: string, apply: () => R): R {
    const s = beginStep(label);
    let out: R;
    try { out = apply(); } catch (e) { s.cancel(); throw e; }
    s.commit();
    return out;
  }
  let dragStep: { commit(): void; cancel(): void } | null = null;
  let grabStep: { commit(label: string): void } | null = null;

  const off = (what: string): never => { throw new Error(offMessage(what)); };
  const recorder: RecordingControls = {
    state: { mode: 'live', frameCount: 0, fps: 30, frame: 0, markIn: -1, markOut: -1 },
    recording: null,
    get fps() { return 30; },
    set fps(_v: number) { off('recording'); },
    record: () => off('recording'),
    stop: () => off('recording'),
    play: () => off('recording playback'),
    live() { /* always live */ },
    scrub: () => off('recording playback'),
    resumeHere: () => off('rewind'),
    setIn: () => off('take editing'),
    setOut: () => off('take editing'),
    trim: () => off('take editing'),
    recordOver: () => off('take editing'),
    exportFile: () => Promise.reject(new Error(offMessage('recording export'))),
    afterStep() { /* no recording */ },
    advance() { /* no playback */ },
    clear() { /* nothing recorded */ },
    open: () => off('opening a recording'),
  };

  let posesRead = 0;
  let rateSteps = 0, rateTime = -1, stepsPerSecond = 0;
  const sandbox = sandboxOf<WorkerSandbox>(core.shared, {
    inWorker: true,
    unavailable: WORKER_MODE_OFF,
    unavailableWhy: WHY_OFF,
    get paused() { return paused; },
    get stepsTaken() { return Atomics.load(control, CONTROL_STEPS); },
    get posesRead() { return posesRead; },
    get workerStepsPerSecond() { return stepsPerSecond; },
    setPaused(p) { paused = p; send({ type: 'pause', paused: p }); },
    stepOnce() { paused = true; send({ type: 'step' }); return true; },
    reset() { asStep('reset', () => send({ type: 'reset' })); },
    grabber: createBoneGrabber({
      ref: core.ref, view: core.view, canvas: core.canvas, dragger: core.dragger,
      onStart: () => { grabStep = beginStep('grab'); },
      onEnd(pin, bone) {
        grabStep?.commit(pin ? `pin ${pin} on ${bone}` : `grab ${bone}`);
        grabStep = null;
      },
      onBone: (bone) => core.view.setSelectedBone(bone),
      onPin: (cp) => core.selection.select(core.selection.nameOf(cp)),
      onError: showError,
      points: { add: addPoint, move: (cp, to) => postTarget(cp, to, true), remove: removePoint },
    }),
    applySettings(patch) {
      asStep(`set ${Object.keys(patch).join(', ')}`, () => {
        setSettings(world, core.rig, patch); // throws before anything changes when refused
        send({ type: 'settings', patch });
        core.settingsSet(patch);
      });
    },
    setFeel(patch) {
      asStep(`set ${Object.keys(patch).join(', ')}`, () => core.shared.setFeel(patch));
    },
    compare: null,
    setCompare(s) { if (s !== null) off('compare'); },
    recorder,
    timeline: null,
    moveTarget(name, to) {
      const cp = record().controlPointByName.get(name);
      if (cp === undefined) throw new Error(`no control point "${name}" on the rig`);
      if (!to.every(Number.isFinite)) throw new Error(`target of "${name}" must be finite, got [${to.join(', ')}]`);
      asStep(`move ${name}`, () => postTarget(cp, to, false));
    },
    deleteSelected() {
      const name = core.selection.name;
      if (name === null) return;
      const cp = record().controlPointByName.get(name);
      if (cp === undefined) return;
      core.selection.select(null);
      asStep(`delete ${name}`, () => removePoint(cp));
    },
    toggleSelected() {
      const name = core.selection.name;
      if (name === null) return;
      const cp = record().controlPointByName.get(name)!, i = record().controlPoints.indexOf(cp);
      const on = world.physik.ControlPoint.active[cp] !== 1;
      asStep(`${on ? 'enable' : 'disable'} ${name}`, () => {
        setControlPointActive(world, cp, on);
        send({ type: 'active', point: i, active: on });
      });
      core.changed();
    },
    undo() { core.history.undo(); },
    redo() { core.history.redo(); },
    get keys() { return getScript(world, core.rig); },
    keyTarget() { off('keying targets'); },
    deleteKeys() { off('keying targets'); },
    selectedKey: -1,
    selectKey(i) { if (i >= 0) off('keys on the timeline'); },
    moveKey() { off('keys on the timeline'); },
    deleteKey() { off('keys on the timeline'); },
    get onion() { return 0; },
    set onion(n: number) { if (n !== 0) off('onion skins'); },
    rapier: null,
    rapierJoints: null,
    setRapierGhost(on) { return on ? Promise.reject(new Error(offMessage('the Rapier ghost'))) : Promise.resolve(false); },
    get rapierPlacement() { return 'overlaid' as const; },
    set rapierPlacement(_p) { /* no Rapier ghost */ },
    rapierMs: 0,
    terminate() { worker.terminate(); },
  });
  core.bind(sandbox);

  // each frame: read the newest pose the worker published
  core.shell.run(sandbox, {
    advance(_frameSeconds, now) {
      if (reader.read(world, pendingTargets.size > 0 ? keepTarget : undefined)) {
        posesRead++;
        const rig = core.rig;
        core.shell.hud?.sample(world, rig, world.physik.Rig.step[rig]! * getSettings(world, rig).dt, reader.meta[META_STEP_MS]!);
      }
      const steps = Atomics.load(control, CONTROL_STEPS);
      if (rateTime < 0) { rateTime = now; rateSteps = steps; }
      if (now - rateTime >= 500) {
        stepsPerSecond = ((steps - rateSteps) * 1000) / (now - rateTime);
        rateTime = now; rateSteps = steps;
      }
    },
    statusExtra: () => ` · simulation in a worker, ${Math.round(stepsPerSecond)} steps/s`,
  });

  const asked = options.compare ? `?compare=${options.compare}` : options.onion ? `?onion=${options.onion}` : options.rapier ? '?rapier' : null;
  if (asked) showError(offMessage(asked));
  return sandbox;
}

/** Reload the page with the simulation in a worker (true) or on the main thread (false), the rest of the address kept. */
export function switchWorkerMode(on: boolean): void {
  const url = new URL(location.href);
  if (on) url.searchParams.set('worker', '1');
  else url.searchParams.delete('worker');
  location.assign(url);
}
