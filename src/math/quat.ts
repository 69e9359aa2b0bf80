/**
 * Quaternion helpers over arrays of doubles (plain or typed, `Doubles`) with
 * offsets, for hot loops (no allocation). Quaternions are (x, y, z, w), three.js order; rotations are active.
 */

import type { Doubles } from '../../components/doubles';
import { len3 } from './vec3';

/** out[o] = a[ao] ⊗ b[bo] (apply b first, then a). Safe when out aliases a or b. */
export function quatMul(out: Doubles, o: number, a: ArrayLike<number>, ao: number, b: ArrayLike<number>, bo: number): void {
  const ax = a[ao]!, ay = a[ao + 1]!, az = a[ao + 2]!, aw = a[ao + 3]!;
  const bx = b[bo]!, by = b[bo + 1]!, bz = b[bo + 2]!, bw = b[bo + 3]!;
  out[o] = aw * bx + ax * bw + ay * bz - az * by;
  out[o + 1] = aw * by - ax * bz + ay * bw + az * bx;
  out[o + 2] = aw * bz + ax * by - ay * bx + az * bw;
  out[o + 3] = aw * bw - ax * bx - ay * by - az * bz;
}

/** out = conj(a) ⊗ b: b expressed relative to a. */
export function quatMulConjA(out: Doubles, o: number, a: Doubles, ao: number, b: Doubles, bo: number): void {
  const ax = -a[ao]!, ay = -a[ao + 1]!, az = -a[ao + 2]!, aw = a[ao + 3]!;
  const bx = b[bo]!, by = b[bo + 1]!, bz = b[bo + 2]!, bw = b[bo + 3]!;
  out[o] = aw * bx + ax * bw + ay * bz - az * by;
  out[o + 1] = aw * by - ax * bz + ay * bw + az * bx;
  out[o + 2] = aw * bz + ax * by - ay * bx + az * bw;
  out[o + 3] = aw * bw - ax * bx - ay * by - az * bz;
}

export function quatNormalize(q: Doubles, o: number): void {
  const n = Math.sqrt(q[o]! * q[o]! + q[o + 1]! * q[o + 1]! + q[o + 2]! * q[o + 2]! + q[o + 3]! * q[o + 3]!);
  const s = n > 0 ? 1 / n : 0;
  q[o]! *= s; q[o + 1]! *= s; q[o + 2]! *= s; q[o + 3]! *= s;
  if (n === 0) q[o + 3] = 1;
}

/** Rotate vector (vx, vy, vz) by q[o]; result in out[oo]. */
export function quatRotate(out: Doubles, oo: number, q: Doubles, o: number, vx: number, vy: number, vz: number): void {
  const qx = q[o]!, qy = q[o + 1]!, qz = q[o + 2]!, qw = q[o + 3]!;
  // t = 2 q×v; v' = v + w t + q×t
  const tx = 2 * (qy * vz - qz * vy);
  const ty = 2 * (qz * vx - qx * vz);
  const tz = 2 * (qx * vy - qy * vx);
  out[oo] = vx + qw * tx + (qy * tz - qz * ty);
  out[oo + 1] = vy + qw * ty + (qz * tx - qx * tz);
  out[oo + 2] = vz + qw * tz + (qx * ty - qy * tx);
}

/**
 * Below this squared angle (a turn of 0.2 rad: a half angle h of 0.1) quatRotateByVector takes
 * sin(h)/(2h) and cos(h) from their Taylor series in h²: the first term left out is below 3e-18
 * of the result, under a double's rounding, and a step's turn is almost always this small.
 */
const SERIES_MAX_ANGLE2 = 0.04;

/** q[o] ← exp(½ φ) ⊗ q[o]: rotate by the world rotation vector φ = (px, py, pz). */
export function quatRotateByVector(q: Doubles, o: number, px: number, py: number, pz: number): void {
  const angle2 = px * px + py * py + pz * pz;
  if (angle2 === 0) return;
  // s = sin(h) / (2h), dw = cos(h), h = |φ| / 2: by series for a small turn (no square root,
  // division, sine or cosine: the integrator turns every bone by one each step)
  let s: number, dw: number;
  if (angle2 < SERIES_MAX_ANGLE2) {
    const h2 = 0.25 * angle2;
    s = 0.5 + h2 * (-1 / 12 + h2 * (1 / 240 + h2 * (-1 / 10080 + h2 * (1 / 725760))));
    dw = 1 + h2 * (-0.5 + h2 * (1 / 24 + h2 * (-1 / 720 + h2 * (1 / 40320 - h2 * (1 / 3628800)))));
  } else {
    const angle = Math.sqrt(angle2), half = 0.5 * angle;
    s = Math.sin(half) / angle;
    dw = Math.cos(half);
  }
  const dx = px * s, dy = py * s, dz = pz * s;
  const qx = q[o]!, qy = q[o + 1]!, qz = q[o + 2]!, qw = q[o + 3]!;
  q[o] = dw * qx + dx * qw + dy * qz - dz * qy;
  q[o + 1] = dw * qy - dx * qz + dy * qw + dz * qx;
  q[o + 2] = dw * qz + dx * qy - dy * qx + dz * qw;
  q[o + 3] = dw * qw - dx * qx - dy * qy - dz * qz;
  quatNormalize(q, o);
}

