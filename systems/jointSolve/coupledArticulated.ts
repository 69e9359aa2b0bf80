/**
 * The coupled joint solve of coupledCompliance.ts in the articulated-body form (Featherstone's
 * recursion with a compliant ball joint), written about each bone's head: the joint point.
 *
 * Bone b's motion is w_b = (a_b, α_b): the acceleration of the material point at its head and
 * its angular acceleration. About the head its body inertia is A = Yᵀ G⁻¹ Y (Y = [I, −[d]ₓ; 0, I],
 * d = centre − head, G⁻¹ = diag(m I, I_world)): A11 = m I, A12 = −m [d]ₓ, A22 = I_world + m (|d|² I
 * − d dᵀ) (the parallel-axis theorem), and its equation A w = g + (F, τ) with g = (f, d × f + I α0),
 * f = m (a0 − ω×(ω×d)) (a0, α0: the free accelerations). About the head a ball joint's motion
 * subspace is S = [0; I]: the child turns with q̈ = α_c − α_b and its head follows the parent's
 * material point, w_c = X w_b + ζ + S q̈ (X = [I, −[r]ₓ; 0, I], r = head_c − head_b, ζ = (ω_b×(ω_b×r), 0)).
 * The joint passes a force and the spring torque −K q̈, so with D = A22 + K:
 *   q̈ = D⁻¹ (g_ang − A21 v_lin − A22 α_b),  v = X w_b + ζ,
 * and the child's subtree adds Xᵀ Iᵃ X to A_b and Xᵀ (pᵃ − Iᵃ ζ) to g_b, where
 *   Iᵃ = [[A11 − A12 D⁻¹ A21, A12 D⁻¹ K], [K D⁻¹ A21, K − K D⁻¹ K]],  pᵃ = (g_lin − A12 D⁻¹ g_ang, K D⁻¹ g_ang).
 * About the joint point S selects the angular block, so U = A S and Sᵀ U are blocks of A: a
 * joint with K = 0 reduces to the 3×3 point inertia of its subtree at the joint, with nothing
 * about the angular rows (a 3×3 inverse and a few 3×3 products per joint). The root folds the
 * same way into the world, as a child whose parent does not move or turn: a pinned root's head
 * stays (a = 0), a floating root's follows P a = pᵃ_lin (no force at its head); then every bone,
 * the root first, is solved down from its parent's motion.
 *
 * Welds (systems/welds.ts): a welded bone is part of its parent's rigid body. Its mass, centre and
 * inertia are added to the body's A about the head of the body's first bone, and its load to g,
 * with no joint between them. The bodies, not the bones, are folded, so the humanoid's torso,
 * collarbones and hips are one body. On the way down a welded bone moves with its body, and
 * fastAccelerations then finds the force and torque that hold it from its own Newton-Euler
 * equations.
 *
 * Limits: Iᵃ's point block is a difference (a Schur complement) and loses accuracy to
 * cancellation on rigs mixing 0.1 mm and metre bones. interJointSolve checks the result (the
 * joints' acceleration mismatch after the forces are applied) and solves again in the compliance
 * form (coupledCompliance.ts) when the check fails.
 *
 * Storage per bone, by depth-first index: A (21 of its 36: A11 sym xx xy xz yy yz zz, A12
 * row-major, A22 sym), g (6), D⁻¹ (6 of its 9, sym), ζ (3); slot n (after the last bone) is the
 * world the root folds into; the coupling's u holds w.
 */
import type { PhysikWorld, RigRecord } from '../../src/world/world';
import { bindSweep, type LimitCoupling } from './coupledCompliance';
import { zeroDoubles, type Doubles } from '../../components/doubles';
import { hingeAxisWorld } from '../hinges';
import { largerLoad } from '../metrics';

const freeAxis = new Float64Array(3);


/**
 * Writes the motions u of every bone, and Bone.jointForce and the coupling's spring torques
 * `tau` (the −K α_rel part of each pressed limit, on the child; its negative acts on the parent)
 * of every bone but the welded ones (fastAccelerations finds theirs from their motion). Returns
 * false (nothing trustworthy written) when a matrix is singular.
 */
