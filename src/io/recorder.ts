/**
 * Recording a rig while it simulates, playing a recording back, and rewinding.
 *
 * The recorder runs on its own clock, decoupled from the simulation's dt: frame k belongs to
 * simulated time k / fps, counted from the recorder's start (frame 0 is the pose at the
 * start). Call `afterStep` after every simulation step; it captures frame k from the first
 * step whose time is at or after k / fps. No interpolation: every frame is a pose the world
 * really had (and the view showed), so playback is exact. The price is timing jitter: a
 * frame's pose is up to one dt later than k / fps (its true time is in `times[k]`), and when
 * dt > 1 / fps one step fills several frames with the same pose.
 *
 * `applyFrame` writes a frame into the world for playback (rotations and heads bit-identical
 * to the live ones; tails and centres from them with the forward-kinematics maths), and
 * `rewindTo` restores a frame's snapshot (when the recorder keeps them) so the simulation
 * resumes from there, dropping the later frames. `recordSteps` is the headless form.
 *
 * Limits: snapshots cost about 14 kB per frame for an 18-bone rig (kept only on request);
 * bit-identical resumption holds for the PhysIK solver (see src/core/snapshot.ts).
 */
import { findRig, type PhysikWorld } from '../world/world';
import { step } from '../core/pipeline';
import { attachmentPoint } from '../world/attachment';
import { restoreRig, snapshotInto, type RigSnapshot } from '../core/snapshot';
import { captureFrame, createRecording, type Recording } from './recording';

export interface RecorderOptions {
  /** Frames per second of the recording (default 30). */
  fps?: number;
  /** Keep a snapshot of the rig's state per frame, so `rewindTo` can resume from any frame. */
  keepSnapshots?: boolean;
}

export interface Recorder {
  readonly world: PhysikWorld;
  readonly rig: number;
  readonly fps: number;
  readonly keepSnapshots: boolean;
  /** The recording so far (frames are appended in place; `stop` trims it). */
  readonly recording: Recording;
  /** The recorder's clock: simulated seconds since it started. */
  readonly time: number;
  readonly stopped: boolean;
  /**
   * Call after every simulation step. `simTime` is the simulated time since the recorder
   * started; omitted, the recorder advances its clock by the rig's dt. Captures every frame
   * whose time k / fps has been reached; returns how many it captured.
   */
  afterStep(simTime?: number): number;
  /** The rig's state at `frame` (only when keeping snapshots). */
  snapshot(frame: number): RigSnapshot | undefined;
  /** Stop capturing; returns the recording with its arrays trimmed to the frames. */
  stop(): Recording;
  /** Capture again after `stop` (e.g. after a rewind, to re-record from there). */
  resume(): void;
}

interface RecorderState extends Recorder {
  time: number;
  stopped: boolean;
  snapshots: RigSnapshot[];
  /** Snapshots of dropped frames, reused by `snapshotInto` (no allocation after a rewind). */
  spare: RigSnapshot[];
}

/**
 * A frame counts as reached when the clock is within a millionth of a frame of its time,
 * so clocks that add dt up in floating point do not slip a step (20 × 0.05 is not exactly 1).
 */
const SLACK = 1e-6;

/** Start recording rig `rig` of `world`: frame 0 is its pose now. */
export function createRecorder(world: PhysikWorld, rig: number, options: RecorderOptions = {}): Recorder {
  const fps = options.fps ?? 30;
  const recording = createRecording(world, rig, fps); // validates fps
  const state: RecorderState = {
    world, rig, fps, recording,
    keepSnapshots: options.keepSnapshots ?? false,
    time: 0,
    stopped: false,
    snapshots: [],
    spare: [],
    afterStep(simTime?: number): number {
      if (state.stopped) throw new Error(`recorder of rig "${recording.rig}" is stopped (resume() it to record again)`);
      if (simTime === undefined) {
        state.time += findRig(world, rig).settings.dt;
      } else {
        if (!Number.isFinite(simTime) || simTime < state.time) {
          throw new Error(`afterStep: simTime must be a finite number of seconds since the recording started, not before ${state.time}, got ${simTime}`);
        }
        state.time = simTime;
      }
      return catchUp(state, false);
    },
    snapshot(frame: number): RigSnapshot | undefined {
      return state.snapshots[frame];
    },
    stop(): Recording {
      state.stopped = true;
      trim(recording);
      return recording;
    },
    resume(): void {
      state.stopped = false;
    },
  };
  capture(state, false);
  return state;
}

