/**
 * The coupled joint solve of limitCoupling.ts in the articulated-body form: each child c turns
 * about its joint point j relative to its parent b with q̈ = α_c − α_b, so u_c = X u_b + S q̈ + ζ
 * with X = [I, −[x_c − x_b]ₓ; 0, I] (c riding rigidly on b), S = [−[x_c − j]ₓ; I] and ζ the
 * velocity terms; the joint passes a force and the spring torque −K q̈ only,
 * Sᵀ (A_c u_c − g_c) = −K q̈. With U = A_c S and D = Sᵀ U + K: q̈ = D⁻¹ (Sᵀ g_c − Uᵀ (X u_b + ζ)),
 * and c's subtree adds Xᵀ I^a X to A_b and Xᵀ (g_c − U D⁻¹ Sᵀ g_c − I^a ζ) to g_b, with
 * I^a = A_c − U D⁻¹ Uᵀ.
 *
 * Limits: about 4× faster than the compliance form (a 3×3 inverse per joint instead of a 6×6
 * Cholesky with 7 right-hand sides), but I^a is a difference of large matrices: on rigs mixing
 * 0.1 mm and metre bones it loses accuracy to cancellation (accelerations 2% off measured). So
 * interJointSolve checks its result (the joints' acceleration mismatch after the forces are
 * applied) and solves again in the compliance form when the check fails.
 */
import type { PhysikWorld, RigRecord } from '../src/core/world';
import { solveDense } from './jointSolveExact';
import { centripetal, invert3, lever, loadBody, type LimitCoupling } from './limitCoupling';

const Aroot = new Float64Array(36);
const RHS = new Float64Array(6 * 4);
const Ia = new Float64Array(36);
const pa = new Float64Array(6);
const W = new Float64Array(9);
const cen = new Float64Array(3);

/**
 * Writes Bone.jointForce for every bone of the rig and the coupling's spring torques `tau`
 * (the −K α_rel part of each pressed limit, on the child; its negative acts on the parent).
 * Returns false (nothing trustworthy written) when a matrix is singular.
 *
 * In the articulated-body form: each child c turns about its joint point j relative to its
 * parent b with q̈ = α_c − α_b, so u_c = X u_b + S q̈ + ζ with X = [I, −[x_c − x_b]ₓ; 0, I]
 * (c riding rigidly on b), S = [−[x_c − j]ₓ; I] and ζ the velocity terms; the joint passes a
 * force and the spring torque −K q̈ only, Sᵀ (A_c u_c − g_c) = −K q̈. So with U = A_c S and
 * D = Sᵀ U + K: q̈ = D⁻¹ (Sᵀ g_c − Uᵀ (X u_b + ζ)), and c's subtree adds Xᵀ I^a X to A_b and
 * Xᵀ (g_c − U D⁻¹ Sᵀ g_c − I^a ζ) to g_b, I^a = A_c − U D⁻¹ Uᵀ (the parent's share of it).
 */