export function fastCoupledJointForces(world: PhysikWorld, rig: RigRecord, coupling: LimitCoupling, refold = false): boolean {
  const { Bone, Rig } = world.physik;
  const { head, angVel, jointForce, rot } = Bone;
  const { bones } = rig;
  bindSweep(coupling);
  const { A, g, u, tau, parentIndex, K, Dinv, zeta, welded, hingeAxis, body, bodyStart, bodyPart } = coupling;
  const on = rig.settings.centripetal;
  const n = bones.length;

  // Up: A and g of every body about its first bone's head (a welded bone's mass and load added to
  // its body's, lever and all), with the bodies jointed to it folded in; then the root into the
  // world (slot n, lever zero): P and pᵃ_lin there are the whole rig's point inertia and bias at
  // the root's head. `refold`: after the last solve of this step only the bones marked dirty
  // (coupling.dirty) and their ancestors changed: the other bodies' A and g are as folded then.
  const dirty = coupling.dirty;
  if (refold) for (let i = n - 1; i > 0; i--) if (dirty[i] === 1) dirty[parentIndex[i]!] = 1;
  for (let i = n - 1; i >= 0; i--) {
    if (welded[i] === 1) { dirty[i] = 0; continue; } // (in its body)
    if (refold) { if (dirty[i] === 0) continue; dirty[i] = 0; }
    const b = bones[i]!;
    loadBodyAt(Bone, A, g, b, b, i, on, false);
    for (let k = bodyStart[i]!; k < bodyStart[i + 1]!; k++) {
      const j = bodyPart[k]!;
      if (welded[j] === 1) loadBodyAt(Bone, A, g, bones[j]!, b, i, on, true);
      else if (!foldChild(head, angVel, rot, on, coupling, rig, i, j)) return false;
    }
  }
  zeroDoubles(A, n * 36, n * 36 + 21); zeroDoubles(g, n * 6, n * 6 + 6);
  if (!foldChild(head, angVel, rot, on, coupling, rig, -1, 0)) return false;

  // Down: the root's head moves as the world lets it, a = 0 when pinned, else P a = pᵃ_lin (no
  // force at a free head); then every bone from its parent's motion (the root's: the world's).
  let ax = 0, ay = 0, az = 0;
  const pinned = Rig.pinned[rig.eid] === 1;
  if (!pinned) {
    const w = n * 36;
    const pxx = A[w]!, pxy = A[w + 1]!, pxz = A[w + 2]!, pyy = A[w + 3]!, pyz = A[w + 4]!, pzz = A[w + 5]!;
    const cxx = pyy * pzz - pyz * pyz, cxy = pxz * pyz - pxy * pzz, cxz = pxy * pyz - pxz * pyy;
    const det = pxx * cxx + pxy * cxy + pxz * cxz;
    if (!(det !== 0 && Number.isFinite(det))) return false;
    const t = 1 / det;
    const cyy = pxx * pzz - pxz * pxz, cyz = pxy * pxz - pxx * pyz, czz = pxx * pyy - pxy * pxy;
    const lx = g[n * 6]!, ly = g[n * 6 + 1]!, lz = g[n * 6 + 2]!;
    ax = (cxx * lx + cxy * ly + cxz * lz) * t; ay = (cxy * lx + cyy * ly + cyz * lz) * t; az = (cxz * lx + cyz * ly + czz * lz) * t;
  }
  for (let i = 0; i < n; i++) {
    const c = bones[i]!, c3 = c * 3, i6 = i * 6, a = i * 36;
    // v = X w_p + ζ: the material point of the parent's body at this head (the root's: a, the
    // world not turning)
    let vx = ax, vy = ay, vz = az, wx = 0, wy = 0, wz = 0;
    if (i > 0) {
      const pi = body[parentIndex[i]!]!, p3 = bones[pi]! * 3, p6 = pi * 6;
      const rx = head[c3]! - head[p3]!, ry = head[c3 + 1]! - head[p3 + 1]!, rz = head[c3 + 2]! - head[p3 + 2]!;
      wx = u[p6 + 3]!; wy = u[p6 + 4]!; wz = u[p6 + 5]!;
      let zx: number, zy: number, zz: number;
      if (welded[i] === 1) {
        // ζ = ω×(ω×r), ω its body's (folded with the body: not computed on the way up)
        zx = 0; zy = 0; zz = 0;
        if (on) {
          const ox = angVel[p3]!, oy = angVel[p3 + 1]!, oz = angVel[p3 + 2]!;
          const qx = oy * rz - oz * ry, qy = oz * rx - ox * rz, qz = ox * ry - oy * rx;
          zx = oy * qz - oz * qy; zy = oz * qx - ox * qz; zz = ox * qy - oy * qx;
        }
      } else {
        zx = zeta[i * 3]!; zy = zeta[i * 3 + 1]!; zz = zeta[i * 3 + 2]!;
      }
      vx = u[p6]! + wy * rz - wz * ry + zx;
      vy = u[p6 + 1]! + wz * rx - wx * rz + zy;
      vz = u[p6 + 2]! + wx * ry - wy * rx + zz;
      if (welded[i] === 1) {
        // it moves with its body: its joint's force and torque come from its own motion
        // (weldLoads, after the last solve of the step)
        u[i6] = vx; u[i6 + 1] = vy; u[i6 + 2] = vz; u[i6 + 3] = wx; u[i6 + 4] = wy; u[i6 + 5] = wz;
        continue;
      }
    }
    // q̈ = D⁻¹ (g_ang − A21 v − A22 α_p); A21 = A12ᵀ
    const a22xx = A[a + 15]!, a22xy = A[a + 16]!, a22xz = A[a + 17]!, a22yy = A[a + 18]!, a22yz = A[a + 19]!, a22zz = A[a + 20]!;
    const s0 = g[i6 + 3]! - (A[a + 6]! * vx + A[a + 9]! * vy + A[a + 12]! * vz) - (a22xx * wx + a22xy * wy + a22xz * wz);
    const s1 = g[i6 + 4]! - (A[a + 7]! * vx + A[a + 10]! * vy + A[a + 13]! * vz) - (a22xy * wx + a22yy * wy + a22yz * wz);
    const s2 = g[i6 + 5]! - (A[a + 8]! * vx + A[a + 11]! * vy + A[a + 14]! * vz) - (a22xz * wx + a22yz * wy + a22zz * wz);
    const o9 = i * 9;
    const d0 = Dinv[o9]!, d1 = Dinv[o9 + 1]!, d2 = Dinv[o9 + 2]!, d3 = Dinv[o9 + 3]!, d4 = Dinv[o9 + 4]!, d5 = Dinv[o9 + 5]!;
    const q0 = d0 * s0 + d1 * s1 + d2 * s2, q1 = d1 * s0 + d3 * s1 + d4 * s2, q2 = d2 * s0 + d4 * s1 + d5 * s2;
    const bx = wx + q0, by = wy + q1, bz = wz + q2;
    u[i6] = vx; u[i6 + 1] = vy; u[i6 + 2] = vz; u[i6 + 3] = bx; u[i6 + 4] = by; u[i6 + 5] = bz;
    // the joint's force: the linear rows of A w − g (a free root's head: none)
    if (i > 0 || pinned) {
      jointForce[c3] = A[a]! * vx + A[a + 1]! * vy + A[a + 2]! * vz + A[a + 6]! * bx + A[a + 7]! * by + A[a + 8]! * bz - g[i6]!;
      jointForce[c3 + 1] = A[a + 1]! * vx + A[a + 3]! * vy + A[a + 4]! * vz + A[a + 9]! * bx + A[a + 10]! * by + A[a + 11]! * bz - g[i6 + 1]!;
      jointForce[c3 + 2] = A[a + 2]! * vx + A[a + 4]! * vy + A[a + 5]! * vz + A[a + 12]! * bx + A[a + 13]! * by + A[a + 14]! * bz - g[i6 + 2]!;
    } else {
      jointForce[c3] = 0; jointForce[c3 + 1] = 0; jointForce[c3 + 2] = 0;
    }
    if (hingeAxis[i]! >= 0) {
      // the torque that holds a hinge, with its free axis' spring: the angular rows of A w − g,
      // A22 q̈ − s (its part along the free axis is −k q̈)
      tau[i * 3] = a22xx * q0 + a22xy * q1 + a22xz * q2 - s0;
      tau[i * 3 + 1] = a22xy * q0 + a22yy * q1 + a22yz * q2 - s1;
      tau[i * 3 + 2] = a22xz * q0 + a22yz * q1 + a22zz * q2 - s2;
      continue;
    }
    // τ = −K q̈ = −K D⁻¹ s = A22 q̈ − s (K D⁻¹ = I − A22 D⁻¹; see foldChild), none where no
    // limit is pressed (the root's K is zero: it has no joint above it)
    const k6 = i * 6;
    if (K[k6] === 0 && K[k6 + 1] === 0 && K[k6 + 2] === 0 && K[k6 + 3] === 0 && K[k6 + 4] === 0 && K[k6 + 5] === 0) {
      tau[i * 3] = 0; tau[i * 3 + 1] = 0; tau[i * 3 + 2] = 0;
      continue;
    }
    tau[i * 3] = a22xx * q0 + a22xy * q1 + a22xz * q2 - s0;
    tau[i * 3 + 1] = a22xy * q0 + a22yy * q1 + a22yz * q2 - s1;
    tau[i * 3 + 2] = a22xz * q0 + a22yz * q1 + a22zz * q2 - s2;
  }
  return Number.isFinite(u[0]!) && Number.isFinite(u[3]!);
}

