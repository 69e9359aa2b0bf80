/**
 * A clip's pose on a rig (physics on top of motion): the rig's pose-drive record (the clip sampled
 * onto its bones, components/PoseDrive.ts), the clip's pose at a time placed on the rig's own bone
 * geometry, and a control point's point on such a pose. The systems that play it are
 * systems/poseTargets.ts, systems/poseDrives.ts and systems/poseFollow.ts.
 */
import type { PhysikWorld, RigRecord } from './world';
import type { PoseDriveRecord, PoseTrack } from '../../components/PoseDrive';
import type { Doubles } from '../../components/doubles';

const records = new WeakMap<PhysikWorld, Map<number, PoseDriveRecord>>();
/** The last world looked up and its records (its systems ask several times a step). */
let lastWorld: PhysikWorld | null = null;
let lastRecords: Map<number, PoseDriveRecord> | undefined;

function recordsOf(world: PhysikWorld): Map<number, PoseDriveRecord> | undefined {
  if (world === lastWorld) return lastRecords;
  lastWorld = world;
  return (lastRecords = records.get(world));
}

/** The pose-drive record of a rig (undefined: the rig plays no clip). */
export function poseDriveOf(world: PhysikWorld, rig: number): PoseDriveRecord | undefined {
  return recordsOf(world)?.get(rig);
}

/** The pose-drive records of a world's rigs by rig entity, made on first use. */
export function poseDriveRecords(world: PhysikWorld): Map<number, PoseDriveRecord> {
  let map = recordsOf(world);
  if (!map) { records.set(world, (map = new Map())); lastWorld = world; lastRecords = map; }
  return map;
}

/** Drop rig `rig`'s clip, if it plays one (the rig is being removed: its entity id may be reused). */
export function forgetPoseDrive(world: PhysikWorld, rig: number): void {
  recordsOf(world)?.delete(rig);
}

/** The records when a world has any (the systems' quick way out when no rig plays a clip). */
export function activePoseDrives(world: PhysikWorld): Map<number, PoseDriveRecord> | undefined {
  const map = recordsOf(world);
  return map && map.size > 0 ? map : undefined;
}

/** Parent's depth-first index of each bone (-1 for the root), kept per rig's bone list. */
const parentIndexCache = new WeakMap<Int32Array, Int32Array>();
export function parentIndices(world: PhysikWorld, rig: RigRecord): Int32Array {
  let out = parentIndexCache.get(rig.bones);
  if (out) return out;
  const { Bone } = world.physik;
  const index = new Map<number, number>();
  rig.bones.forEach((b, i) => index.set(b, i));
  out = new Int32Array(rig.bones.length);
  for (let i = 0; i < rig.bones.length; i++) {
    const p = Bone.parent[rig.bones[i]!]!;
    out[i] = p < 0 ? -1 : index.get(p)!;
  }
  parentIndexCache.set(rig.bones, out);
  return out;
}

/** The clip time samplePose reads. */
export const clipTime = new Float64Array(1);

/**
 * A time within this many frames of a frame is that frame: a capture steps at the clip's frame
 * time, where time × fps lands a few ulps off the whole frame number.
 */
export const FRAME_SNAP = 1e-6;

/** Most bone-frames a track's poses are baked for (56 bytes each: 56 MB). */
export const MAX_BAKED_BONE_FRAMES = 1_000_000;

/** A track's poses at its frames, placed on one rig's bones: world rotations (× 4) and heads (× 3) per frame and bone. */
interface BakedPoses { rot: Float64Array; head: Float64Array; bones: Int32Array }
const baked = new WeakMap<PoseTrack, BakedPoses>();

/** samplePose's interpolation weight (a double passed in an array: as an argument V8 boxes it). */
const weight = new Float64Array(1);

