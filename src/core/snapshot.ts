/**
 * Snapshots of one rig's simulation state, for rewind: `restoreRig` puts back everything a
 * step reads, so restoring a snapshot and stepping gives bit-identical results to never having
 * left (for the PhysIK solver, iterative or exact joint solve).
 *
 * What is copied, generically: every component store in `world.physik` (any object created by
 * `createStore`, found through its layout), every field, for the rig's own entities: Bone and
 * AngularLimit for its bones, Joint for its joints, ControlPoint for its control points, Rig for
 * the rig entity (a store added later, unknown here, gets all of them). Plus the RigRecord's
 * fields that change during a run: the script cursor, the settings and what is derived from
 * them (default cap, limit scale key). Per-step scratch (module scratch, `record.scratch`) is
 * written before it is read every step, so it is not state.
 *
 * Limits:
 * - Kinematic solvers keep warm-start caches outside the world (WeakMaps keyed by the rig
 *   record in systems/ik: the Jacobian solvers' damping μ, mass-spring particles' previous
 *   positions, two-bone/triangle/Bézier caches). They are not in a snapshot, so resuming a
 *   kinematic rig continues from the restored pose with the caches as they are now (the
 *   mass-spring solver sees its step counter go back and restarts from rest velocity): it
 *   continues sensibly but is not promised bit-identical. Measured on the humanoid scene
 *   (restore after 150 steps away): fabrik, ccd, dls, jacobianTranspose, twoBone and bezier
 *   happened to resume bit-identically; massSpring and triangle did not.
 * - The control point set cannot be restored (entities are created and destroyed by edits):
 *   `restoreRig` refuses when its entities or names differ from the snapshot's, and then
 *   changes nothing. (Only the set is compared, not `controlPointsVersion`: adding a point
 *   and removing it again gives back the same set, which restores fine.)
 * - A snapshot is about 750 bytes per bone (the 18-bone humanoid: 13.6 kB); the sandbox keeps
 *   one per recorded frame, so reuse them with `snapshotInto`.
 * - Other rigs in the same world are not touched.
 */
import { storeLayout } from '../../components';
import type { Settings } from '../world/types';
import { findRig, type PhysikWorld, type RigRecord } from '../world/world';

type Field = Float64Array | Int32Array | Uint8Array;
/** A store's field: double fields are plain arrays (components/store.ts), kept as Float64Arrays in a snapshot. */
type StoreField = number[] | Int32Array | Uint8Array;
const snapshotKind = (f: StoreField) => (Array.isArray(f) ? Float64Array : (f.constructor as new (n: number) => Field));

export interface RigSnapshot {
  /** Rig entity and name it was taken of. */
  rig: number;
  name: string;
  /** The rig's entities when taken (restore checks them). */
  bones: Int32Array;
  joints: Int32Array;
  controlPoints: Int32Array;
  controlPointNames: string[];
  /** Per store (Bone, Joint, ...) and field: the field's values for the store's entities, in order. */
  stores: Record<string, Record<string, Field>>;
  scriptCursor: number;
  settings: Settings;
  defaultCap: number;
  limitScaleKey: string;
}

const rigEntity = new Int32Array(1);

/** The rig's entities whose slices of `store` are state. */
function entitiesOf(key: string, record: RigRecord): ArrayLike<number> {
  switch (key) {
    case 'Bone':
    case 'AngularLimit':
      return record.bones;
    case 'Joint':
      return record.joints;
    case 'ControlPoint':
      return record.controlPoints;
    case 'Rig':
      rigEntity[0] = record.eid;
      return rigEntity;
    default:
      // a store this module does not know: copy every entity of the rig (complete, if wasteful)
      return [record.eid, ...record.bones, ...record.joints, ...record.controlPoints];
  }
}

/** The component stores of the world, by their key in `world.physik`, in a fixed order. */
function storesOf(world: PhysikWorld): [string, Record<string, StoreField>][] {
  const out: [string, Record<string, StoreField>][] = [];
  for (const [key, value] of Object.entries(world.physik)) {
    if (value !== null && typeof value === 'object' && storeLayout(value)) out.push([key, value as Record<string, StoreField>]);
  }
  return out;
}

/** A new snapshot of the rig's current state. */
export function snapshotRig(world: PhysikWorld, rig: number): RigSnapshot {
  return snapshotInto(world, rig, undefined);
}

/** A snapshot buffer for the rig, filled with its current state (reuse it with `snapshotInto`). */
export function createSnapshot(world: PhysikWorld, rig: number): RigSnapshot {
  return snapshotInto(world, rig, undefined);
}

const sameLength = (a: Field | undefined, n: number, like: StoreField): a is Field =>
  a !== undefined && a.length === n && a.constructor === snapshotKind(like);