/**
 * Capture every frame whose time has been reached (several when one step spans them). Frames
 * captured in one call hold the same state and share one snapshot; `sameAsLast` says the
 * first of them may share the last frame's too (after a rewind the world is that frame's state).
 */
function catchUp(state: RecorderState, sameAsLast: boolean): number {
  let n = 0;
  while (state.time + SLACK / state.fps >= state.recording.frameCount / state.fps) {
    capture(state, sameAsLast || n > 0);
    n++;
  }
  return n;
}

function capture(state: RecorderState, sameAsLast: boolean): void {
  const { world, rig, recording } = state;
  captureFrame(recording, world, rig, state.time);
  if (!state.keepSnapshots) return;
  const f = recording.frameCount - 1;
  state.snapshots[f] = sameAsLast && f > 0 ? state.snapshots[f - 1]! : snapshotInto(world, rig, state.spare.pop());
}

/** Shrink the recording's arrays to its frames (captureFrame grows them by doubling). */
function trim(rec: Recording): void {
  const n = rec.bones.length, f = rec.frameCount;
  if (rec.times.length === f) return;
  rec.times = rec.times.slice(0, f);
  rec.steps = rec.steps.slice(0, f);
  rec.heads = rec.heads.slice(0, f * n * 3);
  rec.rotations = rec.rotations.slice(0, f * n * 4);
}

/**
 * Step the world `steps` times and record rig `rig` at `fps` (frame 0 is the pose before the
 * first step). Every rig of the world steps; only `rig` is recorded.
 */
export function recordSteps(world: PhysikWorld, rig: number, steps: number, options: { fps?: number } = {}): Recording {
  if (!(Number.isInteger(steps) && steps >= 0)) throw new Error(`steps must be a whole number >= 0, got ${steps}`);
  const recorder = createRecorder(world, rig, { fps: options.fps });
  for (let i = 0; i < steps; i++) {
    step(world);
    recorder.afterStep();
  }
  return recorder.stop();
}

/** Check that `rec` is a recording of this rig (same bones, same names, same order). */
function checkRig(world: PhysikWorld, rig: number, rec: Recording, what: string): void {
  const record = findRig(world, rig);
  const n = record.bones.length;
  if (rec.bones.length !== n || rec.bones.some((b, i) => b.name !== record.boneNames[i])) {
    throw new Error(`${what}: the recording of "${rec.rig}" (${rec.bones.length} bones) does not match rig "${record.name}" (${n} bones, or other names or order)`);
  }
}

function checkFrame(rec: Recording, frame: number, what: string): void {
  if (!(Number.isInteger(frame) && frame >= 0 && frame < rec.frameCount)) {
    throw new Error(`${what}: frame must be a whole number in 0..${rec.frameCount - 1}, got ${frame}`);
  }
}

/**
 * Pose the rig as recorded at `frame`: rotations and heads exactly as recorded, tails and
 * centres from them as forward kinematics computes them (centre = head + ½ axis, tail =
 * head + axis), control point attachments updated. Velocities, joint forces and targets are
 * left alone: this is playback for the view; use `rewindTo` to resume the simulation.
 * (A floating root is placed by its centre in the simulation, so its centre may differ from
 * the live one in the last bit.)
 */
