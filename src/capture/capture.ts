/**
 * Capture: a clip plays on a rig, markers tie chosen bones to it, PhysIK moves the rest, and the
 * result is recorded (physics on top of motion, as Ragdoll's markers and Cascadeur's AutoPhysics
 * do). `attachClip` ties a bound clip to a rig (its markers, stiffness, damping and script of
 * mode changes; the rig posed at the clip's first frame); the step then plays it
 * (systems/poseDrives.ts); `captureClip` runs a whole take and records it at the clip's frame
 * rate, with how far each marker strayed from the clip.
 *
 * Stiffness is one rig-wide number S (1/s², the square of the springs' natural angular
 * frequency): a pose drive's is S × the inertia its joint turns, a world marker's S × the rig's mass;
 * damping is ζ of critical for those (2ζ√S × the same). Each marker scales both. The settings a
 * capture runs with (`captureSettings`): the step is the clip's frame time, the rig's own
 * damping off (damping toward the clip comes with the markers; the rig's absolute damping would
 * drag a walking body back), no target interpolation, linear springs, no sleeping, and no
 * energy guard (the clip puts energy in every step; the guard assumes targets that hold still
 * within a step).
 */
import type { CaptureEvent, CaptureMarkerDescription, MarkerMode, Settings } from '../world/types';
import type { PhysikWorld } from '../core';
import { addControlPoint, addSystem, removeControlPoint, removeSystem, setSettings, step } from '../core';
import { findRig, type RigRecord } from '../world/world';
import { forwardKinematicsOf } from '../world/forwardKinematics';
import { applyDerivedSettings } from '../world/derivedSettings';
import { attachmentPoint } from '../world/attachment';
import { createPoseDriveRecord, POSE_DRIVE, POSE_FOLLOW, POSE_FREE, type PoseDriveRecord, type PoseMode, type PoseTrack } from '../../components/PoseDrive';
import { setPoseDrive } from '../../systems/poseDrives';
import { bakeTrackPoses, poseDriveOf, sampleTrackPose, parentIndices } from '../world/clipPose';
import { createRecording, type Recording } from '../io/recording';
import { measureDiagnostics } from '../../systems/metrics';
import { restPose } from './bind';
import { fitLimitsToClip, type WidenedLimit } from './limits';

export const DEFAULT_CAPTURE_STIFFNESS = 10000;
/** Free joints' damping rate relative to their parent (1/s): joint friction that keeps light toes and fingers from spinning up. */
export const DEFAULT_JOINT_DAMPING = 30;

export interface CaptureOptions {
  markers: CaptureMarkerDescription[];
  /** Rig-wide stiffness S, 1/s² (default 10000: springs at about 16 Hz). */
  stiffness?: number;
  /** Damping ratio ζ (default 1, critical). */
  dampingRatio?: number;
  /** Damping rate (1/s) of free joints relative to their parent, × the inertia they turn (default 30). */
  jointDamping?: number;
  /** Clip time (s) played at the rig's current step (default 0). */
  start?: number;
  script?: CaptureEvent[];
  /**
   * 'fit' (default): a joint limit the clip itself goes past is widened to the clip's range
   * (limits.ts), and listed in the handle's `widenedLimits`; 'keep': the rig's limits as they are.
   */
  limits?: 'fit' | 'keep';
}

/** How far a world marker's point strayed from the clip, ÷ the rig's height, over the steps it was tied (not free). */
export interface MarkerStray {
  marker: string;
  bone: string;
  max: number;
  mean: number;
  steps: number;
}

/** What a capture measured, step by step, after each step. */
export interface CaptureStats {
  steps: number;
  markers: MarkerStray[];
  /** The bone (not tied to the clip by any marker) whose head or tail strayed furthest from the clip, and how far ÷ height. */
  free: { bone: string; max: number };
  /** Largest distance of any bone's head or tail from the clip ÷ height (all bones), and that bone. */
  maxPoseError: number;
  maxPoseErrorBone: string;
  /** Largest limit violation (degrees) after any step. */
  maxLimitViolationDeg: number;
  finite: boolean;
}

