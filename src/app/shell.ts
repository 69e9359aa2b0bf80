/**
 * The page shell both sandbox hosts share (the main-thread host, mainThread.ts, and the
 * worker host, workerMode.ts): the error box, opening files (drop or panel), the keyboard,
 * the help overlay, the pixi.js overlay and the status line, and the animation-frame loop
 * that drives them. A host says what it lacks (`Sandbox.unavailable`); the help lists only
 * what works, and the page names what is off.
 *
 * Keys: space play/pause, `.` one step, `r` reset, Delete/Backspace delete the selected
 * point (or the key selected on the timeline), `e` enable/disable it, `k` key its target, `i`/`o` mark a take's
 * in/out, Ctrl+Z / Ctrl+Shift+Z (or Ctrl+Y) undo and redo, Escape closes
 * the help or the error box, else deselects; `?` or F1 the help.
 */
import { getSettings, readMetrics } from '../core';
import { parseSceneText } from '../scene/load';
import type { Scene } from '../scene/types';
import { importBvh } from '../io/bvhImport';
import { importGltf } from '../io/gltfImport';
import { RECORDING_FORMAT, recordingFromJson } from '../io/recordingJson';
import type { Recording } from '../io/recording';
import { createHud, type Hud } from '../hud/overlay';
import { TIMELINE_HEIGHT } from '../hud/timeline';
import { installFileDrop } from './drop';
import { figureOf, type CharacterFile } from './character';
import type { Feature, Sandbox } from './sandbox';

export const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** The error box's message element (the box holds it and a close button). */
function errorBox(): { box: HTMLElement; message: HTMLElement } | null {
  const box = document.getElementById('error');
  if (!box) return null;
  let message = box.querySelector<HTMLElement>('.message');
  if (!message) {
    box.textContent = '';
    message = document.createElement('span');
    message.className = 'message';
    const close = document.createElement('button');
    close.type = 'button';
    close.className = 'close';
    close.title = 'Dismiss this message (Escape)';
    close.setAttribute('aria-label', 'dismiss');
    close.addEventListener('click', () => hideError());
    box.append(close, message);
  }
  return { box, message };
}

export function hideError(): void {
  const el = document.getElementById('error');
  if (el) el.hidden = true;
}

export function showError(message: string): void {
  const e = errorBox();
  if (!e) return;
  e.message.textContent = message;
  e.box.hidden = false;
}

const errorShown = () => document.getElementById('error')?.hidden === false;

/** The file kinds the sandbox opens, by extension. */
export const OPENABLE = ['.json', '.glb', '.gltf', '.bvh'] as const;

/** A scene read from an opened file: the scene, its name (the file's, no extension) and the import's notes. */
export interface OpenedScene {
  kind: 'scene'; scene: Scene; name: string; notes: string[];
  /** The character file a rig was imported from (its mesh is drawn, exports go back onto it). */
  source?: CharacterFile;
}
/** A recording read from an opened file (the project's .recording.json). */
export interface OpenedRecording { kind: 'recording'; recording: Recording; name: string }
export type OpenedFile = OpenedScene | OpenedRecording;

/** Whether JSON text is the project's recording format (its header says so). */
function isRecordingJson(text: string): boolean {
  try {
    const v = JSON.parse(text) as unknown;
    return typeof v === 'object' && v !== null && (v as { format?: unknown }).format === RECORDING_FORMAT;
  } catch {
    return false; // the scene reader names the syntax error
  }
}

/**
 * Read a file the user opened: a scene .json, a recording (.recording.json), or a rig from
 * .glb/.gltf/.bvh (imported with two control points at its longest chains' ends). Throws,
 * naming the file, when it is refused.
 */
export async function readOpenedFile(data: string | ArrayBuffer, fileName: string): Promise<OpenedFile> {
  const ext = (/\.[^.]+$/.exec(fileName)?.[0] ?? '').toLowerCase();
  const text = () => (typeof data === 'string' ? data : new TextDecoder().decode(data));
  const name = fileName.replace(/^.*[\\/]/, '').replace(/(\.recording)?\.[^.]+$/, '');
  if (ext === '.bvh') {
    const r = importBvh(text(), fileName, { controlPoints: 2 });
    return { kind: 'scene', scene: r.scene, name, notes: r.warnings, source: { name, fileName, data: text(), ...figureOf(r) } };
  }
  if (ext === '.glb' || ext === '.gltf') {
    const r = await importGltf(ext === '.gltf' ? text() : data, fileName, { controlPoints: 2 });
    return { kind: 'scene', scene: r.scene, name, notes: r.warnings, source: { name, fileName, data: ext === '.gltf' ? text() : data, joints: r.joints, ...figureOf(r) } };
  }
  if (ext !== '.json') {
    throw new Error(`unsupported file type "${ext || '(no extension)'}": open a scene (.json) or a rig (${OPENABLE.slice(1).join(', ')})`);
  }
  if (isRecordingJson(text())) return { kind: 'recording', recording: recordingFromJson(text(), fileName), name };
  return { kind: 'scene', scene: parseSceneText(text(), fileName), name, notes: [] };
}

