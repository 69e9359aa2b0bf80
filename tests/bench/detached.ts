/**
 * The state of V8's typed arrays, which the figures depend on. Until an ArrayBuffer is
 * detached in a process (transferred to a worker, a WebAssembly memory grown, a module loaded
 * through a loader thread), V8 compiles typed-array code assuming none ever will be; after the
 * first detach it checks on every access, for the rest of the process. Measured: the humanoid
 * step 11.0 → 13.3-13.7 µs, a plain typed-array loop 1.3-2× slower. Rapier (its memory grows)
 * and closed-chain-ik (imported through tsx's loader thread) each detach one. The bench
 * measures this project's sections before it loads them; `--detached` detaches a buffer
 * first, so every figure is measured in the state an application that has done so runs in.
 */
export const DETACHED_FLAG = '--detached';

/** Detach one ArrayBuffer (the first detach turns V8's checks on for the whole process). */
export function detachOneBuffer(): void {
  const buffer = new ArrayBuffer(8);
  structuredClone(buffer, { transfer: [buffer] });
  if (buffer.byteLength !== 0) throw new Error('could not detach an ArrayBuffer (structuredClone with transfer)');
}
