/**
 * The main-thread host: the sandbox with its simulation stepped on the page's own thread, with
 * a fixed-step accumulator (dt from the rig's settings) inside requestAnimationFrame. It has
 * everything the page offers (the worker host, workerMode.ts, lacks a few):
 *
 * - Pose: drag an orange target handle; press on a bone to grab it (Shift on release leaves a
 *   pin); click a bone to pin it there; point edits and undo/redo (history.ts, edits.ts).
 * - Compare mode: a second solver on the same targets, drawn as a translucent ghost, with
 *   both solvers' numbers side by side in #compare.
 * - Rapier ghost: the rigs mirrored in Rapier (loaded on first use), stepped after every
 *   PhysIK step and drawn as a magenta ghost over the rig or beside it, with the live tip
 *   distance in the status line and the panel (rapierGhost.ts).
 * - Onion skins; recording, playback, rewind and export (recording.ts, the timeline strip).
 * - Feel (feel.ts): responsiveness and liveliness, put on the main rig when a scene loads
 *   (unless the scene sets its own stiffness or damping) and by the panel's knobs; a drag
 *   moves its target at once, without the interpolation of a jump.
 *
 * The keys, file opening, help, overlay and status line are the page shell's (shell.ts); the
 * world, view, selection and dragger the host core's (host.ts).
 */
import {
  createSnapshot, getScript, getSettings, readMetrics, removeControlPoint, resetRig, restoreRig, setControlPointActive,
  setScript, setSettings, setTarget, step, withJointLimits,
} from '../core';
import { kinematicSolvers } from '../../systems/ik/registry';
import type { Scene, ScriptEvent, Settings } from '../scene/types';
import { createBoneGrabber } from './grab';
import { createUndoable, pointNamed, type PendingStep } from './edits';
import { createComparison, type Comparison } from './compare';
import { createRecordingControls, type RecordingControls } from './recording';
import { createTimeline, type Timeline } from '../hud/timeline';
import { rapierJointModels, rapierPlacements, solverNames, type RapierPlacement, type SandboxOptions } from './deepLink';
import { createRapierGhost, type RapierGhost } from './rapierGhost';
import type { JointModel } from '../rapier/jointPlan';
import { createHostCore, sandboxOf } from './host';
import { errorText, showError } from './shell';
import type { Sandbox } from './sandbox';

/** Most steps a slow tab may catch up in one animation frame (avoids the spiral of death). */
const MAX_STEPS_PER_FRAME = 8;
/** Simulated seconds between onion-skin snapshots. */
const ONION_INTERVAL = 0.2;

/** Moving average of a step time (ms) for the compare box. */
const smooth = (avg: number, ms: number) => (avg === 0 ? ms : 0.95 * avg + 0.05 * ms);

