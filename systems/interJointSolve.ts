/**
 * Inter-joint force solve (PhysIK section 3.2, eqs. 1-11). Bones are independent rigid rods;
 * forces at each joint keep the bones' accelerations at the joint equal.
 *
 * Each bone's acceleration from its external force and torque (eq. 1, with the gyroscopic
 * term), then the joint forces kept from the last step (warm start). At a joint with bones
 * i = 1..k, bone i accelerates at the joint point as ā_i = a_i + M_i F_i (eq. 4), where a_i is
 * its acceleration there from everything but this joint's update and
 * M(r) = m⁻¹ I₃ + [r]ₓᵀ I⁻¹ [r]ₓ (eq. 3). Equal accelerations v and forces summing to zero
 * (eqs. 6-10) give v = (Σ W_i)⁻¹ Σ W_i a_i and F_i = W_i (v − a_i) with W_i = M_i⁻¹. Eq. 11
 * read literally (affine offsets dropped) gives v = 0; the affine offset a_i is what makes
 * the update move the rig. A joint held by the world (pinned root) has v = 0.
 *
 * Gauss-Seidel passes over the joints (depth-first order) repeat until the largest
 * acceleration mismatch between two bones at any joint is below epsilon, or the pass cap
 * (default 5 × joints², as in the original add-on) is hit. Status per step: converged,
 * stalled (cap hit) or diverged (non-finite).
 *
 * Masses and inertias are the effective ones from the damping system. The centripetal term
 * ω × (ω × r) of a point's acceleration (left out of the paper's eq. 2) is a setting.
 */
import type { PhysikWorld, RigRecord } from '../src/core/world';
import { rotatedDiagonal, symInvert, symMulVec } from '../src/math/quat';
import { STATUS_CONVERGED, STATUS_DIVERGED, STATUS_STALLED } from '../components';

const tmp = new Float64Array(6);
const vec = new Float64Array(3);

/**
 * Point compliance M(r, r) = m⁻¹ I₃ − [r]ₓ J [r]ₓ for symmetric J (the inverse inertia),
 * written as a symmetric 3×3 (xx, xy, xz, yy, yz, zz).
 */
export function pointCompliance(out: Float64Array, o: number, invMass: number, J: Float64Array, jo: number, rx: number, ry: number, rz: number): void {
  const a = J[jo]!, b = J[jo + 1]!, c = J[jo + 2]!, d = J[jo + 3]!, e = J[jo + 4]!, f = J[jo + 5]!;
  // B = J [r]ₓ, with [r]ₓ = [[0, −rz, ry], [rz, 0, −rx], [−ry, rx, 0]]
  const b00 = b * rz - c * ry, b01 = -a * rz + c * rx, b02 = a * ry - b * rx;
  const b10 = d * rz - e * ry, b11 = -b * rz + e * rx, b12 = b * ry - d * rx;
  const b20 = e * rz - f * ry, b21 = -c * rz + f * rx, b22 = c * ry - e * rx;
  // K = [r]ₓ B ; M = m⁻¹ I − K
  const k00 = -rz * b10 + ry * b20, k01 = -rz * b11 + ry * b21, k02 = -rz * b12 + ry * b22;
  const k11 = rz * b01 - rx * b21, k12 = rz * b02 - rx * b22;
  const k22 = -ry * b02 + rx * b12;
  out[o] = invMass - k00;
  out[o + 1] = -k01;
  out[o + 2] = -k02;
  out[o + 3] = invMass - k11;
  out[o + 4] = -k12;
  out[o + 5] = invMass - k22;
}

/** Apply force F at lever r (from the centre) to bone b's accelerations. */
function applyForce(world: PhysikWorld, b: number, rx: number, ry: number, rz: number, fx: number, fy: number, fz: number): void {
  const { Bone } = world.physik;
  const b3 = b * 3, im = 1 / Bone.effMass[b]!;
  Bone.acc[b3] += fx * im; Bone.acc[b3 + 1] += fy * im; Bone.acc[b3 + 2] += fz * im;
  symMulVec(vec, 0, Bone.invInertiaWorld, b * 6, ry * fz - rz * fy, rz * fx - rx * fz, rx * fy - ry * fx);
  Bone.angAcc[b3] += vec[0]!; Bone.angAcc[b3 + 1] += vec[1]!; Bone.angAcc[b3 + 2] += vec[2]!;
}

