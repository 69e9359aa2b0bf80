/**
 * The pose of every rig of a world in a SharedArrayBuffer, written by the simulation worker
 * after its steps and read by the page's view each frame (worker mode): no message
 * carries a pose.
 *
 * Layout: an Int32Array header (published slot, a sequence number per slot) and two slots of
 * Float64 values. A slot holds META_VALUES numbers (steps taken, last command applied, wall
 * time of the last step), then per rig its Rig store row (every field but `root`, an entity
 * id), per bone its world rotation, head and tail, per control point its target, effective
 * target, attachment point and active flag, all in the order of `world.physik.rigs` and each
 * rig's `bones` / `controlPoints` (never by entity id: the page's copy of the world may number
 * its entities differently).
 *
 * Consistency: the writer fills the slot not published, its sequence number odd meanwhile,
 * then even again, then publishes it (a seqlock on a double buffer, Atomics for the header).
 * The reader copies the published slot into a staging array (one memcpy) and keeps it only if
 * the slot's sequence number was even and unchanged across the copy, so it never unpacks a
 * torn frame; it then writes the staged frame into its own world's stores.
 *
 * Limits: one buffer fits one topology (rigs, bones, control points): a crowd spawned or a
 * scene loaded needs a new buffer (`createPoseBuffer`), and the writer and reader both check
 * the counts. Velocities, forces and solver scratch are not shared (the view does not draw
 * them).
 */
import type { PhysikWorld } from '../core';
import { RigLayout } from '../../components/Rig';

/** Header ints: published slot (-1 none yet), sequence of slot 0, of slot 1, spare. */
const HEADER_INTS = 4;
const HEADER_BYTES = HEADER_INTS * 4;
const H_PUBLISHED = 0, H_SEQ = 1;
/** Per frame: steps taken by the worker, last command id applied, wall ms of the last step, spare. */
export const META_VALUES = 4;
export const META_STEPS = 0, META_APPLIED = 1, META_STEP_MS = 2;
/** Per bone: rotation (4), head (3), tail (3). */
export const BONE_VALUES = 10;
/** Per control point: target (3), effective (3), attachment (3), active (1). */
export const POINT_VALUES = 10;

type Stores = Record<string, number[] | Int32Array | Uint8Array>;
/** The Rig store's fields shared, with their widths (`root` is an entity id: not portable). */
const rigFields: readonly (readonly [string, number])[] = Object.entries(RigLayout)
  .filter(([key]) => key !== 'root').map(([key, [, width]]) => [key, width] as const);
export const RIG_VALUES = rigFields.reduce((n, [, w]) => n + w, 0);
const rigWidths = Int32Array.from(rigFields, ([, w]) => w);

/** The world's Rig store arrays of the shared fields, into `out` (looked up per frame: a growing store replaces its arrays). */
function rigArraysOf(world: PhysikWorld, out: (number[] | Int32Array | Uint8Array)[]): void {
  const Rig = world.physik.Rig as unknown as Stores;
  for (let f = 0; f < rigFields.length; f++) out[f] = Rig[rigFields[f]![0]]!;
}

export interface PoseLayout { rigs: number; bones: number; points: number }

/** Counts of a world's rigs, bones and control points. */
export function poseLayoutOf(world: PhysikWorld): PoseLayout {
  let bones = 0, points = 0;
  for (const r of world.physik.rigs) { bones += r.bones.length; points += r.controlPoints.length; }
  return { rigs: world.physik.rigs.length, bones, points };
}

const slotValues = (l: PoseLayout) => META_VALUES + l.rigs * RIG_VALUES + l.bones * BONE_VALUES + l.points * POINT_VALUES;

/** A buffer for worlds of this layout; nothing published yet. */
export function createPoseBuffer(layout: PoseLayout): SharedArrayBuffer {
  const sab = new SharedArrayBuffer(HEADER_BYTES + 2 * slotValues(layout) * 8);
  new Int32Array(sab, 0, HEADER_INTS)[H_PUBLISHED] = -1;
  return sab;
}