export interface CaptureHandle {
  rig: number;
  record: PoseDriveRecord;
  /** Marker name → the control point of each of its world bones. */
  markerPoints: Map<string, number[]>;
  /** Measured after every step while attached. */
  stats: CaptureStats;
  /** The clip's duration (s). */
  duration: number;
  /** Limits widened to the clip's range (options.limits 'fit'); put back by detachClip. */
  widenedLimits: WidenedLimit[];
  /** What the user should know about the attachment (a welded joint the clip turns). */
  notes: string[];
}

/** Settings a capture at `fps` runs with (see the header). */
export function captureSettings(fps: number): Partial<Settings> {
  return {
    dt: 1 / fps,
    dampingAuto: false,
    damping: 0,
    conservation: 'none',
    sleepWhenConverged: false,
    interpolation: 'none',
    spring: 'linear',
  };
}

const MODES: Record<MarkerMode, PoseMode> = { free: POSE_FREE, drive: POSE_DRIVE, follow: POSE_FOLLOW };

function checkPositive(value: number | undefined, what: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw new Error(`${what}: expected a finite number >= 0, got ${String(value)}`);
  return value;
}

const handles = new WeakMap<PoseDriveRecord, CaptureHandle>();
/** What puts a record's rig's limits back as they were before the capture widened them. */
const restoreLimits = new WeakMap<PoseDriveRecord, () => void>();

/**
 * Tie the clip (a PoseTrack on this rig, from bindClip) to rig `rig`: world markers become
 * control points named `<bone>.marker`, pose markers drive their bones, every other bone is
 * free; the rig is posed at the clip's pose at `start` with its velocities. Throws naming the
 * marker and field for an unknown bone, a bone in two markers of one kind, or a bad number.
 */
