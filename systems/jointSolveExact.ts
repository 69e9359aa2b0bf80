/**
 * Exact inter-joint forces over a tree, in time linear in the number of bones: the same
 * equations as the iterative passes (equal accelerations at every joint, forces summing to
 * zero; PhysIK eqs. 3-10) solved directly instead of by Gauss-Seidel.
 *
 * Up the tree (children first), each subtree is reduced to an affine response at its head:
 * the acceleration of bone b's head under a head force F is Φ_b F + β_b, with every joint
 * below solved. For bone b with children c_i attached at levers r_i (from b's centre) and
 * its head at lever r_h, the children's forces F_i satisfy, for each i,
 *   a0_b(r_i) + M(r_i, r_h) F − Σ_j M(r_i, r_j) F_j = Φ_ci F_i + β_ci
 * with M(r, s) = m⁻¹ I − [r]ₓ J [s]ₓ the acceleration at r per unit force at s (eq. 3) and
 * a0_b(r) the bone's free acceleration at r. That small dense system (3k × 3k for k children)
 * gives F_i = P_i F + q_i, and then Φ_b = M(r_h, r_h) − Σ M(r_h, r_i) P_i,
 * β_b = a0_b(r_h) − Σ M(r_h, r_i) q_i.
 * Down the tree, the root's head force is zero (floating) or cancels its head's acceleration
 * (pinned), and each child's force follows from its parent's.
 */
import type { PhysikWorld, RigRecord } from '../src/core/world';

const Mh = new Float64Array(9);
const Mtmp = new Float64Array(9);
const rh = new Float64Array(3);
const ra = new Float64Array(3);
const rb = new Float64Array(3);
const a0 = new Float64Array(3);

/** out (row-major 3×3) = m⁻¹ I − [r]ₓ J [s]ₓ for bone b (J its world inverse inertia). */
function compliance(out: Float64Array, im: Float64Array, b: number, J: Float64Array, r: Float64Array, s: Float64Array): void {
  const j = b * 6;
  const a = J[j]!, bb = J[j + 1]!, c = J[j + 2]!, d = J[j + 3]!, e = J[j + 4]!, f = J[j + 5]!;
  const sx = s[0]!, sy = s[1]!, sz = s[2]!, rx = r[0]!, ry = r[1]!, rz = r[2]!;
  // B = J [s]ₓ
  const b00 = bb * sz - c * sy, b01 = -a * sz + c * sx, b02 = a * sy - bb * sx;
  const b10 = d * sz - e * sy, b11 = -bb * sz + e * sx, b12 = bb * sy - d * sx;
  const b20 = e * sz - f * sy, b21 = -c * sz + f * sx, b22 = c * sy - e * sx;
  const m = 1 / im[b]!;
  // [r]ₓ B rows: (−rz B1 + ry B2), (rz B0 − rx B2), (−ry B0 + rx B1)
  out[0] = m - (-rz * b10 + ry * b20); out[1] = -(-rz * b11 + ry * b21); out[2] = -(-rz * b12 + ry * b22);
  out[3] = -(rz * b00 - rx * b20); out[4] = m - (rz * b01 - rx * b21); out[5] = -(rz * b02 - rx * b22);
  out[6] = -(-ry * b00 + rx * b10); out[7] = -(-ry * b01 + rx * b11); out[8] = m - (-ry * b02 + rx * b12);
}

/** Free acceleration of bone b at lever r (plus the centripetal term if asked), into a0. */
function freeAt(world: PhysikWorld, b: number, r: Float64Array, centripetal: boolean): void {
  const { acc, angAcc, angVel } = world.physik.Bone;
  const b3 = b * 3;
  const ax = angAcc[b3]!, ay = angAcc[b3 + 1]!, az = angAcc[b3 + 2]!;
  const rx = r[0]!, ry = r[1]!, rz = r[2]!;
  a0[0] = acc[b3]! + ay * rz - az * ry;
  a0[1] = acc[b3 + 1]! + az * rx - ax * rz;
  a0[2] = acc[b3 + 2]! + ax * ry - ay * rx;
  if (centripetal) {
    const wx = angVel[b3]!, wy = angVel[b3 + 1]!, wz = angVel[b3 + 2]!;
    const ux = wy * rz - wz * ry, uy = wz * rx - wx * rz, uz = wx * ry - wy * rx;
    a0[0] += wy * uz - wz * uy; a0[1] += wz * ux - wx * uz; a0[2] += wx * uy - wy * ux;
  }
}

