/**
 * Recording in the sandbox: record/stop, looped playback, scrubbing, resuming the simulation
 * from a recorded frame, and export to .glb, .bvh and the project's JSON (downloads).
 *
 * - Recording keeps a snapshot per frame (about 14 kB per frame for the humanoid), so any
 *   frame can be resumed from: `resumeHere()` rewinds the rig to the frame shown and goes on
 *   recording from there (later frames are dropped).
 * - Playback and scrubbing pause the simulation and draw recorded poses (bit-identical to the
 *   live ones); leaving playback without resuming puts the live state back as it was.
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
import { applyFrame, createRecorder, rewindTo, type Recorder } from '../io/recorder';
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
  const state: TimelineState = { mode: 'live', frameCount: 0, fps: 30, frame: 0 };
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

  function show(frame: number): void {
    if (!recording) return;
    state.frame = Math.min(recording.frameCount - 1, Math.max(0, Math.round(frame)));
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
