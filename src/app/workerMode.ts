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
 * Off in worker mode (each needs the world on the main thread; the panel hides them, keys
 * and calls say so): recording, playback and rewind; compare; the Rapier ghost; onion skins;
 * bone grabbing and pins; enabling and deleting points; undo and redo.
 *
 * Needs SharedArrayBuffer, so a cross-origin isolated page (COOP same-origin + COEP
 * require-corp: vite.config.ts sends them); `workerModeAvailable()` says whether this page is,
 * and main.ts falls back to the main thread with a message when it is not.
 */
import { createPhysikWorld, getSettings, readMetrics, setSettings, setTarget } from '../core';
import { findRig } from '../world/world';
import type { Scene } from '../scene/types';
import { parseSceneText } from '../scene/load';
import { importBvh } from '../io/bvhImport';
import { importGltf } from '../io/gltfImport';
import { createView } from '../render/view';
import { createHud, type Hud } from '../hud/overlay';
import { createTargetDragger } from './drag';
import { createSelection } from './selection';
import { screenPoints } from './screenPoints';
import { sceneFileText } from './sceneFile';
import { createHistory } from './history';
import { installFileDrop } from './drop';
import { createPoseBuffer, createPoseReader, poseLayoutOf, META_STEP_MS, type PoseReader } from './poseBuffer';
import { addSceneRig, replaceCrowd, replaceScene } from './simScene';
import { CONTROL_INTS, CONTROL_STEPS, type SimCommand, type SimReport } from './simProtocol';
import type { Sandbox } from './sandbox';
import type { SandboxOptions } from './deepLink';
import type { RecordingControls } from './recording';
import { applyFeel, feelForScene, inEffect, sceneStatesOwnFeel, SANDBOX_FEEL, setTargetNow, type Feel, type FeelState } from './feel';

/** Whether this page can share memory with a worker (cross-origin isolated, with SharedArrayBuffer and Worker). */
export function workerModeAvailable(): boolean {
  return typeof SharedArrayBuffer === 'function' && globalThis.crossOriginIsolated === true && typeof Worker === 'function';
}

/** Shown when `?worker=1` cannot be honoured. */
export const WORKER_UNAVAILABLE = 'Worker mode (?worker=1) needs SharedArrayBuffer, which needs a cross-origin isolated page '
  + '(headers Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy: require-corp, sent by `npm start` and '
  + '`npm run preview`). This page is not isolated: the simulation runs on the main thread.';

/** What worker mode leaves out (each needs the world on the main thread). */
export const WORKER_MODE_OFF = ['recording and rewind', 'compare', 'Rapier ghost', 'onion skins', 'bone grabbing and pins',
  'enable / delete points', 'undo / redo'] as const;

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

export interface WorkerModeHooks {
  showError(message: string): void;
  hideError(): void;
}

type Command = SimCommand extends infer C ? C extends unknown ? Omit<C, 'id'> : never : never;

