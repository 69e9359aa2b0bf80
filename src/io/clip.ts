/**
 * A recording as a three.js AnimationClip: one `QuaternionKeyframeTrack` per chosen bone
 * (`<bone>.quaternion`, the rotation relative to the parent bone, as glTF nodes and three.js
 * bones hold it) and one `VectorKeyframeTrack` `<root>.position` with the root's head, when
 * the root is among the chosen bones. Key times are frame / fps from the start of the range.
 *
 * Keyframe reduction (`reduce: { maxAngleDeg }`), per quaternion track, Douglas-Peucker
 * style: keep the range's first and last keys; in a span between two kept keys, find the key
 * farthest (in angle) from the interpolation of the span's ends and keep it if it is farther
 * than maxAngleDeg, then split there. Bound: every dropped key is within maxAngleDeg of the
 * interpolation between the kept keys around it, computed with three.js's own
 * `Quaternion.slerpFlat` (what `QuaternionLinearInterpolant` plays) in double precision; the
 * clip stores float32, which adds about 1e-7 rad.
 *
 * Limits: quaternion signs are made continuous (a key is negated when its dot product with
 * the previous one is negative, the same rotation), so values may differ in sign from
 * `localRotation`; compare rotations up to sign. Position keys are never reduced. Track node
 * names are the bone names sanitized as three.js does for glTF nodes (`trackNodeName`:
 * spaces become `_`, `[]./:` are removed), so an exporter must name its bones the same way.
 */
import { AnimationClip, PropertyBinding, Quaternion, QuaternionKeyframeTrack, VectorKeyframeTrack } from 'three';
import { localRotation, type Recording } from './recording';

export interface ClipOptions {
  /** Bones to animate, by name (default: all). */
  bones?: string[];
  /** First and last frame, both included (default: all frames). */
  range?: [number, number];
  /** Drop keys that interpolation reproduces within maxAngleDeg (quaternion tracks only). */
  reduce?: { maxAngleDeg: number };
}

/** The node name a bone's tracks address (three.js's sanitizing of glTF node names). */
export function trackNodeName(boneName: string): string {
  return PropertyBinding.sanitizeNodeName(boneName);
}

function known(names: string[]): string {
  return names.length > 12 ? `${names.slice(0, 12).join(', ')}, ...` : names.join(', ');
}

/** Indices of the chosen bones, in the recording's (depth-first) order. */
function chooseBones(rec: Recording, bones: string[] | undefined): number[] {
  const all = rec.bones.map((b) => b.name);
  if (bones === undefined) return all.map((_, i) => i);
  if (!Array.isArray(bones) || bones.length === 0) throw new Error('recordingToClip: bones: expected a non-empty list of bone names');
  const chosen = new Set<number>();
  for (const name of bones) {
    const i = all.indexOf(name);
    if (i < 0) throw new Error(`recordingToClip: bones: unknown bone "${name}" (known: ${known(all)})`);
    if (chosen.has(i)) throw new Error(`recordingToClip: bones: "${name}" is listed twice`);
    chosen.add(i);
  }
  return [...chosen].sort((a, b) => a - b);
}

function chooseRange(rec: Recording, range: [number, number] | undefined): [number, number] {
  if (rec.frameCount === 0) throw new Error(`recordingToClip: the recording of "${rec.rig}" has no frames`);
  if (range === undefined) return [0, rec.frameCount - 1];
  const [a, b] = Array.isArray(range) ? range : [NaN, NaN];
  if (!(Array.isArray(range) && range.length === 2 && Number.isInteger(a) && Number.isInteger(b) && a! >= 0 && a! <= b! && b! < rec.frameCount)) {
    throw new Error(`recordingToClip: range: expected [start, end] with 0 <= start <= end <= ${rec.frameCount - 1} (whole frames), got ${JSON.stringify(range)}`);
  }
  return [a!, b!];
}

/** Angle (radians) between the rotations of unit quaternions p[i..] and q[j..], sign-blind and accurate near 0. */
function angleBetween(p: ArrayLike<number>, i: number, q: ArrayLike<number>, j: number): number {
  const dot = p[i]! * q[j]! + p[i + 1]! * q[j + 1]! + p[i + 2]! * q[j + 2]! + p[i + 3]! * q[j + 3]!;
  const s = dot < 0 ? -1 : 1;
  let d2 = 0, s2 = 0;
  for (let k = 0; k < 4; k++) {
    const d = p[i + k]! - s * q[j + k]!, e = p[i + k]! + s * q[j + k]!;
    d2 += d * d; s2 += e * e;
  }
  return 4 * Math.atan2(Math.sqrt(d2), Math.sqrt(s2));
}