/** Accelerations of every bone from external forces and torques alone (eq. 1). */
function freeAccelerations(world: PhysikWorld, rig: RigRecord): void {
  const { Bone } = world.physik;
  const { rot, effMass, effInertiaWorld, inertia, invInertiaWorld, angVel, force, torque, acc, angAcc } = Bone;
  for (const b of rig.bones) {
    const b3 = b * 3, q = b * 4;
    symInvert(invInertiaWorld, b * 6, effInertiaWorld, b * 6);
    // gyroscopic term ω × (I ω) with the bone's true inertia
    rotatedDiagonal(tmp, 0, rot, q, inertia[b3]!, inertia[b3 + 1]!, inertia[b3 + 2]!);
    const wx = angVel[b3]!, wy = angVel[b3 + 1]!, wz = angVel[b3 + 2]!;
    symMulVec(vec, 0, tmp, 0, wx, wy, wz);
    const gx = wy * vec[2]! - wz * vec[1]!, gy = wz * vec[0]! - wx * vec[2]!, gz = wx * vec[1]! - wy * vec[0]!;
    const im = 1 / effMass[b]!;
    acc[b3] = force[b3]! * im; acc[b3 + 1] = force[b3 + 1]! * im; acc[b3 + 2] = force[b3 + 2]! * im;
    symMulVec(angAcc, b3, invInertiaWorld, b * 6, torque[b3]! - gx, torque[b3 + 1]! - gy, torque[b3 + 2]! - gz);
  }
}