export function startWorkerMode(initial: Scene, initialName: string, options: SandboxOptions, ui: WorkerModeHooks): WorkerSandbox {
  const { showError } = ui;
  const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e));
  const world = createPhysikWorld();
  let scene = initial;
  let sceneName = initialName;
  const solver = options.solver;
  let rig = addSceneRig(world, scene, solver);
  let crowdRigs: number[] = [];
  const record = () => findRig(world, rig);
  // the feel knobs, kept as on the main thread (main.ts); the worker's rig gets the same
  const chosen: Feel = { responsiveness: options.responsiveness ?? SANDBOX_FEEL.responsiveness, liveliness: options.liveliness ?? SANDBOX_FEEL.liveliness };
  let feel: FeelState = feelForScene(scene, chosen, { responsiveness: options.responsiveness, liveliness: options.liveliness });
  applyFeel(world, rig, inEffect(feel));

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

  let paused = false;
  worker.addEventListener('message', (e: MessageEvent<SimReport>) => {
    const r = e.data;
    if (r.type === 'error') {
      if (r.paused) paused = true;
      showError(r.message);
      sandbox.onChange?.();
    }
  });
  worker.addEventListener('error', (e) => {
    e.preventDefault();
    showError(`The simulation worker failed: ${e.message || 'it could not start'}`);
  });
  worker.addEventListener('messageerror', () => showError('The simulation worker could not read a message'));
  send({ type: 'init', control: controlBuffer, pose, scene, solver, paused: false, feel: inEffect(feel) });

  // ---- view, input, overlay
  const canvas = document.getElementById('view') as HTMLCanvasElement;
  const view = createView(canvas, world);
  const history = createHistory(); // stays empty: undo is off in worker mode
  const selection = createSelection(world, record, view, () => sandbox.onChange?.());
  /** Post a target move of control point `cp` (any rig), at once (a drag's) or as a jump, and remember it until applied. */
  const postTarget = (cp: number, to: ArrayLike<number>, now: boolean) => {
    const rigs = world.physik.rigs;
    for (let ri = 0; ri < rigs.length; ri++) {
      const i = rigs[ri]!.controlPoints.indexOf(cp);
      if (i < 0) continue;
      (now ? setTargetNow : setTarget)(world, cp, to);
      pendingTargets.set(cp, send({ type: 'target', rig: ri, point: i, to: [to[0]!, to[1]!, to[2]!], now }));
      return;
    }
  };
  const dragger = createTargetDragger(world, view, canvas, {
    setTarget: (cp, to) => postTarget(cp, to, true),
    onSelect: (cp) => selection.picked(cp),
  });
  selection.dragger = dragger;
  const select = (name: string | null) => selection.select(name);

  const status = document.getElementById('status');
  let hud: Hud | null = null;
  createHud(canvas.parentElement ?? document.body, { dt: scene.settings.dt }).then((h) => {
    hud = h;
    hud.resize(window.innerWidth, window.innerHeight);
  }, (e) => showError(`overlay failed to start: ${errorText(e)}`));
  window.addEventListener('resize', () => hud?.resize(window.innerWidth, window.innerHeight));

  // ---- the frame: read the newest pose, draw
  let frames = 0, last = -1, fps = 0, posesRead = 0;
  let rateSteps = 0, rateTime = -1, stepsPerSecond = 0;
  function tick(now: number): void {
    requestAnimationFrame(tick);
    frames++;
    if (last < 0) last = now;
    const frameSeconds = (now - last) / 1000;
    if (frameSeconds > 0) fps = fps === 0 ? 1 / frameSeconds : 0.9 * fps + 0.1 / frameSeconds;
    last = now;
    if (reader.read(world, pendingTargets.size > 0 ? keepTarget : undefined)) {
      posesRead++;
      hud?.sample(world, rig, world.physik.Rig.step[rig]! * getSettings(world, rig).dt, reader.meta[META_STEP_MS]!);
    }
    dragger.sync();
    view.update();
    hud?.draw(fps);
    const steps = Atomics.load(control, CONTROL_STEPS);
    if (rateTime < 0) { rateTime = now; rateSteps = steps; }
    if (now - rateTime >= 500) {
      stepsPerSecond = ((steps - rateSteps) * 1000) / (now - rateTime);
      rateTime = now; rateSteps = steps;
    }
    if (frames % 6 === 0) {
      if (status) {
        const m = readMetrics(world, rig);
        status.textContent = `${sceneName}${crowdRigs.length ? ` + crowd of ${crowdRigs.length}` : ''} · ${getSettings(world, rig).solver} · step ${m.step} · ${paused ? 'paused' : m.status} · target error ${m.maxTargetError.toFixed(3)} · simulation in a worker, ${Math.round(stepsPerSecond)} steps/s`;
      }
      sandbox.onLive?.();
    }
  }

  function loadScene(next: Scene, name: string): void {
    ({ rig, crowd: crowdRigs } = replaceScene(world, next, undefined, [rig, ...crowdRigs])); // with the scene's own crowd; throws (nothing changed) when refused
    feel = feelForScene(next, chosen);
    applyFeel(world, rig, inEffect(feel));
    scene = next;
    sceneName = name;
    send({ type: 'scene', pose: newPoseBuffer(), scene: next, feel: inEffect(feel) });
    selection.clear();
    view.update();
    view.frame();
    document.title = `physik-ecs · ${name}`;
    sandbox.onChange?.();
  }

  const off = (what: string): never => { throw new Error(offMessage(what)); };
  const recorder: RecordingControls = {
    state: { mode: 'live', frameCount: 0, fps: 30, frame: 0 },
    recording: null,
    get fps() { return 30; },
    set fps(_v: number) { off('recording'); },
    record: () => off('recording'),
    stop: () => off('recording'),
    play: () => off('recording playback'),
    live() { /* always live */ },
    scrub: () => off('recording playback'),
    resumeHere: () => off('rewind'),
    exportFile: () => Promise.reject(new Error(offMessage('recording export'))),
    afterStep() { /* no recording */ },
    advance() { /* no playback */ },
    clear() { /* nothing recorded */ },
  };

  const sandbox: WorkerSandbox = {
    inWorker: true,
    world,
    get rig() { return rig; },
    get sceneName() { return sceneName; },
    get controlPoints() { return Object.assign(Object.create(null) as Record<string, number>, Object.fromEntries(record().controlPointByName)); },
    get bones() { return Object.assign(Object.create(null) as Record<string, number>, Object.fromEntries(record().boneByName)); },
    get paused() { return paused; },
    get stepsTaken() { return Atomics.load(control, CONTROL_STEPS); },
    get frames() { return frames; },
    get posesRead() { return posesRead; },
    get workerStepsPerSecond() { return stepsPerSecond; },
    setPaused(p) { paused = p; send({ type: 'pause', paused: p }); },
    stepOnce() { paused = true; send({ type: 'step' }); return true; },
    reset() { send({ type: 'reset' }); },
    ...screenPoints(world, view, record),
    view, dragger, history,
    grabber: { grabbing: null, dispose() { /* bone grabbing is off in worker mode */ } },
    get hud() { return hud; },
    applySettings(patch) {
      setSettings(world, rig, patch); // throws before anything changes when refused
      send({ type: 'settings', patch });
      if (patch.damping !== undefined || patch.dampingAuto !== undefined || patch.dampingRatio !== undefined) feel = { ...feel, liveliness: null };
    },
    get feel() { return feel; },
    get sceneOwnFeel() { return sceneStatesOwnFeel(scene); },
    setFeel(patch) {
      const was = feel.responsiveness ?? 1;
      applyFeel(world, rig, patch, was); // throws before anything changes when refused
      send({ type: 'feel', feel: patch, was });
      feel = { ...feel, ...patch };
      Object.assign(chosen, patch);
    },
    compare: null,
    setCompare(s) { if (s !== null) off('compare'); },
    loadScene,
    async openFile(data, fileName) {
      const ext = (/\.[^.]+$/.exec(fileName)?.[0] ?? '').toLowerCase();
      const text = () => (typeof data === 'string' ? data : new TextDecoder().decode(data));
      try {
        const base = fileName.replace(/^.*[\\/]/, '').replace(/\.[^.]+$/, '');
        const next = ext === '.bvh' ? importBvh(text(), fileName, { controlPoints: 2 }).scene
          : ext === '.glb' || ext === '.gltf' ? (await importGltf(ext === '.gltf' ? text() : data, fileName, { controlPoints: 2 })).scene
            : parseSceneText(text(), fileName);
        loadScene(next, base);
      } catch (e) {
        showError(`Could not open ${fileName}:\n${errorText(e)}`);
        return false;
      }
      ui.hideError();
      return true;
    },
    recorder,
    timeline: null,
    importNotes: [],
    sceneFile: () => sceneFileText(world, record(), scene),
    spawnCrowd(n) {
      crowdRigs = replaceCrowd(world, scene, rig, crowdRigs, n); // throws first for a bad n
      send({ type: 'crowd', pose: newPoseBuffer(), n });
      view.update();
      view.frame();
    },
    get crowd() { return crowdRigs.length; },
    moveTarget(name, to) {
      const cp = record().controlPointByName.get(name);
      if (cp === undefined) throw new Error(`no control point "${name}" on the rig`);
      if (!to.every(Number.isFinite)) throw new Error(`target of "${name}" must be finite, got [${to.join(', ')}]`);
      postTarget(cp, to, false);
    },
    get selected() { return selection.name; },
    select,
    deleteSelected() { if (selection.name !== null) off('deleting points'); },
    toggleSelected() { if (selection.name !== null) off('enabling / disabling points'); },
    undo() { off('undo'); },
    redo() { off('redo'); },
    get onion() { return 0; },
    set onion(n: number) { if (n !== 0) off('onion skins'); },
    rapier: null,
    rapierJoints: null,
    setRapierGhost(on) { return on ? Promise.reject(new Error(offMessage('the Rapier ghost'))) : Promise.resolve(false); },
    get rapierPlacement() { return 'overlaid' as const; },
    set rapierPlacement(_p) { /* no Rapier ghost */ },
    rapierMs: 0,
    terminate() { worker.terminate(); },
  };

  const tell = (action: () => void) => { try { action(); } catch (e) { showError(errorText(e)); } };
  window.addEventListener('keydown', (e) => {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement || e.target instanceof HTMLSelectElement) return;
    const mod = e.ctrlKey || e.metaKey;
    if (mod && 'zZyY'.includes(e.key)) { tell(() => sandbox.undo()); e.preventDefault(); }
    else if (mod) return;
    else if (e.key === ' ') { sandbox.setPaused(!paused); e.preventDefault(); }
    else if (e.key === '.') sandbox.stepOnce();
    else if (e.key === 'r' || e.key === 'R') sandbox.reset();
    else if (e.key === 'Delete' || e.key === 'Backspace') { tell(() => sandbox.deleteSelected()); e.preventDefault(); }
    else if (e.key === 'e' || e.key === 'E') tell(() => sandbox.toggleSelected());
    else if (e.key === 'Escape') select(null);
  });
  installFileDrop(window, { onFile: (data, fileName) => void sandbox.openFile(data, fileName), onError: showError });

  if (options.compare) showError(offMessage(`?compare=${options.compare}`));
  else if (options.onion) showError(offMessage(`?onion=${options.onion}`));
  else if (options.rapier) showError(offMessage('?rapier'));
  requestAnimationFrame(tick);
  return sandbox;
}

/** Reload the page with the simulation in a worker (true) or on the main thread (false), the rest of the address kept. */
export function switchWorkerMode(on: boolean): void {
  const url = new URL(location.href);
  if (on) url.searchParams.set('worker', '1');
  else url.searchParams.delete('worker');
  location.assign(url);
}