/**
 * Rotation vector (axis × angle) of q[o], angle wrapped to [0, π] by taking the hemisphere
 * with w >= 0, so components lie in [-π, π]. Written to out[oo].
 */
export function quatToRotationVector(out: Doubles, oo: number, q: Doubles, o: number): void {
  let x = q[o]!, y = q[o + 1]!, z = q[o + 2]!, w = q[o + 3]!;
  if (w < 0) { x = -x; y = -y; z = -z; w = -w; }
  const s = len3(x, y, z);
  if (s < 1e-12) {
    // small angle: φ ≈ 2 v
    out[oo] = 2 * x; out[oo + 1] = 2 * y; out[oo + 2] = 2 * z;
    return;
  }
  const angle = 2 * Math.atan2(s, w);
  const f = angle * (1 / s); // (as torsionSprings takes it, which needs 1 / s twice: the same bits)
  out[oo] = x * f; out[oo + 1] = y * f; out[oo + 2] = z * f;
}

/** Quaternion from axis (unit) and angle. */
export function quatFromAxisAngle(out: Doubles, o: number, ax: number, ay: number, az: number, angle: number): void {
  const s = Math.sin(angle / 2);
  out[o] = ax * s; out[o + 1] = ay * s; out[o + 2] = az * s; out[o + 3] = Math.cos(angle / 2);
}

/**
 * Rest rotation of a bone pointing along unit direction d with a roll about d: the shortest
 * arc from +Y to d (a half turn about +Z when d is -Y), then the roll. Deterministic.
 */
export function quatFromDirectionRoll(out: Doubles, o: number, dx: number, dy: number, dz: number, roll: number): void {
  const n = len3(dx, dy, dz);
  dx /= n; dy /= n; dz /= n;
  if (dy < -1 + 1e-12) {
    quatFromAxisAngle(out, o, 0, 0, 1, Math.PI);
  } else {
    // axis = Y × d = (dz, 0, -dx); angle = acos(dy). Half-angle form avoids acos.
    const w = 1 + dy;
    const x = dz, y = 0, z = -dx;
    const m = Math.sqrt(x * x + y * y + z * z + w * w);
    out[o] = x / m; out[o + 1] = y / m; out[o + 2] = z / m; out[o + 3] = w / m;
  }
  if (roll !== 0) {
    // world roll about d applied after: q = R(d, roll) ⊗ q
    quatRotateByVector(out, o, dx * roll, dy * roll, dz * roll);
  }
}

// Rotation of a vector by (x, y, z, w), one component at a time (small enough that V8
// inlines them, so returning a number does not allocate).
export function rotX(x: number, y: number, z: number, w: number, vx: number, vy: number, vz: number): number {
  return (1 - 2 * (y * y + z * z)) * vx + 2 * (x * y - z * w) * vy + 2 * (x * z + y * w) * vz;
}
export function rotY(x: number, y: number, z: number, w: number, vx: number, vy: number, vz: number): number {
  return 2 * (x * y + z * w) * vx + (1 - 2 * (x * x + z * z)) * vy + 2 * (y * z - x * w) * vz;
}
export function rotZ(x: number, y: number, z: number, w: number, vx: number, vy: number, vz: number): number {
  return 2 * (x * z - y * w) * vx + 2 * (y * z + x * w) * vy + (1 - 2 * (x * x + y * y)) * vz;
}

// Array-in, array-out forms for hot loops: calling a function V8 does not inline with
// floating-point arguments boxes each one, so these take every vector from an array.

/** out = q v (rotate), v = vec[vo..vo+2]; safe in place. */
export function quatRotateArr(out: Doubles, oo: number, q: Doubles, qo: number, v: Doubles, vo: number): void {
  const qx = q[qo]!, qy = q[qo + 1]!, qz = q[qo + 2]!, qw = q[qo + 3]!;
  const vx = v[vo]!, vy = v[vo + 1]!, vz = v[vo + 2]!;
  const tx = 2 * (qy * vz - qz * vy), ty = 2 * (qz * vx - qx * vz), tz = 2 * (qx * vy - qy * vx);
  out[oo] = vx + qw * tx + (qy * tz - qz * ty);
  out[oo + 1] = vy + qw * ty + (qz * tx - qx * tz);
  out[oo + 2] = vz + qw * tz + (qx * ty - qy * tx);
}