/** out = slerp(a[ao], b[bo], weight[0]), the short way, normalised. */
function slerp(out: Doubles, o: number, a: Doubles, ao: number, b: Doubles, bo: number): void {
  const u = weight[0]!;
  const ax = a[ao]!, ay = a[ao + 1]!, az = a[ao + 2]!, aw = a[ao + 3]!;
  let bx = b[bo]!, by = b[bo + 1]!, bz = b[bo + 2]!, bw = b[bo + 3]!;
  let d = ax * bx + ay * by + az * bz + aw * bw;
  if (d < 0) { bx = -bx; by = -by; bz = -bz; bw = -bw; d = -d; }
  let s0 = 1 - u, s1 = u;
  if (d < 0.9995) {
    const th = Math.acos(d), sn = Math.sin(th);
    s0 = Math.sin((1 - u) * th) / sn;
    s1 = Math.sin(u * th) / sn;
  }
  let x = s0 * ax + s1 * bx, y = s0 * ay + s1 * by, z = s0 * az + s1 * bz, w = s0 * aw + s1 * bw;
  const n = Math.sqrt(x * x + y * y + z * z + w * w);
  x /= n; y /= n; z /= n; w /= n;
  out[o] = x; out[o + 1] = y; out[o + 2] = z; out[o + 3] = w;
}

/**
 * The clip's pose on the rig at clip time `time` (clamped to the clip): world rotations to
 * rot (bones × 4) and heads to head (bones × 3), placed with the rig's own bone geometry.
 */
export function sampleTrackPose(world: PhysikWorld, rig: RigRecord, rec: PoseDriveRecord, time: number, rot: Doubles, head: Doubles): void {
  clipTime[0] = time;
  samplePose(world, rig, rec, rot, head);
}

/**
 * sampleTrackPose at the time in clipTime[0] (a double passed in an array: as an argument V8
 * boxes it). A time within FRAME_SNAP frames of a frame is that frame: its pose copied from the
 * baked poses when the track has them (bakeTrackPoses), else placed from the frame's rotations.
 */
export function samplePose(world: PhysikWorld, rig: RigRecord, rec: PoseDriveRecord, rot: Doubles, head: Doubles): void {
  const track = rec.track;
  const n = rig.bones.length;
  let f = clipTime[0]! * track.fps;
  if (!(f > 0)) f = 0;
  const last = track.frameCount - 1;
  if (f > last) f = last;
  const near = Math.round(f);
  if (Math.abs(f - near) <= FRAME_SNAP) {
    const poses = baked.get(track);
    if (poses !== undefined && poses.bones === rig.bones) {
      const R = poses.rot, H = poses.head, r0 = near * n * 4, h0 = near * n * 3;
      for (let k = 0; k < n * 4; k++) rot[k] = R[r0 + k]!;
      for (let k = 0; k < n * 3; k++) head[k] = H[h0 + k]!;
      return;
    }
    weight[0] = 0;
    placePose(world, rig, rec, near, near, rot, head);
    return;
  }
  const i0 = Math.floor(f);
  weight[0] = f - i0;
  placePose(world, rig, rec, i0, i0 < last ? i0 + 1 : last, rot, head);
}

/**
 * The pose between frames i0 and i1 at weight[0] (0: frame i0) on the rig's bones. At weight 0
 * the frame's rotations are taken as they are (no slerp).
 */
