/**
 * The Bézier curve of Bézier IK (bezier.ts), after A. Crozier, "Building a better IK solver:
 * using Bézier curves to solve inverse kinematics problems".
 *
 * Pure core (`BezierProblem`): C0 = the chain's root, C3 = the head of the (user-rotated) last
 * bone, u = the first bone's vector, v = the last bone's vector; C1 = C0 + λu, C2 = C3 − k2·λv
 * (k2 = 1.1 in the paper). `lambdaForLength` finds λ ≥ 0 by bracketing and false position so
 * that the curve's arc length (composite 5-point Gauss–Legendre) equals the chain length;
 * `placeBones` puts the bones on the curve one after another, each tip at the first
 * intersection past the previous tip of the curve with the sphere of the bone's length around
 * that tip; `lambdaForChain` then adjusts λ so the last tip lands on C3 (chords are shorter
 * than arcs, so the arc-length λ leaves the chain a little short: the paper's "chain length
 * adjustment", done there by its finalize_chain).
 *
 * Checking the paper's worked example (11 bones of 0.57, C3 = (-3.448, -2.697, 2.657),
 * bn = (-0.227, -0.313, 0.715), chain length 5.7 without the fixed last bone): the correct arc
 * length gives λ = 3.8611 and the first bone's tip (-0.0831, -0.0468, 0.5620) at t = 0.1088
 * (3.8579 with the more precise C3 and bn of the paper's code); closing the chain on C3 gives
 * λ = 3.9797, first tip (-0.0772, -0.0427, 0.5631). The paper's λ = 0.801 and first tip
 * (-0.335, -0.251, 0.387) at t = 0.198 come from its derivative of B(t), whose C1 coefficient
 * is 3 − 4t + 3t² instead of 3 − 12t + 9t² (in its text and code): with that derivative the
 * length at λ = 2 is 6.7161 (its figure) where the true length is 5.3176, and at λ = 0.801 the
 * true length is only 5.169. Its λ = 2 curve also has the signs of C2's x and y terms flipped
 * (8.846, 6.029 for -8.846, -6.025). Note |bn| = 0.813, not the bones' 0.57.
 */
import { twoBonePositions3D } from './twoBoneClosedForm';

const EPS = 1e-12;

export interface BezierProblem {
  c0: Float64Array;
  u: Float64Array;
  c3: Float64Array;
  v: Float64Array;
  /** Weight of v in C2 = C3 − k2·λ·v (paper: 1.1). */
  k2: number;
  /** Control points C0..C3 (12 numbers) for the λ last set. */
  ctrl: Float64Array;
  /** Root-finder evaluations of the last lambdaFor* call. */
  evaluations: number;
}

export function createBezierProblem(c0: ArrayLike<number>, u: ArrayLike<number>, c3: ArrayLike<number>, v: ArrayLike<number>, k2 = 1.1): BezierProblem {
  return { c0: Float64Array.from(c0), u: Float64Array.from(u), c3: Float64Array.from(c3), v: Float64Array.from(v), k2, ctrl: new Float64Array(12), evaluations: 0 };
}

export function setControls(p: BezierProblem, lambda: number): void {
  R[0] = lambda;
  controlsAt(p);
}

// Scalars travel through this register, not as arguments or return values, in the hot paths:
// V8 boxes floating-point arguments and results of calls it does not inline.
// R[0] = λ in, R[1] = value out; R[2..7] = bracket lo, f(lo), hi, f(hi), x tolerance, f tolerance.
export const R = new Float64Array(8);

/** Controls for λ = R[0]. */
function controlsAt(p: BezierProblem): void {
  const c = p.ctrl, lambda = R[0]!, k = p.k2 * lambda;
  for (let a = 0; a < 3; a++) {
    c[a] = p.c0[a]!;
    c[3 + a] = p.c0[a]! + lambda * p.u[a]!;
    c[6 + a] = p.c3[a]! - k * p.v[a]!;
    c[9 + a] = p.c3[a]!;
  }
}

