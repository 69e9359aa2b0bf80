/**
 * A recording back onto the BVH file its rig was imported from: the source's HIERARCHY
 * copied as written (joint names, nesting, OFFSETs, every joint's CHANNELS with their order,
 * End Sites), then a MOTION section with the source's Frame Time and the recording's frames
 * resampled to it, each joint's values in its own channel order. A tool that read the source
 * reads the result the same way, with the recorded motion on it.
 *
 * The values, exactly. The import (bvhImport.ts) keeps one bone per joint with the joints
 * where the file has them, so bone i turned from rest by D = R·R₀⁻¹ (R its recorded world
 * rotation, R₀ its rest one) is joint i turned by D; BVH's rest pose has every joint
 * unrotated with its OFFSET in the parent's axes, so joint i's rotation channels hold
 * D_parent⁻¹·D (in the file's axes: a Z-up file's D is turned back from the rig's Y-up),
 * as Euler angles in degrees in the joint's channel order, the first listed the outermost
 * (as BVHLoader and Blender read them), each angle kept continuous with the previous frame.
 * The root's position channels hold its recorded head, in the file's axes and units, minus
 * its OFFSET (three.js's BVHLoader adds the OFFSET to them; for the usual zero root OFFSET
 * every reader agrees); other joints' position channels keep the source's first frame (their
 * joints do not move against their parents).
 *
 * Frames: at the source's frame time from the recording's first frame to its last (a 30 fps
 * recording written onto a 120 fps capture has four frames per recorded one), each the
 * recording between its two nearest frames (rotations by slerp, the root head linearly).
 *
 * Limits: one skeleton per file (as the importer); the recording's bones must be the imported
 * rig's (matched by the names `importBvh` gave the joints).
 */
import { jointsToRig } from './skeleton';
import { parseBvh, type BvhImportOptions, type BvhChannelName } from './bvhImport';
import { assertExportable, continuousEuler, quatToEuler, type BvhChannelOrder } from './bvhExport';
import { ImportError } from './skeleton';
import type { Recording } from './recording';

export interface SourceBvhOptions {
  /** The options the rig was imported with (up, scale), as given to `importBvh`. */
  importOptions?: BvhImportOptions;
  /** Digits after the decimal point (default 6). */
  precision?: number;
  /** File name for error messages. */
  file?: string;
}

type Q = [number, number, number, number];
const qmul = (a: Q, b: Q): Q => [
  a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
  a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
  a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
  a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
];
const conj = (a: Q): Q => [-a[0], -a[1], -a[2], a[3]];
/** The import's Z-up to Y-up rotation, (x, y, z) → (x, z, −y). */
const UP: Q = [-Math.SQRT1_2, 0, 0, Math.SQRT1_2];

/** Slerp of unit quaternions a, b (the short way). */
function slerp(a: Q, b: Q, t: number): Q {
  let d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
  const s = d < 0 ? -1 : 1;
  d *= s;
  if (d > 0.9995) {
    const q: Q = [0, 1, 2, 3].map((k) => a[k]! + t * (s * b[k]! - a[k]!)) as Q;
    const l = Math.hypot(...q);
    return q.map((x) => x / l) as Q;
  }
  const th = Math.acos(d), sn = Math.sin(th);
  const wa = Math.sin((1 - t) * th) / sn, wb = (s * Math.sin(t * th)) / sn;
  return [0, 1, 2, 3].map((k) => wa * a[k]! + wb * b[k]!) as Q;
}