export function attachClip(world: PhysikWorld, rig: number, track: PoseTrack, options: CaptureOptions): CaptureHandle {
  const record = findRig(world, rig);
  const n = record.bones.length;
  if (track.bones !== n) throw new Error(`attachClip: the clip was bound to a rig of ${track.bones} bones; rig "${record.name}" has ${n}`);
  if (poseDriveOf(world, rig)) throw new Error(`attachClip: rig "${record.name}" already plays a clip (detachClip first)`);
  const markers = options.markers ?? [];
  if (!Array.isArray(markers)) throw new Error('attachClip: markers: expected a list of markers');
  const seenName = new Set<string>();
  const worldBones: { marker: number; bone: number; at: number }[] = [];
  const poseOwner = new Map<number, string>(), worldOwner = new Map<number, string>();
  markers.forEach((m, k) => {
    const where = `markers[${k}]${m && typeof m.name === 'string' ? ` "${m.name}"` : ''}`;
    if (!m || typeof m.name !== 'string' || !m.name) throw new Error(`${where}.name: expected a non-empty name`);
    if (seenName.has(m.name)) throw new Error(`${where}.name: a marker named "${m.name}" is listed twice`);
    seenName.add(m.name);
    if (m.kind !== 'world' && m.kind !== 'pose') throw new Error(`${where}.kind: expected "world" or "pose", got ${JSON.stringify(m.kind)}`);
    if (m.mode !== undefined && !(m.mode in MODES)) throw new Error(`${where}.mode: expected "follow", "drive" or "free", got ${JSON.stringify(m.mode)}`);
    checkPositive(m.stiffness, `${where}.stiffness`, 1);
    checkPositive(m.damping, `${where}.damping`, 1);
    const at = m.at ?? 0;
    if (!(typeof at === 'number' && at >= 0 && at <= 1)) throw new Error(`${where}.at: expected a number from 0 (head) to 1 (tail), got ${String(m.at)}`);
    if (!Array.isArray(m.bones) || m.bones.length === 0) throw new Error(`${where}.bones: expected a non-empty list of bone names`);
    for (const name of m.bones) {
      const i = record.boneNames.indexOf(name);
      if (i < 0) throw new Error(`${where}.bones: unknown bone "${name}" (rig "${record.name}" has ${record.boneNames.slice(0, 12).join(', ')}${n > 12 ? ', ...' : ''})`);
      const owners = m.kind === 'pose' ? poseOwner : worldOwner;
      if (owners.has(i)) throw new Error(`${where}.bones: "${name}" is already in ${m.kind} marker "${owners.get(i)}"`);
      owners.set(i, m.name);
      if (m.kind === 'world') worldBones.push({ marker: k, bone: i, at });
    }
  });
  const S = checkPositive(options.stiffness, 'stiffness', DEFAULT_CAPTURE_STIFFNESS);
  const zeta = checkPositive(options.dampingRatio, 'dampingRatio', 1);
  const start = options.start ?? 0;
  if (!(typeof start === 'number' && Number.isFinite(start) && start >= 0)) throw new Error(`start: expected a clip time >= 0 (seconds), got ${String(options.start)}`);

  const rec = createPoseDriveRecord(track, n, worldBones.length);
  rec.parent.set(parentIndices(world, record));
  rec.stiffness = S;
  rec.dampingRatio = zeta;
  rec.jointDamping = checkPositive(options.jointDamping, 'jointDamping', DEFAULT_JOINT_DAMPING);
  const { Bone, Rig } = world.physik;
  rec.start = start - Rig.step[rig]! * record.settings.dt;
  markers.forEach((m) => {
    if (m.kind !== 'pose') return;
    for (const name of m.bones) {
      const i = record.boneNames.indexOf(name);
      rec.mode[i] = MODES[m.mode ?? 'drive'];
      rec.stiffnessScale[i] = m.stiffness ?? 1;
      rec.dampingScale[i] = m.damping ?? 1;
    }
  });
  // the rig's mass, and per bone the inertia of what its joint turns, about its head at rest
  const rest = restPose(world, record);
  const centres = new Float64Array(n * 3);
  let mass = 0;
  for (let i = 0; i < n; i++) {
    const b = record.bones[i]!, L = 0.5 * Bone.length[b]!;
    const x = rest.rots[i * 4]!, y = rest.rots[i * 4 + 1]!, z = rest.rots[i * 4 + 2]!, w = rest.rots[i * 4 + 3]!;
    centres[i * 3] = rest.heads[i * 3]! + 2 * (x * y - z * w) * L;
    centres[i * 3 + 1] = rest.heads[i * 3 + 1]! + (1 - 2 * (x * x + z * z)) * L;
    centres[i * 3 + 2] = rest.heads[i * 3 + 2]! + 2 * (y * z + x * w) * L;
    mass += Bone.mass[b]!;
  }
  const parent = parentIndices(world, record);
  for (let j = 0; j < n; j++) {
    const b = record.bones[j]!, m = Bone.mass[b]!, own = Math.max(Bone.inertia[b * 3]!, Bone.inertia[b * 3 + 2]!);
    // the bone itself and every ancestor turn bone j
    for (let i = j; i >= 0; i = parent[i]!) {
      const dx = centres[j * 3]! - rest.heads[i * 3]!, dy = centres[j * 3 + 1]! - rest.heads[i * 3 + 1]!, dz = centres[j * 3 + 2]! - rest.heads[i * 3 + 2]!;
      rec.inertia[i] = rec.inertia[i]! + (m * (dx * dx + dy * dy + dz * dz) + own);
    }
  }
  rec.mass = mass;
  const markerPoints = new Map<string, number[]>();
  worldBones.forEach((wb, k) => {
    const m = markers[wb.marker]!;
    const bone = record.boneNames[wb.bone]!;
    let name = `${bone}.marker`;
    for (let s = 2; record.controlPointByName.has(name); s++) name = `${bone}.marker${s}`;
    const cp = addControlPoint(world, rig, { name, bone, at: wb.at, spring: 'linear', stiffness: S * mass * (m.stiffness ?? 1), active: false });
    rec.markerCp[k] = cp;
    rec.markerBone[k] = wb.bone;
    rec.markerMode[k] = MODES[m.mode ?? 'drive'];
    rec.markerStiffnessScale[k] = m.stiffness ?? 1;
    rec.markerDampingScale[k] = m.damping ?? 1;
    const list = markerPoints.get(m.name) ?? [];
    list.push(cp);
    markerPoints.set(m.name, list);
  });
  // the limits' stiffness floor follows the stiffest control spring (src/world/derivedSettings.ts)
  if (worldBones.length) applyDerivedSettings(world, record);
  // the script of mode changes, by marker name
  const script = options.script ?? [];
  if (!Array.isArray(script)) throw new Error('script: expected a list of { step, marker, mode }');
  rec.events = script.map((ev, k) => {
    const where = `script[${k}]`;
    if (!ev || !Number.isInteger(ev.step) || ev.step < 0) throw new Error(`${where}.step: expected a whole number >= 0, got ${String(ev?.step)}`);
    const mi = markers.findIndex((m) => m.name === ev.marker);
    if (mi < 0) throw new Error(`${where}.marker: unknown marker "${String(ev.marker)}" (markers: ${markers.map((m) => m.name).join(', ') || 'none'})`);
    if (!(ev.mode in MODES)) throw new Error(`${where}.mode: expected "follow", "drive" or "free", got ${JSON.stringify(ev.mode)}`);
    const m = markers[mi]!;
    const bones = m.kind === 'pose' ? m.bones.map((b) => record.boneNames.indexOf(b)) : [];
    const idx = m.kind === 'world' ? worldBones.map((wb, w) => (wb.marker === mi ? w : -1)).filter((w) => w >= 0) : [];
    return { step: ev.step, bones, markers: idx, mode: MODES[ev.mode] };
  }).sort((a, b) => a.step - b.step);

  const limitMode = options.limits ?? 'fit';
  if (limitMode !== 'fit' && limitMode !== 'keep') throw new Error(`limits: expected "fit" or "keep", got ${JSON.stringify(options.limits)}`);
  const fit = limitMode === 'fit' ? fitLimitsToClip(world, rig, track) : { widened: [], notes: [], restore: () => {} };
  restoreLimits.set(rec, fit.restore);
  // every frame's pose placed on the rig once: a capture at the clip's rate then samples by copying
  bakeTrackPoses(world, record, rec);

  setPoseDrive(world, rig, rec);
  poseAtClip(world, record, rec, start);
  const handle: CaptureHandle = {
    rig, record: rec, markerPoints,
    stats: emptyStats(record, rec),
    duration: (track.frameCount - 1) / track.fps,
    widenedLimits: fit.widened,
    notes: fit.notes,
  };
  measures.set(rec, newMeasure(n));
  handle.markerPoints.forEach((cps, name) => cps.forEach((cp) => (handle.stats.markers[rec.markerCp.indexOf(cp)]!.marker = name)));
  handles.set(rec, handle);
  if (!measuring.has(world)) {
    const system = (w: PhysikWorld) => measureAll(w);
    measuring.set(world, system);
    addSystem(world, 'afterStep', system);
  }
  return handle;
}

