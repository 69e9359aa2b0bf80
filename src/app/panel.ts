/**
 * The sandbox's panel (lil-gui), for animators: the common controls first, the physics under a
 * closed "Advanced" fold, and a tooltip in plain words on every control.
 *
 * - What this host lacks, named in full in a note at the top (worker mode; `Sandbox.unavailable`),
 *   and hidden below.
 * - Scene / character (every file in scenes/, loaded in place), open a file, save the scene.
 * - Solver and a second solver to compare with (the ghost).
 * - Feel: responsiveness and liveliness (feel.ts), and a line saying whether they or the
 *   scene's own stiffness and damping are in effect.
 * - Recording: record, stop, looped playback, back to live, resume from the frame shown (scrub
 *   on the timeline strip), export .glb / .bvh / .json (downloads).
 * - Play / pause, one step, reset, undo, redo; the selected point: enable/disable, delete.
 * - Keys: key the selected target at the current step, delete its keys, and the list of keys.
 * - Joint: the selected joint's limits and its humanoid template role (jointPanel.ts).
 * - Advanced: onion skins, the plots' solver internals, crowd copies, the simulation in a
 *   worker (a reload), recording frames per second, the Rapier ghost (joint model, over or
 *   beside the rig, the live tip distance), and every simulation setting.
 *
 * Each edit goes through the sandbox (undoable, validated): when it throws, the message is
 * shown in #error and the control goes back to the rig's current (valid) value; a success
 * clears any message shown. Number fields have no lil-gui min/max (nothing is clamped while
 * typing): the validation is what refuses a bad value.
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
import { FEATURE_NAMES, OPENABLE } from './shell';
import { FEEL_RANGE } from './feel';
import { mountJointPanel } from './jointPanel';
import { mountMotionPanel } from './motionPanel';

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

/** Settings the panel edits (under Advanced), in display order, with their labels and tooltips. */
const fields: { key: keyof Settings; label: string; tip: string }[] = [
  { key: 'spring', label: 'spring kind', tip: 'How a handle pulls its bone: linear (harder the farther away) or capped (never harder than a limit, so big jumps stay gentle).' },
  { key: 'stiffness', label: 'stiffness', tip: 'How hard each handle pulls its bone toward the target.' },
  { key: 'cap', label: 'cap', tip: 'For capped springs: the distance beyond which a handle pulls no harder (0 = from the rig\'s size).' },
  { key: 'damping', label: 'damping', tip: 'How strongly motion is slowed at the bones\' ends (used when automatic damping is off).' },
  { key: 'angularDamping', label: 'angular damping', tip: 'How strongly spinning bones are slowed.' },
  { key: 'dt', label: 'dt', tip: 'Simulated seconds per step: smaller is more accurate and slower.' },
  { key: 'integrator', label: 'integrator', tip: 'How each step moves the bones forward in time (semi-implicit is the stable choice).' },
  { key: 'interpolation', label: 'interpolation', tip: 'How a target that jumps is eased to its new place (a drag moves it at once).' },
  { key: 'interpolationSteps', label: 'interpolation steps', tip: 'Over how many steps a jumped target is eased in.' },
  { key: 'epsilon', label: 'epsilon', tip: 'How closely the joint forces are solved each step (smaller is more exact).' },
  { key: 'maxPasses', label: 'pass cap', tip: 'Most passes of the joint solve per step (0 = no cap).' },
  { key: 'interJoint', label: 'inter-joint', tip: 'How the forces between bones are solved: exactly in one go, or by repeated passes.' },
  { key: 'dampingAuto', label: 'automatic damping', tip: 'Pick the damping from the rig\'s size and stiffness (the liveliness knob sets this).' },
  { key: 'maxSubsteps', label: 'max substeps (guard)', tip: 'When a step would move too fast, split it into at most this many smaller steps.' },
  { key: 'sleepWhenConverged', label: 'sleep when converged', tip: 'Stop computing a rig that has come to rest until something moves it.' },
  { key: 'finish', label: 'hybrid finish', tip: 'After the physics, let a kinematic solver close the last gap to the targets.' },
];

