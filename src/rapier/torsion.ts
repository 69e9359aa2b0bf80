/**
 * PhysIK's torsion springs (section 3.2, fig. 3) evaluated on the Rapier mirror's state, for
 * the limits Rapier cannot hold itself (any limit on a spherical joint, every limit on a
 * multibody joint). The law is the rig's own, read from its settings each step:
 *
 *   φ = rotation vector of restLocal⁻¹ · parent⁻¹ · bone (w ≥ 0 hemisphere), per axis θ = φ_a
 *   excess = θ − max above, θ − min below (a tolerance band moves both inward)
 *   τ = −k excess, |τ| ≤ k·limitCapDeg when capped
 *   past the hard-stop band (`limitHardStop`, limitHardStopDeg beyond the limit) the spring
 *   is HARD_STOP_FACTOR times stiffer there: τ −= (factor − 1) k over, and is not capped
 *   k = κ × the bone's limit inertia of the axis (Bone.limitInertia, as the core computes it:
 *       swing on x and z, twist on y) or κ absolute
 *   u = the joint-frame axis a in world ('axis'), or the conservative direction
 *       J⁻ᵀ e_a = e_a + ½ φ×e_a + g2 (φ φ_a − |φ|² e_a) ('conservative')
 * The torque goes to the bone and its opposite to the parent.
 *
 * Two ways to apply it: `limitMotors.ts` hands the spring to Rapier's joint motors (implicit,
 * inside Rapier's solver; impulse joints), and `emulatedTorsion` here adds it as a torque
 * (multibody joints, which have no motors in the JS bindings). With `limitImplicit` the torque
 * is PhysIK's implicit one, τ = −k (excess + dt ω_rel·u) with 2 k dt² added to the inertia of
 * both bones, as the core does; the core adds it along u only, the mirror on every axis of
 * each body (Rapier takes principal inertias in a fixed frame), which bounds it from above.
 * Without the inertia term the damping part alone diverged (k·dt/I ≫ 1/dt on a light hand).
 */
import type { PhysikWorld, RigRecord } from '../world/world';
import type { Settings } from '../scene/types';
import type { AngularLimitStore, BoneStore } from '../../components';
import { quatMulConjA, quatToRotationVector } from '../math/quat';
import { HARD_STOP_FACTOR, limitTorqueDirection } from '../../systems/torsionSprings';

const dir = new Float64Array(3);

export { HARD_STOP_FACTOR };

const DEG = Math.PI / 180;
const phi = new Float64Array(3);

/**
 * Joint angles of bone index i: the relative rotation restLocal⁻¹ · parent⁻¹ · bone into
 * qRel[0..3] and its rotation vector into phiOut[0..2] (PhysIK's jointRotationVector on the
 * mirror's rotations `rot`, 4 per index).
 */
export function jointAngles(Bone: BoneStore, b: number, i: number, pi: number, rot: Float64Array, qRel: Float64Array, phiOut: Float64Array): void {
  quatMulConjA(qRel, 0, rot, pi * 4, rot, i * 4);
  quatMulConjA(qRel, 0, Bone.restLocal, b * 4, qRel, 0);
  quatToRotationVector(phiOut, 0, qRel, 0);
}

/** How far angle theta of bone b's axis a lies outside its limits (with the tolerance band), or 0. */
export function limitExcess(AngularLimit: AngularLimitStore, s: Settings, b: number, a: number, theta: number): number {
  const lo0 = AngularLimit.min[b * 3 + a]!, hi0 = AngularLimit.max[b * 3 + a]!;
  const band = s.limitTolerance * (hi0 - lo0);
  if (theta > hi0 - band) return theta - (hi0 - band);
  if (theta < lo0 + band) return theta - (lo0 + band);
  return 0;
}

/** How far angle theta of bone b's axis a lies past its hard-stop band (limitHardStopDeg beyond the limit), or 0. */
export function hardStopOver(AngularLimit: AngularLimitStore, s: Settings, b: number, a: number, theta: number): number {
  if (!s.limitHardStop) return 0;
  const band = s.limitHardStopDeg * DEG;
  const hi = AngularLimit.max[b * 3 + a]! + band, lo = AngularLimit.min[b * 3 + a]! - band;
  if (theta > hi) return theta - hi;
  if (theta < lo) return theta - lo;
  return 0;
}

/** Stiffness k of bone b's torsion spring on joint axis a (κ × that axis' limit inertia, or κ absolute). */
export function limitStiffness(world: PhysikWorld, s: Settings, b: number, a: number): number {
  const { AngularLimit, Bone } = world.physik;
  const kappa = AngularLimit.stiffness[b]! >= 0 ? AngularLimit.stiffness[b]! : s.limitStiffness;
  return s.limitStiffnessAbsolute ? kappa : kappa * Bone.limitInertia[b * 2 + (a === 1 ? 1 : 0)]!;
}

