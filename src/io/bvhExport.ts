/**
 * BVH (Biovision hierarchy) writer for a `Recording`: HIERARCHY plus MOTION, readable by
 * three.js's BVHLoader, Blender and most motion-capture tools. three.js has a BVH reader but
 * no writer, so this is ours.
 *
 * What the file holds and why:
 * - BVH's rest pose has identity joint rotations with every OFFSET in world axes. Our bones
 *   have rest rotations, so each joint's OFFSET is its rest head minus its parent's rest head
 *   (world axes), and each leaf bone gets an End Site at its rest tail.
 * - A joint's channels hold its rotation relative to the rest pose, relative to its parent:
 *   with D = R_world(f) · restWorld⁻¹ (the bone's world delta from rest), a joint writes
 *   D_parent⁻¹ · D. Angles are degrees in the stated channel order, composed as BVHLoader
 *   does (and as BVH means it): the channel listed first is the outermost rotation, so
 *   "Zrotation Xrotation Yrotation" is R = Rz · Rx · Ry (intrinsic Z, then X, then Y).
 * - The root has 6 channels: Xposition Yposition Zposition, then its 3 rotations. Its OFFSET
 *   is 0 0 0 and its position channels hold the absolute root head, because readers disagree
 *   on what a non-zero root OFFSET means (three.js adds it to the channels, Blender subtracts
 *   it from them); with a zero OFFSET both agree.
 * - Frame Time is 1 / fps: BVH has one frame interval, so frames are written as recorded and
 *   a recording's own `times` are not kept.
 *
 * Limits: one root; joint names lose whitespace and braces (replaced by '_', made unique);
 * indentation stops growing at 32 levels (so a 10,000-joint chain is not mostly spaces);
 * the rest rotations (bone roll) and bone lengths of non-leaf bones are not representable in
 * BVH (only the head positions are); the root's rest head is not in the HIERARCHY (OFFSET 0),
 * only in the motion. BVH has no comment syntax (three.js's reader wants HIERARCHY on the
 * first line, Blender's reads every line after Frame Time as a frame), so the channel order
 * is stated where BVH states it, in every CHANNELS line, and nowhere else in the file.
 */
import type { Recording } from './recording';

export type BvhChannelOrder = 'XYZ' | 'XZY' | 'YXZ' | 'YZX' | 'ZXY' | 'ZYX';

export const BVH_CHANNEL_ORDERS: readonly BvhChannelOrder[] = ['XYZ', 'XZY', 'YXZ', 'YZX', 'ZXY', 'ZYX'];

/** Deepest indentation written (levels of two spaces); deeper joints are indented as this. */
const MAX_INDENT = 32;

export interface BvhExportOptions {
  /** Rotation channel order, outermost first (default 'ZXY', the common mocap order). */
  channelOrder?: BvhChannelOrder;
  /** Multiplies every length: OFFSETs, End Sites, root positions (default 1). */
  scale?: number;
  /** Digits after the decimal point (default 6: ≤ 5e-7° per angle). Never exponent notation. */
  precision?: number;
}

/**
 * Throw a clear error if the recording cannot be exported: nothing recorded, arrays shorter
 * than the frame count, or a non-finite or zero rotation, head or time (naming frame and bone).
 */