/**
 * Open a file into a host: read it, hand it to `load`; false, with the error shown, when it is
 * refused (the current rig then stays); a success clears the error box.
 */
export async function openFileWith(data: string | ArrayBuffer, fileName: string, load: (opened: OpenedFile) => void): Promise<boolean> {
  try {
    load(await readOpenedFile(data, fileName));
  } catch (e) {
    showError(`Could not open ${fileName}:\n${errorText(e)}`);
    return false;
  }
  hideError();
  return true;
}

/** What each feature is called on the page. */
export const FEATURE_NAMES: Record<Feature, string> = {
  boneGrab: 'grabbing bones and pins',
  pointEdits: 'enabling and deleting points',
  undo: 'undo and redo',
  keys: 'keyed targets',
  recording: 'recording, playback and rewind',
  compare: 'compare',
  rapier: 'the Rapier ghost',
  onion: 'onion skins',
};

/** One line of the help: the keys or gesture, what it does, and the feature it needs. */
export interface HelpEntry { keys: string; does: string; needs?: Feature }

export const HELP: readonly HelpEntry[] = [
  { keys: 'drag an orange handle', does: 'move a target (the body follows)' },
  { keys: 'drag a bone', does: 'pull it like a mannequin; hold Shift on release to leave a pin', needs: 'boneGrab' },
  { keys: 'click a bone', does: 'pin it where you clicked', needs: 'boneGrab' },
  { keys: 'click or drag the mesh', does: 'an imported character: the same for the bone that part of the skin follows most', needs: 'boneGrab' },
  { keys: 'drag empty space · wheel', does: 'orbit the camera · zoom' },
  { keys: 'Ctrl+Z · Ctrl+Shift+Z', does: 'undo · redo', needs: 'undo' },
  { keys: 'Del · e', does: 'delete · enable or disable the selected point', needs: 'pointEdits' },
  { keys: 'k', does: 'key the selected target where it is now; r then plays the keys from the start', needs: 'keys' },
  { keys: 'timeline ◆', does: 'a key: drag it to move it in time; right-click, or click then Del, deletes it', needs: 'keys' },
  { keys: 'space · .', does: 'play or pause · one step' },
  { keys: 'r', does: 'reset the rig to its starting pose' },
  { keys: '1 · 3 · 7', does: 'look from the front · side · top (the rig framed)' },
  { keys: 'f', does: 'frame the selected bone (a handle, pin or bone clicked; none: the rig)' },
  { keys: 'x · m', does: 'an imported character: bones through the mesh, hidden or behind it · show or hide the mesh' },
  { keys: 'Esc', does: 'close this help or a message; deselect' },
  { keys: 'drop a file', does: 'open a scene (.json) or a rig (.glb, .gltf, .bvh)' },
  { keys: 'drop a .recording.json', does: 'play a take recorded here back on its rig', needs: 'recording' },
  { keys: 'timeline strip', does: 'scrub a recording (record in the panel)', needs: 'recording' },
  { keys: 'i · o', does: 'mark the take\'s in · out at the frame shown: "trim" keeps that range, "record over" redoes it', needs: 'recording' },
  { keys: '? · F1', does: 'show or hide this help' },
];

/** The help entries a sandbox lacking `unavailable` can do. */
export const helpFor = (unavailable: readonly Feature[]) => HELP.filter((h) => !h.needs || !unavailable.includes(h.needs));

/** Fill #help: a one-line hint, and the overlay of keys and gestures (toggled by `?`/F1). */
function buildHelp(unavailable: readonly Feature[], offNote: string): { toggle(show?: boolean): void; readonly open: boolean } {
  const hint = document.getElementById('help');
  const overlay = document.createElement('div');
  overlay.id = 'help-overlay';
  overlay.hidden = true;
  overlay.setAttribute('role', 'dialog');
  overlay.setAttribute('aria-label', 'keys and gestures');
  const title = document.createElement('h2');
  title.textContent = 'Keys and gestures';
  const table = document.createElement('table');
  for (const h of helpFor(unavailable)) {
    const row = table.insertRow();
    row.insertCell().textContent = h.keys;
    row.insertCell().textContent = h.does;
  }
  overlay.append(title, table);
  if (unavailable.length) {
    const off = document.createElement('p');
    off.className = 'off';
    off.textContent = offNote;
    overlay.append(off);
  }
  overlay.addEventListener('click', () => { overlay.hidden = true; });
  document.body.append(overlay);
  if (hint) hint.textContent = 'press ? for keys and gestures';
  return {
    toggle(show) { overlay.hidden = !(show ?? overlay.hidden); },
    get open() { return !overlay.hidden; },
  };
}