/**
 * Copy the rig's current state into `snap`, reusing its buffers where their sizes still fit
 * (they do unless the control point set changed); returns `snap`, or a new snapshot when
 * `snap` is undefined. A snapshot of another rig is refused.
 */
export function snapshotInto(world: PhysikWorld, rig: number, snap: RigSnapshot | undefined): RigSnapshot {
  const record = findRig(world, rig);
  if (snap && snap.rig !== rig) throw new Error(`snapshotInto: the buffer holds rig ${snap.rig} ("${snap.name}"), not rig ${rig} ("${record.name}")`);
  const out: RigSnapshot = snap ?? {
    rig, name: record.name,
    bones: new Int32Array(0), joints: new Int32Array(0), controlPoints: new Int32Array(0), controlPointNames: [],
    stores: {}, scriptCursor: 0, settings: { ...record.settings }, defaultCap: 0, limitScaleKey: '',
  };
  out.name = record.name;
  const copyIds = (to: Int32Array, from: Int32Array) => {
    if (to.length !== from.length) return Int32Array.from(from);
    to.set(from);
    return to;
  };
  out.bones = copyIds(out.bones, record.bones);
  out.joints = copyIds(out.joints, record.joints);
  out.controlPoints = copyIds(out.controlPoints, record.controlPoints);
  // names only change with the control point set; keep the array otherwise (no allocation)
  if (!sameNames(out.controlPointNames, record.controlPointNames)) out.controlPointNames = [...record.controlPointNames];
  for (const [key, store] of storesOf(world)) {
    const layout = storeLayout(store)!;
    const ents = entitiesOf(key, record);
    const fields = (out.stores[key] ??= {});
    for (const field of Object.keys(layout)) {
      const width = layout[field]![1];
      const src = store[field]!;
      let dst = fields[field];
      if (!sameLength(dst, ents.length * width, src)) {
        dst = new (snapshotKind(src))(ents.length * width);
        fields[field] = dst;
      }
      for (let i = 0; i < ents.length; i++) {
        const e = ents[i]! * width;
        for (let k = 0; k < width; k++) dst[i * width + k] = src[e + k]!;
      }
    }
  }
  out.scriptCursor = record.scriptCursor;
  Object.assign(out.settings, record.settings);
  out.defaultCap = record.defaultCap;
  out.limitScaleKey = record.limitScaleKey;
  return out;
}

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function sameIds(a: Int32Array, b: Int32Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

const list = (names: readonly string[]) => (names.length ? names.map((n) => `"${n}"`).join(', ') : 'none');

/**
 * Put the rig back into the state of `snap`. Everything is checked first: a snapshot of
 * another rig, of a rig whose bones or joints differ, or taken before the control points
 * were added or removed is refused with an error, and the world is left unchanged.
 */
export function restoreRig(world: PhysikWorld, rig: number, snap: RigSnapshot): void {
  const record = findRig(world, rig);
  const where = `restoreRig: rig "${record.name}"`;
  if (snap.rig !== rig) throw new Error(`${where}: the snapshot is of rig ${snap.rig} ("${snap.name}"), not of this rig (${rig})`);
  if (!sameIds(snap.bones, record.bones) || !sameIds(snap.joints, record.joints)) {
    throw new Error(`${where}: its bones or joints are not the ones the snapshot was taken of`);
  }
  if (!sameIds(snap.controlPoints, record.controlPoints) || !sameNames(snap.controlPointNames, record.controlPointNames)) {
    throw new Error(
      `${where}: its control points changed since the snapshot (then: ${list(snap.controlPointNames)}; now: ${list(record.controlPointNames)}); ` +
        'a snapshot can only be restored onto the control point set it was taken with',
    );
  }
  const stores = storesOf(world);
  for (const [key, store] of stores) {
    const layout = storeLayout(store)!;
    const n = entitiesOf(key, record).length;
    for (const field of Object.keys(layout)) {
      const data = snap.stores[key]?.[field];
      if (!data || data.length !== n * layout[field]![1]) {
        throw new Error(`${where}: the snapshot has no ${key}.${field} of the right size (taken from another world?)`);
      }
    }
  }
  // checked: now write
  for (const [key, store] of stores) {
    const layout = storeLayout(store)!;
    const ents = entitiesOf(key, record);
    for (const field of Object.keys(layout)) {
      const width = layout[field]![1];
      const src = snap.stores[key]![field]!;
      const dst = store[field]!;
      for (let i = 0; i < ents.length; i++) {
        const e = ents[i]! * width;
        for (let k = 0; k < width; k++) dst[e + k] = src[i * width + k]!;
      }
    }
  }
  record.scriptCursor = snap.scriptCursor;
  // the same settings object (readers may hold it), with the snapshot's values
  Object.assign(record.settings, snap.settings);
  record.defaultCap = snap.defaultCap;
  record.limitScaleKey = snap.limitScaleKey;
}