/** The source BVH's HIERARCHY with the recording as its MOTION. */
export function recordingToSourceBvh(source: string, rec: Recording, options: SourceBvhOptions = {}): string {
  assertExportable(rec);
  const file = options.file;
  const digits = options.precision ?? 6;
  if (!(Number.isInteger(digits) && digits >= 0 && digits <= 15)) throw new Error(`precision must be an integer number of decimals in [0, 15], got ${digits}`);
  const parsed = parseBvh(source, file);
  const io = options.importOptions ?? {};
  const conv = jointsToRig(parsed.joints, { up: 'auto', ...io, file });
  const scale = io.scale ?? 1;
  const zUp = conv.up === 'z';
  const joints = parsed.joints;
  const n = joints.length;
  const boneIndex = new Map(rec.bones.map((b, i) => [b.name, i]));
  const boneOf = conv.jointNames.map((name) => {
    const i = boneIndex.get(name);
    if (i === undefined) throw new Error(`recording of "${rec.rig}" has no bone "${name}" (a joint of ${file ?? 'the source BVH'}): export onto the file the rig was imported from`);
    return i;
  });
  const head = /^[ \t]*MOTION\b/im.exec(source);
  const hierarchy = (head ? source.slice(0, head.index) : source).replace(/^\uFEFF/, '').replace(/\s+$/, '');
  const timeText = /^\s*Frame\s*Time\s*:?\s*(\S+)\s*$/im.exec(head ? source.slice(head.index) : '')?.[1];
  const frameTime = parsed.motion?.frameTime ?? 1 / rec.fps;
  const firstFrame = parsed.motion?.frames[0];

  const fmt = (x: number): string => {
    const s = x.toFixed(digits);
    return /^-0(\.0*)?$/.test(s) ? s.slice(1) : s;
  };
  // per joint: its rotation order and where each channel's value comes from
  const orders = joints.map((j) => j.channels.filter((c) => c.endsWith('rotation')).map((c) => c[0]).join('') as BvhChannelOrder);
  const chanStart: number[] = [];
  let width = 0;
  for (const j of joints) { chanStart.push(width); width += j.channels.length; }

  const duration = (rec.frameCount - 1) / rec.fps;
  const count = Math.floor(duration / frameTime + 1e-9) + 1;
  const m = rec.bones.length;
  const world: Q[] = new Array(n);
  const delta: Q[] = new Array(n);
  const euler = [0, 0, 0];
  const prev = new Float64Array(n * 3);
  const lines: string[] = [];
  for (let k = 0; k < count; k++) {
    const u = Math.min(k * frameTime * rec.fps, rec.frameCount - 1);
    const f0 = Math.floor(u), f1 = Math.min(f0 + 1, rec.frameCount - 1), t = u - f0;
    for (let j = 0; j < n; j++) {
      const i = boneOf[j]!;
      const a = (f0 * m + i) * 4, b = (f1 * m + i) * 4;
      const ra: Q = [rec.rotations[a]!, rec.rotations[a + 1]!, rec.rotations[a + 2]!, rec.rotations[a + 3]!];
      const rb: Q = [rec.rotations[b]!, rec.rotations[b + 1]!, rec.rotations[b + 2]!, rec.rotations[b + 3]!];
      world[j] = t > 0 ? slerp(ra, rb, t) : ra;
      const d = qmul(world[j]!, conj(rec.bones[i]!.restWorld as Q));
      delta[j] = zUp ? qmul(conj(UP), qmul(d, UP)) : d;
    }
    const row = new Array<string>(width);
    for (let j = 0; j < n; j++) {
      const p = joints[j]!.parent;
      const local = p < 0 ? delta[j]! : qmul(conj(delta[p]!), delta[j]!);
      const chans = joints[j]!.channels;
      if (orders[j]!.length === 3) {
        quatToEuler(local, orders[j]!, euler);
        if (k > 0) continuousEuler(euler, prev, j * 3);
        for (let c = 0; c < 3; c++) prev[j * 3 + c] = euler[c]!;
      } else if (orders[j]!.length > 0) {
        throw new ImportError(file, `joint "${joints[j]!.name}" has ${orders[j]!.length} rotation channel(s); a recording is written onto joints with three or none`);
      }
      let r = 0;
      chans.forEach((c: BvhChannelName, ci) => {
        let v: number;
        if (c.endsWith('rotation')) v = (euler[r++]! * 180) / Math.PI;
        else if (p < 0) {
          const i = boneOf[j]!;
          const h0 = (f0 * m + i) * 3, h1 = (f1 * m + i) * 3;
          let x = 0, y = 0, z = 0;
          const hx = rec.heads[h0]! + t * (rec.heads[h1]! - rec.heads[h0]!);
          const hy = rec.heads[h0 + 1]! + t * (rec.heads[h1 + 1]! - rec.heads[h0 + 1]!);
          const hz = rec.heads[h0 + 2]! + t * (rec.heads[h1 + 2]! - rec.heads[h0 + 2]!);
          // back to the file's axes and units: the inverse of the import's (x, y, z) → (x, z, −y) and scale
          if (zUp) { x = hx; y = -hz; z = hy; } else { x = hx; y = hy; z = hz; }
          const off = joints[j]!.offset;
          v = c[0] === 'X' ? x / scale - off[0] : c[0] === 'Y' ? y / scale - off[1] : z / scale - off[2];
        } else v = firstFrame ? firstFrame[chanStart[j]! + ci]! : 0;
        row[chanStart[j]! + ci] = fmt(v);
      });
    }
    lines.push(row.join(' '));
  }
  return `${hierarchy}\nMOTION\nFrames: ${count}\nFrame Time: ${timeText ?? frameTime.toFixed(8)}\n${lines.join('\n')}\n`;
}
