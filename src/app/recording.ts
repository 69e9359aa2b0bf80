/**
 * Recording in the sandbox: record/stop, looped playback, scrubbing, resuming the simulation
 * from a recorded frame, and export to .glb, .bvh and the project's JSON (downloads).
 *
 * - Recording keeps a snapshot per frame (about 14 kB per frame for the humanoid), so any
 *   frame can be resumed from: `resumeHere()` rewinds the rig to the frame shown and goes on
 *   recording from there (later frames are dropped).
 * - Playback and scrubbing pause the simulation and show the recorded state (a take recorded
 *   here: its snapshot, so the pose, the handles' targets and the status line's step, status and
 *   target error are the frame's; an opened recording: the poses, bit-identical to the live
 *   ones); leaving playback without resuming puts the live state back as it was.
 *
 * - A recording file (the project's .recording.json) can be opened onto a rig with the same
 *   bones: it plays back like a take, and exports again; it holds poses only, so it cannot be
 *   resumed from.
 *
 * Limits: one recording at a time, of the main rig only (not the compare ghost); edits that
 * add or remove control points during playback make the live state impossible to restore,
 * so the rig is then reset (with a message).
 */
import { restoreRig, snapshotRig, type RigSnapshot } from '../core/snapshot';
import type { PhysikWorld } from '../core';
import { findRig } from '../world/world';
import { applyFrame, createRecorder, rewindTo, trimTake, type Recorder } from '../io/recorder';
import type { Recording } from '../io/recording';
import { recordingToGlb } from '../io/gltfExport';
import { recordingToBvh } from '../io/bvhExport';
import { recordingToJson } from '../io/recordingJson';
import type { TimelineState } from '../hud/timeline';

export type ExportKind = 'glb' | 'bvh' | 'json';

export interface RecordingControls {
  /** Mode, frame count, fps and frame shown, for the timeline (one object, updated in place). */
  readonly state: Readonly<TimelineState>;
  readonly recording: Recording | null;
  /** Frames per second of the next recording (1-240). */
  fps: number;
  /** Start a new recording from the rig's current state (drops the previous one). */
  record(): void;
  /** Stop recording (the recording stays for playback and export). */
  stop(): void;
  /** Play the recording in a loop from the frame shown. */
  play(): void;
  /** Leave playback: the live simulation continues from where it was. */
  live(): void;
  /** Show frame `frame` (enters playback). */
  scrub(frame: number): void;
  /** Rewind the simulation to the frame shown and record on from there. */
  resumeHere(): void;
  /** Mark the take's in (or out) frame: the frame given, else the one shown; null clears it. */
  setIn(frame?: number | null): void;
  setOut(frame?: number | null): void;
  /** Keep the take's frames from its in to its out mark (the start and end where unmarked), drop the rest; the marks clear. */
  trim(): void;
  /**
   * Record over the take from its in mark to its out mark: the simulation rewinds to the in
   * frame, records on, and stops by itself when the take is as long as the out mark (the
   * later frames are dropped: the simulation after the range is the new take's).
   */
  recordOver(): void;
  /** The recording in a file format, with a file name. */
  exportFile(kind: ExportKind): Promise<{ name: string; data: Uint8Array | string; type: string }>;
  /** Call after every simulation step. */
  afterStep(): void;
  /** Advance looped playback by `seconds` of wall time; call every animation frame. */
  advance(seconds: number): void;
  /** Forget the recording (a new scene was loaded). */
  clear(): void;
  /** Play an opened recording of this rig (its bones by name, in order); throws, nothing changed, for another rig's. */
  open(recording: Recording): void;
}

export interface RecordingHost {
  readonly world: PhysikWorld;
  readonly rig: number;
  readonly sceneName: string;
  readonly paused: boolean;
  setPaused(paused: boolean): void;
  /** Put the rig back as loaded (used when live state cannot be restored). */
  reset(): void;
  showError(message: string): void;
  /** The take written onto the rig's source file (an imported character), when there is one of that kind. */
  exportOnto?(kind: 'glb' | 'bvh', recording: Recording): Promise<{ name: string; data: Uint8Array | string; type: string } | undefined>;
}

