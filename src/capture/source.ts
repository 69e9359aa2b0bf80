/**
 * An animation clip as the capture reads it: a skeleton of joints (names, parents) and, per
 * frame, every joint's world position and world rotation in the file's own axes and units,
 * beside the rest pose. Three sources:
 *
 * - BVH: the MOTION section (one frame per line, the file's frame time). A joint's local
 *   rotation is the product of its rotation channels in the order the file lists them (as
 *   three.js's BVHLoader and every BVH writer read them); position channels are added to the
 *   OFFSET (BVHLoader's reading). The rest pose is the HIERARCHY's: offsets, no rotation.
 * - glTF / GLB: one of its animations (gltfMotion.ts, which needs three.js).
 * - A physik recording of a rig (JSON or in memory): its bones' heads and world rotations.
 *
 * Each source also says which rig bone carries each joint when it comes with the importer's
 * mapping (`bone`), so the clip binds to the rig the importer made from the same file.
 * Limits: a glTF's morph-target weights and a node's non-uniform scale are not motion here
 * (positions still follow from the full transforms).
 */
import { parseBvh, importBvh, type BvhChannelName } from '../io/bvhImport';
import { ImportError } from '../io/skeleton';
import type { Recording } from '../io/recording';
import { quatMul as mul } from '../math/quat';

export interface SourceJoint {
  name: string;
  /** Index of the parent joint (always smaller: parents come first), -1 for the root. */
  parent: number;
  /** The rig bone carrying this joint, when the importer's mapping is known. */
  bone?: string;
}

export interface SourceMotion {
  /** Clip name (the file's base name, or the glTF animation's name). */
  name: string;
  joints: SourceJoint[];
  fps: number;
  frameCount: number;
  /** World position of every joint: frameCount × joints × 3 (file axes and units). */
  positions: Float64Array;
  /** World rotation of every joint, x, y, z, w: frameCount × joints × 4. */
  rotations: Float64Array;
  restPositions: Float64Array;
  restRotations: Float64Array;
  /** What a user should know about the reading (resampling, skipped channels). */
  notes: string[];
}

/** Most frames a clip may have (a 10-minute take at 240 Hz). */
export const MAX_CLIP_FRAMES = 144_000;

const DEG = Math.PI / 180;

export function emptyMotion(name: string, joints: SourceJoint[], fps: number, frameCount: number): SourceMotion {
  const n = joints.length;
  return {
    name, joints, fps, frameCount,
    positions: new Float64Array(frameCount * n * 3),
    rotations: new Float64Array(frameCount * n * 4),
    restPositions: new Float64Array(n * 3),
    restRotations: new Float64Array(n * 4),
    notes: [],
  };
}


/** out[o] = q · v (rotate), v given as three numbers. */
function rotate(out: Float64Array, o: number, q: ArrayLike<number>, qo: number, vx: number, vy: number, vz: number): void {
  const x = q[qo]!, y = q[qo + 1]!, z = q[qo + 2]!, w = q[qo + 3]!;
  const tx = 2 * (y * vz - z * vy), ty = 2 * (z * vx - x * vz), tz = 2 * (x * vy - y * vx);
  out[o] = vx + w * tx + (y * tz - z * ty);
  out[o + 1] = vy + w * ty + (z * tx - x * tz);
  out[o + 2] = vz + w * tz + (x * ty - y * tx);
}

/**
 * A BVH file's motion. The joints carry the rig names and bones `importBvh` gives the same
 * text, so the clip binds to the rig imported from it. Throws ImportError (file and line) on a
 * malformed file or one without MOTION.
 */