/** Untie rig `rig` from its clip: its marker control points are removed; the pose stays. */
export function detachClip(world: PhysikWorld, rig: number): void {
  const rec = poseDriveOf(world, rig);
  if (!rec) return;
  for (const cp of rec.markerCp) removeControlPoint(world, cp);
  setPoseDrive(world, rig, null);
  restoreLimits.get(rec)?.();
  restoreLimits.delete(rec);
  const anyLeft = world.physik.rigs.some((r) => poseDriveOf(world, r.eid));
  const system = measuring.get(world);
  if (!anyLeft && system) { removeSystem(world, 'afterStep', system); measuring.delete(world); }
}

function emptyStats(record: RigRecord, rec: PoseDriveRecord): CaptureStats {
  return {
    steps: 0,
    markers: Array.from(rec.markerCp, (_, k) => ({ marker: '', bone: record.boneNames[rec.markerBone[k]!]!, max: 0, mean: 0, steps: 0 })),
    free: { bone: '', max: 0 },
    maxPoseError: 0,
    maxPoseErrorBone: '',
    maxLimitViolationDeg: 0,
    finite: true,
  };
}

/**
 * Pose the rig at the clip's time `time`, moving as the clip moves there. The clip's own pose,
 * past the limits where the clip passes them (clamping it instead was tried: the markers then
 * yanked the rig back toward the clip in the first steps, 12° past a wrist limit and 2.6% of
 * the height off at a hand).
 */