/** Solve the n×n system K X = R in place (R has w columns), partial pivoting; X left in R. */
function solveDense(K: Float64Array, R: Float64Array, n: number, w: number): void {
  for (let col = 0; col < n; col++) {
    let piv = col, best = Math.abs(K[col * n + col]!);
    for (let row = col + 1; row < n; row++) {
      const v = Math.abs(K[row * n + col]!);
      if (v > best) { best = v; piv = row; }
    }
    if (piv !== col) {
      for (let k = 0; k < n; k++) { const t = K[col * n + k]!; K[col * n + k] = K[piv * n + k]!; K[piv * n + k] = t; }
      for (let k = 0; k < w; k++) { const t = R[col * w + k]!; R[col * w + k] = R[piv * w + k]!; R[piv * w + k] = t; }
    }
    const inv = 1 / K[col * n + col]!;
    for (let row = col + 1; row < n; row++) {
      const f = K[row * n + col]! * inv;
      if (f === 0) continue;
      for (let k = col; k < n; k++) K[row * n + k] -= f * K[col * n + k]!;
      for (let k = 0; k < w; k++) R[row * w + k] -= f * R[col * w + k]!;
    }
  }
  for (let row = n - 1; row >= 0; row--) {
    const inv = 1 / K[row * n + row]!;
    for (let k = 0; k < w; k++) {
      let v = R[row * w + k]!;
      for (let c = row + 1; c < n; c++) v -= K[row * n + c]! * R[c * w + k]!;
      R[row * w + k] = v * inv;
    }
  }
}

