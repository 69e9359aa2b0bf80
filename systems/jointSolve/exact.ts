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
 * a0_b(r) the bone's free acceleration at r. That gives F_i = P_i F + q_i, and then
 * Φ_b = M(r_h, r_h) − Σ M(r_h, r_i) P_i, β_b = a0_b(r_h) − Σ M(r_h, r_i) q_i.
 *
 * How the per-bone system is solved depends on the number of children k:
 *  - k = 1 (chains, limbs): the 3×3 system, unrolled in registers (the same operations as the
 *    general elimination, so the same bits).
 *  - k = 2: the dense 3k × 3k system by Gaussian elimination with partial pivoting.
 *  - k ≥ 3 (a torso with neck, arms and legs; random trees): the dense system costs k³, so it
 *    is solved in the articulated-body form instead. M(r_i, r_j) = U_iᵀ G U_j with
 *    U_i = [I, −[r_i]ₓ] (acceleration of the point r_i from the bone's linear and angular
 *    acceleration u) and G = diag(m⁻¹ I, J); with W_i = Φ_ci⁻¹ the children's forces are
 *    F_i = W_i (U_i u − β'_i), β'_i = β_ci minus the centripetal term at r_i, and the bone's
 *    equations of motion become one 6×6 system
 *      (G⁻¹ + Σ U_iᵀ W_i U_i) u = G⁻¹ u0 + Σ U_iᵀ W_i β'_i + U_hᵀ F,
 *    so u = X F + y, Φ_b = U_h X, β_b = U_h y (+ centripetal at r_h), P_i = W_i U_i X and
 *    q_i = W_i (U_i y − β'_i): a 6×6 solve and O(k) small products per bone.
 * Down the tree, the root's head force is zero (floating) or cancels its head's acceleration
 * (pinned), and each child's force follows from its parent's.
 *
 * No allocation: module scratch, grown (once) for the largest rig and number of children seen.
 */
import type { PhysikWorld, RigRecord } from '../../src/world/world';
import type { Doubles } from '../../components/doubles';
import { solveDense } from '../../src/math/dense';
import { invert3 } from '../../src/math/mat3';

/** Per lever of the current bone (its head first, then its children's heads): r (3) and B = J [r]ₓ (9). */
let lever = new Float64Array(3 * 8);
let crossJ = new Float64Array(9 * 8);
/** Per child of the current bone (k ≥ 3): W = Φ⁻¹ (9) and β' (3). */
let childW = new Float64Array(9 * 8);
let childB = new Float64Array(3 * 8);
/** The 6×6 articulated system and its right-hand sides [U_hᵀ | rhs] (6×4). */
const A6 = new Float64Array(36);
const R6 = new Float64Array(24);
/**
 * The sweep's values per bone, by depth-first index: Φ (3×3) and β of its subtree, P (3×3) and
 * q of its head force. Written before they are read in every solve, so one copy serves every
 * rig (grown once, to the largest): a crowd's rigs share it and it stays in cache from one rig
 * to the next, where a copy per rig was read from memory each step.
 */
const sweep = { phi: new Float64Array(9 * 32), beta: new Float64Array(3 * 32), P: new Float64Array(9 * 32), q: new Float64Array(3 * 32) };
/** A bone with two children: the dense 6×6 system K and its right-hand sides R (6×4). */
const K6 = new Float64Array(36);
const R6x4 = new Float64Array(24);

function ensureSweep(bones: number): void {
  if (sweep.beta.length >= 3 * bones) return;
  const n = Math.max(bones, 2 * (sweep.beta.length / 3));
  sweep.phi = new Float64Array(9 * n); sweep.beta = new Float64Array(3 * n);
  sweep.P = new Float64Array(9 * n); sweep.q = new Float64Array(3 * n);
}

/** Products of the current step: M (3×3) and the centripetal term of a point. */
const Mtmp = new Float64Array(9);
const cen = new Float64Array(3);

function ensureScratch(kids: number): void {
  if (lever.length >= 3 * (kids + 1)) return;
  const n = 2 * (kids + 1);
  lever = new Float64Array(3 * n); crossJ = new Float64Array(9 * n);
  childW = new Float64Array(9 * n); childB = new Float64Array(3 * n);
}

/** crossJ[l] = J [r_l]ₓ for lever l, J the symmetric inverse inertia of bone b. */
function crossOf(J: Doubles, b: number, l: number): void {
  const j = b * 6;
  const a = J[j]!, bb = J[j + 1]!, c = J[j + 2]!, d = J[j + 3]!, e = J[j + 4]!, f = J[j + 5]!;
  const sx = lever[3 * l]!, sy = lever[3 * l + 1]!, sz = lever[3 * l + 2]!;
  const o = 9 * l;
  crossJ[o] = bb * sz - c * sy; crossJ[o + 1] = -a * sz + c * sx; crossJ[o + 2] = a * sy - bb * sx;
  crossJ[o + 3] = d * sz - e * sy; crossJ[o + 4] = -bb * sz + e * sx; crossJ[o + 5] = bb * sy - d * sx;
  crossJ[o + 6] = e * sz - f * sy; crossJ[o + 7] = -c * sz + f * sx; crossJ[o + 8] = c * sy - e * sx;
}

/** out (row-major 3×3) = m⁻¹ I − [r_lr]ₓ J [r_ls]ₓ for bone b, from crossJ[ls]; m⁻¹ = 1 / effMass[b]. */
function compliance(out: Float64Array, o: number, effMass: Doubles, b: number, lr: number, ls: number): void {
  const rx = lever[3 * lr]!, ry = lever[3 * lr + 1]!, rz = lever[3 * lr + 2]!;
  const s = 9 * ls;
  const b00 = crossJ[s]!, b01 = crossJ[s + 1]!, b02 = crossJ[s + 2]!;
  const b10 = crossJ[s + 3]!, b11 = crossJ[s + 4]!, b12 = crossJ[s + 5]!;
  const b20 = crossJ[s + 6]!, b21 = crossJ[s + 7]!, b22 = crossJ[s + 8]!;
  const m = 1 / effMass[b]!;
  // [r]ₓ B rows: (−rz B1 + ry B2), (rz B0 − rx B2), (−ry B0 + rx B1)
  out[o] = m - (-rz * b10 + ry * b20); out[o + 1] = -(-rz * b11 + ry * b21); out[o + 2] = -(-rz * b12 + ry * b22);
  out[o + 3] = -(rz * b00 - rx * b20); out[o + 4] = m - (rz * b01 - rx * b21); out[o + 5] = -(rz * b02 - rx * b22);
  out[o + 6] = -(-ry * b00 + rx * b10); out[o + 7] = -(-ry * b01 + rx * b11); out[o + 8] = m - (-ry * b02 + rx * b12);
}

/** Centripetal acceleration ω × (ω × r) of bone b at lever l (zero when switched off), into cen. */
function centripetalAt(angVel: Doubles, b: number, l: number, on: boolean): void {
  if (!on) { cen[0] = 0; cen[1] = 0; cen[2] = 0; return; }
  const b3 = b * 3;
  const wx = angVel[b3]!, wy = angVel[b3 + 1]!, wz = angVel[b3 + 2]!;
  const rx = lever[3 * l]!, ry = lever[3 * l + 1]!, rz = lever[3 * l + 2]!;
  const ux = wy * rz - wz * ry, uy = wz * rx - wx * rz, uz = wx * ry - wy * rx;
  cen[0] = wy * uz - wz * uy; cen[1] = wz * ux - wx * uz; cen[2] = wx * uy - wy * ux;
}

/** k = 1 scratch: the 3×3 system K and its four right-hand sides R (3×4), row-major. */
const K3 = new Float64Array(9);
const R3 = new Float64Array(12);

/** row i ↔ row j of K3 (3 wide) and R3 (4 wide). */
function swapRows3(i: number, j: number): void {
  for (let k = 0; k < 3; k++) { const t = K3[i * 3 + k]!; K3[i * 3 + k] = K3[j * 3 + k]!; K3[j * 3 + k] = t; }
  for (let k = 0; k < 4; k++) { const t = R3[i * 4 + k]!; R3[i * 4 + k] = R3[j * 4 + k]!; R3[j * 4 + k] = t; }
}

/**
 * solveDense(K3, R3, 3, 4) unrolled: the same pivot choices and the same arithmetic in the same
 * order (so bit-identical results), without the loop bookkeeping. The entries below the
 * diagonal that elimination would overwrite are never read again, so they are not written.
 */
function solve3(): void {
  // column 0
  let piv = 0, best = Math.abs(K3[0]!);
  let v = Math.abs(K3[3]!); if (v > best) { best = v; piv = 1; }
  v = Math.abs(K3[6]!); if (v > best) { best = v; piv = 2; }
  if (piv !== 0) swapRows3(0, piv);
  let inv = 1 / K3[0]!;
  for (let row = 1; row < 3; row++) {
    const f = K3[row * 3]! * inv;
    if (f === 0) continue;
    K3[row * 3 + 1] = K3[row * 3 + 1]! - f * K3[1]!; K3[row * 3 + 2] = K3[row * 3 + 2]! - f * K3[2]!;
    R3[row * 4] = R3[row * 4]! - f * R3[0]!; R3[row * 4 + 1] = R3[row * 4 + 1]! - f * R3[1]!; R3[row * 4 + 2] = R3[row * 4 + 2]! - f * R3[2]!; R3[row * 4 + 3] = R3[row * 4 + 3]! - f * R3[3]!;
  }
  // column 1
  piv = 1; best = Math.abs(K3[4]!);
  v = Math.abs(K3[7]!); if (v > best) { best = v; piv = 2; }
  if (piv !== 1) swapRows3(1, piv);
  inv = 1 / K3[4]!;
  const f = K3[7]! * inv;
  if (f !== 0) {
    K3[8] = K3[8]! - f * K3[5]!;
    R3[8] = R3[8]! - f * R3[4]!; R3[9] = R3[9]! - f * R3[5]!; R3[10] = R3[10]! - f * R3[6]!; R3[11] = R3[11]! - f * R3[7]!;
  }
  // back substitution
  const i2 = 1 / K3[8]!, i1 = 1 / K3[4]!, i0 = 1 / K3[0]!;
  const k01 = K3[1]!, k02 = K3[2]!, k12 = K3[5]!;
  for (let k = 0; k < 4; k++) {
    const x2 = R3[8 + k]! * i2;
    const x1 = (R3[4 + k]! - k12 * x2) * i1;
    R3[k] = (R3[k]! - k01 * x1 - k02 * x2) * i0;
    R3[4 + k] = x1; R3[8 + k] = x2;
  }
}

/**
 * A bone with no child or one child (most bones: chains, limbs), all in registers: Φ_b, β_b
 * and the child's P and q. The arithmetic is that of compliance() and solveDense() written
 * out (B = J [s]ₓ once per lever, then M(r, s) = m⁻¹ I − [r]ₓ B), in the same order, so the
 * results are the same bits; V8 would not inline four compliance() calls into one function.
 */
function upSimple(
  head: Doubles, centre: Doubles, effMass: Doubles, J: Doubles, acc: Doubles, angAcc: Doubles, angVel: Doubles,
  phi: Float64Array, beta: Float64Array, P: Float64Array, q: Float64Array, bones: Int32Array, i: number, child: number, centripetal: boolean,
): void {
  // (arrays as arguments: the Bone store has too many fields for V8's fast properties, so
  // each Bone.x read is a dictionary lookup; the caller reads them once per rig)
  const b = bones[i]!, b3 = b * 3, j = b * 6;
  const a = J[j]!, bb = J[j + 1]!, c = J[j + 2]!, d = J[j + 3]!, e = J[j + 4]!, f = J[j + 5]!;
  const m = 1 / effMass[b]!;
  const cx = centre[b3]!, cy = centre[b3 + 1]!, cz = centre[b3 + 2]!;
  const hx = head[b3]! - cx, hy = head[b3 + 1]! - cy, hz = head[b3 + 2]! - cz;
  // B_h = J [r_h]ₓ
  const h00 = bb * hz - c * hy, h01 = -a * hz + c * hx, h02 = a * hy - bb * hx;
  const h10 = d * hz - e * hy, h11 = -bb * hz + e * hx, h12 = bb * hy - d * hx;
  const h20 = e * hz - f * hy, h21 = -c * hz + f * hx, h22 = c * hy - e * hx;
  // M(r_h, r_h)
  const mh0 = m - (-hz * h10 + hy * h20), mh1 = -(-hz * h11 + hy * h21), mh2 = -(-hz * h12 + hy * h22);
  const mh3 = -(hz * h00 - hx * h20), mh4 = m - (hz * h01 - hx * h21), mh5 = -(hz * h02 - hx * h22);
  const mh6 = -(-hy * h00 + hx * h10), mh7 = -(-hy * h01 + hx * h11), mh8 = m - (-hy * h02 + hx * h12);
  // free acceleration at the head
  const ax = angAcc[b3]!, ay = angAcc[b3 + 1]!, az = angAcc[b3 + 2]!;
  const lx = acc[b3]!, ly = acc[b3 + 1]!, lz = acc[b3 + 2]!;
  let bx = lx + ay * hz - az * hy, by = ly + az * hx - ax * hz, bz = lz + ax * hy - ay * hx;
  if (centripetal) {
    const wx = angVel[b3]!, wy = angVel[b3 + 1]!, wz = angVel[b3 + 2]!;
    const ux = wy * hz - wz * hy, uy = wz * hx - wx * hz, uz = wx * hy - wy * hx;
    bx += wy * uz - wz * uy; by += wz * ux - wx * uz; bz += wx * uy - wy * ux;
  }
  const i9 = i * 9, i3 = i * 3;
  if (child < 0) {
    phi[i9] = mh0; phi[i9 + 1] = mh1; phi[i9 + 2] = mh2; phi[i9 + 3] = mh3; phi[i9 + 4] = mh4;
    phi[i9 + 5] = mh5; phi[i9 + 6] = mh6; phi[i9 + 7] = mh7; phi[i9 + 8] = mh8;
    beta[i3] = bx; beta[i3 + 1] = by; beta[i3 + 2] = bz;
    return;
  }
  const cb3 = bones[child]! * 3, o = child * 9, c3 = child * 3;
  const rx = head[cb3]! - cx, ry = head[cb3 + 1]! - cy, rz = head[cb3 + 2]! - cz;
  // B_r = J [r]ₓ
  const r00 = bb * rz - c * ry, r01 = -a * rz + c * rx, r02 = a * ry - bb * rx;
  const r10 = d * rz - e * ry, r11 = -bb * rz + e * rx, r12 = bb * ry - d * rx;
  const r20 = e * rz - f * ry, r21 = -c * rz + f * rx, r22 = c * ry - e * rx;
  // K = M(r, r) + Φ_c
  K3[0] = m - (-rz * r10 + ry * r20) + phi[o]!; K3[1] = -(-rz * r11 + ry * r21) + phi[o + 1]!; K3[2] = -(-rz * r12 + ry * r22) + phi[o + 2]!;
  K3[3] = -(rz * r00 - rx * r20) + phi[o + 3]!; K3[4] = m - (rz * r01 - rx * r21) + phi[o + 4]!; K3[5] = -(rz * r02 - rx * r22) + phi[o + 5]!;
  K3[6] = -(-ry * r00 + rx * r10) + phi[o + 6]!; K3[7] = -(-ry * r01 + rx * r11) + phi[o + 7]!; K3[8] = m - (-ry * r02 + rx * r12) + phi[o + 8]!;
  // R = [M(r, r_h) | a0(r) − β_c]
  let a0x = lx + ay * rz - az * ry, a0y = ly + az * rx - ax * rz, a0z = lz + ax * ry - ay * rx;
  if (centripetal) {
    const wx = angVel[b3]!, wy = angVel[b3 + 1]!, wz = angVel[b3 + 2]!;
    const ux = wy * rz - wz * ry, uy = wz * rx - wx * rz, uz = wx * ry - wy * rx;
    a0x += wy * uz - wz * uy; a0y += wz * ux - wx * uz; a0z += wx * uy - wy * ux;
  }
  R3[0] = m - (-rz * h10 + ry * h20); R3[1] = -(-rz * h11 + ry * h21); R3[2] = -(-rz * h12 + ry * h22); R3[3] = a0x - beta[c3]!;
  R3[4] = -(rz * h00 - rx * h20); R3[5] = m - (rz * h01 - rx * h21); R3[6] = -(rz * h02 - rx * h22); R3[7] = a0y - beta[c3 + 1]!;
  R3[8] = -(-ry * h00 + rx * h10); R3[9] = -(-ry * h01 + rx * h11); R3[10] = m - (-ry * h02 + rx * h12); R3[11] = a0z - beta[c3 + 2]!;
  solve3();
  const p0 = R3[0]!, p1 = R3[1]!, p2 = R3[2]!, q0 = R3[3]!, p3 = R3[4]!, p4 = R3[5]!, p5 = R3[6]!, q1 = R3[7]!, p6 = R3[8]!, p7 = R3[9]!, p8 = R3[10]!, q2 = R3[11]!;
  P[o] = p0; P[o + 1] = p1; P[o + 2] = p2; P[o + 3] = p3; P[o + 4] = p4; P[o + 5] = p5; P[o + 6] = p6; P[o + 7] = p7; P[o + 8] = p8;
  q[c3] = q0; q[c3 + 1] = q1; q[c3 + 2] = q2;
  // Φ_b = M(r_h, r_h) − M(r_h, r) P ; β_b = a0(r_h) − M(r_h, r) q, with M(r_h, r) from B_r
  const n0 = m - (-hz * r10 + hy * r20), n1 = -(-hz * r11 + hy * r21), n2 = -(-hz * r12 + hy * r22);
  const n3 = -(hz * r00 - hx * r20), n4 = m - (hz * r01 - hx * r21), n5 = -(hz * r02 - hx * r22);
  const n6 = -(-hy * r00 + hx * r10), n7 = -(-hy * r01 + hx * r11), n8 = m - (-hy * r02 + hx * r12);
  phi[i9] = mh0 - (n0 * p0 + n1 * p3 + n2 * p6); phi[i9 + 1] = mh1 - (n0 * p1 + n1 * p4 + n2 * p7); phi[i9 + 2] = mh2 - (n0 * p2 + n1 * p5 + n2 * p8);
  phi[i9 + 3] = mh3 - (n3 * p0 + n4 * p3 + n5 * p6); phi[i9 + 4] = mh4 - (n3 * p1 + n4 * p4 + n5 * p7); phi[i9 + 5] = mh5 - (n3 * p2 + n4 * p5 + n5 * p8);
  phi[i9 + 6] = mh6 - (n6 * p0 + n7 * p3 + n8 * p6); phi[i9 + 7] = mh7 - (n6 * p1 + n7 * p4 + n8 * p7); phi[i9 + 8] = mh8 - (n6 * p2 + n7 * p5 + n8 * p8);
  beta[i3] = bx - (n0 * q0 + n1 * q1 + n2 * q2);
  beta[i3 + 1] = by - (n3 * q0 + n4 * q1 + n5 * q2);
  beta[i3 + 2] = bz - (n6 * q0 + n7 * q1 + n8 * q2);
}

/**
 * Writes Bone.jointForce for every bone of the rig from the bones' free accelerations (Bone.acc,
 * Bone.angAcc); the caller adds the forces to those accelerations (interJointSolve's
 * applyJointForces), which then hold every joint together.
 */
export function exactJointForces(world: PhysikWorld, rig: RigRecord): void {
  const { Bone, Rig } = world.physik;
  const { head, centre, effMass, invInertiaWorld: J, effInertiaWorld, jointForce, acc, angAcc, angVel, parent: parentOf } = Bone;
  // (acc, angAcc: the free accelerations of the bones, from freeAccelerations)
  const { bones, childStart, childIndex } = rig;
  const n = bones.length;
  ensureSweep(n);
  const { phi, beta, P, q } = sweep;
  const centripetal = rig.settings.centripetal;

  // Up: Φ and β of every subtree, P and q of every child.
  for (let i = n - 1; i >= 0; i--) {
    const c0 = childStart[i]!, k = childStart[i + 1]! - c0;
    if (k <= 1) { upSimple(head, centre, effMass, J, acc, angAcc, angVel, phi, beta, P, q, bones, i, k === 1 ? childIndex[c0]! : -1, centripetal); continue; }
    const b = bones[i]!, b3 = b * 3;
    if (k + 1 > lever.length / 3) ensureScratch(k);
    const cx = centre[b3]!, cy = centre[b3 + 1]!, cz = centre[b3 + 2]!;
    // lever 0: the head; lever 1 + ci: child ci's head
    lever[0] = head[b3]! - cx; lever[1] = head[b3 + 1]! - cy; lever[2] = head[b3 + 2]! - cz;
    crossOf(J, b, 0);
    for (let ci = 0; ci < k; ci++) {
      const cb3 = bones[childIndex[c0 + ci]!]! * 3, l3 = 3 * (ci + 1);
      lever[l3] = head[cb3]! - cx; lever[l3 + 1] = head[cb3 + 1]! - cy; lever[l3 + 2] = head[cb3 + 2]! - cz;
      crossOf(J, b, ci + 1);
    }
    if (k === 2) {
      // Φ_b starts as M(r_h, r_h), β_b as the free acceleration at the head
      compliance(phi, i * 9, effMass, b, 0, 0);
      const ax = angAcc[b3]!, ay = angAcc[b3 + 1]!, az = angAcc[b3 + 2]!;
      const rx = lever[0]!, ry = lever[1]!, rz = lever[2]!;
      beta[i * 3] = acc[b3]! + ay * rz - az * ry;
      beta[i * 3 + 1] = acc[b3 + 1]! + az * rx - ax * rz;
      beta[i * 3 + 2] = acc[b3 + 2]! + ax * ry - ay * rx;
      if (centripetal) {
        centripetalAt(angVel, b, 0, true);
        beta[i * 3] = beta[i * 3]! + cen[0]!; beta[i * 3 + 1] = beta[i * 3 + 1]! + cen[1]!; beta[i * 3 + 2] = beta[i * 3 + 2]! + cen[2]!;
      }
      denseChildren(effMass, acc, angAcc, angVel, rig, i, b, k, centripetal);
    } else {
      articulatedChildren(effMass, effInertiaWorld, acc, angAcc, angVel, rig, i, b, k, centripetal);
    }
  }

  // Down: the root's head force, then each child's from its parent's (interJointSolve adds them
  // to the accelerations: applyJointForces).
  const root = bones[0]!, r3 = root * 3;
  if (Rig.pinned[rig.eid]) {
    for (let e = 0; e < 9; e++) K3[e] = phi[e]!;
    // the same elimination as solveDense(Φ, −β, 3, 1): only the last column of R3 is used
    R3.fill(0);
    R3[3] = -beta[0]!; R3[7] = -beta[1]!; R3[11] = -beta[2]!;
    solve3();
    jointForce[r3] = R3[3]!; jointForce[r3 + 1] = R3[7]!; jointForce[r3 + 2] = R3[11]!;
  } else {
    jointForce[r3] = 0; jointForce[r3 + 1] = 0; jointForce[r3 + 2] = 0;
  }
  for (let i = 1; i < n; i++) {
    // the parent's head force is final: parents come first in depth-first order
    const c3 = bones[i]! * 3, p3 = parentOf[bones[i]!]! * 3;
    const hx = jointForce[p3]!, hy = jointForce[p3 + 1]!, hz = jointForce[p3 + 2]!;
    const o = i * 9;
    jointForce[c3] = P[o]! * hx + P[o + 1]! * hy + P[o + 2]! * hz + q[i * 3]!;
    jointForce[c3 + 1] = P[o + 3]! * hx + P[o + 4]! * hy + P[o + 5]! * hz + q[i * 3 + 1]!;
    jointForce[c3 + 2] = P[o + 6]! * hx + P[o + 7]! * hy + P[o + 8]! * hz + q[i * 3 + 2]!;
  }
}

/** Two children: the dense 6×6 system K [P | q] = [M(r_i, r_h) | a0(r_i) − β_ci]. */
function denseChildren(
  effMass: Doubles, acc: Doubles, angAcc: Doubles, angVel: Doubles, rig: RigRecord, i: number, b: number, k: number, centripetal: boolean,
): void {
  const { phi, beta, P, q } = sweep;
  const K = K6, R = R6x4;
  const { childStart, childIndex } = rig;
  const c0 = childStart[i]!, size = 3 * k;
  const b3 = b * 3;
  const ax = angAcc[b3]!, ay = angAcc[b3 + 1]!, az = angAcc[b3 + 2]!;
  for (let ci = 0; ci < k; ci++) {
    const child = childIndex[c0 + ci]!;
    // K blocks M(r_i, r_j) + δ_ij Φ_ci
    for (let cj = 0; cj < k; cj++) {
      compliance(Mtmp, 0, effMass, b, ci + 1, cj + 1);
      for (let row = 0; row < 3; row++) {
        for (let col = 0; col < 3; col++) {
          let v = Mtmp[row * 3 + col]!;
          if (ci === cj) v += phi[child * 9 + row * 3 + col]!;
          K[(ci * 3 + row) * size + cj * 3 + col] = v;
        }
      }
    }
    compliance(Mtmp, 0, effMass, b, ci + 1, 0);
    const l3 = 3 * (ci + 1), rx = lever[l3]!, ry = lever[l3 + 1]!, rz = lever[l3 + 2]!;
    // the free acceleration at r_i, in cen
    let a0x = acc[b3]! + ay * rz - az * ry, a0y = acc[b3 + 1]! + az * rx - ax * rz, a0z = acc[b3 + 2]! + ax * ry - ay * rx;
    if (centripetal) { centripetalAt(angVel, b, ci + 1, true); a0x += cen[0]!; a0y += cen[1]!; a0z += cen[2]!; }
    cen[0] = a0x; cen[1] = a0y; cen[2] = a0z;
    for (let row = 0; row < 3; row++) {
      const o = (ci * 3 + row) * 4;
      R[o] = Mtmp[row * 3]!; R[o + 1] = Mtmp[row * 3 + 1]!; R[o + 2] = Mtmp[row * 3 + 2]!;
      R[o + 3] = cen[row]! - beta[child * 3 + row]!;
    }
  }
  solveDense(K, R, size, 4);
  for (let ci = 0; ci < k; ci++) {
    const child = childIndex[c0 + ci]!;
    for (let row = 0; row < 3; row++) {
      const o = (ci * 3 + row) * 4;
      P[child * 9 + row * 3] = R[o]!; P[child * 9 + row * 3 + 1] = R[o + 1]!; P[child * 9 + row * 3 + 2] = R[o + 2]!;
      q[child * 3 + row] = R[o + 3]!;
    }
    // Φ_b −= M(r_h, r_i) P_i ; β_b −= M(r_h, r_i) q_i
    compliance(Mtmp, 0, effMass, b, 0, ci + 1);
    for (let row = 0; row < 3; row++) {
      const m0 = Mtmp[row * 3]!, m1 = Mtmp[row * 3 + 1]!, m2 = Mtmp[row * 3 + 2]!;
      for (let col = 0; col < 3; col++) {
        phi[i * 9 + row * 3 + col] = phi[i * 9 + row * 3 + col]! - (m0 * P[child * 9 + col]! + m1 * P[child * 9 + 3 + col]! + m2 * P[child * 9 + 6 + col]!);
      }
      beta[i * 3 + row] = beta[i * 3 + row]! - (m0 * q[child * 3]! + m1 * q[child * 3 + 1]! + m2 * q[child * 3 + 2]!);
    }
  }
}

/**
 * Three or more children: the articulated-body form (see the header). A = G⁻¹ + Σ U_iᵀ W_i U_i
 * is assembled in A6 and solved against [U_hᵀ | G⁻¹ u0 + Σ U_iᵀ W_i β'_i] in R6, giving X and y;
 * Φ_b and β_b (already M(r_h, r_h) and a0(r_h), which this form does not use) are overwritten.
 */
function articulatedChildren(
  effMass: Doubles, I: Doubles, acc: Doubles, angAcc: Doubles, angVel: Doubles, rig: RigRecord, i: number, b: number, k: number, centripetal: boolean,
): void {
  const { phi, beta, P, q } = sweep;
  const { childStart, childIndex } = rig;
  const c0 = childStart[i]!, b3 = b * 3, b6 = b * 6;
  // A = diag(m I, I_world); rhs = (m a0, I_world α0): G⁻¹ u0
  A6.fill(0);
  const m = effMass[b]!;
  A6[0] = m; A6[7] = m; A6[14] = m;
  const ixx = I[b6]!, ixy = I[b6 + 1]!, ixz = I[b6 + 2]!, iyy = I[b6 + 3]!, iyz = I[b6 + 4]!, izz = I[b6 + 5]!;
  A6[21] = ixx; A6[22] = ixy; A6[23] = ixz;
  A6[27] = ixy; A6[28] = iyy; A6[29] = iyz;
  A6[33] = ixz; A6[34] = iyz; A6[35] = izz;
  const wx0 = angAcc[b3]!, wy0 = angAcc[b3 + 1]!, wz0 = angAcc[b3 + 2]!;
  let f0 = m * acc[b3]!, f1 = m * acc[b3 + 1]!, f2 = m * acc[b3 + 2]!;
  let t0 = ixx * wx0 + ixy * wy0 + ixz * wz0, t1 = ixy * wx0 + iyy * wy0 + iyz * wz0, t2 = ixz * wx0 + iyz * wy0 + izz * wz0;
  for (let ci = 0; ci < k; ci++) {
    const child = childIndex[c0 + ci]!, l3 = 3 * (ci + 1), w9 = 9 * ci;
    const rx = lever[l3]!, ry = lever[l3 + 1]!, rz = lever[l3 + 2]!;
    invert3(childW, w9, phi, child * 9);
    const w00 = childW[w9]!, w01 = childW[w9 + 1]!, w02 = childW[w9 + 2]!;
    const w10 = childW[w9 + 3]!, w11 = childW[w9 + 4]!, w12 = childW[w9 + 5]!;
    const w20 = childW[w9 + 6]!, w21 = childW[w9 + 7]!, w22 = childW[w9 + 8]!;
    // β' = β_c − centripetal(r_i)
    let bx = beta[child * 3]!, by = beta[child * 3 + 1]!, bz = beta[child * 3 + 2]!;
    if (centripetal) { centripetalAt(angVel, b, ci + 1, true); bx -= cen[0]!; by -= cen[1]!; bz -= cen[2]!; }
    childB[3 * ci] = bx; childB[3 * ci + 1] = by; childB[3 * ci + 2] = bz;
    // WR = W [r]ₓ, RW = [r]ₓ W, RWR = [r]ₓ W [r]ₓ; [r]ₓ = [[0, −rz, ry], [rz, 0, −rx], [−ry, rx, 0]]
    const a00 = w01 * rz - w02 * ry, a01 = -w00 * rz + w02 * rx, a02 = w00 * ry - w01 * rx;
    const a10 = w11 * rz - w12 * ry, a11 = -w10 * rz + w12 * rx, a12 = w10 * ry - w11 * rx;
    const a20 = w21 * rz - w22 * ry, a21 = -w20 * rz + w22 * rx, a22 = w20 * ry - w21 * rx;
    const r00 = -rz * w10 + ry * w20, r01 = -rz * w11 + ry * w21, r02 = -rz * w12 + ry * w22;
    const r10 = rz * w00 - rx * w20, r11 = rz * w01 - rx * w21, r12 = rz * w02 - rx * w22;
    const r20 = -ry * w00 + rx * w10, r21 = -ry * w01 + rx * w11, r22 = -ry * w02 + rx * w12;
    // RWR = [r]ₓ (W [r]ₓ)
    const s00 = -rz * a10 + ry * a20, s01 = -rz * a11 + ry * a21, s02 = -rz * a12 + ry * a22;
    const s10 = rz * a00 - rx * a20, s11 = rz * a01 - rx * a21, s12 = rz * a02 - rx * a22;
    const s20 = -ry * a00 + rx * a10, s21 = -ry * a01 + rx * a11, s22 = -ry * a02 + rx * a12;
    // U_iᵀ W U_i = [[W, −W[r]ₓ], [[r]ₓ W, −[r]ₓ W [r]ₓ]]
    A6[0] += w00; A6[1] = A6[1]! + w01; A6[2] = A6[2]! + w02; A6[3] = A6[3]! - a00; A6[4] = A6[4]! - a01; A6[5] = A6[5]! - a02;
    A6[6] = A6[6]! + w10; A6[7] += w11; A6[8] = A6[8]! + w12; A6[9] = A6[9]! - a10; A6[10] = A6[10]! - a11; A6[11] = A6[11]! - a12;
    A6[12] = A6[12]! + w20; A6[13] = A6[13]! + w21; A6[14] += w22; A6[15] = A6[15]! - a20; A6[16] = A6[16]! - a21; A6[17] = A6[17]! - a22;
    A6[18] = A6[18]! + r00; A6[19] = A6[19]! + r01; A6[20] = A6[20]! + r02; A6[21] -= s00; A6[22] -= s01; A6[23] -= s02;
    A6[24] = A6[24]! + r10; A6[25] = A6[25]! + r11; A6[26] = A6[26]! + r12; A6[27] -= s10; A6[28] -= s11; A6[29] -= s12;
    A6[30] = A6[30]! + r20; A6[31] = A6[31]! + r21; A6[32] = A6[32]! + r22; A6[33] -= s20; A6[34] -= s21; A6[35] -= s22;
    // U_iᵀ W β' = (W β', r × W β')
    const vx = w00 * bx + w01 * by + w02 * bz, vy = w10 * bx + w11 * by + w12 * bz, vz = w20 * bx + w21 * by + w22 * bz;
    f0 += vx; f1 += vy; f2 += vz;
    t0 += ry * vz - rz * vy; t1 += rz * vx - rx * vz; t2 += rx * vy - ry * vx;
  }
  // right-hand sides: U_hᵀ = [I; [r_h]ₓ] (three columns) and the rhs
  const hx = lever[0]!, hy = lever[1]!, hz = lever[2]!;
  R6[0] = 1; R6[1] = 0; R6[2] = 0; R6[3] = f0;
  R6[4] = 0; R6[5] = 1; R6[6] = 0; R6[7] = f1;
  R6[8] = 0; R6[9] = 0; R6[10] = 1; R6[11] = f2;
  R6[12] = 0; R6[13] = -hz; R6[14] = hy; R6[15] = t0;
  R6[16] = hz; R6[17] = 0; R6[18] = -hx; R6[19] = t1;
  R6[20] = -hy; R6[21] = hx; R6[22] = 0; R6[23] = t2;
  solveDense(A6, R6, 6, 4);
  // Φ_b = U_h X, β_b = U_h y (+ centripetal at r_h): U_h v = v_lin − r_h × v_ang
  for (let col = 0; col < 4; col++) {
    const lx = R6[col]!, ly = R6[4 + col]!, lz = R6[8 + col]!, ax = R6[12 + col]!, ay = R6[16 + col]!, az = R6[20 + col]!;
    const ux = lx - (hy * az - hz * ay), uy = ly - (hz * ax - hx * az), uz = lz - (hx * ay - hy * ax);
    if (col < 3) { phi[i * 9 + col] = ux; phi[i * 9 + 3 + col] = uy; phi[i * 9 + 6 + col] = uz; }
    else {
      beta[i * 3] = ux; beta[i * 3 + 1] = uy; beta[i * 3 + 2] = uz;
      if (centripetal) { centripetalAt(angVel, b, 0, true); beta[i * 3] = beta[i * 3]! + cen[0]!; beta[i * 3 + 1] = beta[i * 3 + 1]! + cen[1]!; beta[i * 3 + 2] = beta[i * 3 + 2]! + cen[2]!; }
    }
  }
  // P_i = W_i U_i X, q_i = W_i (U_i y − β'_i)
  for (let ci = 0; ci < k; ci++) {
    const child = childIndex[c0 + ci]!, l3 = 3 * (ci + 1), w9 = 9 * ci, o = child * 9;
    const rx = lever[l3]!, ry = lever[l3 + 1]!, rz = lever[l3 + 2]!;
    for (let col = 0; col < 4; col++) {
      const lx = R6[col]!, ly = R6[4 + col]!, lz = R6[8 + col]!, ax = R6[12 + col]!, ay = R6[16 + col]!, az = R6[20 + col]!;
      let ux = lx - (ry * az - rz * ay), uy = ly - (rz * ax - rx * az), uz = lz - (rx * ay - ry * ax);
      if (col === 3) { ux -= childB[3 * ci]!; uy -= childB[3 * ci + 1]!; uz -= childB[3 * ci + 2]!; }
      const px = childW[w9]! * ux + childW[w9 + 1]! * uy + childW[w9 + 2]! * uz;
      const py = childW[w9 + 3]! * ux + childW[w9 + 4]! * uy + childW[w9 + 5]! * uz;
      const pz = childW[w9 + 6]! * ux + childW[w9 + 7]! * uy + childW[w9 + 8]! * uz;
      if (col < 3) { P[o + col] = px; P[o + 3 + col] = py; P[o + 6 + col] = pz; }
      else { q[child * 3] = px; q[child * 3 + 1] = py; q[child * 3 + 2] = pz; }
    }
  }
}