export function createRecordingControls(host: RecordingHost): RecordingControls {
  const state: TimelineState = { mode: 'live', frameCount: 0, fps: 30, frame: 0, markIn: -1, markOut: -1 };
  /** Recording over a range: stop when the take has this many frames (0: no end). */
  let stopAt = 0;
  let fps = 30;
  let recorder: Recorder | null = null;
  let recording: Recording | null = null;
  let liveState: RigSnapshot | null = null; // the live rig while playback shows recorded frames
  let wasPaused = false;
  let playing = false;
  let clock = 0; // playback position in frames (fractional)

  const sync = () => {
    state.frameCount = recording?.frameCount ?? 0;
    state.fps = recording?.fps ?? fps;
    if (state.markIn >= state.frameCount) state.markIn = -1;
    if (state.markOut >= state.frameCount) state.markOut = -1;
  };
  const clearMarks = () => { state.markIn = -1; state.markOut = -1; };
  /** A frame of the take to mark: the one given or shown; throws outside the take. */
  const markFrame = (frame: number | undefined, what: string): number => {
    if (!recording || recording.frameCount === 0) throw new Error(`nothing recorded yet to mark its ${what}: press "record" first`);
    const f = frame ?? state.frame;
    if (!(Number.isInteger(f) && f >= 0 && f < recording.frameCount)) {
      throw new Error(`the ${what} mark must be a frame of the take, 0 to ${recording.frameCount - 1}, got ${f}`);
    }
    return f;
  };

  function enterPlayback(): void {
    if (state.mode === 'playback' || !recording || recording.frameCount === 0) return;
    if (state.mode === 'recording') stopRecording();
    liveState = snapshotRig(host.world, host.rig);
    wasPaused = host.paused;
    state.mode = 'playback';
    host.setPaused(true);
  }

  function stopRecording(): void {
    if (!recorder || state.mode !== 'recording') return;
    recording = recorder.stop();
    state.mode = 'live';
    state.frame = Math.max(0, recording.frameCount - 1);
    sync();
  }

  /**
   * Show a frame: a take recorded here puts the whole recorded state back (its snapshot: the
   * pose, the targets the handles show, the step, status and target error the status line
   * reads); an opened recording (poses only), or a take whose control points have changed
   * since, shows the pose.
   */
  function show(frame: number): void {
    if (!recording) return;
    state.frame = Math.min(recording.frameCount - 1, Math.max(0, Math.round(frame)));
    const snap = recorder?.snapshot(state.frame);
    if (snap) {
      try {
        restoreRig(host.world, host.rig, snap);
        return;
      } catch {
        // the points changed since the take: the pose alone, below
      }
    }
    applyFrame(host.world, host.rig, recording, state.frame);
  }

  const controls: RecordingControls = {
    state,
    get recording() { return recording; },
    get fps() { return fps; },
    set fps(v: number) {
      if (!(Number.isFinite(v) && v >= 1 && v <= 240)) throw new Error(`recording fps must be a number from 1 to 240, got ${v}`);
      fps = v;
      if (!recording) state.fps = v;
    },
    record() {
      if (state.mode === 'playback') controls.live();
      stopAt = 0;
      clearMarks();
      recorder = createRecorder(host.world, host.rig, { fps, keepSnapshots: true });
      recording = recorder.recording;
      state.mode = 'recording';
      state.frame = 0;
      sync();
      host.setPaused(false);
    },
    stop() {
      if (state.mode === 'recording') stopRecording();
      else if (state.mode === 'playback') controls.live();
    },
    play() {
      if (!recording || recording.frameCount === 0) return;
      enterPlayback();
      if (state.frame >= recording.frameCount - 1) state.frame = 0;
      clock = state.frame;
      playing = true;
      show(state.frame);
    },
    live() {
      if (state.mode !== 'playback') return;
      playing = false;
      state.mode = 'live';
      try {
        if (liveState) restoreRig(host.world, host.rig, liveState);
      } catch (e) {
        host.showError(`could not return to the live simulation (${e instanceof Error ? e.message : String(e)}); the rig was reset`);
        host.reset();
      }
      liveState = null;
      host.setPaused(wasPaused);
    },
    scrub(frame) {
      if (!recording || recording.frameCount === 0) return;
      enterPlayback();
      playing = false;
      show(frame);
    },
    resumeHere() {
      if (!recording || recording.frameCount === 0) return;
      if (!recorder) throw new Error('an opened recording holds poses only, not the simulation\'s state: record a new take to resume from one of its frames');
      const frame = state.frame;
      if (state.mode === 'recording') stopRecording();
      playing = false;
      liveState = null;
      rewindTo(host.world, host.rig, recorder, frame); // throws (nothing changed) if the points changed
      recorder.resume();
      recording = recorder.recording;
      state.mode = 'recording';
      sync();
      state.frame = recording.frameCount - 1;
      host.setPaused(false);
    },
    setIn(frame) {
      if (frame === null) { state.markIn = -1; return; }
      const f = markFrame(frame, 'in');
      state.markIn = f;
      if (state.markOut >= 0 && state.markOut < f) state.markOut = -1;
    },
    setOut(frame) {
      if (frame === null) { state.markOut = -1; return; }
      const f = markFrame(frame, 'out');
      state.markOut = f;
      if (state.markIn > f) state.markIn = -1;
    },
    trim() {
      if (!recording || recording.frameCount === 0) throw new Error('nothing recorded yet to trim: press "record" first');
      if (state.mode === 'recording') stopRecording();
      const from = Math.max(0, state.markIn), to = state.markOut >= 0 ? state.markOut : recording.frameCount - 1;
      const shown = state.frame;
      trimTake(recording, from, to, recorder);
      clearMarks();
      sync();
      if (state.mode === 'playback') show(Math.min(Math.max(0, shown - from), recording.frameCount - 1));
      else state.frame = recording.frameCount - 1;
    },
    recordOver() {
      if (!recording || recording.frameCount === 0) throw new Error('nothing recorded yet to record over: press "record" first');
      const from = Math.max(0, state.markIn), to = state.markOut >= 0 ? state.markOut : recording.frameCount - 1;
      if (to <= from) throw new Error(`record over: the out mark (frame ${to}) must come after the in mark (frame ${from})`);
      state.frame = from;
      controls.resumeHere(); // throws (nothing changed) for an opened recording
      stopAt = to + 1;
      clearMarks();
    },
    async exportFile(kind) {
      if (state.mode === 'recording') stopRecording();
      if (!recording || recording.frameCount === 0) throw new Error('nothing recorded yet: press "record" first');
      const base = host.sceneName.replace(/[^\w.-]+/g, '_') || 'recording';
      const onto = kind === 'json' ? undefined : await host.exportOnto?.(kind, recording);
      if (onto) return onto;
      if (kind === 'glb') return { name: `${base}.glb`, data: new Uint8Array(await recordingToGlb(recording)), type: 'model/gltf-binary' };
      if (kind === 'bvh') return { name: `${base}.bvh`, data: recordingToBvh(recording), type: 'text/plain' };
      return { name: `${base}.recording.json`, data: recordingToJson(recording), type: 'application/json' };
    },
    afterStep() {
      if (state.mode !== 'recording' || !recorder) return;
      recorder.afterStep();
      state.frameCount = recorder.recording.frameCount;
      state.frame = state.frameCount - 1;
      if (stopAt > 0 && state.frameCount >= stopAt) {
        // the range is recorded over: stop there (a step may have captured a frame or two past it)
        const end = stopAt;
        stopAt = 0;
        stopRecording();
        if (recording && recording.frameCount > end) { trimTake(recording, 0, end - 1, recorder); sync(); state.frame = end - 1; }
        host.setPaused(true);
      }
    },
    advance(seconds) {
      if (state.mode !== 'playback' || !playing || !recording) return;
      clock += seconds * recording.fps;
      if (clock > recording.frameCount - 1) clock = 0; // loop
      const f = Math.floor(clock);
      if (f !== state.frame) show(f);
    },
    open(next) {
      const names = findRig(host.world, host.rig).boneNames;
      const fits = next.bones.length === names.length && next.bones.every((b, i) => b.name === names[i]);
      if (!fits) {
        const list = (a: readonly string[]) => `${a.slice(0, 6).join(', ')}${a.length > 6 ? ', …' : ''}`;
        throw new Error(`this recording is of rig "${next.rig}" (${next.bones.length} bones: ${list(next.bones.map((b) => b.name))}), `
          + `not of the rig shown (${names.length} bones: ${list(names)}): open its scene first`);
      }
      if (next.frameCount === 0) throw new Error('this recording has no frames');
      if (state.mode === 'recording') stopRecording();
      if (state.mode === 'playback') controls.live();
      recorder = null;
      recording = next;
      state.frame = 0;
      sync();
      controls.play();
    },
    clear() {
      if (state.mode === 'playback') controls.live();
      recorder = null;
      recording = null;
      state.mode = 'live';
      state.frame = 0;
      sync();
    },
  };
  return controls;
}
