/// <reference types="vite/client" />
/**
 * The sandbox page's entry (index.html): reads the deep link, picks the host (the main-thread
 * one, mainThread.ts, or with `?worker=1` the worker one, workerMode.ts, when the page can
 * share memory), spawns the crowd, builds the panel and exposes the test handles.
 *
 * Browser-safe imports only: scenes come in as JSON modules through `import.meta.glob` and go
 * through `parseScene`. Anything refused (a bad scene, a bad deep link, a dropped file that is
 * not a scene, an out-of-range setting) shows a message in #error; the page goes on.
 *
 * For tests, `window.__physik` exposes the sandbox (its `motion.read()`: the Motion folder's state); `window.physik` is a small handle
 * (`pose()`, `metrics()`, `time()`, `compareMetrics()`, `rapierGhost(on)`, `rapierDistance()`, `rapierInits()`).
 */
import { getSettings, readMetrics, readPose } from '../core';
import { parseScene, parseSceneText } from '../scene/load';
import type { Scene } from '../scene/types';
import { rapierInits } from '../rapier/load';
import type { JointModel } from '../rapier/jointPlan';
import { readDeepLink, solverNames, writeDeepLink } from './deepLink';
import { createPanel } from './panel';
import { startSandbox } from './mainThread';
import { startWorkerMode, switchWorkerMode, workerModeAvailable, WORKER_UNAVAILABLE } from './workerMode';
import { errorText, fitView, hideError, showError } from './shell';
import { keepCharacterEdits, reopenCharacter } from './character';
import { loadCharacter, type StoredCharacter } from './characterStore';

/** The scene shown when the address names none, or one that cannot be found. */
const DEFAULT_SCENE = 'humanoid';

const sceneModules = import.meta.glob('../../scenes/*.json', { eager: true, import: 'default' }) as Record<string, unknown>;

/** Scene data by name (file name without .json). */
const scenes: Record<string, unknown> = Object.fromEntries(
  Object.entries(sceneModules).map(([path, data]) => [path.replace(/^.*\//, '').replace(/\.json$/, ''), data]),
);

/** Scene data by name, validated. Throws (SceneError) with the file named. */
function sceneByName(name: string): Scene {
  // own keys only: ?scene=constructor must not find Object.prototype.constructor
  const data = Object.hasOwn(scenes, name) ? scenes[name] : undefined;
  if (data === undefined) {
    throw new Error(`no scene "${name}" in scenes/ (have: ${Object.keys(scenes).sort().join(', ')})`);
  }
  return parseScene(data, `scenes/${name}.json`);
}

async function start(): Promise<void> {
  window.addEventListener('error', (e) => showError(`error: ${e.message}`));
  window.addEventListener('unhandledrejection', (e) => showError(`error: ${String(e.reason)}`));
  const link = readDeepLink(location.search);
  const { options, problems } = link;
  let name = link.scene;
  let scene: Scene;
  // not a scene of scenes/: a character imported before (kept in IndexedDB), else the default scene
  let stored: StoredCharacter | undefined;
  try {
    scene = sceneByName(name);
  } catch (e) {
    stored = await loadCharacter(name);
    if (!stored) problems.push(`Could not load scene "${name}":\n${errorText(e)}\nShowing the ${DEFAULT_SCENE} scene instead.`);
    try {
      scene = sceneByName(DEFAULT_SCENE);
    } catch (e2) {
      showError(`Could not load scene "${DEFAULT_SCENE}":\n${errorText(e2)}`);
      return;
    }
    name = DEFAULT_SCENE;
  }
  // worker mode when the page can share memory, else the main thread
  const inWorker = options.worker === true && workerModeAvailable();
  if (options.worker && !inWorker) problems.push(WORKER_UNAVAILABLE);
  const sandbox = inWorker ? startWorkerMode(scene, name, options) : startSandbox(scene, name, options);
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
  sandbox.panel.onOpenClose(() => fitView(sandbox, false));
  fitView(sandbox, true); // the rig in the part of the view the panel and plots leave free
  document.title = `physik-ecs · ${name}`;
  if (problems.length) showError(problems.join('\n'));
  if (stored) await reopenCharacter(sandbox, stored, parseSceneText);
  keepCharacterEdits(sandbox);
}

if (typeof document !== 'undefined' && document.getElementById('view')) void start();