function poseAtClip(world: PhysikWorld, record: RigRecord, rec: PoseDriveRecord, time: number): void {
  const { Bone, Rig } = world.physik;
  const dt = record.settings.dt;
  sampleTrackPose(world, record, rec, time, rec.rotA, rec.headA);
  sampleTrackPose(world, record, rec, time + dt, rec.rotB, rec.headB);
  const n = record.bones.length;
  const q = new Float64Array(4);
  for (let i = 0; i < n; i++) {
    const b = record.bones[i]!;
    for (let c = 0; c < 4; c++) Bone.rot[b * 4 + c] = rec.rotA[i * 4 + c]!;
    // ω from A to B
    const a = i * 4;
    const ax = -rec.rotA[a]!, ay = -rec.rotA[a + 1]!, az = -rec.rotA[a + 2]!, aw = rec.rotA[a + 3]!;
    const bx = rec.rotB[a]!, by = rec.rotB[a + 1]!, bz = rec.rotB[a + 2]!, bw = rec.rotB[a + 3]!;
    q[0] = bw * ax + bx * aw + by * az - bz * ay;
    q[1] = bw * ay - bx * az + by * aw + bz * ax;
    q[2] = bw * az + bx * ay - by * ax + bz * aw;
    q[3] = bw * aw - bx * ax - by * ay - bz * az;
    if (q[3]! < 0) for (let c = 0; c < 4; c++) q[c] = -q[c]!;
    const s = Math.hypot(q[0]!, q[1]!, q[2]!);
    const f = s < 1e-12 ? 2 : (2 * Math.atan2(s, q[3]!)) / s;
    for (let c = 0; c < 3; c++) Bone.angVel[b * 3 + c] = (q[c]! * f) / dt;
    for (let c = 0; c < 3; c++) Bone.jointForce[b * 3 + c] = 0;
  }
  const root = record.bones[0]!, r3 = root * 3;
  const x = rec.rotA[0]!, y = rec.rotA[1]!, z = rec.rotA[2]!, w = rec.rotA[3]!, h = 0.5 * Bone.length[root]!;
  const ax = 2 * (x * y - z * w) * h, ay = (1 - 2 * (x * x + z * z)) * h, az = 2 * (y * z + x * w) * h;
  if (Rig.pinned[record.eid]) {
    for (let c = 0; c < 3; c++) Rig.pin[record.eid * 3 + c] = rec.headA[c]!;
  }
  Bone.centre[r3] = rec.headA[0]! + ax; Bone.centre[r3 + 1] = rec.headA[1]! + ay; Bone.centre[r3 + 2] = rec.headA[2]! + az;
  const wx = Bone.angVel[r3]!, wy = Bone.angVel[r3 + 1]!, wz = Bone.angVel[r3 + 2]!;
  const vx = (rec.headB[0]! - rec.headA[0]!) / dt, vy = (rec.headB[1]! - rec.headA[1]!) / dt, vz = (rec.headB[2]! - rec.headA[2]!) / dt;
  Bone.vel[r3] = vx + wy * az - wz * ay; Bone.vel[r3 + 1] = vy + wz * ax - wx * az; Bone.vel[r3 + 2] = vz + wx * ay - wy * ax;
  forwardKinematicsOf(world, record);
  for (const cp of record.controlPoints) attachmentPoint(world, cp, world.physik.ControlPoint.attachment, cp * 3);
}

const measuring = new WeakMap<PhysikWorld, (w: PhysikWorld) => void>();
const point = new Float64Array(3);

/** A record's running measure: the largest squared distances (÷ height²) and which bones are tied. */
interface Measure {
  poseError2: number;
  free2: number;
  /** Per bone: 1 when tied to the clip (see tied), as of the record's `cursor` in `cursor`. */
  tied: Uint8Array;
  cursor: number;
}
const measures = new WeakMap<PoseDriveRecord, Measure>();
function newMeasure(n: number): Measure {
  return { poseError2: 0, free2: 0, tied: new Uint8Array(n), cursor: -1 };
}

