/**
 * Structure-of-arrays storage for component stores: every field is an array indexed by entity
 * id times the field's width. Stores belong to one world (two worlds never share an entity id's
 * slot) and grow by doubling when an entity id outgrows them.
 *
 * Fields declared Float64Array are plain arrays of doubles (`number[]` with V8's packed double
 * elements, components/doubles.ts), not Float64Arrays: once any ArrayBuffer in the process has been
 * detached (Rapier's WebAssembly memory grown, a buffer sent to a worker), V8 checks every
 * typed-array access for the rest of the process, and plain arrays are not affected (the step
 * is faster with them, detached or not: `npm run bench:ab -- --detached`, figures in
 * docs/performance.md). Integer and flag fields stay typed arrays (Int32Array, Uint8Array): they are
 * read far less in a step. Copy into and out of double fields with `copyDoubles`. A double
 * field's backing store is up to ~1.5× its length (components/doubles.ts leaves it as pushing
 * would); copying it into an array of the exact length made the step slower.
 */
import { doubles } from './doubles';

type Field = number[] | Int32Array | Uint8Array;
type FieldCtor = Float64ArrayConstructor | Int32ArrayConstructor | Uint8ArrayConstructor;

/** Field layout: constructor and width (values per entity). */
export type Layout = Record<string, readonly [FieldCtor, number]>;

export type Store<L extends Layout> = {
  [K in keyof L]: L[K][0] extends Float64ArrayConstructor ? number[] : InstanceType<L[K][0]>;
};

const capacityOf = new WeakMap<object, number>();
const layoutOf = new WeakMap<object, Layout>();

/** A zeroed field of n values. */
function field(Ctor: FieldCtor, n: number): Field {
  return Ctor === Float64Array ? doubles(n) : (new Ctor(n) as Int32Array | Uint8Array);
}

export function createStore<L extends Layout>(layout: L, capacity: number): Store<L> {
  const store = {} as Record<string, Field>;
  for (const key of Object.keys(layout)) {
    const [Ctor, width] = layout[key]!;
    store[key] = field(Ctor, capacity * width);
  }
  // Built key by key, the object ends up in V8's dictionary (slow) mode; a spread copy is a
  // fast-properties object with a stable shape, so the systems' field loads are inline-cached
  // (a faster step: docs/performance.md has the figures).
  const fast = { ...store };
  capacityOf.set(fast, capacity);
  layoutOf.set(fast, layout);
  return fast as Store<L>;
}

/** The field layout a store was created with; undefined for an object that is not a store. */
export function storeLayout(store: object): Layout | undefined {
  return layoutOf.get(store);
}

/** Grow the store in place (same object, new arrays) so that `eid` fits. */
export function ensureCapacity(store: object, eid: number): void {
  const capacity = capacityOf.get(store)!;
  if (eid < capacity) return;
  let next = capacity;
  while (next <= eid) next *= 2;
  const layout = layoutOf.get(store)!;
  const fields = store as Record<string, Field>;
  for (const key of Object.keys(layout)) {
    const [Ctor, width] = layout[key]!;
    const old = fields[key]!;
    const grown = field(Ctor, next * width);
    for (let i = 0; i < old.length; i++) grown[i] = old[i]!;
    fields[key] = grown;
  }
  capacityOf.set(store, next);
}

/** Bytes of storage used per entity slot (for memory reports; a packed double is 8 bytes either way). */
export function bytesPerEntity(layout: Layout): number {
  let bytes = 0;
  for (const key of Object.keys(layout)) {
    const [Ctor, width] = layout[key]!;
    bytes += Ctor.BYTES_PER_ELEMENT * width;
  }
  return bytes;
}