function slotsOf(sab: SharedArrayBuffer): { header: Int32Array; slots: [Float64Array, Float64Array]; values: number } {
  const values = (sab.byteLength - HEADER_BYTES) / 16;
  if (!Number.isInteger(values) || values < META_VALUES) throw new Error(`not a pose buffer (${sab.byteLength} bytes)`);
  return {
    header: new Int32Array(sab, 0, HEADER_INTS),
    slots: [new Float64Array(sab, HEADER_BYTES, values), new Float64Array(sab, HEADER_BYTES + values * 8, values)],
    values,
  };
}

function checkFits(world: PhysikWorld, values: number, who: string): void {
  const need = slotValues(poseLayoutOf(world));
  if (need !== values) throw new Error(`${who}: the world needs ${need} values per frame, the pose buffer holds ${values}`);
}

export interface PoseWriter {
  /** Write the world's pose and `meta` into the free slot and publish it (no allocation). */
  publish(world: PhysikWorld, steps: number, applied: number, stepMs: number): void;
}

export function createPoseWriter(sab: SharedArrayBuffer): PoseWriter {
  const { header, slots, values } = slotsOf(sab);
  const rigArrays: (number[] | Int32Array | Uint8Array)[] = [];
  let checked: PhysikWorld | null = null;
  return {
    publish(world, steps, applied, stepMs) {
      if (checked !== world) { checkFits(world, values, 'pose writer'); checked = world; }
      const w = Atomics.load(header, H_PUBLISHED) === 0 ? 1 : 0;
      const out = slots[w];
      Atomics.add(header, H_SEQ + w, 1); // odd: being written
      out[META_STEPS] = steps; out[META_APPLIED] = applied; out[META_STEP_MS] = stepMs;
      let k = META_VALUES;
      const { Bone, ControlPoint } = world.physik;
      rigArraysOf(world, rigArrays);
      const rigs = world.physik.rigs;
      for (let r = 0; r < rigs.length; r++) {
        const eid = rigs[r]!.eid;
        for (let f = 0; f < rigArrays.length; f++) {
          const arr = rigArrays[f]!, width = rigWidths[f]!;
          for (let a = 0; a < width; a++) out[k++] = arr[eid * width + a]!;
        }
      }
      const { rot, head, tail } = Bone;
      for (let r = 0; r < rigs.length; r++) {
        const bones = rigs[r]!.bones;
        for (let i = 0; i < bones.length; i++) {
          const e3 = bones[i]! * 3, e4 = bones[i]! * 4;
          out[k] = rot[e4]!; out[k + 1] = rot[e4 + 1]!; out[k + 2] = rot[e4 + 2]!; out[k + 3] = rot[e4 + 3]!;
          out[k + 4] = head[e3]!; out[k + 5] = head[e3 + 1]!; out[k + 6] = head[e3 + 2]!;
          out[k + 7] = tail[e3]!; out[k + 8] = tail[e3 + 1]!; out[k + 9] = tail[e3 + 2]!;
          k += BONE_VALUES;
        }
      }
      const { target, effective, attachment, active } = ControlPoint;
      for (let r = 0; r < rigs.length; r++) {
        const cps = rigs[r]!.controlPoints;
        for (let i = 0; i < cps.length; i++) {
          const cp = cps[i]!, c3 = cp * 3;
          out[k] = target[c3]!; out[k + 1] = target[c3 + 1]!; out[k + 2] = target[c3 + 2]!;
          out[k + 3] = effective[c3]!; out[k + 4] = effective[c3 + 1]!; out[k + 5] = effective[c3 + 2]!;
          out[k + 6] = attachment[c3]!; out[k + 7] = attachment[c3 + 1]!; out[k + 8] = attachment[c3 + 2]!;
          out[k + 9] = active[cp]!;
          k += POINT_VALUES;
        }
      }
      Atomics.add(header, H_SEQ + w, 1); // even: complete
      Atomics.store(header, H_PUBLISHED, w);
    },
  };
}

