/** Vector helpers over plain numbers. */

/** Length of (x, y, z): Math.hypot is not inlined by V8 and boxes its arguments. */
export function len3(x: number, y: number, z: number): number {
  return Math.sqrt(x * x + y * y + z * z);
}
