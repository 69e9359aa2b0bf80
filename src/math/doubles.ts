/**
 * Scratch arrays of doubles for the hot loops, as plain arrays rather than Float64Arrays.
 *
 * Once any ArrayBuffer in the process has been detached (a buffer transferred to a worker,
 * Rapier's WebAssembly memory grown, a module loaded through a loader thread;
 * tests/bench/detached.ts), V8 checks every typed-array access for the rest of the process
 * (a plain typed-array loop measured 1.3-2× slower). Plain arrays with V8's packed double
 * elements are not affected, and measured as fast otherwise. The component stores stay typed
 * arrays (~140 places use their `set`, `subarray` and `fill`): moving them is open.
 */

/** n zeros with packed double elements (0.5 first, so the array is made with double elements, then zeroed). */
export function doubles(n: number): number[] {
  const a: number[] = [];
  for (let i = 0; i < n; i++) a.push(0.5);
  return a.fill(0);
}