export function fastCoupledJointForces(world: PhysikWorld, rig: RigRecord, coupling: LimitCoupling): boolean {
  const { Bone, Rig } = world.physik;
  const { head, centre, effMass, effInertiaWorld: I, acc, angAcc, angVel, jointForce } = Bone;
  const { bones, childStart, childIndex } = rig;
  const { A, g, u, tau, parentIndex, K, U, Dinv, Sg, zeta } = coupling;
  const on = rig.settings.centripetal;
  const n = bones.length;

  // Up: A and g of every bone with its subtree folded in.
  for (let i = n - 1; i >= 0; i--) {
    loadBody(Bone, coupling, bones[i]!, i);
    for (let k = childStart[i]!; k < childStart[i + 1]!; k++) {
      if (!foldChildFast(head, centre, angVel, on, coupling, rig, i, childIndex[k]!)) return false;
    }
  }

  // Down: the root's head force and motion, then each child's from its parent's motion.
  // A_root [X | x] = [Hᵀ | g] (H = [I, −[h]ₓ], Hᵀ = [I; [h]ₓ]), by elimination with pivoting
  // (A is positive definite in exact arithmetic, but rigs mixing 0.1 mm and 1 km bones make it
  // too ill-conditioned for a Cholesky factor), so u_root = x + X F.
  const root = bones[0]!, r3 = root * 3;
  for (let e = 0; e < 36; e++) Aroot[e] = A[e]!;
  const hx = head[r3]! - centre[r3]!, hy = head[r3 + 1]! - centre[r3 + 1]!, hz = head[r3 + 2]! - centre[r3 + 2]!;
  RHS.fill(0);
  RHS[0] = 1; RHS[5] = 1; RHS[10] = 1;
  RHS[13] = -hz; RHS[14] = hy; RHS[16] = hz; RHS[18] = -hx; RHS[20] = -hy; RHS[21] = hx;
  for (let r = 0; r < 6; r++) RHS[r * 4 + 3] = g[r]!;
  solveDense(Aroot, RHS, 6, 4);
  let fx = 0, fy = 0, fz = 0;
  if (Rig.pinned[rig.eid]) {
    // H (x + X F) + ω×(ω×h) = 0: [Φ | β] = H [X | x] (3×4) into Ia, then F = −Φ⁻¹ (β + ω×(ω×h))
    for (let c = 0; c < 4; c++) {
      const lx = RHS[c]!, ly = RHS[4 + c]!, lz = RHS[8 + c]!, wx = RHS[12 + c]!, wy = RHS[16 + c]!, wz = RHS[20 + c]!;
      Ia[c] = lx - (hy * wz - hz * wy); Ia[4 + c] = ly - (hz * wx - hx * wz); Ia[8 + c] = lz - (hx * wy - hy * wx);
    }
    const b0 = Ia[3]!, b1 = Ia[7]!, b2 = Ia[11]!;
    Ia[3] = Ia[4]!; Ia[4] = Ia[5]!; Ia[5] = Ia[6]!; Ia[6] = Ia[8]!; Ia[7] = Ia[9]!; Ia[8] = Ia[10]!; // Φ packed 3×3
    if (!invert3(W, 0, Ia, 0)) return false;
    lever[0] = hx; lever[1] = hy; lever[2] = hz;
    centripetal(cen, angVel, root, on);
    const bx = -(b0 + cen[0]!), by = -(b1 + cen[1]!), bz = -(b2 + cen[2]!);
    fx = W[0]! * bx + W[1]! * by + W[2]! * bz;
    fy = W[3]! * bx + W[4]! * by + W[5]! * bz;
    fz = W[6]! * bx + W[7]! * by + W[8]! * bz;
  }
  jointForce[r3] = fx; jointForce[r3 + 1] = fy; jointForce[r3 + 2] = fz;
  for (let r = 0; r < 6; r++) u[r] = RHS[r * 4 + 3]! + RHS[r * 4]! * fx + RHS[r * 4 + 1]! * fy + RHS[r * 4 + 2]! * fz;
  if (!(Number.isFinite(u[0]!) && Number.isFinite(u[3]!))) return false;
  tau[0] = 0; tau[1] = 0; tau[2] = 0;
  for (let i = 1; i < n; i++) {
    const c = bones[i]!, c3 = c * 3, pi = parentIndex[i]!, p3 = bones[pi]! * 3, i6 = i * 6, p6 = pi * 6;
    // v = X u_p + ζ: a_p + α_p × r + ζ, α_p
    const rx = centre[c3]! - centre[p3]!, ry = centre[c3 + 1]! - centre[p3 + 1]!, rz = centre[c3 + 2]! - centre[p3 + 2]!;
    const wx = u[p6 + 3]!, wy = u[p6 + 4]!, wz = u[p6 + 5]!;
    const vx = u[p6]! + wy * rz - wz * ry + zeta[i * 3]!;
    const vy = u[p6 + 1]! + wz * rx - wx * rz + zeta[i * 3 + 1]!;
    const vz = u[p6 + 2]! + wx * ry - wy * rx + zeta[i * 3 + 2]!;
    // q̈ = D⁻¹ (Sᵀ g − Uᵀ v), v = (vx, vy, vz, wx, wy, wz)
    const o18 = i * 18;
    let s0 = Sg[i * 3]!, s1 = Sg[i * 3 + 1]!, s2 = Sg[i * 3 + 2]!;
    s0 -= U[o18]! * vx + U[o18 + 3]! * vy + U[o18 + 6]! * vz + U[o18 + 9]! * wx + U[o18 + 12]! * wy + U[o18 + 15]! * wz;
    s1 -= U[o18 + 1]! * vx + U[o18 + 4]! * vy + U[o18 + 7]! * vz + U[o18 + 10]! * wx + U[o18 + 13]! * wy + U[o18 + 16]! * wz;
    s2 -= U[o18 + 2]! * vx + U[o18 + 5]! * vy + U[o18 + 8]! * vz + U[o18 + 11]! * wx + U[o18 + 14]! * wy + U[o18 + 17]! * wz;
    const o9 = i * 9;
    const q0 = Dinv[o9]! * s0 + Dinv[o9 + 1]! * s1 + Dinv[o9 + 2]! * s2;
    const q1 = Dinv[o9 + 3]! * s0 + Dinv[o9 + 4]! * s1 + Dinv[o9 + 5]! * s2;
    const q2 = Dinv[o9 + 6]! * s0 + Dinv[o9 + 7]! * s1 + Dinv[o9 + 8]! * s2;
    // u_c = v + S q̈ = (v_lin + q̈ × d, α_p + q̈), d = x_c − j
    const dx = centre[c3]! - head[c3]!, dy = centre[c3 + 1]! - head[c3 + 1]!, dz = centre[c3 + 2]! - head[c3 + 2]!;
    u[i6] = vx + q1 * dz - q2 * dy; u[i6 + 1] = vy + q2 * dx - q0 * dz; u[i6 + 2] = vz + q0 * dy - q1 * dx;
    u[i6 + 3] = wx + q0; u[i6 + 4] = wy + q1; u[i6 + 5] = wz + q2;
    // the joint's force: the linear rows of A_c u_c − g_c
    const a36 = i * 36;
    for (let r = 0; r < 3; r++) {
      let f = -g[i6 + r]!;
      for (let k = 0; k < 6; k++) f += A[a36 + r * 6 + k]! * u[i6 + k]!;
      jointForce[c3 + r] = f;
    }
    // τ = −K q̈
    const k6 = i * 6;
    tau[i * 3] = -(K[k6]! * q0 + K[k6 + 1]! * q1 + K[k6 + 2]! * q2);
    tau[i * 3 + 1] = -(K[k6 + 1]! * q0 + K[k6 + 3]! * q1 + K[k6 + 4]! * q2);
    tau[i * 3 + 2] = -(K[k6 + 2]! * q0 + K[k6 + 4]! * q1 + K[k6 + 5]! * q2);
  }
  return true;
}