// 5-point Gauss–Legendre on [0, 1]
const GX = Float64Array.of(0.04691007703066800, 0.23076534494715845, 0.5, 0.76923465505284155, 0.95308992296933200);
const GW = Float64Array.of(0.11846344252809454, 0.23931433524968324, 0.28444444444444444, 0.23931433524968324, 0.11846344252809454);
const PANELS = 32;

/** Arc length of the curve for λ (composite Gauss–Legendre, 32 panels × 5 points). */
export function curveLength(p: BezierProblem, lambda: number): number {
  R[0] = lambda;
  lengthAt(p);
  return R[1]!;
}

/** R[1] = arc length for λ = R[0]; |B'| = |3(1−t)²(C1−C0) + 6(1−t)t(C2−C1) + 3t²(C3−C2)|. */
function lengthAt(p: BezierProblem): void {
  controlsAt(p);
  const c = p.ctrl, h = 1 / PANELS;
  const ax = c[3]! - c[0]!, ay = c[4]! - c[1]!, az = c[5]! - c[2]!;
  const bx = c[6]! - c[3]!, by = c[7]! - c[4]!, bz = c[8]! - c[5]!;
  const dx = c[9]! - c[6]!, dy = c[10]! - c[7]!, dz = c[11]! - c[8]!;
  let sum = 0;
  for (let k = 0; k < PANELS; k++) {
    for (let g = 0; g < 5; g++) {
      const t = (k + GX[g]!) * h, s = 1 - t, wa = 3 * s * s, wb = 6 * s * t, wd = 3 * t * t;
      const x = wa * ax + wb * bx + wd * dx, y = wa * ay + wb * by + wd * dy, z = wa * az + wb * bz + wd * dz;
      sum += GW[g]! * Math.sqrt(x * x + y * y + z * z);
    }
  }
  R[1] = sum * h;
}

/**
 * λ ≥ 0 with curve length = `length`, or -1 when even λ = 0 (the straight segment C0C3) is
 * too long (the target is out of reach). p.evaluations counts length evaluations.
 */
export function lambdaForLength(p: BezierProblem, length: number): number {
  rfNum[0] = length;
  lengthLambda(p);
  return R[0]!;
}

/** lambdaForLength for the length in rfNum[0]; the result in R[0]. */
export function lengthLambda(p: BezierProblem): void {
  p.evaluations = 0;
  rf.p = p; rf.mode = LENGTH;
  const length = rfNum[0]!;
  R[0] = 0; evaluate();
  const f0 = R[1]!;
  if (f0 >= 0) { R[0] = f0 === 0 ? 0 : -1; return; }
  let lo = 0, flo = f0, hi = 1;
  R[0] = hi; evaluate();
  let fhi = R[1]!;
  for (let k = 0; k < 60 && fhi < 0; k++) { lo = hi; flo = fhi; hi *= 2; R[0] = hi; evaluate(); fhi = R[1]!; }
  if (fhi < 0) { R[0] = -1; return; }
  R[2] = lo; R[3] = flo; R[4] = hi; R[5] = fhi; R[6] = 1e-13 * (1 + hi); R[7] = 1e-12 * length;
  falsePosition();
}

// the function a root is sought for (module state, so the root finder allocates no closure)
const LENGTH = 0, CHAIN = 1;
const rf = { p: null as BezierProblem | null, mode: LENGTH, lengths: null as ArrayLike<number> | null, n: 0, points: null as Float64Array | null };
export const rfNum = new Float64Array(1); // the target length

/** R[1] = f(R[0]). */
function evaluate(): void {
  const p = rf.p!;
  p.evaluations++;
  if (rf.mode === LENGTH) { lengthAt(p); R[1] = R[1]! - rfNum[0]!; } else placeAt(p, rf.lengths!, rf.n, rf.points!, null);
}