/** Tooltips of the panel's other controls, by the key they are made with. */
export const TIPS: Readonly<Record<string, string>> = {
  scene: 'The scene or character shown: picking one replaces the rig (your current pose and points go).',
  open: 'Open a scene (.json), a character (.glb, .gltf, .bvh) from your computer; you can also drop a file on the page.',
  saveScene: 'Download the scene as it stands (rig, points, targets, settings) as a .json you can open again.',
  solver: 'What poses the rig: physik (physics, with follow-through) or a kinematic IK solver (exact, no physics).',
  compare: 'Run a second solver on the same targets, drawn as a cyan ghost, with both solvers\' numbers bottom left.',
  feelHint: 'Whether the knobs or the scene\'s own stiffness and damping are in effect.',
  record: 'Start recording the motion (a new take).',
  stop: 'Stop recording.',
  play: 'Play the take in a loop (scrub it on the strip at the bottom).',
  live: 'Leave playback and go back to the live simulation.',
  resume: 'Rewind the simulation to the frame shown and go on from there.',
  markIn: 'Mark the frame shown as the start of the part of the take to keep or redo (i).',
  markOut: 'Mark the frame shown as the end of the part of the take to keep or redo (o).',
  trim: 'Keep only the part of the take between the in and out marks and drop the rest.',
  recordOver: 'Rewind to the in mark and record again up to the out mark; the take ends there.',
  glb: 'Download the take as a glTF animation (.glb) for Blender, game engines and three.js.',
  bvh: 'Download the take as a BVH motion file.',
  json: 'Download the take as JSON (frames of bone rotations), which the sandbox can open again.',
  playPause: 'Run or pause the simulation (space).',
  step: 'Pause and advance one step (.).',
  reset: 'Put the rig back in its starting pose (r); undo brings your pose back.',
  undo: 'Undo your last action: the pose and motion go back to how they were before it (Ctrl+Z).',
  redo: 'Redo what you undid (Ctrl+Shift+Z).',
  selected: 'The control point you last picked (click a handle or a pin).',
  key: 'Key the selected target where it is now, at this moment of the simulation: reset (r) and play to see the keys drive it.',
  unkey: 'Remove every key of the selected target.',
  keyList: 'The keyed targets and when (simulated seconds); saved with the scene.',
  toggle: 'Switch the selected point off or on: off, it stops pulling (e).',
  remove: 'Delete the selected point (Del).',
  onion: 'Show this many recent poses as fading ghosts behind the rig (0 = none).',
  plots: 'Also plot the solver\'s internals (joint mismatch, passes, step time) under the animator\'s plots.',
  crowd: 'Add copies of the rig behind it, each following its own wandering target (a load test).',
  worker: 'Run the simulation in a background thread (reloads the page; some features are off there).',
  fps: 'Frames per second of recordings and their exports.',
  rapier: 'Mirror the rig in the Rapier physics engine as a magenta ghost, to cross-check the physics.',
  rapierJoints: 'How the Rapier ghost joins its bones: impulse joints or a multibody.',
  rapierPlacement: 'Draw the Rapier ghost over the rig, or beside it.',
  rapierDistance: 'Largest distance between a bone of the rig and its Rapier twin, as a share of the rig\'s height.',
};

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
  const fail = (what: string, e: unknown) => options.showError(`could not set ${what}:\n${e instanceof Error ? e.message : String(e)}`);
  /** An edit succeeded: a message still shown is stale. */
  const ok = () => options.clearError?.();
  const blur = () => { if (document.activeElement instanceof HTMLElement) document.activeElement.blur(); };
  const lacks = (f: Feature) => sandbox.unavailable.includes(f);
  const inWorker = options.worker?.on === true;

  const state: Record<string, unknown> = {
    scene: sandbox.sceneName,
    solver: settingsNow().solver,
    compare: sandbox.compare?.solver ?? 'none',
    onion: sandbox.onion,
    selected: sandbox.selected ?? '(none)',
  };
  const controllers: [string, Controller][] = [];
  /** Keep the controller (refreshed with the sandbox) and give it its tooltip. */
  const track = (key: string, c: Controller, tip = TIPS[key]) => {
    controllers.push([key, c]);
    if (tip) c.domElement.title = tip;
    return c;
  };
  const button = (folder: GUI, actions: Record<string, () => void>, key: string, name: string) =>
    track(key, folder.add(actions, key).name(name));
  /** After a change the sandbox may refuse: refresh the panel and the address. */
  const attempt = (what: string, action: () => void) => {
    try { action(); ok(); } catch (e) { fail(what, e); }
    refresh();
    options.onLinkChange?.();
  };

  if (sandbox.unavailable.length) {
    // what this host lacks, in full (a disabled field would cut the list off)
    const note = document.createElement('p');
    note.className = 'panel-off';
    note.textContent = `Off ${inWorker ? 'in worker mode' : 'here'}: ${sandbox.unavailable.map((f) => FEATURE_NAMES[f]).join(', ')}. ${sandbox.unavailableWhy ?? ''}`.trim();
    gui.$children.append(note);
  }

  // --- scene, files
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
  fileInput.accept = OPENABLE.join(',');
  fileInput.hidden = true;
  fileInput.addEventListener('change', () => {
    const file = fileInput.files?.[0];
    if (file) {
      void readDroppedFile(file, {
        onFile: (data, name) => void sandbox.openFile(data, name).then((opened) => opened && options.onLinkChange?.()),
        onError: options.showError,
      });
    }
    fileInput.value = '';
  });
  gui.domElement.append(fileInput);
  const save = (name: string, data: Uint8Array | string, type: string) => {
    const url = URL.createObjectURL(new Blob([data as BlobPart], { type }));
    const a = document.createElement('a');
    a.href = url;
    a.download = name;
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  };
  const files = {
    open() { fileInput.click(); },
    saveScene() { save(`${sandbox.sceneName.replace(/[^\w.-]+/g, '_') || 'scene'}.json`, sandbox.sceneFile(), 'application/json'); },
  };
  button(gui, files, 'open', `open file… (${OPENABLE.join(' ')})`);
  button(gui, files, 'saveScene', 'save scene .json');

  // --- solvers
  track('solver', gui.add(state, 'solver', [...options.solverNames]).name('solver'))
    .onFinishChange((v: string) => attempt('solver', () => sandbox.applySettings({ solver: v })));
  const compare = track('compare', gui.add(state, 'compare', ['none', ...options.solverNames]).name('compare with'))
    .onFinishChange((v: string) => attempt('compare', () => sandbox.setCompare(v === 'none' ? null : v)));
  if (lacks('compare')) compare.hide();

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
    track(key, feelFolder.add(state, key, min, max, 0.05).name(key), FEEL_TIPS[key])
      .onFinishChange((v: number) => attempt(key, () => sandbox.setFeel({ [key]: v })));
  }
  hint = track('feelHint', feelFolder.add(state, 'feelHint').name('in effect').disable(), feelHint(sandbox).full);

  // --- recording and export
  const rec = gui.addFolder('recording');
  const download = async (kind: ExportKind) => {
    try {
      const file = await sandbox.recorder.exportFile(kind);
      save(file.name, file.data, file.type);
      ok();
    } catch (e) {
      options.showError(`could not export ${kind}:\n${e instanceof Error ? e.message : String(e)}`);
    }
  };
  const recording = {
    record() { sandbox.recorder.record(); blur(); },
    stop() { sandbox.recorder.stop(); blur(); },
    play() { sandbox.recorder.play(); blur(); },
    live() { sandbox.recorder.live(); blur(); },
    resume() { attempt('resume', () => sandbox.recorder.resumeHere()); blur(); },
    markIn() { attempt('in mark', () => sandbox.recorder.setIn()); blur(); },
    markOut() { attempt('out mark', () => sandbox.recorder.setOut()); blur(); },
    trim() { attempt('trim', () => sandbox.recorder.trim()); blur(); },
    recordOver() { attempt('record over', () => sandbox.recorder.recordOver()); blur(); },
    glb() { void download('glb'); },
    bvh() { void download('bvh'); },
    json() { void download('json'); },
  };
  button(rec, recording, 'record', '● record');
  button(rec, recording, 'stop', '■ stop');
  button(rec, recording, 'play', '▶ play (loop)');
  button(rec, recording, 'live', 'back to live');
  button(rec, recording, 'resume', 'resume from this frame');
  button(rec, recording, 'markIn', 'mark in (i)');
  button(rec, recording, 'markOut', 'mark out (o)');
  button(rec, recording, 'trim', 'trim to in–out');
  button(rec, recording, 'recordOver', 'record over in–out');
  button(rec, recording, 'glb', 'export .glb');
  button(rec, recording, 'bvh', 'export .bvh');
  button(rec, recording, 'json', 'export .json');
  if (lacks('recording')) rec.hide();

  // --- simulation and edits
  const sim = gui.addFolder('simulation');
  const actions = {
    playPause() { sandbox.setPaused(!sandbox.paused); blur(); },
    step() { sandbox.setPaused(true); sandbox.stepOnce(); blur(); },
    reset() { attempt('reset', () => sandbox.reset()); blur(); },
    undo() { sandbox.undo(); blur(); },
    redo() { sandbox.redo(); blur(); },
    toggle() { sandbox.toggleSelected(); blur(); },
    remove() { sandbox.deleteSelected(); blur(); },
  };
  button(sim, actions, 'playPause', 'play / pause (space)');
  button(sim, actions, 'step', 'single step (.)');
  button(sim, actions, 'reset', 'reset (r)');
  if (!lacks('undo')) {
    button(sim, actions, 'undo', 'undo (Ctrl+Z)');
    button(sim, actions, 'redo', 'redo (Ctrl+Shift+Z)');
  }
  const points = sim.addFolder('control point');
  track('selected', points.add(state, 'selected').name('selected').disable());
  button(points, actions, 'toggle', 'enable / disable (e)');
  button(points, actions, 'remove', 'delete (Del)');
  if (lacks('pointEdits')) points.hide();

  // --- keys: the selected target keyed at the current step (the scene's script)
  const keys = gui.addFolder('keys');
  const keyActions = {
    key() { attempt('a key', () => sandbox.keyTarget()); blur(); },
    unkey() { attempt('keys', () => sandbox.deleteKeys()); blur(); },
  };
  button(keys, keyActions, 'key', 'key selected target here (k)');
  button(keys, keyActions, 'unkey', 'delete its keys');
  state.keyList = keyText();
  track('keyList', keys.add(state, 'keyList').name('keys').disable());
  if (lacks('keys')) keys.hide();

  /** The keyed targets, as the panel lists them: point and seconds. */
  function keyText(): string {
    const dt = settingsNow().dt;
    const by = new Map<string, string[]>();
    for (const e of sandbox.keys) if (e.target) by.set(e.point, [...(by.get(e.point) ?? []), `${(e.step * dt).toFixed(2)} s`]);
    return by.size ? [...by].map(([p, t]) => `${p}: ${t.join(', ')}`).join('; ') : '(none)';
  }

  // --- advanced: view options, load tests, the cross-check and the physics settings
  const advanced = gui.addFolder('Advanced').close();
  const onion = track('onion', advanced.add(state, 'onion', 0, 8, 1).name('onion skins'))
    .onFinishChange((v: number) => attempt('onion skins', () => { sandbox.onion = v; }));
  if (lacks('onion')) onion.hide();
  state.plots = sandbox.advancedPlots;
  track('plots', advanced.add(state, 'plots').name('solver internals in plots'))
    .onChange((v: boolean) => { sandbox.advancedPlots = v; });
  state.crowd = sandbox.crowd;
  track('crowd', advanced.add(state, 'crowd', 0, inWorker ? CROWD_MAX : 400, 1).name('crowd (copies)'))
    .onFinishChange((v: number) => attempt('crowd', () => sandbox.spawnCrowd(v)));
  if (options.worker) {
    const toggle = options.worker.toggle;
    track('worker', advanced.add({ worker: inWorker }, 'worker').name('simulation in a worker')).onChange((v: boolean) => toggle(v));
  }
  const recState = { fps: sandbox.recorder.fps };
  const fps = track('fps', advanced.add(recState, 'fps').name('recording frames per second')).onFinishChange((v: number) => {
    try { sandbox.recorder.fps = v; ok(); } catch (e) { fail('frames per second', e); }
    recState.fps = sandbox.recorder.fps;
    refresh();
  });
  if (lacks('recording')) fps.hide();

  // the Rapier ghost
  const rapierFolder = advanced.addFolder('Rapier ghost');
  state.rapier = sandbox.rapierJoints !== null;
  state.rapierJoints = sandbox.rapierJoints ?? 'impulse';
  state.rapierPlacement = sandbox.rapierPlacement;
  state.rapierDistance = '(off)';
  const switchRapier = (on: boolean) => {
    // the sandbox shows why it could not start; the box then unticks itself (refresh)
    sandbox.setRapierGhost(on ? (state.rapierJoints as 'impulse' | 'multibody') : null)
      .then(() => ok(), () => { /* shown by the sandbox */ })
      .finally(() => { refresh(); options.onLinkChange?.(); });
    refresh();
    options.onLinkChange?.();
  };
  track('rapier', rapierFolder.add(state, 'rapier').name('Rapier ghost')).onChange((v: boolean) => switchRapier(v));
  track('rapierJoints', rapierFolder.add(state, 'rapierJoints', [...rapierJointModels]).name('joints'))
    .onFinishChange(() => { if (state.rapier) switchRapier(true); });
  track('rapierPlacement', rapierFolder.add(state, 'rapierPlacement', [...rapierPlacements]).name('placement'))
    .onFinishChange((v: string) => attempt('placement', () => { sandbox.rapierPlacement = v as RapierPlacement; }));
  const distanceController = track('rapierDistance', rapierFolder.add(state, 'rapierDistance').name('tip distance').disable());
  if (lacks('rapier')) rapierFolder.hide();

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

  // every physics setting
  const settings = advanced.addFolder('physics settings');
  for (const { key, label, tip } of fields) {
    state[key] = settingsNow()[key];
    const choices = settingEnums[key];
    const c = track(key, choices ? settings.add(state, key, [...choices]) : settings.add(state, key), tip);
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
  for (const folder of gui.foldersRecursive()) folder.$title.title = FOLDER_TIPS[folder._title] ?? '';

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
    state.plots = sandbox.advancedPlots;
    state.keyList = keyText();
    feelShown();
    for (const { key } of fields) state[key] = s[key];
    for (const [, c] of controllers) c.updateDisplay();
  }
  sandbox.onChange = refresh;
  mountJointPanel(gui, sandbox, options); // the joint folder (jointPanel.ts): limits and template roles
  mountMotionPanel(gui, sandbox, options); // the Motion folder (motionPanel.ts): the character's clip through the physics
  return gui;
}

/** Tooltips of the folders' titles. */
const FOLDER_TIPS: Readonly<Record<string, string>> = {
  feel: 'How the body follows your handles: how tightly, and how much it swings.',
  recording: 'Record the motion, play it back, and export it for other tools.',
  simulation: 'Run, pause and step the simulation; undo and redo your actions.',
  'control point': 'The handle or pin you last picked.',
  keys: 'Key targets at moments of the simulation; played from a reset, saved with the scene.',
  Advanced: 'Physics settings, the Rapier cross-check, crowds and solver internals.',
  'Rapier ghost': 'Cross-check the physics against the Rapier engine.',
  'physics settings': 'Every setting of the simulation, for those who know the solver.',
};