/**
 * Fold child j (depth-first index) of bone i into A_i and g_i (see coupledJointForces), and
 * keep U, D⁻¹, Sᵀ g and ζ of j for the way down. False when D is singular.
 */
function foldChildFast(head: Float64Array, centre: Float64Array, angVel: Float64Array, on: boolean, coupling: LimitCoupling, rig: RigRecord, i: number, j: number): boolean {
  const { K, A, g, U, Dinv, Sg, zeta } = coupling;
  const b = rig.bones[i]!, c = rig.bones[j]!, b3 = b * 3, c3 = c * 3;
  const j36 = j * 36, j6 = j * 6, o18 = j * 18;
  // d = x_c − joint; S = [−[d]ₓ; I]: S q = (q × d, q)
  const dx = centre[c3]! - head[c3]!, dy = centre[c3 + 1]! - head[c3 + 1]!, dz = centre[c3 + 2]! - head[c3 + 2]!;
  // U = A S (6×3): column k = A (e_k × d, e_k) ; e_x × d = (0, −dz, dy), e_y × d = (dz, 0, −dx), e_z × d = (−dy, dx, 0)
  for (let r = 0; r < 6; r++) {
    const a0 = A[j36 + r * 6]!, a1 = A[j36 + r * 6 + 1]!, a2 = A[j36 + r * 6 + 2]!;
    U[o18 + r * 3] = -a1 * dz + a2 * dy + A[j36 + r * 6 + 3]!;
    U[o18 + r * 3 + 1] = a0 * dz - a2 * dx + A[j36 + r * 6 + 4]!;
    U[o18 + r * 3 + 2] = -a0 * dy + a1 * dx + A[j36 + r * 6 + 5]!;
  }
  // D = Sᵀ U + K: row k of Sᵀ is (e_k × d, e_k)
  const o9 = j * 9;
  for (let col = 0; col < 3; col++) {
    const u0 = U[o18 + col]!, u1 = U[o18 + 3 + col]!, u2 = U[o18 + 6 + col]!;
    W[col] = -dz * u1 + dy * u2 + U[o18 + 9 + col]!;
    W[3 + col] = dz * u0 - dx * u2 + U[o18 + 12 + col]!;
    W[6 + col] = -dy * u0 + dx * u1 + U[o18 + 15 + col]!;
  }
  const k6 = j * 6;
  W[0] += K[k6]!; W[1] += K[k6 + 1]!; W[2] += K[k6 + 2]!;
  W[3] += K[k6 + 1]!; W[4] += K[k6 + 3]!; W[5] += K[k6 + 4]!;
  W[6] += K[k6 + 2]!; W[7] += K[k6 + 4]!; W[8] += K[k6 + 5]!;
  if (!invert3(Dinv, o9, W, 0)) return false;
  // Sᵀ g
  const g0 = g[j6]!, g1 = g[j6 + 1]!, g2 = g[j6 + 2]!;
  const sg0 = -dz * g1 + dy * g2 + g[j6 + 3]!, sg1 = dz * g0 - dx * g2 + g[j6 + 4]!, sg2 = -dy * g0 + dx * g1 + g[j6 + 5]!;
  Sg[j * 3] = sg0; Sg[j * 3 + 1] = sg1; Sg[j * 3 + 2] = sg2;
  // UD = U D⁻¹ (6×3), I^a = A − UD Uᵀ, p̃ = g − UD Sᵀg
  const d0 = Dinv[o9]!, d1 = Dinv[o9 + 1]!, d2 = Dinv[o9 + 2]!, d3 = Dinv[o9 + 3]!, d4 = Dinv[o9 + 4]!, d5 = Dinv[o9 + 5]!, d6 = Dinv[o9 + 6]!, d7 = Dinv[o9 + 7]!, d8 = Dinv[o9 + 8]!;
  for (let r = 0; r < 6; r++) {
    const x0 = U[o18 + r * 3]!, x1 = U[o18 + r * 3 + 1]!, x2 = U[o18 + r * 3 + 2]!;
    const e0 = x0 * d0 + x1 * d3 + x2 * d6, e1 = x0 * d1 + x1 * d4 + x2 * d7, e2 = x0 * d2 + x1 * d5 + x2 * d8;
    for (let col = r; col < 6; col++) {
      const v = A[j36 + r * 6 + col]! - (e0 * U[o18 + col * 3]! + e1 * U[o18 + col * 3 + 1]! + e2 * U[o18 + col * 3 + 2]!);
      Ia[r * 6 + col] = v; Ia[col * 6 + r] = v;
    }
    pa[r] = g[j6 + r]! - (e0 * sg0 + e1 * sg1 + e2 * sg2);
  }
  // ζ: the velocity terms of c's centre acceleration, ω_b×(ω_b×(j − x_b)) + ω_c×(ω_c×(x_c − j))
  const jx = head[c3]! - centre[b3]!, jy = head[c3 + 1]! - centre[b3 + 1]!, jz = head[c3 + 2]! - centre[b3 + 2]!;
  let zx = 0, zy = 0, zz = 0;
  if (on) {
    lever[0] = jx; lever[1] = jy; lever[2] = jz;
    centripetal(cen, angVel, b, true); zx = cen[0]!; zy = cen[1]!; zz = cen[2]!;
    lever[0] = dx; lever[1] = dy; lever[2] = dz;
    centripetal(cen, angVel, c, true); zx += cen[0]!; zy += cen[1]!; zz += cen[2]!;
    // p̃ − I^a ζ (ζ has no angular part)
    for (let r = 0; r < 6; r++) pa[r] -= Ia[r * 6]! * zx + Ia[r * 6 + 1]! * zy + Ia[r * 6 + 2]! * zz;
  }
  zeta[j * 3] = zx; zeta[j * 3 + 1] = zy; zeta[j * 3 + 2] = zz;
  // A_i += Xᵀ I^a X, g_i += Xᵀ p, X = [I, −R; 0, I], R = [r]ₓ, r = x_c − x_b:
  // Xᵀ M X = [[M11, M12 − M11 R], [M21 + R M11, M22 + R M12 − M21 R − R M11 R]]
  const rx = centre[c3]! - centre[b3]!, ry = centre[c3 + 1]! - centre[b3 + 1]!, rz = centre[c3 + 2]! - centre[b3 + 2]!;
  const i36 = i * 36, i6 = i * 6;
  // N = M12 − M11 R (3×3) ; (M11 R)[r][c] = Σ_k M11[r][k] R[k][c], R = [[0, −rz, ry], [rz, 0, −rx], [−ry, rx, 0]]
  for (let row = 0; row < 3; row++) {
    const m0 = Ia[row * 6]!, m1 = Ia[row * 6 + 1]!, m2 = Ia[row * 6 + 2]!;
    // row of M11 R
    const t0 = m1 * rz - m2 * ry, t1 = -m0 * rz + m2 * rx, t2 = m0 * ry - m1 * rx;
    Ia[row * 6 + 3] -= t0; Ia[row * 6 + 4] -= t1; Ia[row * 6 + 5] -= t2; // now N = M12 − M11 R
  }
  // lower-right: M22 + R M12 − M21 R − R M11 R = M22 + R N − M21 R (with N = M12 − M11 R):
  // R M12 − R M11 R = R N ; then − M21 R
  for (let row = 0; row < 3; row++) {
    for (let col = 0; col < 3; col++) {
      // (R N)[row][col] = Σ_k R[row][k] N[k][col]
      const n0 = Ia[3 + col]!, n1 = Ia[9 + col]!, n2 = Ia[15 + col]!;
      const rn = row === 0 ? -rz * n1 + ry * n2 : row === 1 ? rz * n0 - rx * n2 : -ry * n0 + rx * n1;
      // (M21 R)[row][col] = Σ_k M21[row][k] R[k][col]; M21 row = Ia[(3 + row) * 6 + 0..2]
      const a0 = Ia[(3 + row) * 6]!, a1 = Ia[(3 + row) * 6 + 1]!, a2 = Ia[(3 + row) * 6 + 2]!;
      const mr = col === 0 ? a1 * rz - a2 * ry : col === 1 ? -a0 * rz + a2 * rx : a0 * ry - a1 * rx;
      A[i36 + (3 + row) * 6 + 3 + col] += Ia[(3 + row) * 6 + 3 + col]! + rn - mr;
    }
  }
  for (let row = 0; row < 3; row++) {
    for (let col = 0; col < 3; col++) {
      const m11 = Ia[row * 6 + col]!, n = Ia[row * 6 + 3 + col]!;
      A[i36 + row * 6 + col] += m11;
      A[i36 + row * 6 + 3 + col] += n;
      A[i36 + (3 + col) * 6 + row] += n; // the symmetric block Nᵀ = M21 + R M11
    }
  }
  // g_i += (p_lin, p_ang + r × p_lin)
  const px = pa[0]!, py = pa[1]!, pz = pa[2]!;
  g[i6] += px; g[i6 + 1] += py; g[i6 + 2] += pz;
  g[i6 + 3] += pa[3]! + ry * pz - rz * py; g[i6 + 4] += pa[4]! + rz * px - rx * pz; g[i6 + 5] += pa[5]! + rx * py - ry * px;
  return true;
}