/** Illinois false position on the bracket in R[2..7], with bisection fallback; the root in R[0]. */
function falsePosition(): void {
  let lo = R[2]!, flo = R[3]!, hi = R[4]!, fhi = R[5]!;
  const xtol = R[6]!, ftol = R[7]!;
  let side = 0;
  for (let it = 0; it < 200; it++) {
    let x = (lo * fhi - hi * flo) / (fhi - flo);
    if (!(x > Math.min(lo, hi) && x < Math.max(lo, hi))) x = 0.5 * (lo + hi);
    R[0] = x; evaluate();
    const fx = R[1]!;
    if (Math.abs(fx) <= ftol || Math.abs(hi - lo) <= xtol) { R[0] = x; return; }
    if ((fx < 0) === (flo < 0)) {
      lo = x; flo = fx;
      if (side === -1) fhi *= 0.5;
      side = -1;
    } else {
      hi = x; fhi = fx;
      if (side === 1) flo *= 0.5;
      side = 1;
    }
  }
  R[0] = 0.5 * (lo + hi);
}

/**
 * Place n bones of `lengths` on the curve for λ: points[0..2] = C0, points[3k..] = the tip of
 * bone k (the first curve point past the previous tip at the bone's length from it). When the
 * curve ends inside a bone's sphere, that bone and the rest point straight at C3 (overshooting
 * it by the rest of their length). Returns the closure residual: ≥ 0 (distance left from the
 * last tip to C3) when all bones fit on the curve, < 0 (how much chain is left over) otherwise;
 * 0 when the chain ends exactly at C3. `tOut` (optional) receives each tip's parameter.
 */
export function placeBones(p: BezierProblem, lambda: number, lengths: ArrayLike<number>, n: number, points: Float64Array, tOut?: Float64Array): number {
  R[0] = lambda;
  placeAt(p, lengths, n, points, tOut ?? null);
  return R[1]!;
}

