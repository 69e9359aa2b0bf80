/**
 * A recording of one rig: what the view drew, frame by frame. Every exporter (glTF, BVH,
 * JSON) and the sandbox's playback read this one format.
 *
 * Per frame and bone it keeps the world rotation (`Bone.rot`) and the head position exactly
 * as the world had them, so playing a recording back draws bit-identical poses. Local
 * rotations (relative to the parent bone) are derived on demand by `localRotation`.
 *
 * The rest pose (the skeleton an exporter writes) is in `bones`: each bone's rest rotation in
 * the world and relative to its parent, and where its head sits on the parent, `offset` in
 * the parent's local frame (the parent's +Y runs head to tail, so it is (0, attach × parent
 * length, 0)); the root's rest head is `restHead`.
 */
import type { PhysikWorld } from '../core';
import { findRig } from '../world/world';
import { copyDoubles, type Doubles } from '../../components/doubles';

export type Vec3 = [number, number, number];
export type Quat = [number, number, number, number];

export interface RecordedBone {
  name: string;
  /** Index of the parent in `bones` (depth-first, so always smaller), -1 for the root. */
  parent: number;
  length: number;
  /** Head relative to the parent's head, in the parent's local frame (root: [0, 0, 0]). */
  offset: Vec3;
  /** Rest rotation relative to the parent (the root's: in the world), x, y, z, w. */
  restLocal: Quat;
  /** Rest rotation in the world. */
  restWorld: Quat;
  /** Head at rest, world. */
  restHead: Vec3;
}

export interface Recording {
  /** Name of the recorded rig. */
  rig: string;
  /** Frames per second of the recording (not the simulation's dt). */
  fps: number;
  bones: RecordedBone[];
  frameCount: number;
  /** Simulated time of each frame (s), from the first frame's (0). */
  times: Float64Array;
  /** Simulation step each frame was taken at. */
  steps: Int32Array;
  /** World head of every bone: frameCount × bones × 3. */
  heads: Float64Array;
  /** World rotation of every bone, x, y, z, w: frameCount × bones × 4. */
  rotations: Float64Array;
}

/** The rig's skeleton at rest, as a recording's `bones`. */
export function recordedBones(world: PhysikWorld, rig: number): RecordedBone[] {
  const record = findRig(world, rig);
  const { Bone } = world.physik;
  const index = new Map<number, number>();
  record.bones.forEach((b, i) => index.set(b, i));
  const q = (a: Doubles, e: number): Quat => [a[e * 4]!, a[e * 4 + 1]!, a[e * 4 + 2]!, a[e * 4 + 3]!];
  // rest heads: walk down from the root's pinned/initial head
  const restHeads: Vec3[] = [];
  return Array.from(record.bones, (b, i) => {
    const p = Bone.parent[b]!;
    const parent = p < 0 ? -1 : index.get(p)!;
    const offset: Vec3 = [Bone.attach[b * 3]!, Bone.attach[b * 3 + 1]!, Bone.attach[b * 3 + 2]!];
    let head: Vec3;
    if (parent < 0) {
      const r = record.eid * 3;
      const pin = world.physik.Rig.pin;
      head = [pin[r]!, pin[r + 1]!, pin[r + 2]!];
    } else {
      const ph = restHeads[parent]!;
      const pq = q(Bone.restWorld, p);
      const o = rotate(pq, offset);
      head = [ph[0] + o[0], ph[1] + o[1], ph[2] + o[2]];
    }
    restHeads[i] = head;
    return {
      name: record.boneNames[i]!,
      parent,
      length: Bone.length[b]!,
      offset: parent < 0 ? [0, 0, 0] : offset,
      restLocal: q(Bone.restLocal, b),
      restWorld: q(Bone.restWorld, b),
      restHead: head,
    };
  });
}

/** An empty recording of a rig at `fps` frames per second. */
export function createRecording(world: PhysikWorld, rig: number, fps = 30): Recording {
  if (!(Number.isFinite(fps) && fps > 0 && fps <= 1000)) throw new Error(`fps must be a number in (0, 1000], got ${fps}`);
  return {
    rig: findRig(world, rig).name,
    fps,
    bones: recordedBones(world, rig),
    frameCount: 0,
    times: new Float64Array(0),
    steps: new Int32Array(0),
    heads: new Float64Array(0),
    rotations: new Float64Array(0),
  };
}

/** Append the rig's current pose as a frame at simulated time `time` (grows by doubling). */
export function captureFrame(rec: Recording, world: PhysikWorld, rig: number, time: number): void {
  const record = findRig(world, rig);
  const n = rec.bones.length;
  if (record.bones.length !== n) throw new Error(`rig "${record.name}" has ${record.bones.length} bones, the recording ${n}`);
  const f = rec.frameCount;
  if (f >= rec.times.length) grow(rec, Math.max(64, rec.times.length * 2));
  rec.times[f] = time;
  rec.steps[f] = world.physik.Rig.step[rig]!;
  const { Bone } = world.physik;
  for (let i = 0; i < n; i++) {
    const b = record.bones[i]!;
    copyDoubles(rec.heads, (f * n + i) * 3, Bone.head, b * 3, 3);
    copyDoubles(rec.rotations, (f * n + i) * 4, Bone.rot, b * 4, 4);
  }
  rec.frameCount = f + 1;
}

function grow(rec: Recording, frames: number): void {
  const n = rec.bones.length;
  const t = new Float64Array(frames); t.set(rec.times);
  const s = new Int32Array(frames); s.set(rec.steps);
  const h = new Float64Array(frames * n * 3); h.set(rec.heads);
  const r = new Float64Array(frames * n * 4); r.set(rec.rotations);
  rec.times = t; rec.steps = s; rec.heads = h; rec.rotations = r;
}

/** Rotation of bone `i` relative to its parent at `frame` (the root's: world), into out[o..o+3]. */
export function localRotation(rec: Recording, frame: number, i: number, out: Float64Array | number[], o = 0): void {
  const n = rec.bones.length;
  const r = rec.rotations, c = (frame * n + i) * 4;
  const p = rec.bones[i]!.parent;
  if (p < 0) {
    out[o] = r[c]!; out[o + 1] = r[c + 1]!; out[o + 2] = r[c + 2]!; out[o + 3] = r[c + 3]!;
    return;
  }
  const a = (frame * n + p) * 4;
  // conj(parent) · child
  const ax = -r[a]!, ay = -r[a + 1]!, az = -r[a + 2]!, aw = r[a + 3]!;
  const bx = r[c]!, by = r[c + 1]!, bz = r[c + 2]!, bw = r[c + 3]!;
  out[o] = aw * bx + ax * bw + ay * bz - az * by;
  out[o + 1] = aw * by - ax * bz + ay * bw + az * bx;
  out[o + 2] = aw * bz + ax * by - ay * bx + az * bw;
  out[o + 3] = aw * bw - ax * bx - ay * by - az * bz;
}

/** Head of bone `i` at `frame` (world). */
export function headAt(rec: Recording, frame: number, i: number): Vec3 {
  const k = (frame * rec.bones.length + i) * 3;
  return [rec.heads[k]!, rec.heads[k + 1]!, rec.heads[k + 2]!];
}

function rotate(q: Quat, v: Vec3): Vec3 {
  const [x, y, z, w] = q;
  const tx = 2 * (y * v[2] - z * v[1]), ty = 2 * (z * v[0] - x * v[2]), tz = 2 * (x * v[1] - y * v[0]);
  return [v[0] + w * tx + (y * tz - z * ty), v[1] + w * ty + (z * tx - x * tz), v[2] + w * tz + (x * ty - y * tx)];
}
