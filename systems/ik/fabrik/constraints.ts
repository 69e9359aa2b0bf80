/**
 * FABRIK's joint constraints (fabrik.ts): a joint's limits are a box on its rotation vector
 * φ = log(restLocal⁻¹ · parent⁻¹ · world) (x, z swing, y twist). The joint rotation inside the
 * box that points a bone best along a wanted direction: in closed form for a hinge, else by
 * projected Gauss-Newton on φ (`project`), with a cheap proxy for the look-ahead.
 */
import { quatArc, quatMul, quatNormalize, quatFromRotationVector, quatRotateArr } from '../../../src/math/quat';
import { type Doubles } from '../../../components/doubles';
import { arcQ, av, hi, hinge, lo } from './scratch';

/** Gauss-Newton iterations of one joint's projection into its box (it stops sooner when done). */
export const PROJECT_ITERATIONS = 24;

/** A joint rotation vector this far (radians) outside its box still counts as inside (rounding). */
export const BOX_EPS = 1e-12;

/**
 * `project` and `proxy`: maximise vf · E(φ) vr over φ in bone i's box. vr (0..2), vf (3..5),
 * φ in/out (6..8), the angle left between E(φ) vr and vf out (9), a trial φ (10..12), E(φ) vr (13..15).
 */
export const pj = new Float64Array(16);

export const pq = new Float64Array(4);

export const Y = new Float64Array([0, 1, 0]);

/** out ← rotation `src` turned by the shortest arc from its +Y axis onto unit direction a[ao..ao+2]. */
export function aimFrom(out: Float64Array, oo: number, src: Doubles, so: number, a: Doubles, ao: number): void {
  const x = src[so]!, y = src[so + 1]!, z = src[so + 2]!, w = src[so + 3]!;
  av[0] = 2 * (x * y - z * w); av[1] = 1 - 2 * (x * x + z * z); av[2] = 2 * (y * z + x * w);
  av[3] = a[ao]!; av[4] = a[ao + 1]!; av[5] = a[ao + 2]!;
  quatArc(arcQ, 0, av, 0, av, 3);
  quatMul(out, oo, arcQ, 0, src, so);
  quatNormalize(out, oo);
}

/** Whether φ (arr[o..o+2]) lies in bone i's box, to BOX_EPS. */
export function inBox(i: number, arr: Float64Array, o: number): boolean {
  const i3 = i * 3;
  for (let a = 0; a < 3; a++) {
    const x = arr[o + a]!;
    if (!(x >= lo[i3 + a]! - BOX_EPS && x <= hi[i3 + a]! + BOX_EPS)) return false;
  }
  return true;
}

/** pj[13..15] ← exp(φ) vr with φ = pj[o..o+2]; the angle between it and vf into pj[9]. */
export function alignAt(o: number): void {
  quatFromRotationVector(pq, 0, pj, o);
  quatRotateArr(pj, 13, pq, 0, pj, 0);
  const wx = pj[13]!, wy = pj[14]!, wz = pj[15]!, fx = pj[3]!, fy = pj[4]!, fz = pj[5]!;
  const cx = wy * fz - wz * fy, cy = wz * fx - wx * fz, cz = wx * fy - wy * fx;
  pj[9] = Math.atan2(Math.sqrt(cx * cx + cy * cy + cz * cz), wx * fx + wy * fy + wz * fz);
}

/**
 * `project` for a hinge (one free axis a, the others locked at 0) or a locked joint, in closed
 * form: turning vr about the axis by θ gives vf · R(θ) vr = C + A cos θ + B sin θ with
 * A = vf · vr⊥ and B = vf · (e_a × vr), largest at θ* = atan2(B, A), else at the end of the
 * range nearer to it. Writes φ to pj[6..8] and the angle left to pj[9].
 */
export function projectHinge(i: number): void {
  const a = hinge[i]!, i3 = i * 3;
  pj[6] = lo[i3]!; pj[7] = lo[i3 + 1]!; pj[8] = lo[i3 + 2]!;
  if (a < 3) {
    const rx = pj[0]!, ry = pj[1]!, rz = pj[2]!, fx = pj[3]!, fy = pj[4]!, fz = pj[5]!;
    let A: number, B: number;
    // e_a × vr, and vr without its part along e_a
    if (a === 0) { A = fy * ry + fz * rz; B = fy * -rz + fz * ry; } else if (a === 1) { A = fx * rx + fz * rz; B = fx * rz + fz * -rx; } else { A = fx * rx + fy * ry; B = fx * -ry + fy * rx; }
    let t = Math.atan2(B, A);
    const l = lo[i3 + a]!, h = hi[i3 + a]!;
    if (t < l || t > h) {
      // outside the range: the end with the larger A cos θ + B sin θ
      const fl = A * Math.cos(l) + B * Math.sin(l), fh = A * Math.cos(h) + B * Math.sin(h);
      t = fl >= fh ? l : h;
    }
    pj[6 + a] = t;
  }
  alignAt(6);
}

