/**
 * Arrays of doubles for the hot loops, as plain arrays rather than Float64Arrays: the component
 * stores' double fields (components/store.ts) and the solvers' scratch.
 *
 * Once any ArrayBuffer in the process has been detached (a buffer transferred to a worker,
 * Rapier's WebAssembly memory grown, a module loaded through a loader thread;
 * tests/bench/detached.ts), V8 checks every typed-array access for the rest of the process
 * (a plain typed-array loop is then markedly slower; docs/performance.md has the figures).
 * Plain arrays with V8's packed double elements are not affected, and measured as fast otherwise.
 */

/** Either kind of array of doubles (a store field, a scratch array, a caller's Float64Array). */
export type Doubles = number[] | Float64Array;

/** Pieces doubles() joins: CHUNK copies of 0.5 (an array with packed double elements). */
const CHUNK = 4096;
let chunk: number[] | null = null;
const pieces: number[][] = [];

/**
 * n zeros with packed double elements (made of 0.5s, so the array has double elements, then
 * zeroed). Large arrays are joined from chunks by one concat (faster than pushing one by one,
 * less garbage: a 1000-humanoid crowd's stores are ~8M doubles), with ~n/2 spare capacity
 * kept as pushing leaves it (setting a shorter length keeps the backing store): the step was
 * slower on arrays of exactly their length (docs/performance.md has the figures).
 */
export function doubles(n: number): number[] {
  if (n <= CHUNK) {
    const a: number[] = [];
    for (let i = 0; i < n; i++) a.push(0.5);
    return a.fill(0);
  }
  if (!chunk) { chunk = []; for (let i = 0; i < CHUNK; i++) chunk.push(0.5); }
  // 1.5 n values, then the length cut to n: V8 keeps the backing store (it trims only when
  // under half of it would be used)
  let left = n + (n >> 1);
  for (; left > CHUNK; left -= CHUNK) pieces.push(chunk);
  pieces.push(left === CHUNK ? chunk : chunk.slice(0, left));
  const a = ([] as number[]).concat(...pieces);
  pieces.length = 0;
  a.length = n;
  return a.fill(0);
}

/** dst[dstOffset + k] = src[srcOffset + k] for k < count (a typed array's `set(src.subarray(...), off)` for either kind). */
export function copyDoubles(dst: Doubles, dstOffset: number, src: ArrayLike<number>, srcOffset = 0, count = src.length - srcOffset): void {
  for (let k = 0; k < count; k++) dst[dstOffset + k] = src[srcOffset + k]!;
}

/**
 * a[k] = 0 for from ≤ k < to: a loop, which V8 compiles into the caller, where a plain array's
 * `fill` is a call into the runtime (on the few dozen values a step clears, it cost more than
 * the clearing: docs/performance.md).
 */
export function zeroDoubles(a: Doubles, from: number, to: number): void {
  for (let k = from; k < to; k++) a[k] = 0;
}