/**
 * A (21 values) and g of bone b about the head of bone `at` (b itself, or the first bone of the
 * body b is welded into), into slot i: written, or with `add` added to what the slot holds (a
 * rigid body's inertia about a point is the sum of its parts'). Made from b's force and torque:
 * g's angular part is the net torque itself (= I α0; the gyroscopic torque is in it,
 * systems/damping.ts), so no free accelerations are needed first.
 */
function loadBodyAt(Bone: PhysikWorld['physik']['Bone'], A: number[], g: number[], b: number, at: number, i: number, on: boolean, add: boolean): void {
  const { effMass, effInertiaWorld: I, force, torque, angVel, head, centre } = Bone;
  const b3 = b * 3, h3 = at * 3, b6 = b * 6, a = i * 36, g6 = i * 6;
  const m = effMass[b]!;
  const ixx = I[b6]!, ixy = I[b6 + 1]!, ixz = I[b6 + 2]!, iyy = I[b6 + 3]!, iyz = I[b6 + 4]!, izz = I[b6 + 5]!;
  const dx = centre[b3]! - head[h3]!, dy = centre[b3 + 1]! - head[h3 + 1]!, dz = centre[b3 + 2]! - head[h3 + 2]!;
  // A11 = m I, A12 = −m [d]ₓ, A22 = I + m (|d|² I − d dᵀ) (sym: xx xy xz yy yz zz)
  const mx = m * dx, my = m * dy, mz = m * dz;
  const wx = angVel[b3]!, wy = angVel[b3 + 1]!, wz = angVel[b3 + 2]!;
  // f = F − m ω×(ω×d); g = (f, d × f + τ − ω × (I ω))
  let fx = force[b3]!, fy = force[b3 + 1]!, fz = force[b3 + 2]!;
  if (on) {
    const ux = wy * dz - wz * dy, uy = wz * dx - wx * dz, uz = wx * dy - wy * dx;
    fx -= m * (wy * uz - wz * uy); fy -= m * (wz * ux - wx * uz); fz -= m * (wx * uy - wy * ux);
  }
  const tx = dy * fz - dz * fy + torque[b3]!, ty = dz * fx - dx * fz + torque[b3 + 1]!, tz = dx * fy - dy * fx + torque[b3 + 2]!;
  if (!add) {
    A[a] = m; A[a + 1] = 0; A[a + 2] = 0; A[a + 3] = m; A[a + 4] = 0; A[a + 5] = m;
    A[a + 6] = 0; A[a + 7] = mz; A[a + 8] = -my;
    A[a + 9] = -mz; A[a + 10] = 0; A[a + 11] = mx;
    A[a + 12] = my; A[a + 13] = -mx; A[a + 14] = 0;
    A[a + 15] = ixx + my * dy + mz * dz; A[a + 16] = ixy - mx * dy; A[a + 17] = ixz - mx * dz;
    A[a + 18] = iyy + mx * dx + mz * dz; A[a + 19] = iyz - my * dz; A[a + 20] = izz + mx * dx + my * dy;
    g[g6] = fx; g[g6 + 1] = fy; g[g6 + 2] = fz; g[g6 + 3] = tx; g[g6 + 4] = ty; g[g6 + 5] = tz;
    return;
  }
  A[a] = A[a]! + m; A[a + 3] = A[a + 3]! + m; A[a + 5] = A[a + 5]! + m;
  A[a + 7] = A[a + 7]! + mz; A[a + 8] = A[a + 8]! - my;
  A[a + 9] = A[a + 9]! - mz; A[a + 11] = A[a + 11]! + mx;
  A[a + 12] = A[a + 12]! + my; A[a + 13] = A[a + 13]! - mx;
  A[a + 15] = A[a + 15]! + (ixx + my * dy + mz * dz); A[a + 16] = A[a + 16]! + (ixy - mx * dy); A[a + 17] = A[a + 17]! + (ixz - mx * dz);
  A[a + 18] = A[a + 18]! + (iyy + mx * dx + mz * dz); A[a + 19] = A[a + 19]! + (iyz - my * dz); A[a + 20] = A[a + 20]! + (izz + mx * dx + my * dy);
  g[g6] = g[g6]! + fx; g[g6 + 1] = g[g6 + 1]! + fy; g[g6 + 2] = g[g6 + 2]! + fz;
  g[g6 + 3] = g[g6 + 3]! + tx; g[g6 + 4] = g[g6 + 4]! + ty; g[g6 + 5] = g[g6 + 5]! + tz;
}

/**
 * After fastCoupledJointForces: every bone's acceleration and angular acceleration from its
 * force, torque (the gyroscopic torque in it), the joint forces at its head and its children's heads and
 * the limit springs' coupling torques (Newton-Euler, eq. 1, in one pass), its inverse world
 * inertia J = E⁻¹ (a singular or non-finite E leaves J as it was), and the coupling torques
 * added to Bone.torque (τ on the child, −τ on its parent, as applyCouplingTorques does).
 * In the same pass, the check of the result (fastCheck): the largest acceleration mismatch
 * between a bone and its parent at the bone's head, and the rig's acceleration scale. For a
 * joint of several children this is the largest bone-to-parent mismatch; the largest over every
 * pair, which jointMismatch reports, is at most twice it.
 */