export function assertExportable(rec: Recording): void {
  const n = rec.bones.length;
  const frames = rec.frameCount;
  if (!(frames > 0) || n === 0) throw new Error(`nothing recorded: the recording of "${rec.rig}" has ${frames | 0} frames and ${n} bones`);
  if (!(Number.isFinite(rec.fps) && rec.fps > 0)) throw new Error(`recording of "${rec.rig}": fps must be a positive number, got ${rec.fps}`);
  if (rec.rotations.length < frames * n * 4 || rec.heads.length < frames * n * 3 || rec.times.length < frames) {
    throw new Error(`recording of "${rec.rig}" is truncated: ${frames} frames × ${n} bones need ${frames * n * 4} rotation values, it has ${rec.rotations.length}`);
  }
  rec.bones.forEach((b, i) => {
    const rest = [...b.offset, ...b.restLocal, ...b.restWorld, ...b.restHead, b.length];
    if (!rest.every(Number.isFinite)) throw new Error(`recording of "${rec.rig}": bone "${b.name}" has a non-finite rest pose`);
    if (b.parent >= i || b.parent < -1 || (b.parent === -1) !== (i === 0)) {
      throw new Error(`recording of "${rec.rig}": bone "${b.name}" has parent index ${b.parent}; bones must be depth-first with one root first`);
    }
  });
  for (let f = 0; f < frames; f++) {
    if (!Number.isFinite(rec.times[f]!)) throw new Error(`recording of "${rec.rig}": frame ${f} has time ${rec.times[f]}`);
    for (let i = 0; i < n; i++) {
      const r = (f * n + i) * 4, h = (f * n + i) * 3;
      const q = rec.rotations;
      const norm2 = q[r]! ** 2 + q[r + 1]! ** 2 + q[r + 2]! ** 2 + q[r + 3]! ** 2;
      if (!Number.isFinite(norm2) || norm2 < 1e-12) {
        throw new Error(`recording of "${rec.rig}": frame ${f}, bone "${rec.bones[i]!.name}": rotation is not a finite, non-zero quaternion (${Array.from(q.subarray(r, r + 4)).join(', ')})`);
      }
      if (!(Number.isFinite(rec.heads[h]!) && Number.isFinite(rec.heads[h + 1]!) && Number.isFinite(rec.heads[h + 2]!))) {
        throw new Error(`recording of "${rec.rig}": frame ${f}, bone "${rec.bones[i]!.name}": head is not finite (${Array.from(rec.heads.subarray(h, h + 3)).join(', ')})`);
      }
    }
  }
}

/** BVH text (HIERARCHY + MOTION) of a recording. See the header for the conventions. */
export function recordingToBvh(rec: Recording, options: BvhExportOptions = {}): string {
  const order = options.channelOrder ?? 'ZXY';
  const scale = options.scale ?? 1;
  const digits = options.precision ?? 6;
  if (!BVH_CHANNEL_ORDERS.includes(order)) throw new Error(`channelOrder must be one of ${BVH_CHANNEL_ORDERS.join(', ')}, got "${order}"`);
  if (!(Number.isFinite(scale) && scale > 0)) throw new Error(`scale must be a positive number, got ${scale}`);
  if (!(Number.isInteger(digits) && digits >= 0 && digits <= 15)) throw new Error(`precision must be an integer number of decimals in [0, 15], got ${digits}`);
  assertExportable(rec);

  const fmt = (x: number): string => {
    const s = x.toFixed(digits);
    // "-0.000000" reads oddly and some parsers choke on it
    return /^-0(\.0*)?$/.test(s) ? s.slice(1) : s;
  };
  const bones = rec.bones;
  const n = bones.length;
  const names = bvhJointNames(bones.map((b) => b.name));
  const children: number[][] = bones.map(() => []);
  bones.forEach((b, i) => { if (b.parent >= 0) children[b.parent]!.push(i); });
  const rotChannels = order.split('').map((a) => `${a}rotation`).join(' ');

  // ---- HIERARCHY, depth first with an explicit stack (a 10,000-bone chain is 10,000 levels);
  // `dfs` collects the joints in the order written, which MOTION follows
  const out: string[] = ['HIERARCHY'];
  const dfs: number[] = [];
  const stack: number[] = [0, 0]; // pairs: bone, depth (a negative depth closes the bone)
  while (stack.length) {
    const depth = stack.pop()!, i = stack.pop()!;
    const close = depth < 0;
    // indentation is for people reading the file: past MAX_INDENT levels it stops growing, so
    // a deep chain's text stays linear in its bones instead of quadratic
    const pad = '  '.repeat(Math.min(close ? -depth - 1 : depth, MAX_INDENT));
    const b = bones[i]!;
    if (close) {
      if (children[i]!.length === 0) {
        const tail = rotateVec(b.restWorld, 0, b.length, 0);
        out.push(`${pad}  End Site`, `${pad}  {`, `${pad}    OFFSET ${tail.map((v) => fmt(v * scale)).join(' ')}`, `${pad}  }`);
      }
      out.push(`${pad}}`);
      continue;
    }
    dfs.push(i);
    const p = b.parent;
    const off = p < 0 ? [0, 0, 0] : [0, 1, 2].map((k) => b.restHead[k]! - bones[p]!.restHead[k]!);
    out.push(`${pad}${p < 0 ? 'ROOT' : 'JOINT'} ${names[i]}`, `${pad}{`);
    out.push(`${pad}  OFFSET ${off.map((v) => fmt(v * scale)).join(' ')}`);
    out.push(`${pad}  CHANNELS ${p < 0 ? `6 Xposition Yposition Zposition ${rotChannels}` : `3 ${rotChannels}`}`);
    stack.push(i, -depth - 1);
    const kids = children[i]!;
    for (let k = kids.length - 1; k >= 0; k--) stack.push(kids[k]!, depth + 1);
  }

  // ---- MOTION: channel values in the HIERARCHY's (depth-first) order
  out.push('MOTION', `Frames: ${rec.frameCount}`, `Frame Time: ${(1 / rec.fps).toFixed(Math.max(digits, 8))}`);
  const delta = new Float64Array(n * 4);
  const local = [0, 0, 0, 0];
  const euler = [0, 0, 0];
  const prev = new Float64Array(n * 3);
  const row: string[] = [];
  for (let f = 0; f < rec.frameCount; f++) {
    row.length = 0;
    // world deltas from rest: D = R · restWorld⁻¹
    for (let i = 0; i < n; i++) {
      const c = (f * n + i) * 4;
      const rw = bones[i]!.restWorld;
      mulConjB(delta, i * 4, rec.rotations, c, rw);
    }
    for (const i of dfs) {
      const p = bones[i]!.parent;
      if (p < 0) {
        const h = (f * n + i) * 3;
        row.push(fmt(rec.heads[h]! * scale), fmt(rec.heads[h + 1]! * scale), fmt(rec.heads[h + 2]! * scale));
        for (let k = 0; k < 4; k++) local[k] = delta[i * 4 + k]!;
      } else {
        conjMul(local, delta, p * 4, delta, i * 4);
      }
      quatToEuler(local, order, euler);
      if (f > 0) continuousEuler(euler, prev, i * 3);
      for (let k = 0; k < 3; k++) {
        prev[i * 3 + k] = euler[k]!;
        row.push(fmt((euler[k]! * 180) / Math.PI));
      }
    }
    out.push(row.join(' '));
  }
  return out.join('\n') + '\n';
}