function placePose(world: PhysikWorld, rig: RigRecord, rec: PoseDriveRecord, i0: number, i1: number, rot: Doubles, head: Doubles): void {
  const { attach } = world.physik.Bone;
  const track = rec.track;
  const parent = rec.parent;
  const n = rig.bones.length;
  const u = weight[0]!;
  const L = track.local, q = rec.q;
  for (let i = 0; i < n; i++) {
    const a = (i0 * n + i) * 4;
    if (u === 0) { q[0] = L[a]!; q[1] = L[a + 1]!; q[2] = L[a + 2]!; q[3] = L[a + 3]!; }
    else slerp(q, 0, L, a, L, (i1 * n + i) * 4);
    const o4 = i * 4, o3 = i * 3, p = parent[i]!;
    if (p < 0) {
      rot[o4] = q[0]!; rot[o4 + 1] = q[1]!; rot[o4 + 2] = q[2]!; rot[o4 + 3] = q[3]!;
      const r0 = i0 * 3, r1 = i1 * 3, R = track.rootHead;
      head[o3] = R[r0]! + (R[r1]! - R[r0]!) * u;
      head[o3 + 1] = R[r0 + 1]! + (R[r1 + 1]! - R[r0 + 1]!) * u;
      head[o3 + 2] = R[r0 + 2]! + (R[r1 + 2]! - R[r0 + 2]!) * u;
      continue;
    }
    const p4 = p * 4, p3 = p * 3;
    // world = parent world ⊗ local
    const px = rot[p4]!, py = rot[p4 + 1]!, pz = rot[p4 + 2]!, pw = rot[p4 + 3]!;
    const bx = q[0]!, by = q[1]!, bz = q[2]!, bw = q[3]!;
    rot[o4] = pw * bx + px * bw + py * bz - pz * by;
    rot[o4 + 1] = pw * by - px * bz + py * bw + pz * bx;
    rot[o4 + 2] = pw * bz + px * by - py * bx + pz * bw;
    rot[o4 + 3] = pw * bw - px * bx - py * by - pz * bz;
    // head = parent head + parent world · attach
    const b3 = rig.bones[i]! * 3;
    const vx = attach[b3]!, vy = attach[b3 + 1]!, vz = attach[b3 + 2]!;
    const tx = 2 * (py * vz - pz * vy), ty = 2 * (pz * vx - px * vz), tz = 2 * (px * vy - py * vx);
    head[o3] = head[p3]! + vx + pw * tx + (py * tz - pz * ty);
    head[o3 + 1] = head[p3 + 1]! + vy + pw * ty + (pz * tx - px * tz);
    head[o3 + 2] = head[p3 + 2]! + vz + pw * tz + (px * ty - py * tx);
  }
}

/**
 * Bake the record's track: every frame's pose placed on the rig's bones once, so sampling at a
 * frame (a capture at the clip's frame rate samples nothing else) is a copy. Skipped (false)
 * for a track of more than MAX_BAKED_BONE_FRAMES bone-frames: it is then placed each time.
 */
export function bakeTrackPoses(world: PhysikWorld, rig: RigRecord, rec: PoseDriveRecord): boolean {
  const track = rec.track, n = rig.bones.length, F = track.frameCount;
  const had = baked.get(track);
  if (had !== undefined && had.bones === rig.bones) return true;
  if (F * n > MAX_BAKED_BONE_FRAMES) return false;
  const rot = new Float64Array(F * n * 4), head = new Float64Array(F * n * 3);
  weight[0] = 0;
  for (let f = 0; f < F; f++) placePose(world, rig, rec, f, f, rot.subarray(f * n * 4, (f + 1) * n * 4), head.subarray(f * n * 3, (f + 1) * n * 3));
  baked.set(track, { rot, head, bones: rig.bones });
  return true;
}

/** Control point cp's point on a pose (rot, head as sampleTrackPose writes them; bone index i), to out[o]. */
export function posePoint(world: PhysikWorld, cp: number, i: number, rot: Doubles, head: Doubles, out: Doubles, o: number): void {
  const { Bone, ControlPoint } = world.physik;
  const b = ControlPoint.bone[cp]!, c3 = cp * 3, q = i * 4, h = i * 3;
  const x = rot[q]!, y = rot[q + 1]!, z = rot[q + 2]!, w = rot[q + 3]!;
  const vx = ControlPoint.offset[c3]!, vy = ControlPoint.at[cp]! * Bone.length[b]! + ControlPoint.offset[c3 + 1]!, vz = ControlPoint.offset[c3 + 2]!;
  const tx = 2 * (y * vz - z * vy), ty = 2 * (z * vx - x * vz), tz = 2 * (x * vy - y * vx);
  out[o] = head[h]! + vx + w * tx + (y * tz - z * ty);
  out[o + 1] = head[h + 1]! + vy + w * ty + (z * tx - x * tz);
  out[o + 2] = head[h + 2]! + vz + w * tz + (x * ty - y * tx);
}