/**
 * The joint rotation inside bone i's box that turns vr (pj[0..2]) closest to vf (pj[3..5]),
 * starting from φ (pj[6..8], clamped into the box first), by projected Gauss-Newton on the
 * rotation vector: a step solves for the change of φ whose left-Jacobian image turns E(φ)·vr
 * onto vf (axes at a bound that the step would push out are held), lightly damped so a
 * turn about E(φ)·vr itself (which changes nothing) is not taken; a step that does not improve
 * is halved. Writes φ to pj[6..8] and the angle left to pj[9].
 */
export function project(i: number): void {
  if (hinge[i]! >= 0) { projectHinge(i); return; }
  const i3 = i * 3;
  for (let a = 0; a < 3; a++) {
    const x = pj[6 + a]!, l = lo[i3 + a]!, h = hi[i3 + a]!;
    pj[6 + a] = x < l ? l : x > h ? h : x;
  }
  alignAt(6);
  let ang = pj[9]!;
  for (let it = 0; it < PROJECT_ITERATIONS && ang > 1e-14; it++) {
    const px = pj[6]!, py = pj[7]!, pz = pj[8]!;
    const wx = pj[13]!, wy = pj[14]!, wz = pj[15]!, fx = pj[3]!, fy = pj[4]!, fz = pj[5]!;
    let rx = wy * fz - wz * fy, ry = wz * fx - wx * fz, rz = wx * fy - wy * fx;
    const sn = Math.sqrt(rx * rx + ry * ry + rz * rz);
    if (sn < 1e-300) {
      // opposite: any turn perpendicular to E(φ)·vr
      const ax = Math.abs(wx), ay = Math.abs(wy), az = Math.abs(wz);
      if (ax <= ay && ax <= az) { rx = 0; ry = wz; rz = -wy; } else if (ay <= az) { rx = -wz; ry = 0; rz = wx; } else { rx = wy; ry = -wx; rz = 0; }
      const l = Math.sqrt(rx * rx + ry * ry + rz * rz);
      rx *= ang / l; ry *= ang / l; rz *= ang / l;
    } else { rx *= ang / sn; ry *= ang / sn; rz *= ang / sn; }
    // left Jacobian J = I + c1 K + c2 K², K = [φ]×
    const t2 = px * px + py * py + pz * pz;
    let c1: number, c2: number;
    if (t2 < 1e-8) { c1 = 0.5 - t2 / 24; c2 = 1 / 6 - t2 / 120; } else {
      const t = Math.sqrt(t2);
      c1 = (1 - Math.cos(t)) / t2; c2 = (t - Math.sin(t)) / (t2 * t);
    }
    // columns of J: J e_k = e_k + c1 φ×e_k + c2 φ×(φ×e_k);  φ×(φ×e) = φ (φ·e) − e t²
    const j00 = 1 + c2 * (px * px - t2), j10 = c1 * pz + c2 * py * px, j20 = -c1 * py + c2 * pz * px;
    const j01 = -c1 * pz + c2 * px * py, j11 = 1 + c2 * (py * py - t2), j21 = c1 * px + c2 * pz * py;
    const j02 = c1 * py + c2 * px * pz, j12 = -c1 * px + c2 * py * pz, j22 = 1 + c2 * (pz * pz - t2);
    // P J: the part of each column perpendicular to E(φ)·vr
    const d0 = wx * j00 + wy * j10 + wz * j20, d1 = wx * j01 + wy * j11 + wz * j21, d2 = wx * j02 + wy * j12 + wz * j22;
    const a00 = j00 - wx * d0, a10 = j10 - wy * d0, a20 = j20 - wz * d0;
    const a01 = j01 - wx * d1, a11 = j11 - wy * d1, a21 = j21 - wz * d1;
    const a02 = j02 - wx * d2, a12 = j12 - wy * d2, a22 = j22 - wz * d2;
    let m00 = a00 * a00 + a10 * a10 + a20 * a20, m01 = a00 * a01 + a10 * a11 + a20 * a21, m02 = a00 * a02 + a10 * a12 + a20 * a22;
    let m11 = a01 * a01 + a11 * a11 + a21 * a21, m12 = a01 * a02 + a11 * a12 + a21 * a22, m22 = a02 * a02 + a12 * a12 + a22 * a22;
    let g0 = j00 * rx + j10 * ry + j20 * rz, g1 = j01 * rx + j11 * ry + j21 * rz, g2 = j02 * rx + j12 * ry + j22 * rz;
    // held axes: locked, or at a bound the step pushes against
    const h0 = lo[i3]! === hi[i3]! || (px <= lo[i3]! && g0 < 0) || (px >= hi[i3]! && g0 > 0);
    const h1 = lo[i3 + 1]! === hi[i3 + 1]! || (py <= lo[i3 + 1]! && g1 < 0) || (py >= hi[i3 + 1]! && g1 > 0);
    const h2 = lo[i3 + 2]! === hi[i3 + 2]! || (pz <= lo[i3 + 2]! && g2 < 0) || (pz >= hi[i3 + 2]! && g2 > 0);
    if (h0 && h1 && h2) break;
    const mu = 1e-9 * (m00 + m11 + m22) + 1e-300;
    if (h0) { m00 = 1; m01 = 0; m02 = 0; g0 = 0; } else m00 += mu;
    if (h1) { m11 = 1; m01 = 0; m12 = 0; g1 = 0; } else m11 += mu;
    if (h2) { m22 = 1; m02 = 0; m12 = 0; g2 = 0; } else m22 += mu;
    // solve the symmetric 3×3 system by its adjugate
    const c00 = m11 * m22 - m12 * m12, c01 = m02 * m12 - m01 * m22, c02 = m01 * m12 - m02 * m11;
    const det = m00 * c00 + m01 * c01 + m02 * c02;
    if (!(Math.abs(det) > 1e-300)) break;
    const c11 = m00 * m22 - m02 * m02, c12 = m01 * m02 - m00 * m12, c22 = m00 * m11 - m01 * m01;
    const dx = (c00 * g0 + c01 * g1 + c02 * g2) / det;
    const dy = (c01 * g0 + c11 * g1 + c12 * g2) / det;
    const dz = (c02 * g0 + c12 * g1 + c22 * g2) / det;
    let step = 1, accepted = false;
    for (let k = 0; k < 8; k++, step *= 0.5) {
      let nx = px + step * dx, ny = py + step * dy, nz = pz + step * dz;
      nx = nx < lo[i3]! ? lo[i3]! : nx > hi[i3]! ? hi[i3]! : nx;
      ny = ny < lo[i3 + 1]! ? lo[i3 + 1]! : ny > hi[i3 + 1]! ? hi[i3 + 1]! : ny;
      nz = nz < lo[i3 + 2]! ? lo[i3 + 2]! : nz > hi[i3 + 2]! ? hi[i3 + 2]! : nz;
      if (nx * nx + ny * ny + nz * nz > (Math.PI - 1e-6) * (Math.PI - 1e-6)) continue; // stay on one side of the half turn
      pj[10] = nx; pj[11] = ny; pj[12] = nz;
      alignAt(10);
      if (pj[9]! < ang) { accepted = true; break; }
    }
    if (!accepted) { alignAt(6); break; } // leaves pj[13..15] and pj[9] at the kept φ
    const moved = Math.abs(pj[10]! - px) + Math.abs(pj[11]! - py) + Math.abs(pj[12]! - pz);
    pj[6] = pj[10]!; pj[7] = pj[11]!; pj[8] = pj[12]!;
    ang = pj[9]!;
    if (moved < 1e-15) break;
  }
  pj[9] = ang;
}