/** Most often the status line and the panel's live readouts are rewritten: every this many frames. */
const STATUS_EVERY = 6;

/** A host's part of each animation frame. */
export interface FrameHost {
  /** Step or read the simulation for this frame (`frameSeconds` since the last one). */
  advance(frameSeconds: number, now: number): void;
  /** Drawn after the view and the overlay (the timeline strip). */
  drawn?(): void;
  /** Words the host adds to the end of the status line. */
  statusExtra(): string;
  /** Every few frames, after the status line (the compare box). */
  slow?(): void;
}

export interface PageShell {
  /** The pixi.js overlay, once it has started. */
  readonly hud: Hud | null;
  /** Animation frames drawn. */
  readonly frames: number;
  /** Whether the overlay plots the solver's internals too. */
  advancedPlots: boolean;
  /** Bind the keys, file drops and help to the sandbox and start the frame loop. */
  run(sandbox: Sandbox, host: FrameHost): void;
}

/** The shell of a page drawing on `canvas`, the overlay's plots spanning steps of `dt`. */
export function createPageShell(canvas: HTMLCanvasElement, dt: number): PageShell {
  // the overlay draws on its own canvas over the three.js one (one WebGL context each)
  let hud: Hud | null = null;
  let advancedPlots = false;
  let fitted: Sandbox | null = null;
  createHud(canvas.parentElement ?? document.body, { dt }).then((h) => {
    hud = h;
    hud.setAdvanced(advancedPlots);
    hud.resize(window.innerWidth, window.innerHeight);
    if (fitted) fitView(fitted, false);
  }, (e) => showError(`overlay failed to start: ${errorText(e)}`));
  window.addEventListener('resize', () => hud?.resize(window.innerWidth, window.innerHeight));
  let frames = 0;

  function run(sandbox: Sandbox, host: FrameHost): void {
    fitted = sandbox;
    window.addEventListener('resize', () => fitView(sandbox, true));
    const off = sandbox.unavailable;
    const offNote = `Off here: ${off.map((f) => FEATURE_NAMES[f]).join(', ')}.`;
    const help = buildHelp(off, `${offNote} ${sandbox.unavailableWhy ?? ''}`.trim());
    const status = document.getElementById('status');
    const tell = (action: () => void) => { try { action(); } catch (e) { showError(errorText(e)); } };

    window.addEventListener('keydown', (e) => {
      if (e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement || e.target instanceof HTMLSelectElement) return;
      const mod = e.ctrlKey || e.metaKey;
      const key = e.key;
      if (mod && (key === 'z' || key === 'Z')) { tell(() => (e.shiftKey ? sandbox.redo() : sandbox.undo())); e.preventDefault(); }
      else if (mod && (key === 'y' || key === 'Y')) { tell(() => sandbox.redo()); e.preventDefault(); }
      else if (mod) return;
      else if (key === '?' || key === 'F1') { help.toggle(); e.preventDefault(); }
      else if (key === 'Escape') {
        if (help.open) help.toggle(false);
        else if (errorShown()) hideError();
        else sandbox.select(null);
      }
      else if (key === ' ') { sandbox.setPaused(!sandbox.paused); e.preventDefault(); }
      else if (key === '.') { sandbox.setPaused(true); sandbox.stepOnce(); }
      else if (key === 'r' || key === 'R') tell(() => sandbox.reset());
      else if (key === 'Delete' || key === 'Backspace') { tell(() => sandbox.deleteSelected()); e.preventDefault(); }
      else if (key === 'e' || key === 'E') tell(() => sandbox.toggleSelected());
      else if (key === 'k' || key === 'K') tell(() => sandbox.keyTarget());
      else if (key === 'i' || key === 'I') tell(() => sandbox.recorder.setIn());
      else if (key === 'o' || key === 'O') tell(() => sandbox.recorder.setOut());
    });
    installFileDrop(window, { onFile: (data, fileName) => void sandbox.openFile(data, fileName), onError: showError });
    installHover(sandbox, canvas);

    let last = -1, fps = 0;
    const tick = (now: number) => {
      requestAnimationFrame(tick);
      frames++;
      if (last < 0) last = now;
      const frameSeconds = (now - last) / 1000;
      if (frameSeconds > 0) fps = fps === 0 ? 1 / frameSeconds : 0.9 * fps + 0.1 / frameSeconds;
      last = now;
      host.advance(frameSeconds, now);
      sandbox.dragger.sync();
      sandbox.view.update();
      hud?.draw(fps);
      host.drawn?.();
      if (frames % STATUS_EVERY !== 0) return;
      if (status) status.textContent = statusLine(sandbox) + host.statusExtra();
      host.slow?.();
      sandbox.onLive?.();
    };
    requestAnimationFrame(tick);
  }

  return {
    get hud() { return hud; },
    get frames() { return frames; },
    get advancedPlots() { return advancedPlots; },
    set advancedPlots(on: boolean) { advancedPlots = on; hud?.setAdvanced(on); },
    run,
  };
}