/** Writes Bone.jointForce for every bone of the rig from the bones' free accelerations. */
export function exactJointForces(world: PhysikWorld, rig: RigRecord): void {
  const { Bone, Rig } = world.physik;
  const { head, centre, effMass, invInertiaWorld, jointForce } = Bone;
  const { bones, childStart, childIndex } = rig;
  const { phi, beta, P, q, K, R } = rig.exact;
  const centripetal = rig.settings.centripetal;
  const n = bones.length;

  // Up: Φ and β of every subtree, P and q of every child.
  for (let i = n - 1; i >= 0; i--) {
    const b = bones[i]!, b3 = b * 3;
    rh[0] = head[b3]! - centre[b3]!; rh[1] = head[b3 + 1]! - centre[b3 + 1]!; rh[2] = head[b3 + 2]! - centre[b3 + 2]!;
    compliance(Mh, effMass, b, invInertiaWorld, rh, rh);
    freeAt(world, b, rh, centripetal);
    const c0 = childStart[i]!, c1 = childStart[i + 1]!, k = c1 - c0, size = 3 * k;
    for (let e = 0; e < 9; e++) phi[i * 9 + e] = Mh[e]!;
    beta[i * 3] = a0[0]!; beta[i * 3 + 1] = a0[1]!; beta[i * 3 + 2] = a0[2]!;
    if (k === 0) continue;
    // K blocks M(r_i, r_j) + δ_ij Φ_ci; R = [M(r_i, r_h) | a0(r_i) − β_ci]
    for (let ci = 0; ci < k; ci++) {
      const child = childIndex[c0 + ci]!, cb3 = bones[child]! * 3;
      ra[0] = head[cb3]! - centre[b3]!; ra[1] = head[cb3 + 1]! - centre[b3 + 1]!; ra[2] = head[cb3 + 2]! - centre[b3 + 2]!;
      for (let cj = 0; cj < k; cj++) {
        const other = bones[childIndex[c0 + cj]!]! * 3;
        rb[0] = head[other]! - centre[b3]!; rb[1] = head[other + 1]! - centre[b3 + 1]!; rb[2] = head[other + 2]! - centre[b3 + 2]!;
        compliance(Mtmp, effMass, b, invInertiaWorld, ra, rb);
        for (let row = 0; row < 3; row++) {
          for (let col = 0; col < 3; col++) {
            let v = Mtmp[row * 3 + col]!;
            if (ci === cj) v += phi[child * 9 + row * 3 + col]!;
            K[(ci * 3 + row) * size + cj * 3 + col] = v;
          }
        }
      }
      compliance(Mtmp, effMass, b, invInertiaWorld, ra, rh);
      freeAt(world, b, ra, centripetal);
      for (let row = 0; row < 3; row++) {
        const o = (ci * 3 + row) * 4;
        R[o] = Mtmp[row * 3]!; R[o + 1] = Mtmp[row * 3 + 1]!; R[o + 2] = Mtmp[row * 3 + 2]!;
        R[o + 3] = a0[row]! - beta[child * 3 + row]!;
      }
    }
    solveDense(K, R, size, 4);
    for (let ci = 0; ci < k; ci++) {
      const child = childIndex[c0 + ci]!, cb3 = bones[child]! * 3;
      for (let row = 0; row < 3; row++) {
        const o = (ci * 3 + row) * 4;
        P[child * 9 + row * 3] = R[o]!; P[child * 9 + row * 3 + 1] = R[o + 1]!; P[child * 9 + row * 3 + 2] = R[o + 2]!;
        q[child * 3 + row] = R[o + 3]!;
      }
      // Φ_b −= M(r_h, r_i) P_i ; β_b −= M(r_h, r_i) q_i
      ra[0] = head[cb3]! - centre[b3]!; ra[1] = head[cb3 + 1]! - centre[b3 + 1]!; ra[2] = head[cb3 + 2]! - centre[b3 + 2]!;
      compliance(Mtmp, effMass, b, invInertiaWorld, rh, ra);
      for (let row = 0; row < 3; row++) {
        const m0 = Mtmp[row * 3]!, m1 = Mtmp[row * 3 + 1]!, m2 = Mtmp[row * 3 + 2]!;
        for (let col = 0; col < 3; col++) {
          phi[i * 9 + row * 3 + col] -= m0 * P[child * 9 + col]! + m1 * P[child * 9 + 3 + col]! + m2 * P[child * 9 + 6 + col]!;
        }
        beta[i * 3 + row] -= m0 * q[child * 3]! + m1 * q[child * 3 + 1]! + m2 * q[child * 3 + 2]!;
      }
    }
  }

  // Down: the root's head force, then each child's from its parent's.
  const root = bones[0]!, r3 = root * 3;
  if (Rig.pinned[rig.eid]) {
    for (let e = 0; e < 9; e++) K[e] = phi[e]!;
    R[0] = -beta[0]!; R[1] = -beta[1]!; R[2] = -beta[2]!;
    solveDense(K, R, 3, 1);
    jointForce[r3] = R[0]!; jointForce[r3 + 1] = R[1]!; jointForce[r3 + 2] = R[2]!;
  } else {
    jointForce[r3] = 0; jointForce[r3 + 1] = 0; jointForce[r3 + 2] = 0;
  }
  for (let i = 1; i < n; i++) {
    // the parent's head force is final: parents come first in depth-first order
    const c = bones[i]!, c3 = c * 3, p3 = Bone.parent[c]! * 3;
    const hx = jointForce[p3]!, hy = jointForce[p3 + 1]!, hz = jointForce[p3 + 2]!;
    const o = i * 9;
    jointForce[c3] = P[o]! * hx + P[o + 1]! * hy + P[o + 2]! * hz + q[i * 3]!;
    jointForce[c3 + 1] = P[o + 3]! * hx + P[o + 4]! * hy + P[o + 5]! * hz + q[i * 3 + 1]!;
    jointForce[c3 + 2] = P[o + 6]! * hx + P[o + 7]! * hy + P[o + 8]! * hz + q[i * 3 + 2]!;
  }
}