export function fastAccelerations(world: PhysikWorld, rig: RigRecord, coupling: LimitCoupling): void {
  const { Bone, Joint } = world.physik;
  const { head, centre, jointForce, effMass, effInertiaWorld: E, invInertiaWorld: J, force, torque, acc, angAcc, angVel, length } = Bone;
  const { bones, childStart, childIndex } = rig;
  const { tau, parentIndex, welded } = coupling;
  const rootHeld = Joint.grounded[Bone.joint[bones[0]!]!] === 1;
  const on = rig.settings.centripetal;
  // (the welded bones' largest load comes back in fastCheck[2]: a double a call returns is boxed)
  fastCheck[2] = 0;
  if (coupling.welds > 0) weldLoads(world, rig, coupling);
  let worst2 = 0, scale = 0, residual = fastCheck[2]!;
  for (let i = 0; i < bones.length; i++) {
    const b = bones[i]!, b3 = b * 3, b6 = b * 6;
    {
      const a = E[b6]!, bb = E[b6 + 1]!, c = E[b6 + 2]!, d = E[b6 + 3]!, e = E[b6 + 4]!, f = E[b6 + 5]!;
      const A0 = d * f - e * e, B0 = -(bb * f - c * e), C0 = bb * e - c * d;
      const det = a * A0 + bb * B0 + c * C0;
      if (Math.abs(det) > 0 && Number.isFinite(det)) {
        const inv = 1 / det;
        J[b6] = A0 * inv; J[b6 + 1] = B0 * inv; J[b6 + 2] = C0 * inv;
        J[b6 + 3] = (a * f - c * c) * inv; J[b6 + 4] = -(a * e - bb * c) * inv; J[b6 + 5] = (a * d - bb * bb) * inv;
      }
    }
    if (welded[i] === 1) {
      // (weldLoads set its accelerations and loads; it moves with its body, so agrees with it at its head)
      const sc = Math.abs(acc[b3]!) + Math.abs(acc[b3 + 1]!) + Math.abs(acc[b3 + 2]!) + (Math.abs(angAcc[b3]!) + Math.abs(angAcc[b3 + 1]!) + Math.abs(angAcc[b3 + 2]!)) * length[b]!;
      if (sc > scale) scale = sc;
      continue;
    }
    const cx = centre[b3]!, cy = centre[b3 + 1]!, cz = centre[b3 + 2]!;
    let fx = force[b3]!, fy = force[b3 + 1]!, fz = force[b3 + 2]!;
    let tx = torque[b3]!, ty = torque[b3 + 1]!, tz = torque[b3 + 2]!;
    // the coupling torques: τ of its own joint, −τ of each child's
    let sx = tau[i * 3]!, sy = tau[i * 3 + 1]!, sz = tau[i * 3 + 2]!;
    if (i > 0 || rootHeld) {
      // +F at its head
      const jx = jointForce[b3]!, jy = jointForce[b3 + 1]!, jz = jointForce[b3 + 2]!;
      const rx = head[b3]! - cx, ry = head[b3 + 1]! - cy, rz = head[b3 + 2]! - cz;
      fx += jx; fy += jy; fz += jz;
      tx += ry * jz - rz * jy; ty += rz * jx - rx * jz; tz += rx * jy - ry * jx;
    }
    for (let k = childStart[i]!; k < childStart[i + 1]!; k++) {
      // −F_c at the child's head
      const ci = childIndex[k]!, c3 = bones[ci]! * 3;
      const jx = jointForce[c3]!, jy = jointForce[c3 + 1]!, jz = jointForce[c3 + 2]!;
      const rx = head[c3]! - cx, ry = head[c3 + 1]! - cy, rz = head[c3 + 2]! - cz;
      fx -= jx; fy -= jy; fz -= jz;
      tx -= ry * jz - rz * jy; ty -= rz * jx - rx * jz; tz -= rx * jy - ry * jx;
      sx -= tau[ci * 3]!; sy -= tau[ci * 3 + 1]!; sz -= tau[ci * 3 + 2]!;
    }
    tx += sx; ty += sy; tz += sz;
    torque[b3] = torque[b3]! + sx; torque[b3 + 1] = torque[b3 + 1]! + sy; torque[b3 + 2] = torque[b3 + 2]! + sz;
    // its net load (as measureLoads takes it)
    residual = largerLoad(residual, fx * fx + fy * fy + fz * fz, tx * tx + ty * ty + tz * tz, length[b]!);
    const im = 1 / effMass[b]!;
    acc[b3] = fx * im; acc[b3 + 1] = fy * im; acc[b3 + 2] = fz * im;
    const jxx = J[b6]!, jxy = J[b6 + 1]!, jxz = J[b6 + 2]!, jyy = J[b6 + 3]!, jyz = J[b6 + 4]!, jzz = J[b6 + 5]!;
    const ax = jxx * tx + jxy * ty + jxz * tz, ay = jxy * tx + jyy * ty + jyz * tz, az = jxz * tx + jyz * ty + jzz * tz;
    angAcc[b3] = ax; angAcc[b3 + 1] = ay; angAcc[b3 + 2] = az;
    // the check: how far apart the joint's bones accelerate at its point (jointMismatch's
    // measure, bone against parent; the root's head against the world when it is held)
    const lx = fx * im, ly = fy * im, lz = fz * im;
    const sc = Math.abs(lx) + Math.abs(ly) + Math.abs(lz) + (Math.abs(ax) + Math.abs(ay) + Math.abs(az)) * length[b]!;
    if (sc > scale) scale = sc;
    if (i === 0 && !rootHeld) continue;
    const hx = head[b3]!, hy = head[b3 + 1]!, hz = head[b3 + 2]!;
    pointAcceleration(acc, angAcc, angVel, b3, hx - cx, hy - cy, hz - cz, on);
    let mx = pointAcc[0]!, my = pointAcc[1]!, mz = pointAcc[2]!;
    if (i > 0) {
      const p3 = bones[parentIndex[i]!]! * 3;
      pointAcceleration(acc, angAcc, angVel, p3, hx - centre[p3]!, hy - centre[p3 + 1]!, hz - centre[p3 + 2]!, on);
      mx -= pointAcc[0]!; my -= pointAcc[1]!; mz -= pointAcc[2]!;
    }
    // (squared: one square root, of the largest)
    const d2 = mx * mx + my * my + mz * mz;
    // NaN counts as infinitely bad (POSITIVE_INFINITY: the global Infinity merged here is boxed)
    if (!(d2 <= worst2)) worst2 = d2 === d2 ? d2 : Number.POSITIVE_INFINITY;
  }
  fastCheck[0] = Math.sqrt(worst2); fastCheck[1] = scale; fastCheck[2] = residual;
}

