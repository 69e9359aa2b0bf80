/**
 * Inter-joint force solve (PhysIK section 3.2, eqs. 1-11). Bones are independent rigid rods;
 * forces at each joint keep the bones' accelerations at the joint equal.
 *
 * Each bone's acceleration from its external force and torque (eq. 1; the gyroscopic torque
 * is part of the torque, systems/damping.ts), then the joint forces kept from the last step (warm start). At a joint with bones
 * i = 1..k, bone i accelerates at the joint point as ā_i = a_i + M_i F_i (eq. 4), where a_i is
 * its acceleration there from everything but this joint's update and
 * M(r) = m⁻¹ I₃ + [r]ₓᵀ I⁻¹ [r]ₓ (eq. 3). Equal accelerations v and forces summing to zero
 * (eqs. 6-10) give v = (Σ W_i)⁻¹ Σ W_i a_i and F_i = W_i (v − a_i) with W_i = M_i⁻¹. Eq. 11
 * read literally (affine offsets dropped) gives v = 0; the affine offset a_i is what makes
 * the update move the rig. A joint held by the world (pinned root) has v = 0.
 *
 * 'iterative' (the paper): Gauss-Seidel passes over the joints in depth-first order until
 * the largest acceleration mismatch between two bones at any joint is below epsilon, or the
 * pass cap (default 5 × joints², as in the original add-on) is hit. Status per step:
 * converged, stalled (cap hit) or diverged (non-finite).
 * 'exact': the same equations solved directly over the tree in one sweep up and one down
 * (see jointSolve/exact.ts), linear in the number of bones.
 *
 * Masses and inertias are the effective ones from the damping and torsion systems. The
 * centripetal term ω × (ω × r) of a point's acceleration (left out of eq. 2) is a setting.
 */
import type { PhysikWorld, RigRecord } from '../src/world/world';
import { steppingRigs } from '../src/world/world';
import type { Doubles } from '../components/doubles';
import { symInvert, symMulArr } from '../src/math/mat3';
import { STATUS_CONVERGED, STATUS_DIVERGED, STATUS_STALLED, type BoneStore } from '../components';
import { exactJointForces } from './jointSolve/exact';
import { existingLimitCoupling, limitCouplingOf, coupledJointForces, applyCouplingTorques, releaseStickyLimits, removeCouplingTorques, lockedJointCoupling, composeBodies, type LimitCoupling } from './jointSolve/coupledCompliance';
import { fastCoupledJointForces, fastAccelerations, fastCheck } from './jointSolve/coupledArticulated';
import { weldsOf, weldsActive } from './welds';
import { catchMissedLimits } from './torsionSprings';
import { hingesOf, hingesActive } from './hinges';

const tmp = new Float64Array(6);
const vec = new Float64Array(3);
const work = new Float64Array(3);
const force = new Float64Array(3);
// applyForce's own scratch (callers keep values in the arrays above)
const leverTorque = new Float64Array(3);
const angular = new Float64Array(3);

/**
 * Point compliance M(r, r) = m⁻¹ I₃ − [r]ₓ J [r]ₓ for the symmetric inverse inertia J of bone
 * b and lever r = levers[ro..ro+2], written as a symmetric 3×3 (xx, xy, xz, yy, yz, zz).
 */