export interface PoseReader {
  /**
   * Copy the newest complete frame into `world`'s stores; false when there is none yet, it
   * was read already, or the writer kept overwriting it. `keepTarget(cp, applied)` may keep
   * the world's own target of a control point (an edit the worker has not applied yet).
   */
  read(world: PhysikWorld, keepTarget?: (cp: number, applied: number) => boolean): boolean;
  /** The last frame read: steps taken, last command applied, step ms (META_*). */
  readonly meta: Float64Array;
}

export function createPoseReader(sab: SharedArrayBuffer): PoseReader {
  const { header, slots, values } = slotsOf(sab);
  const staged = new Float64Array(values);
  const meta = new Float64Array(META_VALUES);
  const rigArrays: (number[] | Int32Array | Uint8Array)[] = [];
  let lastSlot = -1, lastSeq = -1;
  let checked: PhysikWorld | null = null;

  /** Stage the published slot if it is new and complete. */
  function stage(): boolean {
    for (let attempt = 0; attempt < 4; attempt++) {
      const p = Atomics.load(header, H_PUBLISHED);
      if (p < 0) return false;
      const seq = Atomics.load(header, H_SEQ + p);
      if (p === lastSlot && seq === lastSeq) return false; // nothing new
      if (seq & 1) continue; // being rewritten already: look again
      staged.set(slots[p as 0 | 1]);
      if (Atomics.load(header, H_SEQ + p) !== seq) continue; // torn
      lastSlot = p; lastSeq = seq;
      return true;
    }
    return false;
  }

  return {
    meta,
    read(world, keepTarget) {
      if (checked !== world) { checkFits(world, values, 'pose reader'); checked = world; }
      if (!stage()) return false;
      const s = staged;
      for (let a = 0; a < META_VALUES; a++) meta[a] = s[a]!;
      const applied = s[META_APPLIED]!;
      let k = META_VALUES;
      const { Bone, ControlPoint } = world.physik;
      rigArraysOf(world, rigArrays);
      const rigs = world.physik.rigs;
      for (let r = 0; r < rigs.length; r++) {
        const eid = rigs[r]!.eid;
        for (let f = 0; f < rigArrays.length; f++) {
          const arr = rigArrays[f]!, width = rigWidths[f]!;
          for (let a = 0; a < width; a++) arr[eid * width + a] = s[k++]!;
        }
      }
      const { rot, head, tail } = Bone;
      for (let r = 0; r < rigs.length; r++) {
        const bones = rigs[r]!.bones;
        for (let i = 0; i < bones.length; i++) {
          const e3 = bones[i]! * 3, e4 = bones[i]! * 4;
          rot[e4] = s[k]!; rot[e4 + 1] = s[k + 1]!; rot[e4 + 2] = s[k + 2]!; rot[e4 + 3] = s[k + 3]!;
          head[e3] = s[k + 4]!; head[e3 + 1] = s[k + 5]!; head[e3 + 2] = s[k + 6]!;
          tail[e3] = s[k + 7]!; tail[e3 + 1] = s[k + 8]!; tail[e3 + 2] = s[k + 9]!;
          k += BONE_VALUES;
        }
      }
      const { target, effective, attachment, active } = ControlPoint;
      for (let r = 0; r < rigs.length; r++) {
        const cps = rigs[r]!.controlPoints;
        for (let i = 0; i < cps.length; i++) {
          const cp = cps[i]!, c3 = cp * 3;
          if (!keepTarget || !keepTarget(cp, applied)) {
            target[c3] = s[k]!; target[c3 + 1] = s[k + 1]!; target[c3 + 2] = s[k + 2]!;
          }
          effective[c3] = s[k + 3]!; effective[c3 + 1] = s[k + 4]!; effective[c3 + 2] = s[k + 5]!;
          attachment[c3] = s[k + 6]!; attachment[c3 + 1] = s[k + 7]!; attachment[c3 + 2] = s[k + 8]!;
          active[cp] = s[k + 9]!;
          k += POINT_VALUES;
        }
      }
      return true;
    },
  };
}