/**
 * The welded bones' accelerations, joint forces and weld torques (`tau`), from their motion u
 * (their body's: the acceleration of the head, the angular acceleration): each bone's Newton-Euler
 * equations solved for the load at its head, children first (their loads act on it),
 *   F_joint = m a − F + Σ F_c,   τ_weld = E α − τ + d × F_joint + Σ ((h_c − c) × F_c + τ_c)
 * (d = c − h, effective m and E as the solve used them). Their coupling torques go on Bone.torque
 * as fastAccelerations puts the others'. The largest of their net loads (measureLoads') to fastCheck[2].
 */
function weldLoads(world: PhysikWorld, rig: RigRecord, coupling: LimitCoupling): void {
  const { head, centre, jointForce, effMass, effInertiaWorld: E, force, torque, acc, angAcc, angVel, length } = world.physik.Bone;
  const { bones, childStart, childIndex } = rig;
  const { tau, u, welded } = coupling;
  const on = rig.settings.centripetal;
  let residual = 0;
  for (let i = bones.length - 1; i > 0; i--) {
    if (welded[i] !== 1) continue;
    const b = bones[i]!, b3 = b * 3, b6 = b * 6, i6 = i * 6;
    const cx = centre[b3]!, cy = centre[b3 + 1]!, cz = centre[b3 + 2]!;
    const dx = cx - head[b3]!, dy = cy - head[b3 + 1]!, dz = cz - head[b3 + 2]!;
    const ax = u[i6 + 3]!, ay = u[i6 + 4]!, az = u[i6 + 5]!;
    // the centre's acceleration: the head's, + α × d (+ ω × (ω × d))
    let lx = u[i6]! + ay * dz - az * dy, ly = u[i6 + 1]! + az * dx - ax * dz, lz = u[i6 + 2]! + ax * dy - ay * dx;
    if (on) {
      const wx = angVel[b3]!, wy = angVel[b3 + 1]!, wz = angVel[b3 + 2]!;
      const qx = wy * dz - wz * dy, qy = wz * dx - wx * dz, qz = wx * dy - wy * dx;
      lx += wy * qz - wz * qy; ly += wz * qx - wx * qz; lz += wx * qy - wy * qx;
    }
    acc[b3] = lx; acc[b3 + 1] = ly; acc[b3 + 2] = lz;
    angAcc[b3] = ax; angAcc[b3 + 1] = ay; angAcc[b3 + 2] = az;
    const m = effMass[b]!;
    // its net load m a and E α (as measureLoads takes it)
    const nx = m * lx, ny = m * ly, nz = m * lz;
    const ex = E[b6]! * ax + E[b6 + 1]! * ay + E[b6 + 2]! * az, ey = E[b6 + 1]! * ax + E[b6 + 3]! * ay + E[b6 + 4]! * az, ez = E[b6 + 2]! * ax + E[b6 + 4]! * ay + E[b6 + 5]! * az;
    residual = largerLoad(residual, nx * nx + ny * ny + nz * nz, ex * ex + ey * ey + ez * ez, length[b]!);
    let fx = nx - force[b3]!, fy = ny - force[b3 + 1]!, fz = nz - force[b3 + 2]!;
    let tx = ex - torque[b3]!, ty = ey - torque[b3 + 1]!, tz = ez - torque[b3 + 2]!;
    let sx = 0, sy = 0, sz = 0;
    for (let k = childStart[i]!; k < childStart[i + 1]!; k++) {
      const ci = childIndex[k]!, c3 = bones[ci]! * 3;
      const jx = jointForce[c3]!, jy = jointForce[c3 + 1]!, jz = jointForce[c3 + 2]!;
      const rx = head[c3]! - cx, ry = head[c3 + 1]! - cy, rz = head[c3 + 2]! - cz;
      fx += jx; fy += jy; fz += jz;
      tx += ry * jz - rz * jy; ty += rz * jx - rx * jz; tz += rx * jy - ry * jx;
      sx += tau[ci * 3]!; sy += tau[ci * 3 + 1]!; sz += tau[ci * 3 + 2]!;
    }
    tx += sx + dy * fz - dz * fy; ty += sy + dz * fx - dx * fz; tz += sz + dx * fy - dy * fx;
    jointForce[b3] = fx; jointForce[b3 + 1] = fy; jointForce[b3 + 2] = fz;
    tau[i * 3] = tx; tau[i * 3 + 1] = ty; tau[i * 3 + 2] = tz;
    torque[b3] = torque[b3]! + (tx - sx); torque[b3 + 1] = torque[b3 + 1]! + (ty - sy); torque[b3 + 2] = torque[b3 + 2]! + (tz - sz);
  }
  fastCheck[2] = residual;
}

/**
 * fastAccelerations' check: [0] the largest acceleration mismatch at a joint, [1] the rig's
 * acceleration scale (|a| + |α| L, largest over the bones); and [2] the load residual
 * (systems/metrics.ts measureLoads) of its result.
 */
export const fastCheck = new Float64Array(3);
const pointAcc = new Float64Array(3);

/** Acceleration of the point at lever (rx, ry, rz) from the centre of the bone at b3: a + α × r (+ ω × (ω × r)), to pointAcc. */
function pointAcceleration(acc: Doubles, angAcc: Doubles, angVel: Doubles, b3: number, rx: number, ry: number, rz: number, on: boolean): void {
  const ax = angAcc[b3]!, ay = angAcc[b3 + 1]!, az = angAcc[b3 + 2]!;
  let x = acc[b3]! + ay * rz - az * ry, y = acc[b3 + 1]! + az * rx - ax * rz, z = acc[b3 + 2]! + ax * ry - ay * rx;
  if (on) {
    const wx = angVel[b3]!, wy = angVel[b3 + 1]!, wz = angVel[b3 + 2]!;
    const ux = wy * rz - wz * ry, uy = wz * rx - wx * rz, uz = wx * ry - wy * rx;
    x += wy * uz - wz * uy; y += wz * ux - wx * uz; z += wx * uy - wy * ux;
  }
  pointAcc[0] = x; pointAcc[1] = y; pointAcc[2] = z;
}

