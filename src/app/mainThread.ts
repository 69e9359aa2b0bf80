/// <reference types="vite/client" />
/**
 * The sandbox page (index.html): a full-window three.js view of one scene, simulated live
 * with a fixed-step accumulator (dt from the rig's settings) inside requestAnimationFrame.
 *
 * - Pose: drag an orange target handle; press on a bone to grab it (Shift on release leaves
 *   a pin); click a bone to pin it there. Delete/Backspace removes the selected point, `e`
 *   enables/disables it, Ctrl+Z / Ctrl+Shift+Z (or Ctrl+Y) undo and redo these edits.
 * - Keys: space play/pause, `.` one step, `r` reset, Escape deselects.
 * - Deep links: `?scene=humanoid&solver=ccd&compare=fabrik&onion=4` opens exactly that; the
 *   address follows the panel's solver and compare choices.
 * - Compare mode: a second solver on the same targets, drawn as a translucent ghost, with
 *   both solvers' numbers side by side in #compare.
 * - Rapier ghost: the rigs mirrored in Rapier (loaded on first use), stepped after every
 *   PhysIK step and drawn as a magenta ghost over the rig or beside it, with the live tip
 *   distance in the status line and the panel (rapierGhost.ts). `?rapier=1` opens with it.
 * - Files: a scene .json dropped on the page (or opened from the panel) replaces the rig.
 * - Crowd and worker mode: `?crowd=100` spawns copies of the rig; `?worker=1` runs the
 *   simulation in a Web Worker instead (workerMode.ts; on the main thread, with a message,
 *   when the page is not cross-origin isolated).
 * - Feel (feel.ts): responsiveness and liveliness, put on the main rig when a scene loads
 *   (unless the scene sets its own stiffness or damping) and by the panel's knobs; a drag
 *   moves its target at once, without the interpolation of a jump.
 *
 * Browser-safe imports only: scenes come in as JSON modules through `import.meta.glob` and
 * go through `parseScene`. Anything refused (a bad scene, a bad deep link, a dropped file
 * that is not a scene, an out-of-range setting) shows a message in #error; the page goes on.
 *
 * For tests, `window.__physik` exposes the sandbox; `window.physik` is a small handle
 * (`pose()`, `metrics()`, `time()`, `compareMetrics()`, `rapierGhost(on)`, `rapierDistance()`, `rapierInits()`).
 */
import {
  createPhysikWorld, createSnapshot, getSettings, readMetrics, readPose, resetRig,
  restoreRig, setSettings, step, type BonePose, type PhysikWorld, type RigMetrics,
} from '../core';
import { kinematicSolvers } from '../../systems/ik/registry';
import { findRig } from '../world/world';
import { parseScene, parseSceneText } from '../scene/load';
import type { Scene, Settings } from '../scene/types';
import { createView, type View } from '../render/view';
import { createSelection } from './selection';
import { createTargetDragger, type TargetDragger } from './drag';
import { screenPoints } from './screenPoints';
import { sceneFileText } from './sceneFile';
import { createBoneGrabber, type BoneGrabber } from './grab';
import { createHistory, type History } from './history';
import { activeEdit, moveTargetEdit, pointNamed, removePointEdit, type RigRef } from './edits';
import { createComparison, type Comparison } from './compare';
import { installFileDrop } from './drop';
import { addSceneRig, replaceScene, replaceCrowd } from './simScene';
import { createRecordingControls, type RecordingControls } from './recording';
import { createTimeline, type Timeline } from '../hud/timeline';
import { importBvh } from '../io/bvhImport';
import { importGltf } from '../io/gltfImport';
import { createHud, type Hud } from '../hud/overlay';
import type GUI from 'lil-gui';
import { createPanel } from './panel';
import { rapierJointModels, rapierPlacements, readDeepLink, writeDeepLink, type RapierPlacement } from './deepLink';
import { createRapierGhost, type RapierDistance, type RapierGhost } from './rapierGhost';
import { rapierInits } from '../rapier/load';
import type { JointModel } from '../rapier/jointPlan';
import { startWorkerMode, switchWorkerMode, workerModeAvailable, WORKER_UNAVAILABLE } from './workerMode';
import { applyFeel, feelForScene, inEffect, sceneStatesOwnFeel, SANDBOX_FEEL, type Feel, type FeelState } from './feel';