/**
 * A cheap estimate of `project`'s result, for ranking rolls: the shortest arc from vr to vf as a
 * rotation vector, clamped into bone i's box; the angle it leaves into pj[9].
 */
export function proxy(i: number): void {
  if (hinge[i]! >= 0) {
    projectHinge(i);
    pj[10] = pj[6]!; pj[11] = pj[7]!; pj[12] = pj[8]!;
    return;
  }
  const ux = pj[0]!, uy = pj[1]!, uz = pj[2]!, wx = pj[3]!, wy = pj[4]!, wz = pj[5]!;
  let nx = uy * wz - uz * wy, ny = uz * wx - ux * wz, nz = ux * wy - uy * wx;
  const s = Math.sqrt(nx * nx + ny * ny + nz * nz), c = ux * wx + uy * wy + uz * wz;
  const ang = Math.atan2(s, c);
  if (s < 1e-300) {
    if (c > 0) { nx = 0; ny = 0; nz = 0; } else {
      const ax = Math.abs(ux), ay = Math.abs(uy), az = Math.abs(uz);
      if (ax <= ay && ax <= az) { nx = 0; ny = uz; nz = -uy; } else if (ay <= az) { nx = -uz; ny = 0; nz = ux; } else { nx = uy; ny = -ux; nz = 0; }
      const l = Math.sqrt(nx * nx + ny * ny + nz * nz);
      nx *= ang / l; ny *= ang / l; nz *= ang / l;
    }
  } else { nx *= ang / s; ny *= ang / s; nz *= ang / s; }
  const i3 = i * 3;
  pj[10] = nx < lo[i3]! ? lo[i3]! : nx > hi[i3]! ? hi[i3]! : nx;
  pj[11] = ny < lo[i3 + 1]! ? lo[i3 + 1]! : ny > hi[i3 + 1]! ? hi[i3 + 1]! : ny;
  pj[12] = nz < lo[i3 + 2]! ? lo[i3 + 2]! : nz > hi[i3 + 2]! ? hi[i3 + 2]! : nz;
  alignAt(10);
}
