/**
 * A rig's joint limits against the clip it plays. A template's ranges are typical human ones,
 * not the performer's: the CMU walk bends its elbows 36° out of the hinge plane the humanoid
 * template allows ±5° of, and turns its wrists 30° where the template allows 20°. Held to the
 * template, the limits would fight the clip wherever it goes past them, and a violation measured
 * against them would be the clip's own, not the physics'.
 *
 * So a capture widens a joint's limit to the clip's range when the clip itself goes past it
 * (`fitLimitsToClip`): on each limited axis, the clip's extent over all its frames, rounded out
 * to the whole degree, joins the limit. Every limit the clip keeps to stays as it was, so
 * physics still holds the free bones to the template; the widened ones are listed (bone, axis,
 * from, to) for the user to read, and detaching the clip puts the old limits back.
 *
 * The clip's angle is measured as the limits measure a joint (src/world/jointRotation.ts): the
 * rotation vector of the bone's rotation relative to its parent and its rest pose, in the joint
 * frame. A locked axis (limited to one angle: every axis of a weld, systems/welds.ts, two of a
 * hinge's, systems/hinges.ts) is not widened (the joint would stop being a weld or a hinge for
 * what is mostly a clip's noise); a clip turning one by more than 0.01° is reported in the notes
 * instead.
 */
import { getJointLimits, setJointLimits, type JointLimits, type LimitAxis, type PhysikWorld } from '../core';
import { findRig } from '../world/world';
import type { PoseTrack } from '../../components/PoseDrive';
import { quatMulConjA, quatToRotationVector } from '../math/quat';

/** A limit the clip went past, widened to the clip's range (degrees). */
export interface WidenedLimit {
  bone: string;
  axis: LimitAxis;
  from: [number, number];
  to: [number, number];
  /** How far the clip went past the old limit (degrees). */
  past: number;
}

export interface LimitFit {
  widened: WidenedLimit[];
  notes: string[];
  /** Puts back the limits as they were before the fit. */
  restore: () => void;
}

const AXES: readonly LimitAxis[] = ['x', 'y', 'z'];
const DEG = 180 / Math.PI;
/** The clip past a limit by less than this (degrees) is within it (rounding). */
const PAST = 0.01;

/** Per bone (depth-first index) and axis, the clip's least and largest joint angle over its frames (radians): lo and hi, 3 per bone. */
export function clipJointRanges(world: PhysikWorld, rig: number, track: PoseTrack): { lo: Float64Array; hi: Float64Array } {
  const record = findRig(world, rig);
  const { Bone } = world.physik;
  const n = record.bones.length;
  const lo = new Float64Array(n * 3).fill(Infinity), hi = new Float64Array(n * 3).fill(-Infinity);
  const q = new Float64Array(4), phi = new Float64Array(3);
  for (let i = 0; i < n; i++) {
    const b = record.bones[i]!;
    if (Bone.parent[b]! < 0) continue;
    for (let f = 0; f < track.frameCount; f++) {
      quatMulConjA(q, 0, Bone.restLocal, b * 4, track.local, (f * n + i) * 4);
      quatToRotationVector(phi, 0, q, 0);
      for (let a = 0; a < 3; a++) {
        if (phi[a]! < lo[i * 3 + a]!) lo[i * 3 + a] = phi[a]!;
        if (phi[a]! > hi[i * 3 + a]!) hi[i * 3 + a] = phi[a]!;
      }
    }
  }
  return { lo, hi };
}

/** Widen rig `rig`'s limits to the clip's range where the clip goes past them (see the header). */
export function fitLimitsToClip(world: PhysikWorld, rig: number, track: PoseTrack): LimitFit {
  const record = findRig(world, rig);
  const { Bone } = world.physik;
  const { lo, hi } = clipJointRanges(world, rig, track);
  const widened: WidenedLimit[] = [], notes: string[] = [];
  const before = new Map<string, JointLimits>();
  record.bones.forEach((b, i) => {
    if (Bone.parent[b]! < 0) return;
    const name = record.boneNames[i]!;
    const limits = getJointLimits(world, rig, name);
    const ranges = AXES.map((_, a) => [lo[i * 3 + a]! * DEG, hi[i * 3 + a]! * DEG] as const);
    // a locked axis ([a, a]: a weld's, or a hinge's other two) is not widened: that would make
    // the weld or hinge a joint of springs for a clip's fraction of a degree of noise
    const locked = AXES.map((axis) => Array.isArray(limits[axis]) && limits[axis][0] === limits[axis][1]);
    const patch: Partial<JointLimits> = {};
    AXES.forEach((axis, a) => {
      const l = limits[axis];
      if (!Array.isArray(l)) return;
      const [cLo, cHi] = ranges[a]!;
      const past = Math.max(l[0] - cLo, cHi - l[1]);
      if (!(past > PAST)) return;
      if (locked[a]) {
        notes.push(`the clip turns "${name}" ${past.toFixed(1)}° on its locked ${axis} axis (not widened)`);
        return;
      }
      const to: [number, number] = [Math.max(-180, Math.min(l[0], Math.floor(cLo))), Math.min(180, Math.max(l[1], Math.ceil(cHi)))];
      patch[axis] = to;
      widened.push({ bone: name, axis, from: [l[0], l[1]], to, past });
    });
    if (Object.keys(patch).length === 0) return;
    before.set(name, limits);
    setJointLimits(world, rig, name, patch);
  });
  return {
    widened,
    notes,
    restore: () => before.forEach((limits, name) => setJointLimits(world, rig, name, limits)),
  };
}

/** "LeftForeArm z [-5, 5] → [-5, 36]" for each widened limit. */
export function describeWidened(widened: readonly WidenedLimit[]): string[] {
  return widened.map((w) => `${w.bone} ${w.axis} [${w.from.join(', ')}] → [${w.to.join(', ')}] (the clip ${w.past.toFixed(1)}° past)`);
}
