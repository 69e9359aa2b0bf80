/// <reference types="vite/client" />
/**
 * The sandbox page (index.html): a full-window three.js view of one scene from `scenes/`,
 * simulated live with a fixed-step accumulator (dt from the scene's settings) inside
 * requestAnimationFrame. Drag an orange target handle to pose the rig; keys: space
 * play/pause, `.` one step, `r` reset. `?scene=<name>` picks the scene (default humanoid).
 *
 * Browser-safe imports only: scenes come in as JSON modules through `import.meta.glob` and
 * go through `parseScene` (never `scene/loadFile`, which reads files with Node's fs). A bad
 * scene shows its errors in #error instead of a blank page.
 *
 * For tests, `window.__physik` exposes the world, the rig, the control points by name, the
 * pause state and `screenOf(name)` (a target handle's client position).
 */
import { createPhysikWorld, addRig, step, resetRig, getSettings, readMetrics, type PhysikWorld } from '../core';
import { parseScene } from '../scene/load';
import { createView, type View } from '../render/view';
import { createTargetDragger, type TargetDragger } from './drag';
import { createHud, type Hud } from '../hud/overlay';
import type GUI from 'lil-gui';
import { createPanel } from './panel';

const sceneModules = import.meta.glob('../../scenes/*.json', { eager: true, import: 'default' }) as Record<string, unknown>;

/** Scene data by name (file name without .json). */
export const scenes: Record<string, unknown> = Object.fromEntries(
  Object.entries(sceneModules).map(([path, data]) => [path.replace(/^.*\//, '').replace(/\.json$/, ''), data]),
);

/** Most frames a slow tab may catch up in one animation frame (avoids the spiral of death). */
const MAX_STEPS_PER_FRAME = 8;

export interface Sandbox {
  world: PhysikWorld;
  rig: number;
  sceneName: string;
  controlPoints: Record<string, number>;
  bones: Record<string, number>;
  readonly paused: boolean;
  /** Steps taken since the page loaded (counts across resets). */
  readonly stepsTaken: number;
  readonly frames: number;
  setPaused(p: boolean): void;
  stepOnce(): void;
  reset(): void;
  /** Client (CSS pixel) position of a control point's target handle. */
  screenOf(name: string): { x: number; y: number } | null;
  view: View;
  /** The pixi.js overlay (plots and status), once it has started. */
  readonly hud: Hud | null;
  dragger: TargetDragger;
  /** The settings panel (lil-gui), once the page has built it. */
  panel?: GUI;
}

declare global {
  interface Window { __physik?: Sandbox }
}

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

export function startSandbox(sceneName: string): Sandbox {
  const data = scenes[sceneName];
  if (data === undefined) {
    throw new Error(`no scene "${sceneName}" in scenes/ (have: ${Object.keys(scenes).sort().join(', ')})`);
  }
  const scene = parseScene(data, `scenes/${sceneName}.json`);
  const world = createPhysikWorld();
  const handle = addRig(world, { rig: scene.rig, controlPoints: scene.controlPoints, settings: scene.settings, script: scene.script });
  const rig = handle.rig;

  const canvas = document.getElementById('view') as HTMLCanvasElement;
  const view = createView(canvas, world);
  const dragger = createTargetDragger(world, view, canvas);
  const status = document.getElementById('status');

  let paused = false, stepsTaken = 0, frames = 0, acc = 0, last = -1, fps = 0;
  // the overlay draws on its own canvas over the three.js one (one WebGL context each)
  let hud: Hud | null = null;
  createHud(canvas.parentElement ?? document.body, { dt: scene.settings.dt }).then((h) => {
    hud = h;
    hud.resize(window.innerWidth, window.innerHeight);
  }, (e) => showError(`overlay failed to start: ${e instanceof Error ? e.message : String(e)}`));
  window.addEventListener('resize', () => hud?.resize(window.innerWidth, window.innerHeight));

  const stepOnce = () => {
    const t0 = performance.now();
    step(world, 1);
    const ms = performance.now() - t0;
    stepsTaken++;
    hud?.sample(world, rig, world.physik.Rig.step[rig]! * getSettings(world, rig).dt, ms);
  };

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
      while (acc >= dt && n < MAX_STEPS_PER_FRAME) { stepOnce(); acc -= dt; n++; }
      if (n === MAX_STEPS_PER_FRAME) acc = 0;
    }
    dragger.sync();
    view.update();
    hud?.draw(fps);
    if (status && frames % 6 === 0) {
      const m = readMetrics(world, rig);
      status.textContent = `${scene.name} · step ${m.step} · ${paused ? 'paused' : m.status} · target error ${m.maxTargetError.toFixed(3)}`;
    }
  }

  const sandbox: Sandbox = {
    world, rig, sceneName,
    controlPoints: handle.controlPoints,
    bones: handle.bones,
    get paused() { return paused; },
    get stepsTaken() { return stepsTaken; },
    get frames() { return frames; },
    setPaused(p) { paused = p; acc = 0; },
    stepOnce,
    reset() { resetRig(world, rig); acc = 0; },
    screenOf(name) {
      const cp = handle.controlPoints[name];
      if (cp === undefined) return null;
      const t = world.physik.ControlPoint.target;
      const out = { x: 0, y: 0 };
      return view.project(t[cp * 3]!, t[cp * 3 + 1]!, t[cp * 3 + 2]!, out) ? out : null;
    },
    view, dragger,
    get hud() { return hud; },
  };

  window.addEventListener('keydown', (e) => {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement || e.target instanceof HTMLSelectElement) return;
    if (e.key === ' ') { sandbox.setPaused(!paused); e.preventDefault(); }
    else if (e.key === '.') { sandbox.setPaused(true); stepOnce(); }
    else if (e.key === 'r' || e.key === 'R') sandbox.reset();
  });

  requestAnimationFrame(tick);
  return sandbox;
}

if (typeof document !== 'undefined' && document.getElementById('view')) {
  window.addEventListener('error', (e) => showError(`error: ${e.message}`));
  window.addEventListener('unhandledrejection', (e) => showError(`error: ${String(e.reason)}`));
  const name = new URLSearchParams(location.search).get('scene') || 'humanoid';
  try {
    const sandbox = startSandbox(name);
    window.__physik = sandbox;
    sandbox.panel = createPanel(sandbox, { sceneNames: Object.keys(scenes), showError, clearError: hideError });
    document.title = `physik-ecs · ${name}`;
  } catch (e) {
    showError(`Could not load scene "${name}":\n${e instanceof Error ? e.message : String(e)}`);
  }
}