/** Room the overlay's plots take at the top left before they have started (their usual size). */
const PLOTS_WIDTH = 262;
/** The help line's height above the timeline strip. */
const HELP_LINE = 26;

/**
 * Tell the view which parts of it the page covers (the plots at the top left, the panel on the
 * right, the status line, the timeline and help line at the bottom), so the camera centres on
 * the rest; `reframe`: also fit the rigs into it.
 */
export function fitView(sandbox: Sandbox, reframe: boolean): void {
  const W = window.innerWidth;
  const box = sandbox.hud?.box;
  const panel = sandbox.panel?.domElement.getBoundingClientRect();
  const status = document.getElementById('status')?.getBoundingClientRect();
  sandbox.view.setInsets({
    left: (box ? box.x + box.width : PLOTS_WIDTH) + 8,
    right: panel && panel.width > 0 ? Math.max(0, W - panel.left) + 8 : 0,
    top: status ? status.bottom + 4 : 30,
    bottom: TIMELINE_HEIGHT + HELP_LINE,
  });
  if (reframe) sandbox.view.frame();
}

/**
 * Pointer feedback on the canvas: the cursor says what a press would take (a handle, or a bone
 * when this host can grab bones) and the view draws that thing lighter; while dragging, a
 * closed hand. Listens on the window in the capture phase, before the dragger and the grabber.
 */
export function installHover(sandbox: Sandbox, canvas: HTMLCanvasElement): void {
  const bones = !sandbox.unavailable.includes('boneGrab');
  let pressed = false;
  const show = (cursor: string, cp: number, bone: number) => {
    if (canvas.style.cursor !== cursor) canvas.style.cursor = cursor;
    sandbox.view.setHover(cp, bone);
  };
  const under = (x: number, y: number) => {
    const cp = sandbox.view.pickTarget(x, y);
    if (cp >= 0) return { cp, bone: -1 };
    const pick = bones ? sandbox.view.pickBone(x, y) : null;
    return { cp: -1, bone: pick && sandbox.world.physik.rigs[0]?.bones.includes(pick.bone) ? pick.bone : -1 };
  };
  window.addEventListener('pointermove', (e) => {
    if (pressed) return;
    if (e.target !== canvas) { show('', -1, -1); return; }
    const u = under(e.clientX, e.clientY);
    show(u.cp >= 0 || u.bone >= 0 ? 'grab' : '', u.cp, u.bone);
  }, { capture: true });
  window.addEventListener('pointerdown', (e) => {
    if (e.target !== canvas) return;
    pressed = true; // no hover while the press lasts (a drag, a grab or an orbit)
    const u = under(e.clientX, e.clientY);
    if (e.button === 0 && (u.cp >= 0 || u.bone >= 0)) show('grabbing', u.cp, u.bone);
  }, { capture: true });
  const release = (e: PointerEvent) => {
    if (!pressed) return;
    pressed = false;
    const u = under(e.clientX, e.clientY);
    show(u.cp >= 0 || u.bone >= 0 ? 'grab' : '', u.cp, u.bone);
  };
  window.addEventListener('pointerup', release, { capture: true });
  window.addEventListener('pointercancel', release, { capture: true });
}

/** The status line: scene (and crowd), solver, step, play state or convergence, target error. */
export function statusLine(sandbox: Sandbox): string {
  const { world, rig } = sandbox;
  const m = readMetrics(world, rig);
  const crowd = sandbox.crowd ? ` + crowd of ${sandbox.crowd}` : '';
  return `${sandbox.sceneName}${crowd} · ${getSettings(world, rig).solver} · step ${m.step} · ${sandbox.paused ? 'paused' : m.status} · target error ${m.maxTargetError.toFixed(3)}`;
}