/**
 * BVH joint names: whitespace and braces (which would split or end a line's tokens) become
 * '_', empty names become "joint", and repeats get a suffix _2, _3… so every name is unique.
 */
export function bvhJointNames(names: readonly string[]): string[] {
  const used = new Set<string>();
  const nextSuffix = new Map<string, number>(); // per base, where to resume: every smaller suffix is taken
  return names.map((name) => {
    const base = name.replace(/[\s{}]/g, '_') || 'joint';
    let candidate = base;
    if (used.has(candidate)) {
      let k = nextSuffix.get(base) ?? 2;
      while (used.has(`${base}_${k}`)) k++;
      candidate = `${base}_${k}`;
      nextSuffix.set(base, k + 1);
    }
    used.add(candidate);
    return candidate;
  });
}

const AXIS: Record<string, number> = { X: 0, Y: 1, Z: 2 };

/**
 * Euler angles (radians) of unit quaternion q for R = R_i(a) · R_j(b) · R_k(c), where order
 * = "ijk" names the axes outermost first (BVHLoader multiplies the channels left to right).
 * Accurate to rounding error for every rotation, gimbal lock included (see below).
 */
export function quatToEuler(q: ArrayLike<number>, order: BvhChannelOrder, out: number[]): void {
  const m = quatMatrix(q);
  const i = AXIS[order[0]!]!, j = AXIS[order[1]!]!, k = AXIS[order[2]!]!;
  // +1 for the cyclic orders XYZ, YZX, ZXY; −1 for the others
  const s = (j - i + 3) % 3 === 1 ? 1 : -1;
  const at = (r: number, c: number) => m[r * 3 + c]!;
  // the middle angle from row i (untouched by the outer rotation), by atan2
  out[1] = Math.atan2(s * at(i, k), Math.hypot(at(i, i), at(i, j)));
  const a = Math.atan2(-s * at(j, k), at(k, k));
  out[0] = a;
  // the inner angle from R_i(a)ᵀ·M rather than from M alone: near gimbal lock (middle angle
  // near ±90°) a is ill-conditioned, and taking c from what is left after a keeps a and c
  // consistent, so the rotation still comes back to rounding error
  const ca = Math.cos(a), sa = s * Math.sin(a);
  out[2] = Math.atan2(s * (ca * at(j, i) + sa * at(k, i)), ca * at(j, j) + sa * at(k, j));
}