export function startSandbox(initial: Scene, initialName: string, options: SandboxOptions = {}): Sandbox {
  let compare: Comparison | null = null;
  const core = createHostCore(initial, initialName, options, {
    drag: {
      onStart: (cp) => { pending = undoable.begin(`move ${core.selection.nameOf(cp) ?? 'target'}`); },
      onEnd(_cp, moved) {
        if (moved) pending?.commit();
        pending = null;
      },
    },
    sceneLoaded() {
      history.clear();
      sandbox.recorder.clear();
      view.clearOnion();
      mainMs = 0;
      if (compare) setCompare(compare.solver);
      syncRapier(); // mirror the new rig
      placeRapier();
    },
    crowdChanged: () => syncRapier(),
    feelChanged: (patch, was) => compare?.setFeel(patch, was),
    recordingOpened: (recording) => sandbox.recorder.open(recording),
  });
  const { world, ref, record, view, history, selection, canvas, dragger } = core;
  /** Every user action is one step of the history, restoring pose and velocities (edits.ts). */
  const undoable = createUndoable(ref, history, {
    extra: () => ({ feel: core.feelState, script: getScript(world, core.rig) }),
    restoreExtra({ feel, script }) {
      core.feelState = feel;
      setScript(world, core.rig, script);
      compare?.setSettings(getSettings(world, core.rig));
      syncRapier();
      view.clearOnion();
      acc = 0;
    },
  });
  /** The drag or grab in progress, taken when it began. */
  let pending: PendingStep | null = null;
  const grabber = createBoneGrabber({
    ref, view, canvas, dragger,
    onStart: () => { pending = undoable.begin('grab'); },
    onEnd(pin, bone) {
      pending?.commit(pin ? `pin ${pin} on ${bone}` : `grab ${bone}`);
      pending = null;
    },
    onBone: (bone) => view.setSelectedBone(bone),
    onPin: (cp) => selection.select(selection.nameOf(cp)),
    onError: showError,
  });
  const compareBox = document.getElementById('compare');

  let paused = false, stepsTaken = 0, acc = 0;
  let mainMs = 0, ghostMs = 0;
  let onion = 0;
  let rapier: RapierGhost | null = null;
  let rapierWanted: JointModel | null = null;
  let rapierCall = 0, rapierMs = 0;
  let rapierPlacement: RapierPlacement = 'overlaid';
  let timeline: Timeline | null = null;
  /** The key selected on the timeline (by point and step: indices change as the script does). */
  let selectedKey: { point: string; step: number } | null = null;
  // (while its point stays selected: a click on another handle leaves the key)
  const keyIndex = () => (selectedKey === null || selection.name !== selectedKey.point ? -1
    : record().script.findIndex((e) => e.target && e.point === selectedKey!.point && e.step === selectedKey!.step));
  /** The key at `index` of the script; throws when there is none. */
  const keyAt = (index: number) => {
    const ev = record().script[index];
    if (!ev?.target) throw new Error(`no key at index ${index} of the script (it has ${record().script.length} events)`);
    return ev;
  };
  const scene = { dt: 0, step: 0, script: [] as readonly ScriptEvent[], frameSteps: null as ArrayLike<number> | null, selectedKey: -1 };
  /** What the timeline shows beside the take (one object, updated in place). */
  function timelineScene() {
    const rig = core.rig;
    scene.dt = getSettings(world, rig).dt;
    scene.step = world.physik.Rig.step[rig]!;
    scene.script = record().script;
    scene.frameSteps = sandbox.recorder.recording?.steps ?? null;
    scene.selectedKey = keyIndex();
    return scene;
  }

  /** One step; false (paused, the reason shown) when a system throws, e.g. a solver that cannot pose the rig. */
  const stepOnce = (): boolean => {
    const rig = core.rig;
    const t0 = performance.now();
    try {
      step(world, 1);
    } catch (e) {
      paused = true;
      acc = 0;
      showError(`The simulation stopped at step ${world.physik.Rig.step[rig]}:\n${errorText(e)}\n(paused: change the solver or the control points, then play)`);
      core.changed();
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
        core.changed();
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
    core.shell.hud?.sample(world, rig, n * dt, ms);
    if (onion > 0 && n % Math.max(1, Math.round(ONION_INTERVAL / dt)) === 0) view.recordOnionPose();
    return true;
  };

  const fmt = (x: number) => (x === 0 ? '0' : Math.abs(x) >= 0.01 && Math.abs(x) < 1000 ? x.toFixed(3) : x.toExponential(2));
  function writeCompare(): void {
    if (!compareBox) return;
    if (!compare) { compareBox.hidden = true; return; }
    compareBox.hidden = false;
    const a = readMetrics(world, core.rig), b = readMetrics(compare.world, compare.rig);
    const rows: [string, string, string][] = [
      ['solver', getSettings(world, core.rig).solver, `${compare.solver} (ghost)`],
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

  /** During playback, which recorded frame the rig shows (the rest of the line is the live simulation's, paused). */
  function playbackStatus(): string {
    const st = sandbox.recorder.state, rec = sandbox.recorder.recording;
    if (st.mode !== 'playback' || !rec || rec.frameCount === 0) return '';
    const f = Math.min(st.frame, rec.frameCount - 1);
    return ` · showing recorded frame ${f + 1}/${rec.frameCount} (step ${rec.steps[f]}, ${rec.times[f]!.toFixed(2)} s into the take)`;
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
    core.changed();
  }

  /** Over the main rig, or beside it: moved along x past the main rig's width. */
  function placeRapier(): void {
    let dx = 0;
    if (rapierPlacement === 'beside') {
      const { Bone, Rig } = world.physik;
      let lo = Infinity, hi = -Infinity;
      for (const b of record().bones) for (const end of [Bone.head, Bone.tail]) { lo = Math.min(lo, end[b * 3]!); hi = Math.max(hi, end[b * 3]!); }
      dx = Number.isFinite(hi - lo) ? hi - lo + 0.3 * Rig.height[core.rig]! : 0;
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
        core.changed();
      }
      throw e;
    }
    if (call !== rapierCall) { ghost.dispose(); return false; } // switched off or to the other model meanwhile
    rapier = ghost;
    view.setGhostSource('rapier', () => (sandbox.recorder.state.mode === 'playback' ? null : ghost.source()));
    placeRapier();
    if (rapierPlacement === 'beside') view.frame();
    core.changed();
    return true;
  }

  function setCompare(solver: string | null): void {
    if (solver !== null && !solverNames.includes(solver)) {
      throw new Error(`unknown solver "${solver}" to compare with (have: ${solverNames.join(', ')})`);
    }
    compare = solver === null ? null : createComparison(ref, withJointLimits(world, core.rig, core.scene.rig), solver, core.scene.start); // (the limits as edited)
    ghostMs = 0;
    view.setGhost(compare ? compare.world : null);
    writeCompare();
  }

  function runHistory(action: () => unknown): void {
    if (sandbox.recorder.state.mode === 'playback') sandbox.recorder.live();
    try {
      action();
    } catch (e) {
      showError(`could not undo/redo: ${errorText(e)}`);
    }
    // the selected point may have been removed or re-created under a new entity
    const name = selection.name;
    selection.select(name !== null && record().controlPointByName.has(name) ? name : null);
  }

  /** Change settings of the main rig (and the ghost's, except the solver); throws, nothing changed, when refused. */
  function applySettings(patch: Partial<Settings>): void {
    const rig = core.rig;
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
    core.settingsSet(patch);
  }

  const sandbox = sandboxOf<Sandbox>(core.shared, {
    unavailable: [],
    get paused() { return paused; },
    get stepsTaken() { return stepsTaken; },
    setPaused(p) { paused = p; acc = 0; },
    stepOnce,
    reset() {
      if (sandbox.recorder.state.mode === 'playback') sandbox.recorder.live();
      undoable.run('reset', () => {
        resetRig(world, core.rig);
        for (const r of core.crowdRigs) resetRig(world, r);
      });
      compare?.reset();
      syncRapier(); // the mirrors start over from the reset pose
      view.clearOnion();
      acc = 0;
    },
    grabber,
    applySettings(patch) {
      undoable.run(`set ${Object.keys(patch).join(', ')}`, () => applySettings(patch));
    },
    setFeel(patch) {
      undoable.run(`set ${Object.keys(patch).join(', ')}`, () => core.shared.setFeel(patch));
    },
    get compare() { return compare; },
    setCompare,
    recorder: undefined as unknown as RecordingControls, // set below (it needs the sandbox)
    get timeline() { return timeline; },
    moveTarget(name, to) {
      const cp = pointNamed(ref, name);
      undoable.run(`move ${name}`, () => setTarget(world, cp, to));
    },
    deleteSelected() {
      if (keyIndex() >= 0) { sandbox.deleteKey(keyIndex()); return; }
      const name = selection.name;
      if (name === null) return;
      selection.select(null);
      undoable.run(`delete ${name}`, () => removeControlPoint(world, pointNamed(ref, name)));
    },
    toggleSelected() {
      const name = selection.name;
      if (name === null) return;
      const cp = pointNamed(ref, name), on = world.physik.ControlPoint.active[cp] !== 1;
      undoable.run(`${on ? 'enable' : 'disable'} ${name}`, () => setControlPointActive(world, cp, on));
    },
    undo() { runHistory(() => history.undo()); },
    redo() { runHistory(() => history.redo()); },
    get keys() { return getScript(world, core.rig); },
    keyTarget(name = selection.name ?? undefined) {
      if (name === undefined) throw new Error('no point selected to key: click a handle first');
      const cp = pointNamed(ref, name), t = world.physik.ControlPoint.target;
      const at = world.physik.Rig.step[core.rig]!;
      const key = { step: at, point: name, target: [t[cp * 3]!, t[cp * 3 + 1]!, t[cp * 3 + 2]!] as [number, number, number] };
      const others = getScript(world, core.rig).filter((e) => !(e.point === name && e.step === at && e.target));
      undoable.run(`key ${name} at step ${at}`, () => setScript(world, core.rig, [...others, key]));
      core.changed();
    },
    deleteKeys(name = selection.name ?? undefined) {
      if (name === undefined) throw new Error('no point selected: click a handle first');
      const kept = getScript(world, core.rig).filter((e) => !(e.point === name && e.target));
      undoable.run(`delete keys of ${name}`, () => setScript(world, core.rig, kept));
      core.changed();
    },
    get selectedKey() { return keyIndex(); },
    selectKey(index) {
      selectedKey = index < 0 ? null : { point: keyAt(index).point, step: keyAt(index).step };
      if (selectedKey) selection.select(selectedKey.point); // its handle too
    },
    moveKey(index, to) {
      const ev = keyAt(index);
      if (!(Number.isInteger(to) && to >= 0)) throw new Error(`a key's step must be a whole number from 0, got ${to}`);
      if (to === ev.step) return;
      // a key of the same point at the new step is replaced, as keying there would
      const script = getScript(world, core.rig);
      const moved = { ...script[index]!, step: to };
      const kept = script.filter((e, i) => i !== index && !(e.target && e.point === ev.point && e.step === to));
      undoable.run(`move key of ${ev.point} to step ${to}`, () => setScript(world, core.rig, [...kept, moved]));
      selectedKey = { point: ev.point, step: to };
      core.changed();
    },
    deleteKey(index) {
      const ev = keyAt(index);
      const kept = getScript(world, core.rig).filter((_, i) => i !== index);
      undoable.run(`delete key of ${ev.point} at step ${ev.step}`, () => setScript(world, core.rig, kept));
      selectedKey = null;
      core.changed();
    },
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
  });
  core.bind(sandbox);

  sandbox.recorder = createRecordingControls({
    world,
    get rig() { return core.rig; },
    get sceneName() { return sandbox.sceneName; },
    get paused() { return paused; },
    setPaused: (p) => sandbox.setPaused(p),
    reset: () => sandbox.reset(),
    showError,
    exportOnto: (kind, rec) => sandbox.character.exportOnto(kind, rec),
  });
  const tell = (action: () => void) => { try { action(); } catch (e) { showError(errorText(e)); } };
  createTimeline(canvas.parentElement ?? document.body, {
    scrub: (frame) => sandbox.recorder.scrub(frame),
    selectKey: (i) => sandbox.selectKey(i),
    moveKey: (i, s) => tell(() => sandbox.moveKey(i, s)),
    deleteKey: (i) => tell(() => sandbox.deleteKey(i)),
  }).then((t) => {
    timeline = t;
    timeline.resize(window.innerWidth);
  }, (e) => showError(`timeline failed to start: ${errorText(e)}`));
  window.addEventListener('resize', () => timeline?.resize(window.innerWidth));

  core.shell.run(sandbox, {
    advance(frameSeconds) {
      const dt = getSettings(world, core.rig).dt;
      if (!paused) {
        acc += Math.min(frameSeconds, MAX_STEPS_PER_FRAME * dt);
        let n = 0;
        while (acc >= dt && n < MAX_STEPS_PER_FRAME && !paused) { stepOnce(); acc -= dt; n++; }
        if (n === MAX_STEPS_PER_FRAME) acc = 0;
      }
      sandbox.recorder.advance(frameSeconds);
      syncRapier();
    },
    drawn: () => timeline?.draw(sandbox.recorder.state, timelineScene()),
    statusExtra: () => playbackStatus() + rapierStatus(),
    slow: writeCompare,
  });
  if (options.compare) setCompare(options.compare);
  if (options.onion) sandbox.onion = options.onion;
  if (options.rapier) setRapierGhost(options.rapier).catch(() => { /* shown in #error */ });
  return sandbox;
}
