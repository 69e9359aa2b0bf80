/**
 * The sandbox's panel (lil-gui):
 * - scene picker (every file in scenes/, loaded in place) and "open file…" for a scene .json;
 * - feel: responsiveness and liveliness (feel.ts), each with a tooltip, and a line saying
 *   whether they or the scene's own stiffness and damping are in effect (on either thread);
 * - solver, compare-with solver (the ghost) and onion skins;
 * - the Rapier ghost: on/off, joint model, over or beside the rig, and the live tip distance
 *   (max over the bones, ÷ the rig's height) between PhysIK and Rapier;
 * - every simulation setting, each edit through `applySettings`: when it throws, the message
 *   is shown in #error and the control goes back to the rig's current (valid) value, so an
 *   out-of-range value is never applied. Number fields have no lil-gui min/max (nothing is
 *   clamped while typing): the validation is what refuses a bad value;
 * - the selected control point: enable/disable, delete; undo and redo;
 * - recording: frames per second, record, stop, looped playback, back to live, resume from
 *   the frame shown (scrub on the timeline strip), export .glb / .bvh / .json (downloads);
 * - play/pause, single step, reset;
 * - "simulation in a worker": reloads the page with `?worker=1` or without it. In worker mode
 *   the panel hides what the host lacks (`Sandbox.unavailable`: compare, onion skins, the
 *   Rapier ghost, point edits, recording; workerMode.ts) and names it in a note.
 */
import GUI, { type Controller } from 'lil-gui';
import { getSettings } from '../core';
import { settingEnums } from '../core/settings';
import type { Settings } from '../scene/types';
import { readDroppedFile } from './drop';
import type { ExportKind } from './recording';
import type { Feature, Sandbox } from './sandbox';
import { rapierJointModels, rapierPlacements, type RapierPlacement } from './deepLink';
import { CROWD_MAX } from './simScene';
import { FEATURE_NAMES } from './shell';
import { FEEL_RANGE } from './feel';

/** Tooltips of the feel knobs (one line each). */
export const FEEL_TIPS = {
  responsiveness: "How tightly the body follows its handles: the control springs' stiffness × this (1 = the scene's own).",
  liveliness: 'How much the body swings through and settles after a quick move: damping ratio 1 − this (0 = critical, no overshoot).',
} as const;

/** The panel's line under the knobs: what is in effect on this scene, short, and in full (its tooltip). */
export function feelHint(sandbox: Sandbox): { short: string; full: string } {
  const { responsiveness: r, liveliness: l } = sandbox.feel;
  const rule = "The knobs apply to every scene that does not set its own stiffness or damping (the paper scenes only restate the library's, so they get the knobs); "
    + 'a scene that does keeps its own until you move a knob. Scene files are never changed.';
  const say = (short: string, now: string) => ({ short, full: `${now}. ${rule}` });
  if (r !== null && l !== null) return say('the knobs', sandbox.sceneOwnFeel ? "The knobs, over this scene's own stiffness and damping" : "The knobs, on top of the scene's settings");
  if (r === null && l === null) return say("the scene's own", "This scene's own stiffness and damping: move a knob to override them");
  return r === null
    ? say("scene's springs, knob's damping", "The scene's own springs, and the liveliness knob's damping")
    : say('knob\'s springs, set damping', 'The responsiveness knob\'s springs, and the damping set by hand in the settings');
}

/** Settings the panel edits, in display order, with their labels. */
const fields: { key: keyof Settings; label: string }[] = [
  { key: 'spring', label: 'spring kind' },
  { key: 'stiffness', label: 'stiffness' },
  { key: 'cap', label: 'cap' },
  { key: 'damping', label: 'damping' },
  { key: 'angularDamping', label: 'angular damping' },
  { key: 'dt', label: 'dt' },
  { key: 'integrator', label: 'integrator' },
  { key: 'interpolation', label: 'interpolation' },
  { key: 'interpolationSteps', label: 'interpolation steps' },
  { key: 'epsilon', label: 'epsilon' },
  { key: 'maxPasses', label: 'pass cap' },
  { key: 'interJoint', label: 'inter-joint' },
  { key: 'dampingAuto', label: 'automatic damping' },
  { key: 'maxSubsteps', label: 'max substeps (guard)' },
  { key: 'sleepWhenConverged', label: 'sleep when converged' },
  { key: 'finish', label: 'hybrid finish' },
];