/** placeBones for λ = R[0]; the residual in R[1]. */
export function placeAt(p: BezierProblem, lengths: ArrayLike<number>, n: number, points: Float64Array, tOut: Float64Array | null): void {
  controlsAt(p);
  const c = p.ctrl;
  const c0x = c[0]!, c0y = c[1]!, c0z = c[2]!, c1x = c[3]!, c1y = c[4]!, c1z = c[5]!;
  const c2x = c[6]!, c2y = c[7]!, c2z = c[8]!, c3x = c[9]!, c3y = c[10]!, c3z = c[11]!;
  // speed bound: |B'| ≤ 3 max |C_{i+1} − C_i|
  let M = 0;
  for (let i = 0; i < 3; i++) {
    const dx = c[3 * i + 3]! - c[3 * i]!, dy = c[3 * i + 4]! - c[3 * i + 1]!, dz = c[3 * i + 5]! - c[3 * i + 2]!;
    const d = Math.sqrt(dx * dx + dy * dy + dz * dz);
    if (d > M) M = d;
  }
  M = 3 * M + EPS;
  points[0] = c0x; points[1] = c0y; points[2] = c0z;
  let tPrev = 0;
  for (let k = 0; k < n; k++) {
    const l = lengths[k]!;
    const px = points[3 * k]!, py = points[3 * k + 1]!, pz = points[3 * k + 2]!;
    const ex = c3x - px, ey = c3y - py, ez = c3z - pz;
    const dEnd = Math.sqrt(ex * ex + ey * ey + ez * ez);
    if (dEnd < l) {
      // out of curve: the rest go straight at C3
      let rest = 0;
      for (let j = k; j < n; j++) rest += lengths[j]!;
      const ux = dEnd > EPS ? ex / dEnd : 0, uy = dEnd > EPS ? ey / dEnd : 0, uz = dEnd > EPS ? ez / dEnd : 1;
      let run = 0;
      for (let j = k; j < n; j++) {
        run += lengths[j]!;
        points[3 * j + 3] = px + run * ux; points[3 * j + 4] = py + run * uy; points[3 * j + 5] = pz + run * uz;
        if (tOut) tOut[j] = 1;
      }
      R[1] = dEnd - rest;
      return;
    }
    // g(t) = |B(t) − tip|² − l², negative at tPrev; first sign change by scanning, then bisection
    // (B(t) written out: this is the hot loop)
    const l2 = l * l;
    let ta = Math.min(1, tPrev + l / M);
    const h = Math.min(1 / 64, l / (2 * M));
    let s = 1 - ta, b0 = s * s * s, b1 = 3 * s * s * ta, b2 = 3 * s * ta * ta, b3 = ta * ta * ta;
    let gx = b0 * c0x + b1 * c1x + b2 * c2x + b3 * c3x - px, gy = b0 * c0y + b1 * c1y + b2 * c2y + b3 * c3y - py, gz = b0 * c0z + b1 * c1z + b2 * c2z + b3 * c3z - pz;
    const ga = gx * gx + gy * gy + gz * gz - l2;
    let tb = ta;
    if (ga < 0) {
      while (tb < 1) {
        tb = Math.min(1, ta + h);
        s = 1 - tb; b0 = s * s * s; b1 = 3 * s * s * tb; b2 = 3 * s * tb * tb; b3 = tb * tb * tb;
        gx = b0 * c0x + b1 * c1x + b2 * c2x + b3 * c3x - px; gy = b0 * c0y + b1 * c1y + b2 * c2y + b3 * c3y - py; gz = b0 * c0z + b1 * c1z + b2 * c2z + b3 * c3z - pz;
        if (gx * gx + gy * gy + gz * gz - l2 >= 0) break;
        ta = tb;
      }
      for (let it = 0; it < 64 && tb - ta > 1e-15; it++) {
        const tm = 0.5 * (ta + tb);
        s = 1 - tm; b0 = s * s * s; b1 = 3 * s * s * tm; b2 = 3 * s * tm * tm; b3 = tm * tm * tm;
        gx = b0 * c0x + b1 * c1x + b2 * c2x + b3 * c3x - px; gy = b0 * c0y + b1 * c1y + b2 * c2y + b3 * c3y - py; gz = b0 * c0z + b1 * c1z + b2 * c2z + b3 * c3z - pz;
        if (gx * gx + gy * gy + gz * gz - l2 >= 0) tb = tm; else ta = tm;
      }
    } // (else: only when l/M overestimates, g is already ≥ 0 at the first sample)
    s = 1 - tb; b0 = s * s * s; b1 = 3 * s * s * tb; b2 = 3 * s * tb * tb; b3 = tb * tb * tb;
    points[3 * k + 3] = b0 * c0x + b1 * c1x + b2 * c2x + b3 * c3x;
    points[3 * k + 4] = b0 * c0y + b1 * c1y + b2 * c2y + b3 * c3y;
    points[3 * k + 5] = b0 * c0z + b1 * c1z + b2 * c2z + b3 * c3z;
    if (tOut) tOut[k] = tb;
    tPrev = tb;
  }
  const fx = c3x - points[3 * n]!, fy = c3y - points[3 * n + 1]!, fz = c3z - points[3 * n + 2]!;
  R[1] = Math.sqrt(fx * fx + fy * fy + fz * fz);
}

/**
 * λ for which the placed bones end exactly on C3 (closure residual 0), searching from `start`
 * (normally the arc-length λ). Returns `start` when no bracket is found. p.evaluations counts
 * placements.
 */
export function lambdaForChain(p: BezierProblem, lengths: ArrayLike<number>, n: number, points: Float64Array, start: number): number {
  R[0] = start;
  chainLambda(p, lengths, n, points);
  return R[0]!;
}

/** lambdaForChain from start = R[0]; the result in R[0]. */
export function chainLambda(p: BezierProblem, lengths: ArrayLike<number>, n: number, points: Float64Array): void {
  p.evaluations = 0;
  let total = 0;
  for (let k = 0; k < n; k++) total += lengths[k]!;
  rf.p = p; rf.mode = CHAIN; rf.lengths = lengths; rf.n = n; rf.points = points;
  const s = Math.max(0, R[0]!);
  R[0] = s; evaluate();
  const fs = R[1]!;
  const ftol = 1e-12 * (total + 1);
  if (Math.abs(fs) <= ftol) { R[0] = s; return; }
  let lo = s, flo = fs, hi = s, fhi = fs;
  if (fs < 0) {
    // more curve needed: increase λ
    let step = 0.05 * s + 1e-3;
    for (let k = 0; k < 60 && fhi < 0; k++) { lo = hi; flo = fhi; hi = hi + step; step *= 2; R[0] = hi; evaluate(); fhi = R[1]!; }
    if (fhi < 0) { R[0] = s; return; }
  } else {
    let step = 0.05 * s + 1e-3;
    for (let k = 0; k < 60 && flo > 0 && lo > 0; k++) { hi = lo; fhi = flo; lo = Math.max(0, lo - step); step *= 2; R[0] = lo; evaluate(); flo = R[1]!; }
    if (flo > 0) { R[0] = s; return; }
  }
  R[2] = lo; R[3] = flo; R[4] = hi; R[5] = fhi; R[6] = 1e-14 * (1 + hi); R[7] = ftol;
  falsePosition();
}

