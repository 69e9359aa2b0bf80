/**
 * 3×3 matrices over arrays of doubles with offsets, for hot loops (no allocation): symmetric
 * ones stored as their six entries (xx, xy, xz, yy, yz, zz), general ones row-major.
 */
import type { Doubles } from '../../components/doubles';

/** Inverse of a symmetric 3×3 (xx, xy, xz, yy, yz, zz); returns false when singular. */
export function symInvert(out: Doubles, oo: number, m: Doubles, mo: number): boolean {
  const a = m[mo]!, b = m[mo + 1]!, c = m[mo + 2]!, d = m[mo + 3]!, e = m[mo + 4]!, f = m[mo + 5]!;
  const A = d * f - e * e;
  const B = -(b * f - c * e);
  const C = b * e - c * d;
  const det = a * A + b * B + c * C;
  if (!(Math.abs(det) > 0) || !Number.isFinite(det)) return false;
  const inv = 1 / det;
  out[oo] = A * inv;
  out[oo + 1] = B * inv;
  out[oo + 2] = C * inv;
  out[oo + 3] = (a * f - c * c) * inv;
  out[oo + 4] = -(a * e - b * c) * inv;
  out[oo + 5] = (a * d - b * b) * inv;
  return true;
}

/** out = m v for symmetric m (xx, xy, xz, yy, yz, zz) and v = vec[vo..vo+2]. */
export function symMulArr(out: Doubles, oo: number, m: Doubles, mo: number, v: Doubles, vo: number): void {
  const x = v[vo]!, y = v[vo + 1]!, z = v[vo + 2]!;
  const xx = m[mo]!, xy = m[mo + 1]!, xz = m[mo + 2]!, yy = m[mo + 3]!, yz = m[mo + 4]!, zz = m[mo + 5]!;
  out[oo] = xx * x + xy * y + xz * z;
  out[oo + 1] = xy * x + yy * y + yz * z;
  out[oo + 2] = xz * x + yz * y + zz * z;
}

/** out = R diag(d) Rᵀ as a symmetric 3×3, for the rotation q[qo] and d = diag[do..do+2]. */
export function rotatedDiagonalArr(out: Doubles, oo: number, q: Doubles, qo: number, diag: Doubles, dio: number): void {
  const x = q[qo]!, y = q[qo + 1]!, z = q[qo + 2]!, w = q[qo + 3]!;
  const dx = diag[dio]!, dy = diag[dio + 1]!, dz = diag[dio + 2]!;
  const r00 = 1 - 2 * (y * y + z * z), r01 = 2 * (x * y - z * w), r02 = 2 * (x * z + y * w);
  const r10 = 2 * (x * y + z * w), r11 = 1 - 2 * (x * x + z * z), r12 = 2 * (y * z - x * w);
  const r20 = 2 * (x * z - y * w), r21 = 2 * (y * z + x * w), r22 = 1 - 2 * (x * x + y * y);
  out[oo] = r00 * r00 * dx + r01 * r01 * dy + r02 * r02 * dz;
  out[oo + 1] = r00 * r10 * dx + r01 * r11 * dy + r02 * r12 * dz;
  out[oo + 2] = r00 * r20 * dx + r01 * r21 * dy + r02 * r22 * dz;
  out[oo + 3] = r10 * r10 * dx + r11 * r11 * dy + r12 * r12 * dz;
  out[oo + 4] = r10 * r20 * dx + r11 * r21 * dy + r12 * r22 * dz;
  out[oo + 5] = r20 * r20 * dx + r21 * r21 * dy + r22 * r22 * dz;
}

/**
 * General 3×3 inverse of m[mo..mo+8] (row-major) into out[oo..oo+8], written in any case; false
 * when the determinant is zero or not finite (out is then not an inverse).
 */
export function invert3(out: Float64Array, oo: number, m: Float64Array, mo: number): boolean {
  const a = m[mo]!, b = m[mo + 1]!, c = m[mo + 2]!, d = m[mo + 3]!, e = m[mo + 4]!, f = m[mo + 5]!, g = m[mo + 6]!, h = m[mo + 7]!, i = m[mo + 8]!;
  const A = e * i - f * h, B = f * g - d * i, C = d * h - e * g;
  const det = a * A + b * B + c * C;
  const s = 1 / det;
  out[oo] = A * s; out[oo + 1] = (c * h - b * i) * s; out[oo + 2] = (b * f - c * e) * s;
  out[oo + 3] = B * s; out[oo + 4] = (a * i - c * g) * s; out[oo + 5] = (c * d - a * f) * s;
  out[oo + 6] = C * s; out[oo + 7] = (b * g - a * h) * s; out[oo + 8] = (a * e - b * d) * s;
  return det !== 0 && Number.isFinite(det);
}
