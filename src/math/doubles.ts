/**
 * Arrays of doubles for the hot loops, as plain arrays rather than Float64Arrays: the component
 * stores' double fields (components/store.ts) and the solvers' scratch.
 *
 * Once any ArrayBuffer in the process has been detached (a buffer transferred to a worker,
 * Rapier's WebAssembly memory grown, a module loaded through a loader thread;
 * tests/bench/detached.ts), V8 checks every typed-array access for the rest of the process
 * (a plain typed-array loop measured 1.3-2× slower). Plain arrays with V8's packed double
 * elements are not affected, and measured as fast otherwise.
 */

/** Either kind of array of doubles (a store field, a scratch array, a caller's Float64Array). */
export type Doubles = number[] | Float64Array;

/** n zeros with packed double elements (0.5 first, so the array is made with double elements, then zeroed). */
export function doubles(n: number): number[] {
  const a: number[] = [];
  for (let i = 0; i < n; i++) a.push(0.5);
  return a.fill(0);
}

/** dst[dstOffset + k] = src[srcOffset + k] for k < count (a typed array's `set(src.subarray(...), off)` for either kind). */
export function copyDoubles(dst: Doubles, dstOffset: number, src: ArrayLike<number>, srcOffset = 0, count = src.length - srcOffset): void {
  for (let k = 0; k < count; k++) dst[dstOffset + k] = src[srcOffset + k]!;
}