export function interJointSolve(world: PhysikWorld): void {
  const { Bone, Rig } = world.physik;
  const { head, centre, angVel, acc, angAcc, jointForce, parent: parentOf, effMass, invInertiaWorld } = Bone;
  for (const rig of world.physik.rigs) {
    const s = rig.settings;
    const { slotR, slotW, slotC, slotA, jointS } = rig.scratch;
    const starts = rig.jointSlotStart, slots = rig.jointSlots;
    const nJoints = rig.joints.length;
    freeAccelerations(world, rig);

    // Per joint: levers, compliance inverses W_i, S = (Σ W_i)⁻¹, centripetal offsets.
    for (let j = 0; j < nJoints; j++) {
      const s0 = starts[j]!, s1 = starts[j + 1]!;
      const grounded = world.physik.Joint.grounded[rig.joints[j]!] === 1;
      // joint point in world = head of the first child (or of the root for a grounded joint)
      const pointBone = grounded ? slots[s0]! : slots[s0 + 1]!;
      const px = head[pointBone * 3]!, py = head[pointBone * 3 + 1]!, pz = head[pointBone * 3 + 2]!;
      let sxx = 0, sxy = 0, sxz = 0, syy = 0, syz = 0, szz = 0;
      for (let k = s0; k < s1; k++) {
        const b = slots[k]!, b3 = b * 3, k3 = k * 3, k6 = k * 6;
        const rx = px - centre[b3]!, ry = py - centre[b3 + 1]!, rz = pz - centre[b3 + 2]!;
        slotR[k3] = rx; slotR[k3 + 1] = ry; slotR[k3 + 2] = rz;
        pointCompliance(tmp, 0, 1 / effMass[b]!, invInertiaWorld, b * 6, rx, ry, rz);
        symInvert(slotW, k6, tmp, 0);
        sxx += slotW[k6]!; sxy += slotW[k6 + 1]!; sxz += slotW[k6 + 2]!;
        syy += slotW[k6 + 3]!; syz += slotW[k6 + 4]!; szz += slotW[k6 + 5]!;
        if (s.centripetal) {
          const wx = angVel[b3]!, wy = angVel[b3 + 1]!, wz = angVel[b3 + 2]!;
          const ux = wy * rz - wz * ry, uy = wz * rx - wx * rz, uz = wx * ry - wy * rx;
          slotC[k3] = wy * uz - wz * uy; slotC[k3 + 1] = wz * ux - wx * uz; slotC[k3 + 2] = wx * uy - wy * ux;
        } else {
          slotC[k3] = 0; slotC[k3 + 1] = 0; slotC[k3 + 2] = 0;
        }
      }
      if (!grounded) {
        tmp[0] = sxx; tmp[1] = sxy; tmp[2] = sxz; tmp[3] = syy; tmp[4] = syz; tmp[5] = szz;
        symInvert(jointS, j * 6, tmp, 0);
      }
    }

    // Warm start: the joint forces of the last step, on each bone and (negated) its parent.
    for (const b of rig.bones) {
      const b3 = b * 3;
      const fx = jointForce[b3]!, fy = jointForce[b3 + 1]!, fz = jointForce[b3 + 2]!;
      if (fx === 0 && fy === 0 && fz === 0) continue;
      const p = parentOf[b]!;
      if (p < 0 && world.physik.Joint.grounded[Bone.joint[b]!] !== 1) continue;
      applyForce(world, b, head[b3]! - centre[b3]!, head[b3 + 1]! - centre[b3 + 1]!, head[b3 + 2]! - centre[b3 + 2]!, fx, fy, fz);
      if (p >= 0) {
        const p3 = p * 3;
        applyForce(world, p, head[b3]! - centre[p3]!, head[b3 + 1]! - centre[p3 + 1]!, head[b3 + 2]! - centre[p3 + 2]!, -fx, -fy, -fz);
      }
    }

    const cap = s.maxPasses > 0 ? s.maxPasses : Math.max(1, 5 * nJoints * nJoints);
    let passes = 0;
    let worst = 0;
    let status = STATUS_CONVERGED;
    while (nJoints > 0) {
      passes++;
      worst = 0;
      for (let j = 0; j < nJoints; j++) {
        const s0 = starts[j]!, s1 = starts[j + 1]!;
        const grounded = world.physik.Joint.grounded[rig.joints[j]!] === 1;
        // acceleration of each bone at the joint: a + α × r (+ centripetal)
        let wax = 0, way = 0, waz = 0;
        for (let k = s0; k < s1; k++) {
          const b3 = slots[k]! * 3, k3 = k * 3;
          const rx = slotR[k3]!, ry = slotR[k3 + 1]!, rz = slotR[k3 + 2]!;
          const ax = angAcc[b3]!, ay = angAcc[b3 + 1]!, az = angAcc[b3 + 2]!;
          const x = acc[b3]! + ay * rz - az * ry + slotC[k3]!;
          const y = acc[b3 + 1]! + az * rx - ax * rz + slotC[k3 + 1]!;
          const z = acc[b3 + 2]! + ax * ry - ay * rx + slotC[k3 + 2]!;
          slotA[k3] = x; slotA[k3 + 1] = y; slotA[k3 + 2] = z;
          if (!grounded) {
            symMulVec(vec, 0, slotW, k * 6, x, y, z);
            wax += vec[0]!; way += vec[1]!; waz += vec[2]!;
          }
        }
        // the common acceleration v (eq. 10 with affine offsets); the world's is zero
        let vx = 0, vy = 0, vz = 0;
        let mismatch = 0;
        if (grounded) {
          mismatch = Math.hypot(slotA[s0 * 3]!, slotA[s0 * 3 + 1]!, slotA[s0 * 3 + 2]!);
        } else {
          symMulVec(vec, 0, jointS, j * 6, wax, way, waz);
          vx = vec[0]!; vy = vec[1]!; vz = vec[2]!;
          for (let k = s0; k < s1; k++) {
            for (let l = k + 1; l < s1; l++) {
              const d = Math.hypot(slotA[k * 3]! - slotA[l * 3]!, slotA[k * 3 + 1]! - slotA[l * 3 + 1]!, slotA[k * 3 + 2]! - slotA[l * 3 + 2]!);
              if (d > mismatch) mismatch = d;
            }
          }
        }
        if (mismatch > worst || mismatch !== mismatch) worst = mismatch !== mismatch ? Infinity : mismatch;
        // F_i = W_i (v − ā_i) (eq. 9); the parent's share is implied by the children's
        for (let k = s0; k < s1; k++) {
          const b = slots[k]!, k3 = k * 3;
          symMulVec(vec, 0, slotW, k * 6, vx - slotA[k3]!, vy - slotA[k3 + 1]!, vz - slotA[k3 + 2]!);
          const fx = vec[0]!, fy = vec[1]!, fz = vec[2]!;
          applyForce(world, b, slotR[k3]!, slotR[k3 + 1]!, slotR[k3 + 2]!, fx, fy, fz);
          if (grounded || k > s0) {
            const b3 = b * 3;
            jointForce[b3] += fx; jointForce[b3 + 1] += fy; jointForce[b3 + 2] += fz;
          }
        }
      }
      if (!Number.isFinite(worst)) { status = STATUS_DIVERGED; break; }
      if (worst < s.epsilon) break;
      if (passes >= cap) { status = STATUS_STALLED; break; }
    }
    const r = rig.eid;
    Rig.passes[r] = passes;
    Rig.mismatch[r] = worst;
    Rig.solveStatus[r] = status;
    Rig.passesTotal[r] += passes;
    if (passes > Rig.passesMax[r]!) Rig.passesMax[r] = passes;
    Rig.stepsSolved[r] += 1;
  }
}