/**
 * Make angles (a, b, c) continuous with the previous frame's: of the two Euler triples of the
 * same rotation, (a, b, c) and (a + π, π − b, c + π), each shifted by whole turns towards the
 * previous frame, keep the nearer. Readers that interpolate Euler channels then never spin
 * the long way round between frames; the rotation written is unchanged.
 */
export function continuousEuler(e: number[], prev: Float64Array, o: number): void {
  const TWO_PI = 2 * Math.PI;
  const near = (x: number, ref: number) => x + TWO_PI * Math.round((ref - x) / TWO_PI);
  const a0 = near(e[0]!, prev[o]!), b0 = near(e[1]!, prev[o + 1]!), c0 = near(e[2]!, prev[o + 2]!);
  const a1 = near(e[0]! + Math.PI, prev[o]!), b1 = near(Math.PI - e[1]!, prev[o + 1]!), c1 = near(e[2]! + Math.PI, prev[o + 2]!);
  const d0 = Math.abs(a0 - prev[o]!) + Math.abs(b0 - prev[o + 1]!) + Math.abs(c0 - prev[o + 2]!);
  const d1 = Math.abs(a1 - prev[o]!) + Math.abs(b1 - prev[o + 1]!) + Math.abs(c1 - prev[o + 2]!);
  if (d1 < d0) { e[0] = a1; e[1] = b1; e[2] = c1; } else { e[0] = a0; e[1] = b0; e[2] = c0; }
}

/** Row-major 3×3 rotation matrix of (x, y, z, w), normalised on the way. */
function quatMatrix(q: ArrayLike<number>): number[] {
  const len = Math.hypot(q[0]!, q[1]!, q[2]!, q[3]!);
  const x = q[0]! / len, y = q[1]! / len, z = q[2]! / len, w = q[3]! / len;
  return [
    1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w),
    2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
    2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y),
  ];
}

/** out[o..] = a[ao..] · conj(b). */
function mulConjB(out: Float64Array, o: number, a: ArrayLike<number>, ao: number, b: ArrayLike<number>): void {
  const ax = a[ao]!, ay = a[ao + 1]!, az = a[ao + 2]!, aw = a[ao + 3]!;
  const bx = -b[0]!, by = -b[1]!, bz = -b[2]!, bw = b[3]!;
  out[o] = aw * bx + ax * bw + ay * bz - az * by;
  out[o + 1] = aw * by - ax * bz + ay * bw + az * bx;
  out[o + 2] = aw * bz + ax * by - ay * bx + az * bw;
  out[o + 3] = aw * bw - ax * bx - ay * by - az * bz;
}

/** out = conj(a[ao..]) · b[bo..]. */
function conjMul(out: number[], a: ArrayLike<number>, ao: number, b: ArrayLike<number>, bo: number): void {
  const ax = -a[ao]!, ay = -a[ao + 1]!, az = -a[ao + 2]!, aw = a[ao + 3]!;
  const bx = b[bo]!, by = b[bo + 1]!, bz = b[bo + 2]!, bw = b[bo + 3]!;
  out[0] = aw * bx + ax * bw + ay * bz - az * by;
  out[1] = aw * by - ax * bz + ay * bw + az * bx;
  out[2] = aw * bz + ax * by - ay * bx + az * bw;
  out[3] = aw * bw - ax * bx - ay * by - az * bz;
}

function rotateVec(q: ArrayLike<number>, vx: number, vy: number, vz: number): [number, number, number] {
  const x = q[0]!, y = q[1]!, z = q[2]!, w = q[3]!;
  const tx = 2 * (y * vz - z * vy), ty = 2 * (z * vx - x * vz), tz = 2 * (x * vy - y * vx);
  return [vx + w * tx + (y * tz - z * ty), vy + w * ty + (z * tx - x * tz), vz + w * tz + (x * ty - y * tx)];
}