const mid = new Float64Array(4);
// three.js types slerpFlat for number[]; it reads and writes any array of numbers
const slerpFlat = Quaternion.slerpFlat as unknown as (dst: Float64Array, d: number, a: Float64Array, ao: number, b: Float64Array, bo: number, t: number) => void;

/** Which of the m keys (quaternions in `keys`, uniform times) to keep under `tol` radians. */
export function reduceQuaternionKeys(keys: Float64Array, m: number, tol: number): Uint8Array {
  const keep = new Uint8Array(m);
  keep[0] = 1; keep[m - 1] = 1;
  const stack: number[] = m > 2 ? [0, m - 1] : [];
  while (stack.length) {
    const b = stack.pop()!, a = stack.pop()!;
    let worst = -1, worstErr = -1;
    for (let i = a + 1; i < b; i++) {
      slerpFlat(mid, 0, keys, a * 4, keys, b * 4, (i - a) / (b - a));
      const err = angleBetween(mid, 0, keys, i * 4);
      if (err > worstErr) { worstErr = err; worst = i; }
    }
    if (worst >= 0 && worstErr > tol) {
      keep[worst] = 1;
      stack.push(a, worst, worst, b);
    }
  }
  return keep;
}

/** The recording (or a range and a set of its bones) as a three.js AnimationClip named after the rig. */
export function recordingToClip(rec: Recording, options: ClipOptions = {}): AnimationClip {
  const chosen = chooseBones(rec, options.bones);
  const [start, end] = chooseRange(rec, options.range);
  let tol = -1;
  if (options.reduce !== undefined) {
    const deg = options.reduce?.maxAngleDeg;
    if (typeof deg !== 'number' || !Number.isFinite(deg) || deg < 0) {
      throw new Error(`recordingToClip: reduce.maxAngleDeg: expected a finite number of degrees >= 0, got ${deg}`);
    }
    tol = (deg * Math.PI) / 180;
  }
  const names = new Map<string, string>();
  for (const i of chosen) {
    const bone = rec.bones[i]!.name, node = trackNodeName(bone);
    const clash = names.get(node);
    if (clash !== undefined || node === '') {
      throw new Error(`recordingToClip: bones "${clash ?? bone}" and "${bone}" would address the same node "${node}" (three.js removes spaces and []./: from node names)`);
    }
    names.set(node, bone);
  }

  const m = end - start + 1;
  const times = new Float64Array(m);
  for (let k = 0; k < m; k++) times[k] = k / rec.fps;
  const keys = new Float64Array(m * 4);
  const tracks: (QuaternionKeyframeTrack | VectorKeyframeTrack)[] = [];
  for (const i of chosen) {
    for (let k = 0; k < m; k++) {
      localRotation(rec, start + k, i, keys, k * 4);
      // continuous signs, so interpolation between keys takes the short way in any player
      if (k > 0 && keys[k * 4]! * keys[k * 4 - 4]! + keys[k * 4 + 1]! * keys[k * 4 - 3]! + keys[k * 4 + 2]! * keys[k * 4 - 2]! + keys[k * 4 + 3]! * keys[k * 4 - 1]! < 0) {
        for (let c = 0; c < 4; c++) keys[k * 4 + c] = -keys[k * 4 + c]!;
      }
    }
    const keep = tol >= 0 ? reduceQuaternionKeys(keys, m, tol) : undefined;
    const kept = keep ? keep.reduce((s, v) => s + v, 0) : m;
    const t = new Float32Array(kept), v = new Float32Array(kept * 4);
    for (let k = 0, j = 0; k < m; k++) {
      if (keep && !keep[k]) continue;
      t[j] = times[k]!;
      for (let c = 0; c < 4; c++) v[j * 4 + c] = keys[k * 4 + c]!;
      j++;
    }
    const node = trackNodeName(rec.bones[i]!.name);
    tracks.push(new QuaternionKeyframeTrack(`${node}.quaternion`, t, v));
    if (rec.bones[i]!.parent < 0) {
      const p = new Float32Array(m * 3);
      const n = rec.bones.length;
      for (let k = 0; k < m; k++) for (let c = 0; c < 3; c++) p[k * 3 + c] = rec.heads[((start + k) * n + i) * 3 + c]!;
      tracks.push(new VectorKeyframeTrack(`${node}.position`, Float32Array.from(times), p));
    }
  }
  return new AnimationClip(rec.rig, (end - start) / rec.fps, tracks);
}
