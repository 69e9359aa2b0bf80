/**
 * Emulated limits on Rapier spherical impulse joints, through the joints' angular motors.
 * Rapier has no limits on spherical joints, but each angular axis of one has a motor, and a
 * force-based motor is a spring-damper solved inside Rapier's constraint solver, implicitly:
 * exactly what PhysIK's implicit torsion spring is (τ = −k (excess + dt ω_rel + dt² α_rel),
 * section 3.2 with `limitImplicit`), where an explicit torque diverged on light hands.
 *
 * The joint's local frames are set to the PhysIK joint frame (the bone's rest frame carried by
 * the parent), so the motor axes are the limit axes. Each step, for every emulated axis:
 *  - excess from PhysIK's own angle φ_a (rotation vector, torsion.ts) and limits;
 *  - outside the limits: the motor targets Rapier's own measure of the angle (2 asin of the
 *    relative quaternion's component) minus the excess, with stiffness k and damping k·dt
 *    (limitImplicit) or 0, and a maximum torque k·limitCapDeg for capped springs; past the
 *    hard-stop band the stiffness is HARD_STOP_FACTOR·k and the target is set so the torque
 *    at the current angle is PhysIK's piecewise one;
 *  - inside: the motor's maximum torque is 0 (off).
 * So the spring's rest length is set by PhysIK's angle and Rapier only integrates it. What
 * differs: the torque acts along the joint-frame axis (PhysIK's 'axis' torque; the default
 * 'conservative' direction differs from it to second order in the bend), and a motor with
 * maximum torque 0 still costs Rapier a constraint row per axis.
 */
import type * as RapierTypes from '@dimforge/rapier3d-compat';
import type { PhysikWorld, RigRecord } from '../world/world';
import type { Rapier } from './load';
import { jointAngles, limitExcess, limitStiffness, hardStopOver, HARD_STOP_FACTOR } from './torsion';

const DEG = Math.PI / 180;
/** Rapier's "no limit" for a motor's force (f32 range). */
const UNLIMITED = 1e30;

export class LimitMotors {
  /** Emulated joints: depth-first index, the joint as a spherical joint (motor API). */
  private readonly index: Int32Array;
  private readonly joints: RapierTypes.SphericalImpulseJoint[];
  /** Per joint and axis: the maximum torque last given to the motor (0 = off). */
  private readonly maxForce: Float64Array;
  private readonly axes: RapierTypes.JointAxis[];
  private readonly qRel = new Float64Array(4);
  private readonly phi = new Float64Array(3);

  constructor(
    R: Rapier, rworld: RapierTypes.World, private readonly world: PhysikWorld, private readonly record: RigRecord,
    private readonly parentIndex: Int32Array, private readonly emulate: Uint8Array,
    jointOf: (index: number) => RapierTypes.ImpulseJoint,
  ) {
    this.axes = [R.JointAxis.AngX, R.JointAxis.AngY, R.JointAxis.AngZ];
    const list: number[] = [];
    for (let i = 1; i < record.bones.length; i++) if (emulate[i * 3] || emulate[i * 3 + 1] || emulate[i * 3 + 2]) list.push(i);
    this.index = Int32Array.from(list);
    // the bindings report a spherical joint as generic (no motor methods): wrap its handle
    this.joints = list.map((i) => new R.SphericalImpulseJoint(rworld.impulseJoints.raw, rworld.bodies, jointOf(i).handle));
    this.maxForce = new Float64Array(3 * list.length);
    for (let j = 0; j < list.length; j++) {
      for (let a = 0; a < 3; a++) {
        if (!emulate[list[j]! * 3 + a]) continue;
        this.joints[j]!.configureMotorModel(this.axes[a]!, R.MotorModel.ForceBased);
        this.joints[j]!.setMotorMaxForce(this.axes[a]!, 0);
      }
    }
  }

  /** Set every emulated axis' motor for the coming step from the mirror's rotations `rot`. */
  update(rot: Float64Array): void {
    const { Bone, AngularLimit } = this.world.physik;
    const s = this.record.settings;
    const damped = s.limitImplicit;
    const capped = s.limitSpring === 'capped';
    const { qRel, phi } = this;
    for (let j = 0; j < this.index.length; j++) {
      const i = this.index[j]!, b = this.record.bones[i]!;
      jointAngles(Bone, b, i, this.parentIndex[i]!, rot, qRel, phi);
      const sign = qRel[3]! < 0 ? -1 : 1; // Rapier measures on the w ≥ 0 hemisphere too
      for (let a = 0; a < 3; a++) {
        if (!this.emulate[i * 3 + a]) continue;
        const k = limitStiffness(this.world, s, b, a);
        const excess = limitExcess(AngularLimit, s, b, a, phi[a]!);
        const slot = j * 3 + a;
        const axis = this.axes[a]!;
        if (excess === 0) {
          if (this.maxForce[slot] !== 0) { this.joints[j]!.setMotorMaxForce(axis, 0); this.maxForce[slot] = 0; }
          continue;
        }
        // past the hard-stop band the spring is stiffer there (torsion.ts): linearised here
        const over = hardStopOver(AngularLimit, s, b, a, phi[a]!);
        const kk = over !== 0 ? HARD_STOP_FACTOR * k : k;
        const torque = k * excess + (HARD_STOP_FACTOR - 1) * k * over;
        const c = Math.max(-1, Math.min(1, sign * qRel[a]!));
        const measured = 2 * Math.asin(c);
        this.joints[j]!.configureMotor(axis, measured - torque / kk, 0, kk, damped ? kk * s.dt : 0);
        const force = capped && over === 0 ? k * s.limitCapDeg * DEG : UNLIMITED;
        if (this.maxForce[slot] !== force) { this.joints[j]!.setMotorMaxForce(axis, force); this.maxForce[slot] = force; }
      }
    }
  }
}