/** out = q⁻¹ v, v = vec[vo..vo+2]; safe in place. */
export function quatRotateInvArr(out: Doubles, oo: number, q: Doubles, qo: number, v: Doubles, vo: number): void {
  const qx = -q[qo]!, qy = -q[qo + 1]!, qz = -q[qo + 2]!, qw = q[qo + 3]!;
  const vx = v[vo]!, vy = v[vo + 1]!, vz = v[vo + 2]!;
  const tx = 2 * (qy * vz - qz * vy), ty = 2 * (qz * vx - qx * vz), tz = 2 * (qx * vy - qy * vx);
  out[oo] = vx + qw * tx + (qy * tz - qz * ty);
  out[oo + 1] = vy + qw * ty + (qz * tx - qx * tz);
  out[oo + 2] = vz + qw * tz + (qx * ty - qy * tx);
}

/** out = exp(½ v): the rotation whose rotation vector (axis × angle) is v[vo..vo+2]. */
export function quatFromRotationVector(out: Doubles, oo: number, v: Doubles, vo: number): void {
  const x = v[vo]!, y = v[vo + 1]!, z = v[vo + 2]!;
  const angle = Math.sqrt(x * x + y * y + z * z);
  if (angle === 0) { out[oo] = 0; out[oo + 1] = 0; out[oo + 2] = 0; out[oo + 3] = 1; return; }
  const s = Math.sin(0.5 * angle) / angle;
  out[oo] = x * s; out[oo + 1] = y * s; out[oo + 2] = z * s; out[oo + 3] = Math.cos(0.5 * angle);
}

/**
 * Shortest-arc rotation taking unit vector a = a[ao..] to unit vector b = b[bo..] into out[o];
 * 180° about a perpendicular axis when they are opposite. (Arrays in: V8 boxes floating-point
 * arguments of calls it does not inline.)
 */
export function quatArc(out: Doubles, o: number, a: Doubles, ao: number, b: Doubles, bo: number): void {
  const ax = a[ao]!, ay = a[ao + 1]!, az = a[ao + 2]!, bx = b[bo]!, by = b[bo + 1]!, bz = b[bo + 2]!;
  const d = ax * bx + ay * by + az * bz;
  if (d < -1 + 1e-12) {
    // a × (least aligned world axis)
    const x = Math.abs(ax), y = Math.abs(ay), z = Math.abs(az);
    let px: number, py: number, pz: number;
    if (x <= y && x <= z) { px = 0; py = az; pz = -ay; } else if (y <= z) { px = -az; py = 0; pz = ax; } else { px = ay; py = -ax; pz = 0; }
    const n = Math.sqrt(px * px + py * py + pz * pz);
    out[o] = px / n; out[o + 1] = py / n; out[o + 2] = pz / n; out[o + 3] = 0;
    return;
  }
  const cx = ay * bz - az * by, cy = az * bx - ax * bz, cz = ax * by - ay * bx, w = 1 + d;
  const n = Math.sqrt(cx * cx + cy * cy + cz * cz + w * w);
  out[o] = cx / n; out[o + 1] = cy / n; out[o + 2] = cz / n; out[o + 3] = w / n;
}

/**
 * rot[o] ← R(u, angle) · rot[o], normalised, with the unit axis u and the angle read from
 * arg[ao..ao+3] (doubles passed in an array: as arguments V8 boxes them where it does not
 * inline); false, and nothing written, when the result is not finite.
 */
export function quatTurnWorld(rot: Doubles, o: number, arg: Doubles, ao: number): boolean {
  const ux = arg[ao]!, uy = arg[ao + 1]!, uz = arg[ao + 2]!, angle = arg[ao + 3]!;
  const s = Math.sin(0.5 * angle), c = Math.cos(0.5 * angle);
  const dx = ux * s, dy = uy * s, dz = uz * s, dw = c;
  const qx = rot[o]!, qy = rot[o + 1]!, qz = rot[o + 2]!, qw = rot[o + 3]!;
  const nx = dw * qx + dx * qw + dy * qz - dz * qy;
  const ny = dw * qy - dx * qz + dy * qw + dz * qx;
  const nz = dw * qz + dx * qy - dy * qx + dz * qw;
  const nw = dw * qw - dx * qx - dy * qy - dz * qz;
  const m = Math.sqrt(nx * nx + ny * ny + nz * nz + nw * nw);
  if (!Number.isFinite(m) || m === 0) return false;
  rot[o] = nx / m; rot[o + 1] = ny / m; rot[o + 2] = nz / m; rot[o + 3] = nw / m;
  return true;
}