const fix = new Float64Array(6);
const fixIn = new Float64Array(14);

/**
 * When the closure residual cannot reach 0 (on looping curves the sphere intersections jump,
 * so the residual is discontinuous in λ), re-place the last two bones analytically (two-bone,
 * in the plane of their current bend) so the chain ends on C3 whenever that is within their
 * reach. Returns the remaining distance from the last tip to C3.
 */
export function closeChainEnd(points: Float64Array, lengths: ArrayLike<number>, n: number, c3: Float64Array): number {
  closeEnd(points, lengths, n, c3, true);
  return R[1]!;
}

/**
 * closeChainEnd, the remaining distance in R[1]; with `apply` false the points are left as
 * they are (the solver runs it every step, needed or not: run only now and then, it stayed in
 * V8's interpreter, where every floating-point result is a new heap number).
 */
export function closeEnd(points: Float64Array, lengths: ArrayLike<number>, n: number, c3: Float64Array, apply: boolean): void {
  const e = 3 * n;
  let gap = Math.sqrt((c3[0]! - points[e]!) ** 2 + (c3[1]! - points[e + 1]!) ** 2 + (c3[2]! - points[e + 2]!) ** 2);
  R[1] = gap;
  if (n < 2) return;
  if (gap <= 1e-12) apply = false;
  const a = 3 * (n - 2), m = 3 * (n - 1);
  const d1x = points[m]! - points[a]!, d1y = points[m + 1]! - points[a + 1]!, d1z = points[m + 2]! - points[a + 2]!;
  const d2x = c3[0]! - points[m]!, d2y = c3[1]! - points[m + 1]!, d2z = c3[2]! - points[m + 2]!;
  let nx = d1y * d2z - d1z * d2y, ny = d1z * d2x - d1x * d2z, nz = d1x * d2y - d1y * d2x;
  if (!(Math.sqrt(nx * nx + ny * ny + nz * nz) > 1e-12)) {
    // straight: any normal perpendicular to the reach
    const rx = c3[0]! - points[a]!, ry = c3[1]! - points[a + 1]!, rz = c3[2]! - points[a + 2]!;
    if (Math.abs(rx) <= Math.abs(ry) && Math.abs(rx) <= Math.abs(rz)) { nx = 0; ny = rz; nz = -ry; }
    else if (Math.abs(ry) <= Math.abs(rz)) { nx = -rz; ny = 0; nz = rx; }
    else { nx = ry; ny = -rx; nz = 0; }
  }
  const f = fixIn;
  f[0] = points[a]!; f[1] = points[a + 1]!; f[2] = points[a + 2]!; f[3] = c3[0]!; f[4] = c3[1]!; f[5] = c3[2]!;
  f[6] = nx; f[7] = ny; f[8] = nz; f[9] = d1x; f[10] = d1y; f[11] = d1z; f[12] = lengths[n - 2]!; f[13] = lengths[n - 1]!;
  twoBonePositions3D(fix, 0, f, 0);
  const g2 = Math.sqrt((c3[0]! - fix[3]!) ** 2 + (c3[1]! - fix[4]!) ** 2 + (c3[2]! - fix[5]!) ** 2);
  if (apply && g2 < gap && Number.isFinite(g2)) {
    for (let k = 0; k < 3; k++) { points[m + k] = fix[k]!; points[e + k] = fix[3 + k]!; }
    gap = g2;
  }
  R[1] = gap;
}