export function pointCompliance(out: Float64Array, o: number, invMass: number, J: Doubles, jo: number, rx: number, ry: number, rz: number): void {
  const a = J[jo]!, b = J[jo + 1]!, c = J[jo + 2]!, d = J[jo + 3]!, e = J[jo + 4]!, f = J[jo + 5]!;
  // B = J [r]ₓ, with [r]ₓ = [[0, −rz, ry], [rz, 0, −rx], [−ry, rx, 0]]
  const b10 = d * rz - e * ry, b11 = -b * rz + e * rx, b12 = b * ry - d * rx;
  const b20 = e * rz - f * ry, b21 = -c * rz + f * rx, b22 = c * ry - e * rx;
  const b01 = -a * rz + c * rx, b02 = a * ry - b * rx;
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

/** Add sign × (force f at lever r from the centre) to bone b's accelerations. */
export function applyForce(Bone: BoneStore, b: number, r: Float64Array, ro: number, f: Float64Array, fo: number, sign: number): void {
  const b3 = b * 3, s = sign / Bone.effMass[b]!;
  const fx = f[fo]!, fy = f[fo + 1]!, fz = f[fo + 2]!;
  const rx = r[ro]!, ry = r[ro + 1]!, rz = r[ro + 2]!;
  Bone.acc[b3] = Bone.acc[b3]! + fx * s; Bone.acc[b3 + 1] = Bone.acc[b3 + 1]! + fy * s; Bone.acc[b3 + 2] = Bone.acc[b3 + 2]! + fz * s;
  leverTorque[0] = sign * (ry * fz - rz * fy); leverTorque[1] = sign * (rz * fx - rx * fz); leverTorque[2] = sign * (rx * fy - ry * fx);
  symMulArr(angular, 0, Bone.invInertiaWorld, b * 6, leverTorque, 0);
  Bone.angAcc[b3] = Bone.angAcc[b3]! + angular[0]!; Bone.angAcc[b3 + 1] = Bone.angAcc[b3 + 1]! + angular[1]!; Bone.angAcc[b3 + 2] = Bone.angAcc[b3 + 2]! + angular[2]!;
}

/** Accelerations of every bone from external forces and torques alone (eq. 1). */
function freeAccelerations(Bone: BoneStore, rig: RigRecord): void {
  const { effMass, effInertiaWorld: E, invInertiaWorld: J, force: F, torque, acc, angAcc } = Bone;
  // symInvert, rotatedDiagonalArr and symMulArr written out in registers (the same arithmetic
  // in the same order, so the same bits), without their scratch arrays
  for (let bi = 0; bi < rig.bones.length; bi++) {
    const b = rig.bones[bi]!;
    const b3 = b * 3, b6 = b * 6;
    // J = E⁻¹ (symmetric); a singular or non-finite E leaves J as it was, as symInvert does
    {
      const a = E[b6]!, bb = E[b6 + 1]!, c = E[b6 + 2]!, d = E[b6 + 3]!, e = E[b6 + 4]!, f = E[b6 + 5]!;
      const A = d * f - e * e;
      const B = -(bb * f - c * e);
      const C = bb * e - c * d;
      const det = a * A + bb * B + c * C;
      if (Math.abs(det) > 0 && Number.isFinite(det)) {
        const inv = 1 / det;
        J[b6] = A * inv; J[b6 + 1] = B * inv; J[b6 + 2] = C * inv;
        J[b6 + 3] = (a * f - c * c) * inv; J[b6 + 4] = -(a * e - bb * c) * inv; J[b6 + 5] = (a * d - bb * bb) * inv;
      }
    }
    // (the gyroscopic torque is in the torque already: systems/damping.ts)
    const tx = torque[b3]!, ty = torque[b3 + 1]!, tz = torque[b3 + 2]!;
    const im = 1 / effMass[b]!;
    acc[b3] = F[b3]! * im; acc[b3 + 1] = F[b3 + 1]! * im; acc[b3 + 2] = F[b3 + 2]! * im;
    const jxx = J[b6]!, jxy = J[b6 + 1]!, jxz = J[b6 + 2]!, jyy = J[b6 + 3]!, jyz = J[b6 + 4]!, jzz = J[b6 + 5]!;
    angAcc[b3] = jxx * tx + jxy * ty + jxz * tz;
    angAcc[b3 + 1] = jxy * tx + jyy * ty + jyz * tz;
    angAcc[b3 + 2] = jxz * tx + jyz * ty + jzz * tz;
  }
}

/** Add every bone's current joint force (on it, and negated on its parent) to the accelerations. */
function applyJointForces(world: PhysikWorld, rig: RigRecord): void {
  const { Bone, Joint } = world.physik;
  const { head, centre, jointForce, parent: parentOf, effMass, invInertiaWorld: J, acc, angAcc } = Bone;
  // applyForce written out (it was not inlined here): the same arithmetic, so the same bits
  for (let bi = 0; bi < rig.bones.length; bi++) {
    const b = rig.bones[bi]!;
    const b3 = b * 3;
    const fx = jointForce[b3]!, fy = jointForce[b3 + 1]!, fz = jointForce[b3 + 2]!;
    if (fx === 0 && fy === 0 && fz === 0) continue;
    const p = parentOf[b]!;
    if (p < 0 && Joint.grounded[Bone.joint[b]!] !== 1) continue;
    const hx = head[b3]!, hy = head[b3 + 1]!, hz = head[b3 + 2]!;
    // +F at the head on the bone
    let rx = hx - centre[b3]!, ry = hy - centre[b3 + 1]!, rz = hz - centre[b3 + 2]!;
    let s = 1 / effMass[b]!;
    acc[b3] = acc[b3]! + fx * s; acc[b3 + 1] = acc[b3 + 1]! + fy * s; acc[b3 + 2] = acc[b3 + 2]! + fz * s;
    let tx = ry * fz - rz * fy, ty = rz * fx - rx * fz, tz = rx * fy - ry * fx;
    let j = b * 6;
    angAcc[b3] = angAcc[b3]! + (J[j]! * tx + J[j + 1]! * ty + J[j + 2]! * tz);
    angAcc[b3 + 1] = angAcc[b3 + 1]! + (J[j + 1]! * tx + J[j + 3]! * ty + J[j + 4]! * tz);
    angAcc[b3 + 2] = angAcc[b3 + 2]! + (J[j + 2]! * tx + J[j + 4]! * ty + J[j + 5]! * tz);
    if (p >= 0) {
      // −F at the same point on the parent
      const p3 = p * 3;
      rx = hx - centre[p3]!; ry = hy - centre[p3 + 1]!; rz = hz - centre[p3 + 2]!;
      s = -1 / effMass[p]!;
      acc[p3] = acc[p3]! + fx * s; acc[p3 + 1] = acc[p3 + 1]! + fy * s; acc[p3 + 2] = acc[p3 + 2]! + fz * s;
      tx = -(ry * fz - rz * fy); ty = -(rz * fx - rx * fz); tz = -(rx * fy - ry * fx);
      j = p * 6;
      angAcc[p3] = angAcc[p3]! + (J[j]! * tx + J[j + 1]! * ty + J[j + 2]! * tz);
      angAcc[p3 + 1] = angAcc[p3 + 1]! + (J[j + 1]! * tx + J[j + 3]! * ty + J[j + 4]! * tz);
      angAcc[p3 + 2] = angAcc[p3 + 2]! + (J[j + 2]! * tx + J[j + 4]! * ty + J[j + 5]! * tz);
    }
  }
}

/** Levers, compliance inverses W_i, S = (Σ W_i)⁻¹ and centripetal offsets per joint slot. */
function prepareJoints(world: PhysikWorld, rig: RigRecord): void {
  const { Bone, Joint } = world.physik;
  const { head, centre, angVel, effMass, invInertiaWorld } = Bone;
  const { slotR, slotW, slotC, jointS } = rig.scratch;
  const starts = rig.jointSlotStart, slots = rig.jointSlots;
  const centripetal = rig.settings.centripetal;
  for (let j = 0; j < rig.joints.length; j++) {
    const s0 = starts[j]!, s1 = starts[j + 1]!;
    const grounded = Joint.grounded[rig.joints[j]!] === 1;
    // the joint point = head of the first child (of the root, for a grounded joint)
    const pointBone = grounded ? slots[s0]! : slots[s0 + 1]!;
    const p3 = pointBone * 3;
    tmp.fill(0);
    let sxx = 0, sxy = 0, sxz = 0, syy = 0, syz = 0, szz = 0;
    for (let k = s0; k < s1; k++) {
      const b = slots[k]!, b3 = b * 3, k3 = k * 3, k6 = k * 6;
      const rx = head[p3]! - centre[b3]!, ry = head[p3 + 1]! - centre[b3 + 1]!, rz = head[p3 + 2]! - centre[b3 + 2]!;
      slotR[k3] = rx; slotR[k3 + 1] = ry; slotR[k3 + 2] = rz;
      pointCompliance(tmp, 0, 1 / effMass[b]!, invInertiaWorld, b * 6, rx, ry, rz);
      symInvert(slotW, k6, tmp, 0);
      sxx += slotW[k6]!; sxy += slotW[k6 + 1]!; sxz += slotW[k6 + 2]!;
      syy += slotW[k6 + 3]!; syz += slotW[k6 + 4]!; szz += slotW[k6 + 5]!;
      if (centripetal) {
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
}

/** The largest acceleration mismatch of the last jointPass or jointMismatch (an array: a returned double would be boxed). */
const worstOut = new Float64Array(1);

/**
 * One Gauss-Seidel pass over the joints (update = true), or a measurement only; the largest
 * acceleration mismatch at any joint before its update goes to worstOut[0].
 */
function jointPass(world: PhysikWorld, rig: RigRecord, update: boolean): void {
  const { Bone, Joint } = world.physik;
  const { acc, angAcc, jointForce } = Bone;
  const { slotR, slotW, slotC, slotA, jointS } = rig.scratch;
  const starts = rig.jointSlotStart, slots = rig.jointSlots;
  let worst = 0;
  for (let j = 0; j < rig.joints.length; j++) {
    const s0 = starts[j]!, s1 = starts[j + 1]!;
    const grounded = Joint.grounded[rig.joints[j]!] === 1;
    // acceleration of each bone at the joint: a + α × r (+ centripetal)
    let wax = 0, way = 0, waz = 0;
    for (let k = s0; k < s1; k++) {
      const b3 = slots[k]! * 3, k3 = k * 3;
      const rx = slotR[k3]!, ry = slotR[k3 + 1]!, rz = slotR[k3 + 2]!;
      const ax = angAcc[b3]!, ay = angAcc[b3 + 1]!, az = angAcc[b3 + 2]!;
      slotA[k3] = acc[b3]! + ay * rz - az * ry + slotC[k3]!;
      slotA[k3 + 1] = acc[b3 + 1]! + az * rx - ax * rz + slotC[k3 + 1]!;
      slotA[k3 + 2] = acc[b3 + 2]! + ax * ry - ay * rx + slotC[k3 + 2]!;
      if (!grounded) {
        symMulArr(vec, 0, slotW, k * 6, slotA, k3);
        wax += vec[0]!; way += vec[1]!; waz += vec[2]!;
      }
    }
    let mismatch = 0;
    if (grounded) {
      const gx = slotA[s0 * 3]!, gy = slotA[s0 * 3 + 1]!, gz = slotA[s0 * 3 + 2]!;
      mismatch = Math.sqrt(gx * gx + gy * gy + gz * gz);
      work[0] = 0; work[1] = 0; work[2] = 0; // the world does not move
    } else {
      for (let k = s0; k < s1; k++) {
        for (let l = k + 1; l < s1; l++) {
          const dx = slotA[k * 3]! - slotA[l * 3]!, dy = slotA[k * 3 + 1]! - slotA[l * 3 + 1]!, dz = slotA[k * 3 + 2]! - slotA[l * 3 + 2]!;
          const d = Math.sqrt(dx * dx + dy * dy + dz * dz);
          if (d > mismatch) mismatch = d;
        }
      }
      // the common acceleration v (eq. 10 with the affine offsets)
      vec[0] = wax; vec[1] = way; vec[2] = waz;
      symMulArr(work, 0, jointS, j * 6, vec, 0);
    }
    // NaN counts as infinitely bad (POSITIVE_INFINITY, not the global Infinity: V8 boxes a
    // number merged with that global here, an allocation per call)
    if (!(mismatch <= worst)) worst = mismatch === mismatch ? mismatch : Number.POSITIVE_INFINITY;
    if (!update) continue;
    // F_i = W_i (v − ā_i) (eq. 9); the parent's share is implied by the children's
    for (let k = s0; k < s1; k++) {
      const b = slots[k]!, k3 = k * 3;
      vec[0] = work[0]! - slotA[k3]!; vec[1] = work[1]! - slotA[k3 + 1]!; vec[2] = work[2]! - slotA[k3 + 2]!;
      symMulArr(force, 0, slotW, k * 6, vec, 0);
      applyForce(Bone, b, slotR, k3, force, 0, 1);
      if (grounded || k > s0) {
        const b3 = b * 3;
        jointForce[b3] = jointForce[b3]! + force[0]!; jointForce[b3 + 1] = jointForce[b3 + 1]! + force[1]!; jointForce[b3 + 2] = jointForce[b3 + 2]! + force[2]!;
      }
    }
  }
  worstOut[0] = worst;
}

/**
 * The largest acceleration mismatch between two bones at any joint (what jointPass measures,
 * the same arithmetic), for the exact solve: it needs the accelerations at the joints only,
 * not the compliances and their inverses that prepareJoints makes for the passes.
 */
function jointMismatch(world: PhysikWorld, rig: RigRecord): void {
  const { Bone, Joint } = world.physik;
  const { acc, angAcc, angVel, head, centre } = Bone;
  const { slotA } = rig.scratch;
  const starts = rig.jointSlotStart, slots = rig.jointSlots;
  const centripetal = rig.settings.centripetal;
  let worst = 0;
  for (let j = 0; j < rig.joints.length; j++) {
    const s0 = starts[j]!, s1 = starts[j + 1]!;
    const grounded = Joint.grounded[rig.joints[j]!] === 1;
    // the joint point = head of the first child (of the root, for a grounded joint)
    const p3 = (grounded ? slots[s0]! : slots[s0 + 1]!) * 3;
    const px = head[p3]!, py = head[p3 + 1]!, pz = head[p3 + 2]!;
    for (let k = s0; k < s1; k++) {
      const b3 = slots[k]! * 3, k3 = k * 3;
      const rx = px - centre[b3]!, ry = py - centre[b3 + 1]!, rz = pz - centre[b3 + 2]!;
      const ax = angAcc[b3]!, ay = angAcc[b3 + 1]!, az = angAcc[b3 + 2]!;
      let cx = 0, cy = 0, cz = 0;
      if (centripetal) {
        const wx = angVel[b3]!, wy = angVel[b3 + 1]!, wz = angVel[b3 + 2]!;
        const ux = wy * rz - wz * ry, uy = wz * rx - wx * rz, uz = wx * ry - wy * rx;
        cx = wy * uz - wz * uy; cy = wz * ux - wx * uz; cz = wx * uy - wy * ux;
      }
      slotA[k3] = acc[b3]! + ay * rz - az * ry + cx;
      slotA[k3 + 1] = acc[b3 + 1]! + az * rx - ax * rz + cy;
      slotA[k3 + 2] = acc[b3 + 2]! + ax * ry - ay * rx + cz;
    }
    let mismatch = 0;
    if (grounded) {
      const gx = slotA[s0 * 3]!, gy = slotA[s0 * 3 + 1]!, gz = slotA[s0 * 3 + 2]!;
      mismatch = Math.sqrt(gx * gx + gy * gy + gz * gz);
    } else {
      for (let k = s0; k < s1; k++) {
        for (let l = k + 1; l < s1; l++) {
          const dx = slotA[k * 3]! - slotA[l * 3]!, dy = slotA[k * 3 + 1]! - slotA[l * 3 + 1]!, dz = slotA[k * 3 + 2]! - slotA[l * 3 + 2]!;
          const d = Math.sqrt(dx * dx + dy * dy + dz * dz);
          if (d > mismatch) mismatch = d;
        }
      }
    }
    // NaN counts as infinitely bad (POSITIVE_INFINITY, not the global Infinity: V8 boxes a
    // number merged with that global here, an allocation per call)
    if (!(mismatch <= worst)) worst = mismatch === mismatch ? mismatch : Number.POSITIVE_INFINITY;
  }
  worstOut[0] = worst;
}

/**
 * The exact solve with the pressed limits coupled, in the accurate compliance form
 * (jointSolve/coupledCompliance.ts, from the free accelerations), the speculative springs that
 * would pull released and the step solved again without them; false when it failed.
 */
function accurateCoupledSolve(world: PhysikWorld, rig: RigRecord, coupling: LimitCoupling): boolean {
  if (!coupledJointForces(world, rig, coupling)) return false;
  if (releaseStickyLimits(world, rig, coupling) > 0) {
    // (again the coupled solve even if no spring is left: K = 0 is the plain ball joint, and
    // the other solve, rarely run on such a rig, would run cold)
    freeAccelerations(world.physik.Bone, rig);
    if (!coupledJointForces(world, rig, coupling)) return false;
  }
  applyJointForces(world, rig);
  applyCouplingTorques(world, rig, coupling);
  return true;
}

/**
 * Which form of the coupled limit solve runs (tests and benchmarks): 'auto', the fast form checked
 * and the accurate one when the check fails (the step's behaviour); 'accurate', the compliance
 * form only. `accurateSteps` counts the coupled solves the accurate form took (either way).
 * `refold`: after a limit change within a step the fast form refolds the 'changed' joints' bones
 * and their ancestors (the step's behaviour), or 'all' of them (the same bits; tests compare the
 * two); `refolds` counts the refolds of changed joints.
 */
export const coupledSolveForm = { form: 'auto' as 'auto' | 'accurate', accurateSteps: 0, refold: 'changed' as 'changed' | 'all', refolds: 0 };

/**
 * The fast form's result is kept when the bones' accelerations at every joint agree within this
 * fraction of the rig's acceleration scale (|a| + |α| L, largest over the bones, plus one): forces
 * that far off change a step by far less than the integrator's own error. (A captured walk, its
 * fingers pressed on stiff limits, solved 7% of its steps twice at 1e-6 and a third at 1e-9 before
 * the fold took pressed limits without products with K; now none: docs/performance.md.)
 */
export const FAST_FORM_TOLERANCE = 1e-6;

/** Whether the last coupledStep's result was measured by the fast form's check (1) or not (0), and whether its fast form looked for missed limits (1). */
const stepMeasured = new Uint8Array(1), stepCaught = new Uint8Array(1);

/**
 * The fast form with the step's limit changes: solved once; then, from that solution, the
 * speculative springs that would pull released (releaseStickyLimits) and the limits it would
 * pass with no spring caught (torsionSprings.ts catchMissedLimits, when `catching`); if any
 * changed, solved again, only the changed joints' bones and their ancestors refolded; the caught
 * springs that now pull released, and solved again once more. Then every bone's accelerations and
 * the check (fastAccelerations). False when a matrix was singular.
 */
function fastLimitSolve(world: PhysikWorld, rig: RigRecord, coupling: LimitCoupling, catching: boolean): boolean {
  if (!fastCoupledJointForces(world, rig, coupling)) return false;
  let changed = releaseStickyLimits(world, rig, coupling);
  if (catching) { changed += catchMissedLimits(world, rig, coupling, true); stepCaught[0] = 1; }
  if (changed > 0) {
    const changedOnly = coupledSolveForm.refold === 'changed';
    if (changedOnly) coupledSolveForm.refolds++;
    if (!fastCoupledJointForces(world, rig, coupling, changedOnly)) return false;
    if (releaseStickyLimits(world, rig, coupling) > 0 && !fastCoupledJointForces(world, rig, coupling, changedOnly)) return false;
  }
  fastAccelerations(world, rig, coupling);
  return true;
}

/**
 * The coupled solve of one step: the fast form, kept when its check passes (worstOut then holds
 * its measured mismatch, stepMeasured[0] = 1), else the step again in the accurate form, welds and
 * hinges held there as stiff couplings (`locked`). `catching`: the fast form catches the limits
 * its solution would pass (fastLimitSolve); after the accurate form the caller does. False when
 * both failed.
 */
function coupledStep(world: PhysikWorld, rig: RigRecord, coupling: LimitCoupling, locked: boolean, catching: boolean): boolean {
  stepMeasured[0] = 0; stepCaught[0] = 0;
  let solved = coupledSolveForm.form === 'auto' && fastLimitSolve(world, rig, coupling, catching);
  // the joints within FAST_FORM_TOLERANCE of the rig's accelerations (fastAccelerations measured both)
  if (solved && fastCheck[0]! <= FAST_FORM_TOLERANCE * (1 + fastCheck[1]!)) { stepMeasured[0] = 1; worstOut[0] = fastCheck[0]!; return true; }
  // the fast form lost accuracy (see jointSolve/coupledArticulated.ts) or failed: this step again, accurately
  coupledSolveForm.accurateSteps++;
  if (solved) removeCouplingTorques(world, rig, coupling);
  freeAccelerations(world.physik.Bone, rig);
  // (welds and hinges as stiff couplings in this form, K as it was afterwards)
  if (locked) lockedJointCoupling(world, rig, coupling, true);
  solved = accurateCoupledSolve(world, rig, coupling);
  if (locked) lockedJointCoupling(world, rig, coupling, false);
  return solved;
}

/** The step solved again, coupled, after catchMissedLimits added springs; true when the fast form's check measured it. */
function resolveCoupled(world: PhysikWorld, rig: RigRecord, coupling: LimitCoupling, locked: boolean): boolean {
  if (coupledStep(world, rig, coupling, locked, false)) return stepMeasured[0] === 1;
  freeAccelerations(world.physik.Bone, rig); exactJointForces(world, rig); applyJointForces(world, rig);
  return false;
}

export function interJointSolve(world: PhysikWorld): void {
  const { Bone, Rig } = world.physik;
  const rigs = steppingRigs(world);
  for (let ri = 0; ri < rigs.length; ri++) {
    const rig = rigs[ri]!;
    if (rig.settings.solver !== 'physik') continue; // posed by its kinematic solver
    const s = rig.settings;
    const nJoints = rig.joints.length;
    let passes = 0;
    let worst = 0;
    let status = STATUS_CONVERGED;
    // (fastAccelerations measured the mismatch of the fast form's result: kept when it passed)
    let measured = false;
    if (s.interJoint === 'exact') {
      // welded and hinged bones need the coupled solve's fast form (welds.ts, hinges.ts), from the first step
      const welds = weldsOf(world, rig), hinges = hingesOf(world, rig);
      const welding = welds.count > 0 && weldsActive(rig), hinging = hinges.count > 0 && hingesActive(rig);
      const coupling = welding || hinging ? limitCouplingOf(rig) : s.limitImplicit ? existingLimitCoupling(rig) : undefined;
      if (coupling) {
        const from = coupling.lockedFrom, w = welding ? welds : null, h = hinging ? hinges : null;
        if (from.welds !== w) { if (w) coupling.welded.set(w.flag); else coupling.welded.fill(0); from.welds = w; composeBodies(coupling); }
        if (from.hinges !== h) { if (h) coupling.hingeAxis.set(h.axis); else coupling.hingeAxis.fill(-1); from.hinges = h; }
      }
      // a rig that has pressed a limit keeps the coupled solve (with K = 0 it is the plain
      // ball joint): switching back and forth left the other solve cold, run by the
      // interpreter, which allocates every step (docs/performance.md has how much)
      if (coupling) {
        // (should the coupled solve fail, a matrix singular in floating point, the step takes
        // the plain solve: the pressed limits' dt² part is then left out for that step)
        const solved = coupledStep(world, rig, coupling, welding || hinging, s.limitImplicit);
        measured = solved && stepMeasured[0] === 1;
        if (!solved) { freeAccelerations(Bone, rig); exactJointForces(world, rig); applyJointForces(world, rig); }
        // a limit the solved step would pass with no spring holding it: its spring now, and the
        // step again (torsionSprings.ts catchMissedLimits; the one round), unless the fast form
        // already looked (fastLimitSolve)
        else if (stepCaught[0] === 0 && s.limitImplicit && catchMissedLimits(world, rig, coupling, false) > 0) {
          removeCouplingTorques(world, rig, coupling);
          measured = resolveCoupled(world, rig, coupling, welding || hinging);
        }
      } else {
        freeAccelerations(Bone, rig);
        exactJointForces(world, rig);
        applyJointForces(world, rig);
        if (s.limitImplicit && catchMissedLimits(world, rig, undefined, false) > 0) measured = resolveCoupled(world, rig, limitCouplingOf(rig), false);
      }
      if (nJoints > 0) {
        if (!measured) jointMismatch(world, rig);
        worst = worstOut[0]!;
      }
      passes = nJoints > 0 ? 1 : 0;
      if (!Number.isFinite(worst)) status = STATUS_DIVERGED;
    } else {
      freeAccelerations(Bone, rig);
      prepareJoints(world, rig);
      applyJointForces(world, rig); // warm start
      const cap = iterativePassCap(nJoints, s.maxPasses);
      while (nJoints > 0) {
        passes++;
        jointPass(world, rig, true);
        worst = worstOut[0]!;
        if (!Number.isFinite(worst)) { status = STATUS_DIVERGED; break; }
        if (worst < s.epsilon) break;
        if (passes >= cap) { status = STATUS_STALLED; break; }
      }
    }
    const r = rig.eid;
    // (the fast form's load residual, when its result is the step's: metrics.ts measureLoads takes it)
    Rig.solvedLoad[r] = measured ? fastCheck[2]! : -1;
    Rig.passes[r] = passes;
    Rig.mismatch[r] = worst;
    Rig.solveStatus[r] = status;
    Rig.passesTotal[r] = Rig.passesTotal[r]! + passes;
    if (passes > Rig.passesMax[r]!) Rig.passesMax[r] = passes;
    Rig.stepsSolved[r] = Rig.stepsSolved[r]! + 1;
  }
}

/**
 * Joint visits one step of the iterative solve may make at most, whatever `maxPasses` says
 * (seconds of work at what a visit costs: docs/performance.md): a pass count alone does not
 * bound a step's time, which grows with the joints each pass visits.
 */
export const MAX_JOINT_VISITS_PER_STEP = 1_000_000;

/**
 * The iterative solve's passes in one step: `maxPasses` (5 × joints² when 0, the paper's
 * generous default), and never more than MAX_JOINT_VISITS_PER_STEP / joints.
 */
export function iterativePassCap(joints: number, maxPasses: number): number {
  const asked = maxPasses > 0 ? maxPasses : 5 * joints * joints;
  return Math.max(1, Math.min(asked, Math.floor(MAX_JOINT_VISITS_PER_STEP / Math.max(1, joints))));
}