const sceneModules = import.meta.glob('../../scenes/*.json', { eager: true, import: 'default' }) as Record<string, unknown>;

/** Scene data by name (file name without .json). */
export const scenes: Record<string, unknown> = Object.fromEntries(
  Object.entries(sceneModules).map(([path, data]) => [path.replace(/^.*\//, '').replace(/\.json$/, ''), data]),
);

import { solverNames } from './deepLink';
export { solverNames };

/** Most steps a slow tab may catch up in one animation frame (avoids the spiral of death). */
const MAX_STEPS_PER_FRAME = 8;
/** Simulated seconds between onion-skin snapshots. */
const ONION_INTERVAL = 0.2;

export type { SandboxOptions } from './deepLink';
import type { SandboxOptions } from './deepLink';

export type { Sandbox, PhysikDebug } from './sandbox';
import type { Sandbox, PhysikDebug } from './sandbox';

export function hideError(): void {
  const el = document.getElementById('error');
  if (el) el.hidden = true;
}

export function showError(message: string): void {
  const el = document.getElementById('error');
  if (!el) return;
  el.textContent = message;
  el.hidden = false;
}

const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** Scene data by name, validated. Throws (SceneError) with the file named. */
export function sceneByName(name: string): Scene {
  // own keys only: ?scene=constructor must not find Object.prototype.constructor
  const data = Object.hasOwn(scenes, name) ? scenes[name] : undefined;
  if (data === undefined) {
    throw new Error(`no scene "${name}" in scenes/ (have: ${Object.keys(scenes).sort().join(', ')})`);
  }
  return parseScene(data, `scenes/${name}.json`);
}

/** Moving average of a step time (ms) for the compare box. */
const smooth = (avg: number, ms: number) => (avg === 0 ? ms : 0.95 * avg + 0.05 * ms);

export function startSandbox(initial: Scene, initialName: string, options: SandboxOptions = {}): Sandbox {
  const world = createPhysikWorld();
  let scene = initial;
  let sceneName = initialName;
  let rig = addSceneRig(world, scene, options.solver);
  const ref: RigRef = { world, get rig() { return rig; } };
  const record = () => findRig(world, rig);
  // the knobs last chosen (a deep link's, then the panel's): every scene loaded gets them
  const chosen: Feel = { responsiveness: options.responsiveness ?? SANDBOX_FEEL.responsiveness, liveliness: options.liveliness ?? SANDBOX_FEEL.liveliness };
  let feel: FeelState = feelForScene(scene, chosen, { responsiveness: options.responsiveness, liveliness: options.liveliness });
  applyFeel(world, rig, inEffect(feel));

  const canvas = document.getElementById('view') as HTMLCanvasElement;
  const view = createView(canvas, world);
  const history = createHistory();
  const selection = createSelection(world, record, view, () => sandbox.onChange?.());
  const select = (name: string | null) => selection.select(name);
  const nameOf = (cp: number) => selection.nameOf(cp);

  const dragger = createTargetDragger(world, view, canvas, {
    onMoved(cp, from, to) {
      const name = nameOf(cp);
      if (name) history.push(moveTargetEdit(ref, name, from, to));
    },
    onSelect: (cp) => selection.picked(cp),
  });
  selection.dragger = dragger;
  const grabber = createBoneGrabber({
    ref, view, canvas, dragger, history,
    onBone: (bone) => view.setSelectedBone(bone),
    onPin: (cp) => select(nameOf(cp)),
    onError: showError,
  });

  const status = document.getElementById('status');
  const compareBox = document.getElementById('compare');

  let paused = false, stepsTaken = 0, frames = 0, acc = 0, last = -1, fps = 0;
  let compare: Comparison | null = null;
  let mainMs = 0, ghostMs = 0;
  let onion = 0;
  let rapier: RapierGhost | null = null;
  let rapierWanted: JointModel | null = null;
  let rapierCall = 0, rapierMs = 0;
  let rapierPlacement: RapierPlacement = 'overlaid';
  let importNotes: string[] = [];
  let crowdRigs: number[] = [];
  let timeline: Timeline | null = null;
  // the overlay draws on its own canvas over the three.js one (one WebGL context each)
  let hud: Hud | null = null;
  createHud(canvas.parentElement ?? document.body, { dt: scene.settings.dt }).then((h) => {
    hud = h;
    hud.resize(window.innerWidth, window.innerHeight);
  }, (e) => showError(`overlay failed to start: ${errorText(e)}`));
  window.addEventListener('resize', () => hud?.resize(window.innerWidth, window.innerHeight));

  /** One step; false (paused, the reason shown) when a system throws, e.g. a solver that cannot pose the rig. */
  const stepOnce = (): boolean => {
    const t0 = performance.now();
    try {
      step(world, 1);
    } catch (e) {
      paused = true;
      acc = 0;
      showError(`The simulation stopped at step ${world.physik.Rig.step[rig]}:\n${errorText(e)}\n(paused: change the solver or the control points, then play)`);
      sandbox.onChange?.();
      return false;
    }
    const ms = performance.now() - t0;
    mainMs = smooth(mainMs, ms);
    if (compare) {
      try {
        ghostMs = smooth(ghostMs, compare.step());
      } catch (e) {
        const solver = compare.solver;
        setCompare(null);
        showError(`Compare with ${solver} stopped:\n${errorText(e)}`);
        sandbox.onChange?.();
      }
    }
    if (rapier) {
      try {
        rapierMs = smooth(rapierMs, rapier.step());
      } catch (e) {
        rapierFailed(e);
      }
    }
    stepsTaken++;
    sandbox.recorder.afterStep();
    const dt = getSettings(world, rig).dt;
    const n = world.physik.Rig.step[rig]!;
    hud?.sample(world, rig, n * dt, ms);
    if (onion > 0 && n % Math.max(1, Math.round(ONION_INTERVAL / dt)) === 0) view.recordOnionPose();
    return true;
  };

  const fmt = (x: number) => (x === 0 ? '0' : Math.abs(x) >= 0.01 && Math.abs(x) < 1000 ? x.toFixed(3) : x.toExponential(2));
  function writeCompare(): void {
    if (!compareBox) return;
    if (!compare) { compareBox.hidden = true; return; }
    compareBox.hidden = false;
    const a = readMetrics(world, rig), b = readMetrics(compare.world, compare.rig);
    const rows: [string, string, string][] = [
      ['solver', getSettings(world, rig).solver, `${compare.solver} (ghost)`],
      ['status', a.status, b.status],
      ['max target error', fmt(a.maxTargetError), fmt(b.maxTargetError)],
      ['mean target error', fmt(a.meanTargetError), fmt(b.meanTargetError)],
      ['limit excess (°)', fmt(a.maxLimitViolationDeg), fmt(b.maxLimitViolationDeg)],
      ['passes / iterations', String(a.passes), String(b.passes)],
      ['step (µs)', (mainMs * 1000).toFixed(0), (ghostMs * 1000).toFixed(0)],
    ];
    compareBox.textContent = '';
    const table = document.createElement('table');
    for (const [label, x, y] of rows) {
      const tr = table.insertRow();
      for (const text of [label, x, y]) tr.insertCell().textContent = text;
    }
    compareBox.append(table);
  }

  function tick(now: number): void {
    requestAnimationFrame(tick);
    frames++;
    const dt = getSettings(world, rig).dt;
    if (last < 0) last = now;
    const frameSeconds = (now - last) / 1000;
    if (frameSeconds > 0) fps = fps === 0 ? 1 / frameSeconds : 0.9 * fps + 0.1 / frameSeconds;
    const elapsed = Math.min(frameSeconds, MAX_STEPS_PER_FRAME * dt);
    last = now;
    if (!paused) {
      acc += elapsed;
      let n = 0;
      while (acc >= dt && n < MAX_STEPS_PER_FRAME && !paused) { stepOnce(); acc -= dt; n++; }
      if (n === MAX_STEPS_PER_FRAME) acc = 0;
    }
    sandbox.recorder.advance(frameSeconds);
    dragger.sync();
    syncRapier();
    view.update();
    hud?.draw(fps);
    timeline?.draw(sandbox.recorder.state);
    if (frames % 6 === 0) {
      if (status) {
        const m = readMetrics(world, rig);
        status.textContent = `${sceneName}${crowdRigs.length ? ` + crowd of ${crowdRigs.length}` : ''} · ${getSettings(world, rig).solver} · step ${m.step} · ${paused ? 'paused' : m.status} · target error ${m.maxTargetError.toFixed(3)}${rapierStatus()}`;
      }
      writeCompare();
      sandbox.onLive?.();
    }
  }

  /** The Rapier ghost's part of the status line. */
  function rapierStatus(): string {
    if (!rapierWanted) return '';
    if (!rapier) return ' · Rapier loading…';
    const d = rapier.distance();
    const of = d.rigs < d.of ? ` (${d.rigs} of ${d.of} rigs)` : '';
    return d.finite ? ` · Rapier Δ ${(100 * d.normalized).toFixed(2)}% of height at ${d.bone}${of}` : ` · Rapier: not finite${of}`;
  }

  /** Rebuild the Rapier mirrors of rigs that changed (not while a recording plays back: the ghost is hidden then). */
  function syncRapier(): void {
    if (!rapier || sandbox.recorder.state.mode === 'playback') return;
    try {
      rapier.sync();
    } catch (e) {
      rapierFailed(e);
    }
  }

  function rapierFailed(e: unknown): void {
    const model = rapier?.jointModel ?? rapierWanted;
    void setRapierGhost(null);
    showError(`The Rapier ghost (${model} joints) stopped:\n${errorText(e)}`);
    sandbox.onChange?.();
  }

  /** Over the main rig, or beside it: moved along x past the main rig's width. */
  function placeRapier(): void {
    let dx = 0;
    if (rapierPlacement === 'beside') {
      const { Bone, Rig } = world.physik;
      let lo = Infinity, hi = -Infinity;
      for (const b of record().bones) for (const end of [Bone.head, Bone.tail]) { lo = Math.min(lo, end[b * 3]!); hi = Math.max(hi, end[b * 3]!); }
      dx = Number.isFinite(hi - lo) ? hi - lo + 0.3 * Rig.height[rig]! : 0;
    }
    view.setGhostOffset('rapier', dx, 0, 0);
  }

  async function setRapierGhost(on: boolean | JointModel | null): Promise<boolean> {
    const model: JointModel | null = on === true ? 'impulse' : on === false || on === null ? null : on;
    if (model !== null && !rapierJointModels.includes(model)) {
      throw new Error(`unknown Rapier joint model "${String(model)}" (have: ${rapierJointModels.join(', ')})`);
    }
    const call = ++rapierCall;
    rapierWanted = model;
    if (rapier && rapier.jointModel === model) return true;
    if (rapier) {
      view.setGhostSource('rapier', null);
      rapier.dispose();
      rapier = null;
      rapierMs = 0;
    }
    if (model === null) return false;
    let ghost: RapierGhost;
    try {
      ghost = await createRapierGhost(world, model);
    } catch (e) {
      if (call === rapierCall) {
        rapierWanted = null;
        showError(`The Rapier ghost could not start:\n${errorText(e)}`);
        sandbox.onChange?.();
      }
      throw e;
    }
    if (call !== rapierCall) { ghost.dispose(); return false; } // switched off or to the other model meanwhile
    rapier = ghost;
    view.setGhostSource('rapier', () => (sandbox.recorder.state.mode === 'playback' ? null : ghost.source()));
    placeRapier();
    if (rapierPlacement === 'beside') view.frame();
    sandbox.onChange?.();
    return true;
  }

  function setCompare(solver: string | null): void {
    if (solver !== null && !solverNames.includes(solver)) {
      throw new Error(`unknown solver "${solver}" to compare with (have: ${solverNames.join(', ')})`);
    }
    compare = solver === null ? null : createComparison(ref, scene.rig, solver);
    ghostMs = 0;
    view.setGhost(compare ? compare.world : null);
    writeCompare();
  }

  function loadScene(next: Scene, name: string): void {
    // build the new rig first: if it throws, the old one stays
    ({ rig, crowd: crowdRigs } = replaceScene(world, next, undefined, [rig, ...crowdRigs])); // with the scene's own crowd
    feel = feelForScene(next, chosen);
    applyFeel(world, rig, inEffect(feel));
    scene = next;
    sceneName = name;
    history.clear();
    sandbox.recorder.clear();
    selection.clear();
    view.clearOnion();
    mainMs = 0;
    if (compare) setCompare(compare.solver);
    syncRapier(); // mirror the new rig
    placeRapier();
    view.update(); // rebuild the buffers for the new topology before framing
    view.frame();
    document.title = `physik-ecs · ${name}`;
    sandbox.onChange?.();
  }

  const sandbox: Sandbox = {
    world,
    get rig() { return rig; },
    get sceneName() { return sceneName; },
    get controlPoints() { return Object.assign(Object.create(null) as Record<string, number>, Object.fromEntries(record().controlPointByName)); },
    get bones() { return Object.assign(Object.create(null) as Record<string, number>, Object.fromEntries(record().boneByName)); },
    get paused() { return paused; },
    get stepsTaken() { return stepsTaken; },
    get frames() { return frames; },
    setPaused(p) { paused = p; acc = 0; },
    stepOnce,
    reset() {
      if (sandbox.recorder.state.mode === 'playback') sandbox.recorder.live();
      resetRig(world, rig);
      for (const r of crowdRigs) resetRig(world, r);
      compare?.reset();
      syncRapier(); // the mirrors start over from the reset pose
      view.clearOnion();
      acc = 0;
    },
    ...screenPoints(world, view, record),
    view, dragger, grabber, history,
    get hud() { return hud; },
    applySettings(patch) {
      const before = createSnapshot(world, rig);
      setSettings(world, rig, patch); // throws before anything changes when refused
      const solver = getSettings(world, rig).solver;
      if (patch.solver !== undefined && solver !== 'physik') {
        // a trial solve, undone: a solver that cannot pose this rig (a two-bone goal on the root)
        // is refused now, with its reason, rather than failing on every step
        const after = createSnapshot(world, rig);
        try {
          kinematicSolvers[solver]!(world, record());
        } catch (e) {
          restoreRig(world, rig, before);
          throw new Error(`solver "${solver}" cannot pose this rig: ${errorText(e)}`);
        }
        restoreRig(world, rig, after);
      }
      compare?.setSettings(patch);
      // damping set by hand: liveliness is no longer what stands
      if (patch.damping !== undefined || patch.dampingAuto !== undefined || patch.dampingRatio !== undefined) feel = { ...feel, liveliness: null };
    },
    get feel() { return feel; },
    get sceneOwnFeel() { return sceneStatesOwnFeel(scene); },
    setFeel(patch) {
      const was = feel.responsiveness ?? 1;
      applyFeel(world, rig, patch, was); // throws before anything changes when refused
      compare?.setFeel(patch, was);
      feel = { ...feel, ...patch };
      Object.assign(chosen, patch);
    },
    get compare() { return compare; },
    setCompare,
    loadScene,
    async openFile(data, fileName) {
      const ext = (/\.[^.]+$/.exec(fileName)?.[0] ?? '').toLowerCase();
      const text = () => (typeof data === 'string' ? data : new TextDecoder().decode(data));
      try {
        let next: Scene;
        const base = fileName.replace(/^.*[\\/]/, '').replace(/\.[^.]+$/, '');
        if (ext === '.bvh') {
          const r = importBvh(text(), fileName, { controlPoints: 2 });
          next = r.scene; importNotes = r.warnings;
        } else if (ext === '.glb' || ext === '.gltf') {
          const r = await importGltf(ext === '.gltf' ? text() : data, fileName, { controlPoints: 2 });
          next = r.scene; importNotes = r.warnings;
        } else {
          next = parseSceneText(text(), fileName);
          importNotes = [];
        }
        loadScene(next, base);
      } catch (e) {
        showError(`Could not open ${fileName}:\n${errorText(e)}`);
        return false;
      }
      hideError();
      return true;
    },
    get importNotes() { return importNotes; },
    recorder: undefined as unknown as RecordingControls, // set below (it needs the sandbox)
    get timeline() { return timeline; },
    get selected() { return selection.name; },
    select,
    sceneFile: () => sceneFileText(world, record(), scene),
    spawnCrowd(n) {
      crowdRigs = replaceCrowd(world, scene, rig, crowdRigs, n);
      syncRapier();
      view.update(); // rebuild the buffers for the new set of rigs
      view.frame();
    },
    get crowd() { return crowdRigs.length; },
    moveTarget(name, to) {
      const t = world.physik.ControlPoint.target, cp = pointNamed(ref, name);
      history.run(moveTargetEdit(ref, name, [t[cp * 3]!, t[cp * 3 + 1]!, t[cp * 3 + 2]!], to));
    },
    deleteSelected() {
      const name = selection.name;
      if (name === null) return;
      select(null);
      history.run(removePointEdit(ref, name));
    },
    toggleSelected() {
      const name = selection.name;
      if (name === null) return;
      const cp = pointNamed(ref, name);
      history.run(activeEdit(ref, name, world.physik.ControlPoint.active[cp] !== 1));
    },
    undo() { runHistory(() => history.undo()); },
    redo() { runHistory(() => history.redo()); },
    get onion() { return onion; },
    set onion(n: number) {
      if (!Number.isInteger(n) || n < 0 || n > 8) throw new Error(`onion skins must be a whole number from 0 to 8, got ${n}`);
      onion = n;
      view.setOnionSkins(n);
      if (n === 0) view.clearOnion();
    },
    get rapier() { return rapier; },
    get rapierJoints() { return rapierWanted; },
    setRapierGhost,
    get rapierPlacement() { return rapierPlacement; },
    set rapierPlacement(p: RapierPlacement) {
      if (!rapierPlacements.includes(p)) throw new Error(`Rapier ghost placement must be ${rapierPlacements.join(' or ')}, got "${String(p)}"`);
      rapierPlacement = p;
      placeRapier();
      view.update();
      view.frame();
    },
    get rapierMs() { return rapierMs; },
  };

  sandbox.recorder = createRecordingControls({
    world,
    get rig() { return rig; },
    get sceneName() { return sceneName; },
    get paused() { return paused; },
    setPaused: (p) => sandbox.setPaused(p),
    reset: () => sandbox.reset(),
    showError,
  });
  createTimeline(canvas.parentElement ?? document.body, (frame) => sandbox.recorder.scrub(frame)).then((t) => {
    timeline = t;
    timeline.resize(window.innerWidth);
  }, (e) => showError(`timeline failed to start: ${errorText(e)}`));
  window.addEventListener('resize', () => timeline?.resize(window.innerWidth));

  function runHistory(action: () => unknown): void {
    try {
      action();
    } catch (e) {
      showError(`could not undo/redo: ${errorText(e)}`);
    }
    // the selected point may have been removed or re-created under a new entity
    const name = selection.name;
    select(name !== null && record().controlPointByName.has(name) ? name : null);
  }

  window.addEventListener('keydown', (e) => {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement || e.target instanceof HTMLSelectElement) return;
    const mod = e.ctrlKey || e.metaKey;
    if (mod && (e.key === 'z' || e.key === 'Z')) { if (e.shiftKey) sandbox.redo(); else sandbox.undo(); e.preventDefault(); }
    else if (mod && (e.key === 'y' || e.key === 'Y')) { sandbox.redo(); e.preventDefault(); }
    else if (mod) return;
    else if (e.key === ' ') { sandbox.setPaused(!paused); e.preventDefault(); }
    else if (e.key === '.') { sandbox.setPaused(true); stepOnce(); }
    else if (e.key === 'r' || e.key === 'R') sandbox.reset();
    else if (e.key === 'Delete' || e.key === 'Backspace') { sandbox.deleteSelected(); e.preventDefault(); }
    else if (e.key === 'e' || e.key === 'E') sandbox.toggleSelected();
    else if (e.key === 'Escape') select(null);
  });

  installFileDrop(window, {
    onFile: (data, fileName) => void sandbox.openFile(data, fileName),
    onError: showError,
  });

  if (options.compare) setCompare(options.compare);
  if (options.onion) sandbox.onion = options.onion;
  if (options.rapier) setRapierGhost(options.rapier).catch(() => { /* shown in #error */ });
  requestAnimationFrame(tick);
  return sandbox;
}

if (typeof document !== 'undefined' && document.getElementById('view')) {
  window.addEventListener('error', (e) => showError(`error: ${e.message}`));
  window.addEventListener('unhandledrejection', (e) => showError(`error: ${String(e.reason)}`));
  const { scene: name, options, problems } = readDeepLink(location.search);
  let scene: Scene | undefined;
  try {
    scene = sceneByName(name);
  } catch (e) {
    showError(`Could not load scene "${name}":\n${errorText(e)}`);
  }
  if (scene) {
    // worker mode (?worker=1, workerMode.ts) when the page can share memory, else the main thread
    const inWorker = options.worker === true && workerModeAvailable();
    if (options.worker && !inWorker) problems.push(WORKER_UNAVAILABLE);
    const sandbox = inWorker ? startWorkerMode(scene, name, options, { showError, hideError }) : startSandbox(scene, name, options);
    // ?crowd=N, else the scene's own crowd (a scene with a `crowd` block; ?crowd=0 leaves it out)
    const crowd = options.crowd ?? scene.crowd?.count;
    if (crowd) {
      const what = options.crowd !== undefined ? `?crowd=${options.crowd}` : "the scene's crowd";
      try { sandbox.spawnCrowd(crowd); } catch (e) { problems.push(`${what}: ${errorText(e)}`); }
    }
    window.__physik = sandbox;
    window.physik = Object.freeze({
      pose: () => readPose(sandbox.world, sandbox.rig),
      metrics: () => readMetrics(sandbox.world, sandbox.rig),
      time: () => readMetrics(sandbox.world, sandbox.rig).step * getSettings(sandbox.world, sandbox.rig).dt,
      compareMetrics: () => (sandbox.compare ? readMetrics(sandbox.compare.world, sandbox.compare.rig) : null),
      rapierGhost: (on: boolean | JointModel) => sandbox.setRapierGhost(on),
      rapierDistance: () => (sandbox.rapier ? { ...sandbox.rapier.distance() } : null),
      rapierInits,
    });
    sandbox.panel = createPanel(sandbox, {
      sceneNames: Object.keys(scenes), solverNames, showError, clearError: hideError,
      openScene: (n) => sandbox.loadScene(sceneByName(n), n),
      onLinkChange: () => writeDeepLink(sandbox),
      worker: { on: inWorker, toggle: switchWorkerMode },
    });
    document.title = `physik-ecs · ${name}`;
    if (problems.length) showError(problems.join('\n'));
  }
}