/**
 * Fold body j (depth-first index of its first bone) into the body of bone i, A_i and g_i, across
 * the ball or hinge joint at j's head (see the header), keeping D⁻¹ and ζ of j for the way down.
 * (A weld is the limit K → ∞ of the same fold, Iᵃ = A_j: fastCoupledJointForces adds welded bones
 * to their body directly instead.) False when D is singular.
 */
function foldChild(head: Doubles, angVel: Doubles, rot: Doubles, on: boolean, coupling: LimitCoupling, rig: RigRecord, i: number, j: number): boolean {
  const { K, A, g, Dinv, zeta } = coupling;
  const world = i < 0, b3 = world ? 0 : rig.bones[i]! * 3, c3 = rig.bones[j]! * 3, a = j * 36, j6 = j * 6;
  const hinge = world ? -1 : coupling.hingeAxis[j]!;
  // the lever from the parent's head to this one, and ζ = ω_b×(ω_b×r)
  const rx = world ? 0 : head[c3]! - head[b3]!, ry = world ? 0 : head[c3 + 1]! - head[b3 + 1]!, rz = world ? 0 : head[c3 + 2]! - head[b3 + 2]!;
  let zx = 0, zy = 0, zz = 0;
  if (on && !world) {
    const wx = angVel[b3]!, wy = angVel[b3 + 1]!, wz = angVel[b3 + 2]!;
    const ux = wy * rz - wz * ry, uy = wz * rx - wx * rz, uz = wx * ry - wy * rx;
    zx = wy * uz - wz * uy; zy = wz * ux - wx * uz; zz = wx * uy - wy * ux;
  }
  zeta[j * 3] = zx; zeta[j * 3 + 1] = zy; zeta[j * 3 + 2] = zz;
  // Iᵃ = [[P, N], [Nᵀ, Q]] and pᵃ − Iᵃ ζ = (l, h): a ball joint has N = E K, Q = K − K D⁻¹ K
  // (both zero when no limit is pressed)
  let pxx: number, pxy: number, pxz: number, pyy: number, pyz: number, pzz: number;
  let N00 = 0, N01 = 0, N02 = 0, N10 = 0, N11 = 0, N12 = 0, N20 = 0, N21 = 0, N22 = 0;
  let Qxx = 0, Qxy = 0, Qxz = 0, Qyy = 0, Qyz = 0, Qzz = 0;
  let lx: number, ly: number, lz: number, hx = 0, hy = 0, hz = 0;
  // (a ball joint with no limit pressed, the world's included: N, Q and h are zero)
  let point = true;
  const gx = g[j6 + 3]!, gy = g[j6 + 4]!, gz = g[j6 + 5]!;
  if (hinge >= 0) {
    // one free axis s (the child's, in the world): D⁺ = s sᵀ / (sᵀ (A22 + K) s) in place of D⁻¹, and
    // with U = (A12 s, A22 s) the subtree passes Iᵃ = A − U Uᵀ / d, pᵃ = g − U (sᵀ g_ang) / d
    point = false;
    hingeAxisWorld(rot, rig.bones[j]!, hinge, freeAxis);
    const sx = freeAxis[0]!, sy = freeAxis[1]!, sz = freeAxis[2]!;
    const a22xx = A[a + 15]!, a22xy = A[a + 16]!, a22xz = A[a + 17]!, a22yy = A[a + 18]!, a22yz = A[a + 19]!, a22zz = A[a + 20]!;
    const vx = a22xx * sx + a22xy * sy + a22xz * sz, vy = a22xy * sx + a22yy * sy + a22yz * sz, vz = a22xz * sx + a22yz * sy + a22zz * sz;
    const ks = K[j6]! * sx * sx + K[j6 + 3]! * sy * sy + K[j6 + 5]! * sz * sz + 2 * (K[j6 + 1]! * sx * sy + K[j6 + 2]! * sx * sz + K[j6 + 4]! * sy * sz);
    const d = sx * vx + sy * vy + sz * vz + ks;
    if (!(d > 0 && Number.isFinite(d))) return false;
    const id = 1 / d;
    const o9 = j * 9;
    Dinv[o9] = sx * sx * id; Dinv[o9 + 1] = sx * sy * id; Dinv[o9 + 2] = sx * sz * id;
    Dinv[o9 + 3] = sy * sy * id; Dinv[o9 + 4] = sy * sz * id; Dinv[o9 + 5] = sz * sz * id;
    const b00 = A[a + 6]!, b01 = A[a + 7]!, b02 = A[a + 8]!, b10 = A[a + 9]!, b11 = A[a + 10]!, b12 = A[a + 11]!, b20 = A[a + 12]!, b21 = A[a + 13]!, b22 = A[a + 14]!;
    const ux = b00 * sx + b01 * sy + b02 * sz, uy = b10 * sx + b11 * sy + b12 * sz, uz = b20 * sx + b21 * sy + b22 * sz;
    const uxd = ux * id, uyd = uy * id, uzd = uz * id, vxd = vx * id, vyd = vy * id, vzd = vz * id;
    pxx = A[a]! - ux * uxd; pxy = A[a + 1]! - ux * uyd; pxz = A[a + 2]! - ux * uzd;
    pyy = A[a + 3]! - uy * uyd; pyz = A[a + 4]! - uy * uzd; pzz = A[a + 5]! - uz * uzd;
    N00 = b00 - ux * vxd; N01 = b01 - ux * vyd; N02 = b02 - ux * vzd;
    N10 = b10 - uy * vxd; N11 = b11 - uy * vyd; N12 = b12 - uy * vzd;
    N20 = b20 - uz * vxd; N21 = b21 - uz * vyd; N22 = b22 - uz * vzd;
    Qxx = a22xx - vx * vxd; Qxy = a22xy - vx * vyd; Qxz = a22xz - vx * vzd;
    Qyy = a22yy - vy * vyd; Qyz = a22yz - vy * vzd; Qzz = a22zz - vz * vzd;
    const sg = sx * gx + sy * gy + sz * gz;
    lx = g[j6]! - uxd * sg - (pxx * zx + pxy * zy + pxz * zz);
    ly = g[j6 + 1]! - uyd * sg - (pxy * zx + pyy * zy + pyz * zz);
    lz = g[j6 + 2]! - uzd * sg - (pxz * zx + pyz * zy + pzz * zz);
    hx = gx - vxd * sg - (N00 * zx + N10 * zy + N20 * zz);
    hy = gy - vyd * sg - (N01 * zx + N11 * zy + N21 * zz);
    hz = gz - vzd * sg - (N02 * zx + N12 * zy + N22 * zz);
  } else {
    const kxx = K[j6]!, kxy = K[j6 + 1]!, kxz = K[j6 + 2]!, kyy = K[j6 + 3]!, kyz = K[j6 + 4]!, kzz = K[j6 + 5]!;
    const pressed = kxx !== 0 || kxy !== 0 || kxz !== 0 || kyy !== 0 || kyz !== 0 || kzz !== 0;
    point = !pressed;
    // D⁻¹ = (A22 + K)⁻¹, symmetric, by cofactors
    const a22xx = A[a + 15]!, a22xy = A[a + 16]!, a22xz = A[a + 17]!, a22yy = A[a + 18]!, a22yz = A[a + 19]!, a22zz = A[a + 20]!;
    const dxx = a22xx + kxx, dxy = a22xy + kxy, dxz = a22xz + kxz;
    const dyy = a22yy + kyy, dyz = a22yz + kyz, dzz = a22zz + kzz;
    const cxx = dyy * dzz - dyz * dyz, cxy = dxz * dyz - dxy * dzz, cxz = dxy * dyz - dxz * dyy;
    const det = dxx * cxx + dxy * cxy + dxz * cxz;
    if (!(det !== 0 && Number.isFinite(det))) return false;
    const s = 1 / det;
    const e0 = cxx * s, e1 = cxy * s, e2 = cxz * s;
    const e3 = (dxx * dzz - dxz * dxz) * s, e4 = (dxy * dxz - dxx * dyz) * s, e5 = (dxx * dyy - dxy * dxy) * s;
    const o9 = j * 9;
    Dinv[o9] = e0; Dinv[o9 + 1] = e1; Dinv[o9 + 2] = e2; Dinv[o9 + 3] = e3; Dinv[o9 + 4] = e4; Dinv[o9 + 5] = e5;
    // E = A12 D⁻¹ (row-major)
    const b00 = A[a + 6]!, b01 = A[a + 7]!, b02 = A[a + 8]!, b10 = A[a + 9]!, b11 = A[a + 10]!, b12 = A[a + 11]!, b20 = A[a + 12]!, b21 = A[a + 13]!, b22 = A[a + 14]!;
    const E00 = b00 * e0 + b01 * e1 + b02 * e2, E01 = b00 * e1 + b01 * e3 + b02 * e4, E02 = b00 * e2 + b01 * e4 + b02 * e5;
    const E10 = b10 * e0 + b11 * e1 + b12 * e2, E11 = b10 * e1 + b11 * e3 + b12 * e4, E12 = b10 * e2 + b11 * e4 + b12 * e5;
    const E20 = b20 * e0 + b21 * e1 + b22 * e2, E21 = b20 * e1 + b21 * e3 + b22 * e4, E22 = b20 * e2 + b21 * e4 + b22 * e5;
    // P = A11 − E A21 (A21 = A12ᵀ), symmetric
    pxx = A[a]! - (E00 * b00 + E01 * b01 + E02 * b02);
    pxy = A[a + 1]! - (E00 * b10 + E01 * b11 + E02 * b12);
    pxz = A[a + 2]! - (E00 * b20 + E01 * b21 + E02 * b22);
    pyy = A[a + 3]! - (E10 * b10 + E11 * b11 + E12 * b12);
    pyz = A[a + 4]! - (E10 * b20 + E11 * b21 + E12 * b22);
    pzz = A[a + 5]! - (E20 * b20 + E21 * b21 + E22 * b22);
    // pᵃ_lin = g_lin − E g_ang, less P ζ
    lx = g[j6]! - (E00 * gx + E01 * gy + E02 * gz) - (pxx * zx + pxy * zy + pxz * zz);
    ly = g[j6 + 1]! - (E10 * gx + E11 * gy + E12 * gz) - (pxy * zx + pyy * zy + pyz * zz);
    lz = g[j6 + 2]! - (E20 * gx + E21 * gy + E22 * gz) - (pxz * zx + pyz * zy + pzz * zz);
    if (pressed) {
      // K D⁻¹ = I − A22 D⁻¹ (D = A22 + K), so with W = A22 D⁻¹: M = K D⁻¹ = I − W, N = E K =
      // A12 − E A22, Q = K − K D⁻¹ K = A22 − W A22, pᵃ_ang = M g_ang − Nᵀ ζ. The same in exact
      // arithmetic as the products with K, but a stiff limit (k dt² far above the bone's inertia,
      // a light finger pressed while a marker's spring drags its hand) made those lose to
      // rounding what K outweighs A22 by: the joints then disagreed by 1e-5 of the rig's scale
      const w00 = a22xx * e0 + a22xy * e1 + a22xz * e2, w01 = a22xx * e1 + a22xy * e3 + a22xz * e4, w02 = a22xx * e2 + a22xy * e4 + a22xz * e5;
      const w10 = a22xy * e0 + a22yy * e1 + a22yz * e2, w11 = a22xy * e1 + a22yy * e3 + a22yz * e4, w12 = a22xy * e2 + a22yy * e4 + a22yz * e5;
      const w20 = a22xz * e0 + a22yz * e1 + a22zz * e2, w21 = a22xz * e1 + a22yz * e3 + a22zz * e4, w22 = a22xz * e2 + a22yz * e4 + a22zz * e5;
      N00 = b00 - (E00 * a22xx + E01 * a22xy + E02 * a22xz); N01 = b01 - (E00 * a22xy + E01 * a22yy + E02 * a22yz); N02 = b02 - (E00 * a22xz + E01 * a22yz + E02 * a22zz);
      N10 = b10 - (E10 * a22xx + E11 * a22xy + E12 * a22xz); N11 = b11 - (E10 * a22xy + E11 * a22yy + E12 * a22yz); N12 = b12 - (E10 * a22xz + E11 * a22yz + E12 * a22zz);
      N20 = b20 - (E20 * a22xx + E21 * a22xy + E22 * a22xz); N21 = b21 - (E20 * a22xy + E21 * a22yy + E22 * a22yz); N22 = b22 - (E20 * a22xz + E21 * a22yz + E22 * a22zz);
      hx = gx - (w00 * gx + w01 * gy + w02 * gz) - (N00 * zx + N10 * zy + N20 * zz);
      hy = gy - (w10 * gx + w11 * gy + w12 * gz) - (N01 * zx + N11 * zy + N21 * zz);
      hz = gz - (w20 * gx + w21 * gy + w22 * gz) - (N02 * zx + N12 * zy + N22 * zz);
      Qxx = a22xx - (w00 * a22xx + w01 * a22xy + w02 * a22xz);
      Qxy = a22xy - (w00 * a22xy + w01 * a22yy + w02 * a22yz);
      Qxz = a22xz - (w00 * a22xz + w01 * a22yz + w02 * a22zz);
      Qyy = a22yy - (w10 * a22xy + w11 * a22yy + w12 * a22yz);
      Qyz = a22yz - (w10 * a22xz + w11 * a22yz + w12 * a22zz);
      Qzz = a22zz - (w20 * a22xz + w21 * a22yz + w22 * a22zz);
    }
  }
  const slot = world ? rig.bones.length : i, ai = slot * 36, i6 = slot * 6;
  // T = P R (R = [r]ₓ): row k of T = P_row_k × r
  const t00 = pxy * rz - pxz * ry, t01 = pxz * rx - pxx * rz, t02 = pxx * ry - pxy * rx;
  const t10 = pyy * rz - pyz * ry, t11 = pyz * rx - pxy * rz, t12 = pxy * ry - pyy * rx;
  const t20 = pyz * rz - pzz * ry, t21 = pzz * rx - pxz * rz, t22 = pxz * ry - pyz * rx;
  // Xᵀ Iᵃ X = [[P, N − P R], [·, Q + R N + (R N)ᵀ − R P R]]; column k of R T = r × T_col_k
  // (R T is R P R: symmetric, its upper triangle is used); R N, column k = r × N_col_k
  A[ai] = A[ai]! + pxx; A[ai + 1] = A[ai + 1]! + pxy; A[ai + 2] = A[ai + 2]! + pxz; A[ai + 3] = A[ai + 3]! + pyy; A[ai + 4] = A[ai + 4]! + pyz; A[ai + 5] = A[ai + 5]! + pzz;
  g[i6] = g[i6]! + lx; g[i6 + 1] = g[i6 + 1]! + ly; g[i6 + 2] = g[i6 + 2]! + lz;
  if (point) {
    A[ai + 6] = A[ai + 6]! - t00; A[ai + 7] = A[ai + 7]! - t01; A[ai + 8] = A[ai + 8]! - t02;
    A[ai + 9] = A[ai + 9]! - t10; A[ai + 10] = A[ai + 10]! - t11; A[ai + 11] = A[ai + 11]! - t12;
    A[ai + 12] = A[ai + 12]! - t20; A[ai + 13] = A[ai + 13]! - t21; A[ai + 14] = A[ai + 14]! - t22;
    A[ai + 15] = A[ai + 15]! - (ry * t20 - rz * t10); A[ai + 16] = A[ai + 16]! - (ry * t21 - rz * t11); A[ai + 17] = A[ai + 17]! - (ry * t22 - rz * t12);
    A[ai + 18] = A[ai + 18]! - (rz * t01 - rx * t21); A[ai + 19] = A[ai + 19]! - (rz * t02 - rx * t22); A[ai + 20] = A[ai + 20]! - (rx * t12 - ry * t02);
    g[i6 + 3] = g[i6 + 3]! + (ry * lz - rz * ly); g[i6 + 4] = g[i6 + 4]! + (rz * lx - rx * lz); g[i6 + 5] = g[i6 + 5]! + (rx * ly - ry * lx);
    return true;
  }
  const rn00 = ry * N20 - rz * N10, rn01 = ry * N21 - rz * N11, rn02 = ry * N22 - rz * N12;
  const rn10 = rz * N00 - rx * N20, rn11 = rz * N01 - rx * N21, rn12 = rz * N02 - rx * N22;
  const rn20 = rx * N10 - ry * N00, rn21 = rx * N11 - ry * N01, rn22 = rx * N12 - ry * N02;
  A[ai + 6] = A[ai + 6]! + (N00 - t00); A[ai + 7] = A[ai + 7]! + (N01 - t01); A[ai + 8] = A[ai + 8]! + (N02 - t02);
  A[ai + 9] = A[ai + 9]! + (N10 - t10); A[ai + 10] = A[ai + 10]! + (N11 - t11); A[ai + 11] = A[ai + 11]! + (N12 - t12);
  A[ai + 12] = A[ai + 12]! + (N20 - t20); A[ai + 13] = A[ai + 13]! + (N21 - t21); A[ai + 14] = A[ai + 14]! + (N22 - t22);
  A[ai + 15] = A[ai + 15]! + (Qxx + 2 * rn00 - (ry * t20 - rz * t10));
  A[ai + 16] = A[ai + 16]! + (Qxy + rn01 + rn10 - (ry * t21 - rz * t11));
  A[ai + 17] = A[ai + 17]! + (Qxz + rn02 + rn20 - (ry * t22 - rz * t12));
  A[ai + 18] = A[ai + 18]! + (Qyy + 2 * rn11 - (rz * t01 - rx * t21));
  A[ai + 19] = A[ai + 19]! + (Qyz + rn12 + rn21 - (rz * t02 - rx * t22));
  A[ai + 20] = A[ai + 20]! + (Qzz + 2 * rn22 - (rx * t12 - ry * t02));
  // g_i += Xᵀ (pᵃ − Iᵃ ζ) = (l, r × l + h); (l was added above)
  g[i6 + 3] = g[i6 + 3]! + (ry * lz - rz * ly + hx); g[i6 + 4] = g[i6 + 4]! + (rz * lx - rx * lz + hy); g[i6 + 5] = g[i6 + 5]! + (rx * ly - ry * lx + hz);
  return true;
}