export interface PanelOptions {
  /** Every scene name the sandbox can load. */
  sceneNames: string[];
  solverNames: readonly string[];
  /** Load a scene from scenes/ in place (throws, leaving the current one, when it fails). */
  openScene(name: string): void;
  /** Show a message in the page's visible error element. */
  showError(message: string): void;
  /** Hide the error element (after a successful edit). */
  clearError?(): void;
  /** Solver, compare, onion, crowd or the Rapier ghost changed: the page updates its address. */
  onLinkChange?(): void;
  /** Worker mode: whether the simulation runs in a worker, and how to switch (a reload). */
  worker?: { on: boolean; toggle(on: boolean): void };
}

export function createPanel(sandbox: Sandbox, options: PanelOptions): GUI {
  const gui = new GUI({ title: 'physik' });
  gui.domElement.style.top = '30px'; // below the status line
  // taller than small windows: scroll rather than run off the bottom
  gui.domElement.style.maxHeight = 'calc(100vh - 70px)';
  gui.domElement.style.overflowY = 'auto';
  const settingsNow = () => getSettings(sandbox.world, sandbox.rig);
  let showing = false; // whether #error holds a message from this panel
  const fail = (what: string, e: unknown) => {
    options.showError(`could not set ${what}:\n${e instanceof Error ? e.message : String(e)}`);
    showing = true;
  };
  const ok = () => {
    if (showing) { options.clearError?.(); showing = false; }
  };
  const blur = () => { if (document.activeElement instanceof HTMLElement) document.activeElement.blur(); };

  const state: Record<string, unknown> = {
    scene: sandbox.sceneName,
    solver: settingsNow().solver,
    compare: sandbox.compare?.solver ?? 'none',
    onion: sandbox.onion,
    selected: sandbox.selected ?? '(none)',
  };
  const controllers: [string, Controller][] = [];
  const track = (key: string, c: Controller) => (controllers.push([key, c]), c);

  // --- scene
  const sceneNames = [...options.sceneNames].sort();
  track('scene', gui.add(state, 'scene', sceneNames).name('scene')).onFinishChange((name: string) => {
    try {
      options.openScene(name);
      ok();
      options.onLinkChange?.();
    } catch (e) {
      fail('scene', e);
      refresh();
    }
  });
  const fileInput = document.createElement('input');
  fileInput.type = 'file';
  fileInput.accept = '.json,.glb,.gltf,.bvh';
  fileInput.hidden = true;
  fileInput.addEventListener('change', () => {
    const file = fileInput.files?.[0];
    if (file) {
      void readDroppedFile(file, {
        onFile: (data, name) => void sandbox.openFile(data, name).then((ok) => ok && options.onLinkChange?.()),
        onError: options.showError,
      });
    }
    fileInput.value = '';
  });
  gui.domElement.append(fileInput);

  // --- feel: plain-word knobs over stiffness and damping ratio (feel.ts)
  const feelFolder = gui.addFolder('feel');
  let hint: Controller | undefined; // the 'in effect' row, made below the knobs
  const feelShown = () => {
    const s = settingsNow(), f = sandbox.feel;
    const lively = s.dampingAuto ? Math.min(FEEL_RANGE.liveliness.max, Math.max(0, 1 - s.dampingRatio)) : 0;
    state.responsiveness = f.responsiveness ?? 1;
    state.liveliness = f.liveliness ?? lively;
    const h = feelHint(sandbox);
    state.feelHint = h.short;
    if (hint) hint.domElement.title = h.full;
  };
  feelShown();
  for (const key of ['responsiveness', 'liveliness'] as const) {
    const { min, max } = FEEL_RANGE[key];
    const c = track(key, feelFolder.add(state, key, min, max, 0.05).name(key));
    c.domElement.title = FEEL_TIPS[key];
    c.onFinishChange((v: number) => {
      try { sandbox.setFeel({ [key]: v }); ok(); } catch (e) { fail(key, e); }
      refresh();
      options.onLinkChange?.();
    });
  }
  hint = track('feelHint', feelFolder.add(state, 'feelHint').name('in effect').disable());
  hint.domElement.title = feelHint(sandbox).full;

  // --- solvers
  track('solver', gui.add(state, 'solver', [...options.solverNames]).name('solver')).onFinishChange((v: string) => {
    try { sandbox.applySettings({ solver: v }); ok(); } catch (e) { fail('solver', e); }
    refresh();
    options.onLinkChange?.();
  });
  track('compare', gui.add(state, 'compare', ['none', ...options.solverNames]).name('compare with')).onFinishChange((v: string) => {
    try { sandbox.setCompare(v === 'none' ? null : v); ok(); } catch (e) { fail('compare', e); }
    refresh();
    options.onLinkChange?.();
  });
  track('onion', gui.add(state, 'onion', 0, 8, 1).name('onion skins')).onFinishChange((v: number) => {
    try { sandbox.onion = v; ok(); } catch (e) { fail('onion skins', e); }
    refresh();
    options.onLinkChange?.();
  });

  state.crowd = sandbox.crowd;
  const inWorker = options.worker?.on === true;
  track('crowd', gui.add(state, 'crowd', 0, inWorker ? CROWD_MAX : 400, 1).name('crowd (copies)')).onFinishChange((v: number) => {
    try { sandbox.spawnCrowd(v); ok(); } catch (e) { fail('crowd', e); }
    refresh();
    options.onLinkChange?.();
  });
  if (options.worker) {
    const toggle = options.worker.toggle;
    gui.add({ worker: inWorker }, 'worker').name('simulation in a worker').onChange((v: boolean) => toggle(v));
  }
  if (sandbox.unavailable.length) {
    // what this host lacks, in full (a disabled field would cut the list off)
    const note = document.createElement('p');
    note.className = 'panel-off';
    note.textContent = `Off ${inWorker ? 'in worker mode' : 'here'}: ${sandbox.unavailable.map((f) => FEATURE_NAMES[f]).join(', ')}. ${sandbox.unavailableWhy ?? ''}`.trim();
    gui.$children.append(note);
  }

  // --- Rapier ghost
  const rapierFolder = gui.addFolder('Rapier ghost');
  state.rapier = sandbox.rapierJoints !== null;
  state.rapierJoints = sandbox.rapierJoints ?? 'impulse';
  state.rapierPlacement = sandbox.rapierPlacement;
  state.rapierDistance = '(off)';
  const switchRapier = (on: boolean) => {
    // the sandbox shows why it could not start; the box then unticks itself (refresh)
    sandbox.setRapierGhost(on ? (state.rapierJoints as 'impulse' | 'multibody') : null)
      .then(() => ok(), () => { showing = true; })
      .finally(() => { refresh(); options.onLinkChange?.(); });
    refresh();
    options.onLinkChange?.();
  };
  track('rapier', rapierFolder.add(state, 'rapier').name('Rapier ghost')).onChange((v: boolean) => switchRapier(v));
  track('rapierJoints', rapierFolder.add(state, 'rapierJoints', [...rapierJointModels]).name('joints'))
    .onFinishChange(() => { if (state.rapier) switchRapier(true); });
  track('rapierPlacement', rapierFolder.add(state, 'rapierPlacement', [...rapierPlacements]).name('placement')).onFinishChange((v: string) => {
    try { sandbox.rapierPlacement = v as RapierPlacement; ok(); } catch (e) { fail('placement', e); }
    refresh();
  });
  const distanceController = track('rapierDistance', rapierFolder.add(state, 'rapierDistance').name('tip distance').disable());

  /** The Rapier ghost's live distance, as the panel shows it. */
  const rapierReadout = (): string => {
    if (sandbox.rapierJoints === null) return '(off)';
    const g = sandbox.rapier;
    if (!g) return 'loading Rapier…';
    const d = g.distance();
    if (!d.finite) return 'not finite';
    const rigs = d.rigs < d.of ? `, ${d.rigs} of ${d.of} rigs` : '';
    return `${(100 * d.normalized).toFixed(2)}% (${d.max.toPrecision(3)}, ${d.bone}${rigs})`;
  };
  sandbox.onLive = () => {
    const text = rapierReadout();
    if (text !== state.rapierDistance) { state.rapierDistance = text; distanceController.updateDisplay(); }
  };

  // --- settings
  const settings = gui.addFolder('settings');
  for (const { key, label } of fields) {
    state[key] = settingsNow()[key];
    const choices = settingEnums[key];
    const c = track(key, choices ? settings.add(state, key, [...choices]) : settings.add(state, key));
    c.name(label).onFinishChange((value: unknown) => {
      try {
        sandbox.applySettings({ [key]: value } as Partial<Settings>);
        ok();
      } catch (e) {
        fail(label, e);
      }
      // show what the rig actually has: the new value, or the old one when refused
      state[key] = settingsNow()[key];
      c.updateDisplay();
    });
  }

  // --- control points
  const points = gui.addFolder('control point');
  track('selected', points.add(state, 'selected').name('selected').disable());
  const edits = {
    toggle() { sandbox.toggleSelected(); blur(); },
    remove() { sandbox.deleteSelected(); blur(); },
    undo() { sandbox.undo(); blur(); },
    redo() { sandbox.redo(); blur(); },
    open() { fileInput.click(); },
    saveScene() { save(`${sandbox.sceneName.replace(/[^\w.-]+/g, '_') || 'scene'}.json`, sandbox.sceneFile(), 'application/json'); },
  };
  points.add(edits, 'toggle').name('enable / disable (e)');
  points.add(edits, 'remove').name('delete (Del)');
  points.add(edits, 'undo').name('undo (Ctrl+Z)');
  points.add(edits, 'redo').name('redo (Ctrl+Shift+Z)');

  // --- recording
  const rec = gui.addFolder('recording');
  const recState = { fps: sandbox.recorder.fps };
  rec.add(recState, 'fps').name('frames per second').onFinishChange((v: number) => {
    try { sandbox.recorder.fps = v; ok(); } catch (e) { fail('frames per second', e); }
    recState.fps = sandbox.recorder.fps;
    refresh();
  });
  const save = (name: string, data: Uint8Array | string, type: string) => {
    const url = URL.createObjectURL(new Blob([data as BlobPart], { type }));
    const a = document.createElement('a');
    a.href = url;
    a.download = name;
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  };
  const download = async (kind: ExportKind) => {
    try {
      const file = await sandbox.recorder.exportFile(kind);
      save(file.name, file.data, file.type);
      ok();
    } catch (e) {
      options.showError(`could not export ${kind}:\n${e instanceof Error ? e.message : String(e)}`);
      showing = true;
    }
  };
  const recording = {
    record() { sandbox.recorder.record(); blur(); },
    stop() { sandbox.recorder.stop(); blur(); },
    play() { sandbox.recorder.play(); blur(); },
    live() { sandbox.recorder.live(); blur(); },
    resume() {
      try { sandbox.recorder.resumeHere(); ok(); } catch (e) { fail('resume', e); }
      blur();
    },
    glb() { void download('glb'); },
    bvh() { void download('bvh'); },
    json() { void download('json'); },
  };
  rec.add(recording, 'record').name('● record');
  rec.add(recording, 'stop').name('■ stop');
  rec.add(recording, 'play').name('▶ play (loop)');
  rec.add(recording, 'live').name('back to live');
  rec.add(recording, 'resume').name('resume from this frame');
  rec.add(recording, 'glb').name('export .glb');
  rec.add(recording, 'bvh').name('export .bvh');
  rec.add(recording, 'json').name('export .json');
  controllers.push(['fps', rec.controllers[0]!]);

  const actions = {
    playPause() { sandbox.setPaused(!sandbox.paused); blur(); },
    step() { sandbox.setPaused(true); sandbox.stepOnce(); blur(); },
    reset() { sandbox.reset(); blur(); },
  };
  gui.add(actions, 'playPause').name('play / pause');
  gui.add(actions, 'step').name('single step');
  gui.add(actions, 'reset').name('reset');
  gui.add(edits, 'open').name('open file… (.json .glb .gltf .bvh)');
  gui.add(edits, 'saveScene').name('save scene .json');
  // what the host lacks is hidden (the note above names it)
  const lacks = (f: Feature) => sandbox.unavailable.includes(f);
  for (const [key, c] of controllers) if ((key === 'compare' && lacks('compare')) || (key === 'onion' && lacks('onion'))) c.hide();
  if (lacks('rapier')) rapierFolder.hide();
  if (lacks('pointEdits') && lacks('undo')) points.hide();
  if (lacks('recording')) rec.hide();

  /** Show the sandbox's current state in every control. */
  function refresh(): void {
    const s = settingsNow();
    state.scene = sandbox.sceneName;
    state.solver = s.solver;
    state.compare = sandbox.compare?.solver ?? 'none';
    state.onion = sandbox.onion;
    state.crowd = sandbox.crowd;
    state.selected = sandbox.selected ?? '(none)';
    state.rapier = sandbox.rapierJoints !== null;
    if (sandbox.rapierJoints) state.rapierJoints = sandbox.rapierJoints;
    state.rapierPlacement = sandbox.rapierPlacement;
    state.rapierDistance = rapierReadout();
    feelShown();
    for (const { key } of fields) state[key] = s[key];
    for (const [, c] of controllers) c.updateDisplay();
  }
  sandbox.onChange = refresh;
  return gui;
}