/** After each step: every attached rig's stray from its clip (the clip's pose at the step's end is rotB/headB). */
function measureAll(world: PhysikWorld): void {
  const { Bone, Rig } = world.physik;
  const { head, tail, length } = Bone;
  const rigs = world.physik.rigs;
  for (let ri = 0; ri < rigs.length; ri++) {
    const record = rigs[ri]!;
    const rec = poseDriveOf(world, record.eid);
    if (rec === undefined) continue;
    const handle = handles.get(rec), ms = measures.get(rec);
    if (handle === undefined || ms === undefined) continue;
    const st = handle.stats;
    const height = Rig.height[record.eid]! > 0 ? Rig.height[record.eid]! : 1;
    const inv2 = 1 / (height * height);
    st.steps++;
    for (let m = 0; m < rec.markerCp.length; m++) {
      if (rec.markerMode[m] === POSE_FREE) continue;
      const cp = rec.markerCp[m]!;
      attachmentPoint(world, cp, point, 0);
      const ex = point[0]! - rec.pointB[m * 3]!, ey = point[1]! - rec.pointB[m * 3 + 1]!, ez = point[2]! - rec.pointB[m * 3 + 2]!;
      const d = Math.sqrt(ex * ex + ey * ey + ez * ez) / height;
      const s = st.markers[m]!;
      if (!(d <= s.max)) s.max = d; // NaN is kept
      s.steps++;
      s.mean += (d - s.mean) / s.steps;
    }
    if (ms.cursor !== rec.cursor) { updateTied(rec, ms.tied); ms.cursor = rec.cursor; }
    const tiedNow = ms.tied;
    const n = record.bones.length;
    const rotB = rec.rotB, headB = rec.headB;
    // the largest squared distances; their sum says whether every one was finite
    let sum = 0, all2 = ms.poseError2, free2 = ms.free2, allBone = -1, freeBone = -1;
    for (let i = 0; i < n; i++) {
      const b = record.bones[i]!, b3 = b * 3, L = length[b]!, i3 = i * 3, i4 = i * 4;
      const x = rotB[i4]!, y = rotB[i4 + 1]!, z = rotB[i4 + 2]!, w = rotB[i4 + 3]!;
      const hx = headB[i3]!, hy = headB[i3 + 1]!, hz = headB[i3 + 2]!;
      const ax = head[b3]! - hx, ay = head[b3 + 1]! - hy, az = head[b3 + 2]! - hz;
      const bx = tail[b3]! - (hx + 2 * (x * y - z * w) * L);
      const by = tail[b3 + 1]! - (hy + (1 - 2 * (x * x + z * z)) * L);
      const bz = tail[b3 + 2]! - (hz + 2 * (y * z + x * w) * L);
      const dh = ax * ax + ay * ay + az * az, dtl = bx * bx + by * by + bz * bz;
      const d2 = (dh > dtl ? dh : dtl) * inv2;
      sum += d2;
      if (d2 > all2) { all2 = d2; allBone = i; }
      if (tiedNow[i] === 0 && d2 > free2) { free2 = d2; freeBone = i; }
    }
    if (!Number.isFinite(sum)) st.finite = false;
    if (allBone >= 0) { ms.poseError2 = all2; st.maxPoseError = Math.sqrt(all2); st.maxPoseErrorBone = record.boneNames[allBone]!; }
    if (freeBone >= 0) { ms.free2 = free2; st.free.max = Math.sqrt(free2); st.free.bone = record.boneNames[freeBone]!; }
    measureViolation(world, record, st, Rig.substeps[record.eid] !== 1);
  }
}

/**
 * The limits' violation into the stats: from the joint angles the limit springs measured at this
 * step's start (the pose the last step ended in; measuring the pose again cost a tenth of a
 * capture), or, `now`, of the pose as it stands (a step taken in substeps, whose springs last
 * measured a substep's start, and the take's last pose: captureClip).
 */