export function applyFrame(world: PhysikWorld, rig: number, rec: Recording, frame: number): void {
  checkRig(world, rig, rec, 'applyFrame');
  checkFrame(rec, frame, 'applyFrame');
  const record = findRig(world, rig);
  const { Bone, ControlPoint } = world.physik;
  const { rot, head, tail, centre, length } = Bone;
  const n = record.bones.length;
  for (let i = 0; i < n; i++) {
    const b = record.bones[i]!, b3 = b * 3, q = b * 4;
    const r = (frame * n + i) * 4, h = (frame * n + i) * 3;
    const x = rec.rotations[r]!, y = rec.rotations[r + 1]!, z = rec.rotations[r + 2]!, w = rec.rotations[r + 3]!;
    rot[q] = x; rot[q + 1] = y; rot[q + 2] = z; rot[q + 3] = w;
    head[b3] = rec.heads[h]!; head[b3 + 1] = rec.heads[h + 1]!; head[b3 + 2] = rec.heads[h + 2]!;
    // the bone axis R (0, L, 0), written exactly as systems/forwardKinematics does
    const L = length[b]!;
    const ax = 2 * (x * y - z * w) * L, ay = (1 - 2 * (x * x + z * z)) * L, az = 2 * (y * z + x * w) * L;
    centre[b3] = head[b3]! + 0.5 * ax; centre[b3 + 1] = head[b3 + 1]! + 0.5 * ay; centre[b3 + 2] = head[b3 + 2]! + 0.5 * az;
    tail[b3] = head[b3]! + ax; tail[b3 + 1] = head[b3 + 1]! + ay; tail[b3 + 2] = head[b3 + 2]! + az;
  }
  for (const cp of record.controlPoints) attachmentPoint(world, cp, ControlPoint.attachment, cp * 3);
}

/**
 * Rewind: restore the rig's state at `frame` (from the recorder's snapshots) so the
 * simulation resumes from there, and drop the later frames from the recording (frames that
 * were captured at the same step as `frame` stay: they are the same pose). Throws, changing
 * nothing, when the recorder keeps no snapshots, the frame is out of range, or the rig's
 * control points changed since (see restoreRig).
 */
export function rewindTo(world: PhysikWorld, rig: number, recorder: Recorder, frame: number): void {
  const state = recorder as RecorderState;
  if (state.world !== world || state.rig !== rig) throw new Error(`rewindTo: this recorder records rig ${state.rig} of another world or rig`);
  const rec = state.recording;
  checkFrame(rec, frame, 'rewindTo');
  if (!state.keepSnapshots) throw new Error('rewindTo: the recorder keeps no snapshots (create it with keepSnapshots: true)');
  const snap = state.snapshots[frame]!;
  restoreRig(world, rig, snap);
  // drop the later frames; their snapshots become spares (shared ones only once)
  const kept = new Set(state.snapshots.slice(0, frame + 1));
  for (const s of new Set(state.snapshots.slice(frame + 1))) if (!kept.has(s)) state.spare.push(s);
  state.snapshots.length = frame + 1;
  rec.frameCount = frame + 1;
  state.time = rec.times[frame]!;
  // frames already due at this time were captured at this step originally: take them again
  catchUp(state, true);
  if (state.stopped) trim(rec);
}

/**
 * Keep frames `from`..`to` (inclusive) of a take and drop the rest: the frames' poses and
 * steps stay as they were, their times start again from 0 (shifted by the first kept
 * frame's). With the take's recorder (`recording` its own), its snapshots are kept with
 * their frames, so the trimmed take can still be resumed from any of its frames, and a
 * recording recorder goes on appending after `to`'s time. Throws, changing nothing, for a
 * range outside the take or empty.
 */
export function trimTake(recording: Recording, from: number, to: number, recorder?: Recorder | null): void {
  checkFrame(recording, from, 'trimTake (from)');
  checkFrame(recording, to, 'trimTake (to)');
  if (to < from) throw new Error(`trimTake: the range ${from}..${to} is empty (the out frame is before the in frame)`);
  const state = recorder as RecorderState | null | undefined;
  if (state && state.recording !== recording) throw new Error('trimTake: the recorder records another take');
  const n = recording.bones.length, count = to - from + 1, t0 = recording.times[from]!;
  recording.times = recording.times.slice(from, to + 1).map((t) => t - t0);
  recording.steps = recording.steps.slice(from, to + 1);
  recording.heads = recording.heads.slice(from * n * 3, (to + 1) * n * 3);
  recording.rotations = recording.rotations.slice(from * n * 4, (to + 1) * n * 4);
  recording.frameCount = count;
  if (state) {
    const kept = state.snapshots.slice(from, to + 1);
    const keep = new Set(kept);
    for (const s of new Set(state.snapshots)) if (!keep.has(s)) state.spare.push(s);
    state.snapshots = kept;
    state.time = recording.times[count - 1]!;
  }
}