const qRel = new Float64Array(4);

/**
 * Add the emulated limits' torques to `torque` (3 per depth-first index) from the mirror's
 * bone rotations `rot` (4 per index) and angular velocities `angVel` (3 per index), and the
 * implicit inertia to `extraInertia` (1 per index). `emulate` holds 1 per index and axis whose
 * limit is applied here; `parentIndex` the parent's depth-first index of each bone.
 */
export function emulatedTorsion(
  world: PhysikWorld, record: RigRecord, parentIndex: Int32Array, emulate: Uint8Array,
  rot: Float64Array, angVel: Float64Array, torque: Float64Array, extraInertia: Float64Array,
): void {
  const { Bone, AngularLimit } = world.physik;
  const s = record.settings;
  const capped = s.limitSpring === 'capped';
  const capAngle = s.limitCapDeg * DEG;
  const conservative = s.limitTorque !== 'axis';
  const implicitDt = s.limitImplicit ? s.dt : 0;
  const n = record.bones.length;
  for (let i = 1; i < n; i++) {
    const i3 = i * 3;
    if (!(emulate[i3] || emulate[i3 + 1] || emulate[i3 + 2])) continue;
    const b = record.bones[i]!;
    const pi = parentIndex[i]!, p3 = pi * 3;
    jointAngles(Bone, b, i, pi, rot, qRel, phi);
    const rwx = angVel[i3]! - angVel[p3]!, rwy = angVel[i3 + 1]! - angVel[p3 + 1]!, rwz = angVel[i3 + 2]! - angVel[p3 + 2]!;
    // joint frame in world = parent · restLocal; its columns are the joint axes
    const p4 = pi * 4, r4 = b * 4;
    const ax = rot[p4]!, ay = rot[p4 + 1]!, az = rot[p4 + 2]!, aw = rot[p4 + 3]!;
    const bx = Bone.restLocal[r4]!, by = Bone.restLocal[r4 + 1]!, bz = Bone.restLocal[r4 + 2]!, bw = Bone.restLocal[r4 + 3]!;
    const fx = aw * bx + ax * bw + ay * bz - az * by;
    const fy = aw * by - ax * bz + ay * bw + az * bx;
    const fz = aw * bz + ax * by - ay * bx + az * bw;
    const fw = aw * bw - ax * bx - ay * by - az * bz;
    const c0x = 1 - 2 * (fy * fy + fz * fz), c0y = 2 * (fx * fy + fz * fw), c0z = 2 * (fx * fz - fy * fw);
    const c1x = 2 * (fx * fy - fz * fw), c1y = 1 - 2 * (fx * fx + fz * fz), c1z = 2 * (fy * fz + fx * fw);
    const c2x = 2 * (fx * fz + fy * fw), c2y = 2 * (fy * fz - fx * fw), c2z = 1 - 2 * (fx * fx + fy * fy);
    let tx = 0, ty = 0, tz = 0;
    for (let a = 0; a < 3; a++) {
      if (!emulate[i3 + a]) continue;
      const k = limitStiffness(world, s, b, a);
      const theta = phi[a]!;
      const excess = limitExcess(AngularLimit, s, b, a, theta);
      if (excess === 0) continue;
      // torque direction in the joint frame (e_a for the axis torque), as PhysIK's
      limitTorqueDirection(dir, phi, a, conservative);
      const e0 = dir[0]!, e1 = dir[1]!, e2 = dir[2]!;
      const ux = c0x * e0 + c1x * e1 + c2x * e2;
      const uy = c0y * e0 + c1y * e1 + c2y * e2;
      const uz = c0z * e0 + c1z * e1 + c2z * e2;
      let tau = -k * excess;
      const over = hardStopOver(AngularLimit, s, b, a, theta);
      const kk = over !== 0 ? HARD_STOP_FACTOR * k : k;
      if (over !== 0) tau -= (HARD_STOP_FACTOR - 1) * k * over;
      tau -= kk * implicitDt * (rwx * ux + rwy * uy + rwz * uz);
      let stiffInertia = 2 * kk * implicitDt * implicitDt;
      if (capped && over === 0) {
        const limit = k * capAngle;
        if (tau > limit || tau < -limit) { tau = tau > 0 ? limit : -limit; stiffInertia = 0; }
      }
      extraInertia[i] = extraInertia[i]! + stiffInertia;
      extraInertia[pi] = extraInertia[pi]! + stiffInertia;
      tx += tau * ux; ty += tau * uy; tz += tau * uz;
    }
    torque[i3] = torque[i3]! + tx; torque[i3 + 1] = torque[i3 + 1]! + ty; torque[i3 + 2] = torque[i3 + 2]! + tz;
    torque[p3] = torque[p3]! - tx; torque[p3 + 1] = torque[p3 + 1]! - ty; torque[p3 + 2] = torque[p3 + 2]! - tz;
  }
}