function measureViolation(world: PhysikWorld, record: RigRecord, st: CaptureStats, now: boolean): void {
  const { AngularLimit: L, Rig } = world.physik;
  let worst = 0;
  if (now) {
    measureDiagnostics(world, record);
    worst = Rig.maxLimitViolation[record.eid]!;
  } else {
    const { enabled, min, max, angle } = L;
    for (let i = 1; i < record.bones.length; i++) {
      const b3 = record.bones[i]! * 3;
      for (let a = 0; a < 3; a++) {
        if (!enabled[b3 + a]) continue;
        const t = angle[b3 + a]!, over = t > max[b3 + a]! ? t - max[b3 + a]! : min[b3 + a]! - t;
        if (over > worst) worst = over;
      }
    }
  }
  const violation = (worst * 180) / Math.PI;
  if (violation > st.maxLimitViolationDeg) st.maxLimitViolationDeg = violation;
}

/** Which bones are tied to the clip now (a drive or follow, or a world marker on it in drive or follow), to out. */
function updateTied(rec: PoseDriveRecord, out: Uint8Array): void {
  for (let i = 0; i < out.length; i++) out[i] = rec.mode[i] !== POSE_FREE || rec.follow[i] ? 1 : 0;
  for (let m = 0; m < rec.markerBone.length; m++) if (rec.markerMode[m] !== POSE_FREE) out[rec.markerBone[m]!] = 1;
}

export interface CaptureResult {
  recording: Recording;
  stats: CaptureStats;
  /** Wall time of the simulation (s), and the clip's duration over it. */
  seconds: number;
  realTimeRate: number;
}

/**
 * Play the whole clip on the attached rig and record it at the clip's frame rate (one frame
 * per clip frame, the first at the start pose). The world steps `round(1 / (fps × dt))` steps a
 * frame (one when dt is the frame time, as captureSettings sets it).
 */
export function captureClip(world: PhysikWorld, handle: CaptureHandle, now: () => number = () => performance.now()): CaptureResult {
  const record = findRig(world, handle.rig);
  const track = handle.record.track;
  const dt = record.settings.dt;
  const perFrame = Math.max(1, Math.round(1 / (track.fps * dt)));
  const frames = track.frameCount;
  const recording = createRecording(world, handle.rig, track.fps);
  // the whole take's arrays at once: no growing while the steps run
  const n = record.bones.length;
  recording.times = new Float64Array(frames);
  recording.steps = new Int32Array(frames);
  recording.heads = new Float64Array(frames * n * 3);
  recording.rotations = new Float64Array(frames * n * 4);
  recordFrame(recording, world, record, 0, 0);
  const t0 = now();
  for (let f = 1; f < frames; f++) {
    step(world, perFrame);
    recordFrame(recording, world, record, f, f / track.fps);
  }
  const seconds = (now() - t0) / 1000;
  measureViolation(world, record, handle.stats, true); // (the last pose: no step after it measured it)
  return { recording, stats: handle.stats, seconds, realTimeRate: handle.duration / Math.max(seconds, 1e-9) };
}

/** The rig's pose as frame f of a recording whose arrays hold it (captureFrame without its checks and growth). */
function recordFrame(recording: Recording, world: PhysikWorld, record: RigRecord, f: number, time: number): void {
  const { Bone, Rig } = world.physik;
  const { head, rot } = Bone;
  const n = record.bones.length, H = recording.heads, R = recording.rotations;
  recording.times[f] = time;
  recording.steps[f] = Rig.step[record.eid]!;
  for (let i = 0, h = f * n * 3, q = f * n * 4; i < n; i++, h += 3, q += 4) {
    const b = record.bones[i]!, b3 = b * 3, b4 = b * 4;
    H[h] = head[b3]!; H[h + 1] = head[b3 + 1]!; H[h + 2] = head[b3 + 2]!;
    R[q] = rot[b4]!; R[q + 1] = rot[b4 + 1]!; R[q + 2] = rot[b4 + 2]!; R[q + 3] = rot[b4 + 3]!;
  }
  recording.frameCount = f + 1;
}

/** Settings for a capture at the clip's rate, applied to the rig (see captureSettings). */
export function useCaptureSettings(world: PhysikWorld, rig: number, fps: number): void {
  setSettings(world, rig, captureSettings(fps));
}

export { parentIndices };