export function motionFromBvh(text: string, file?: string): SourceMotion {
  const parsed = parseBvh(text, file);
  const imported = importBvh(text, file, { motion: false });
  const motion = parsed.motion;
  if (!motion || motion.frames.length === 0) throw new ImportError(file, 'no MOTION frames: nothing to capture');
  if (!(motion.frameTime > 0)) throw new ImportError(file, `Frame Time ${motion.frameTime}: expected a positive number of seconds`);
  if (motion.frames.length > MAX_CLIP_FRAMES) throw new ImportError(file, `${motion.frames.length} frames: more than the ${MAX_CLIP_FRAMES} a clip may have`);
  const J = parsed.joints;
  const n = J.length;
  const joints: SourceJoint[] = J.map((j, i) => ({ name: imported.joints[i]!.name, parent: j.parent, bone: imported.joints[i]!.bone }));
  const F = motion.frames.length;
  const out = emptyMotion(imported.scene.rig.name, joints, 1 / motion.frameTime, F);
  for (let i = 0; i < n; i++) {
    const p = J[i]!.position;
    out.restPositions[i * 3] = p[0]; out.restPositions[i * 3 + 1] = p[1]; out.restPositions[i * 3 + 2] = p[2];
    out.restRotations[i * 4 + 3] = 1;
  }
  // per joint: where its channels start in a frame
  const first = new Int32Array(n);
  for (let i = 0, c = 0; i < n; i++) { first[i] = c; c += J[i]!.channels.length; }
  const local = new Float64Array(4), axis = new Float64Array(4);
  for (let f = 0; f < F; f++) {
    const values = motion.frames[f]!;
    for (let i = 0; i < n; i++) {
      const j = J[i]!;
      let tx = j.offset[0], ty = j.offset[1], tz = j.offset[2];
      local[0] = 0; local[1] = 0; local[2] = 0; local[3] = 1;
      for (let c = 0; c < j.channels.length; c++) {
        const v = values[first[i]! + c]!;
        const ch: BvhChannelName = j.channels[c]!;
        if (ch === 'Xposition') tx += v;
        else if (ch === 'Yposition') ty += v;
        else if (ch === 'Zposition') tz += v;
        else {
          const h = 0.5 * v * DEG, s = Math.sin(h);
          axis[0] = ch === 'Xrotation' ? s : 0; axis[1] = ch === 'Yrotation' ? s : 0; axis[2] = ch === 'Zrotation' ? s : 0; axis[3] = Math.cos(h);
          mul(local, 0, local, 0, axis, 0);
        }
      }
      const q = (f * n + i) * 4, o = (f * n + i) * 3;
      if (j.parent < 0) {
        out.rotations.set(local, q);
        out.positions[o] = tx; out.positions[o + 1] = ty; out.positions[o + 2] = tz;
      } else {
        const pq = (f * n + j.parent) * 4, po = (f * n + j.parent) * 3;
        mul(out.rotations, q, out.rotations, pq, local, 0);
        rotate(out.positions, o, out.rotations, pq, tx, ty, tz);
        out.positions[o] = out.positions[o]! + out.positions[po]!;
        out.positions[o + 1] = out.positions[o + 1]! + out.positions[po + 1]!;
        out.positions[o + 2] = out.positions[o + 2]! + out.positions[po + 2]!;
      }
    }
  }
  return out;
}

/** Largest turn (radians) of any joint from frame a to frame b. */
function largestTurn(m: SourceMotion, a: number, b: number): number {
  const n = m.joints.length, R = m.rotations;
  let worst = 0;
  for (let j = 0; j < n; j++) {
    const p = (a * n + j) * 4, q = (b * n + j) * 4;
    const d = Math.abs(R[p]! * R[q]! + R[p + 1]! * R[q + 1]! + R[p + 2]! * R[q + 2]! + R[p + 3]! * R[q + 3]!);
    worst = Math.max(worst, 2 * Math.acos(Math.min(1, d)));
  }
  return worst;
}

/**
 * Many motion-capture files (the CMU conversions among them) start with a reference pose, not a
 * frame of the take: frame 0 is the skeleton at rest and frame 1 the first pose, a jump no
 * performer makes in a frame. Played, the jump is a turn of tens of degrees in one step (an
 * angular velocity of hundreds of rad/s to start from). When frame 0 → 1 turns some joint more
 * than 10° and more than 8 times the largest turn between any two later frames, frame 0 is
 * dropped (said in `notes`). Returns the motion (a new one when a frame was dropped).
 */
export function dropReferenceFrame(m: SourceMotion): SourceMotion {
  if (m.frameCount < 3) return m;
  const first = largestTurn(m, 0, 1);
  let later = 0;
  for (let f = 1; f + 1 < m.frameCount; f++) later = Math.max(later, largestTurn(m, f, f + 1));
  if (!(first > 10 * DEG && first > 8 * later)) return m;
  const n = m.joints.length, F = m.frameCount - 1;
  return {
    ...m,
    frameCount: F,
    positions: m.positions.slice(n * 3),
    rotations: m.rotations.slice(n * 4),
    notes: [...m.notes, `frame 0 is a reference pose (a joint turns ${(first / DEG).toFixed(1)}° to frame 1, at most ${(later / DEG).toFixed(1)}° between later frames): captured from frame 1`],
  };
}

/** A physik recording as a clip: its bones are the joints, carried by the bones of the same name. */
export function motionFromRecording(rec: Recording): SourceMotion {
  if (rec.frameCount < 1) throw new Error(`recording of "${rec.rig}": no frames to capture`);
  const joints: SourceJoint[] = rec.bones.map((b) => ({ name: b.name, parent: b.parent, bone: b.name }));
  const n = joints.length, F = rec.frameCount;
  const out = emptyMotion(rec.rig, joints, rec.fps, F);
  out.positions.set(rec.heads.subarray(0, F * n * 3));
  out.rotations.set(rec.rotations.subarray(0, F * n * 4));
  rec.bones.forEach((b, i) => {
    out.restPositions.set(b.restHead, i * 3);
    out.restRotations.set(b.restWorld, i * 4);
  });
  return out;
}
