/**
 * Shared pieces of the kinematic solvers: the goals (active control points), bone chains,
 * limits applied in the joint frame, and a pose refresh. Kinematic solvers write world
 * rotations (Bone.rot) of their rig's bones, and a floating root's centre (Bone.centre) if
 * they move it; `kinematicSolve` then derives velocities from the change, and forward
 * kinematics and metrics run as for PhysIK.
 */
import type { PhysikWorld, RigRecord } from '../../src/core/world';
import { quatMul, quatFromAxisAngle, quatNormalize } from '../../src/math/quat';
import { jointRotationVector } from '../torsionSprings';
import { forwardKinematicsOf } from '../forwardKinematics';

/** Refresh heads, tails and centres of the rig from its rotations (and the root). */
export function refreshPose(world: PhysikWorld, rig: RigRecord): void {
  forwardKinematicsOf(world, rig);
}

/** Bones from the root down to `bone`, root first (depth-first order within the chain). */
export function chainTo(world: PhysikWorld, bone: number): number[] {
  const chain: number[] = [];
  for (let b = bone; b >= 0; b = world.physik.Bone.parent[b]!) chain.push(b);
  return chain.reverse();
}

const phi = new Float64Array(3);
const q = new Float64Array(4);

/**
 * Clamp bone b's rotation relative to its parent to its angular limits: the joint-frame
 * rotation vector's limited components are clamped, and the world rotation rebuilt as
 * parent · restLocal · exp(φ). Returns true if anything was clamped.
 */
export function clampToLimits(world: PhysikWorld, b: number): boolean {
  const { Bone, AngularLimit } = world.physik;
  const p = Bone.parent[b]!;
  if (p < 0) return false;
  const b3 = b * 3;
  if (!(AngularLimit.enabled[b3] || AngularLimit.enabled[b3 + 1] || AngularLimit.enabled[b3 + 2])) return false;
  jointRotationVector(world, b, phi);
  let clamped = false;
  for (let a = 0; a < 3; a++) {
    if (!AngularLimit.enabled[b3 + a]) continue;
    const lo = AngularLimit.min[b3 + a]!, hi = AngularLimit.max[b3 + a]!;
    if (phi[a]! < lo) { phi[a] = lo; clamped = true; } else if (phi[a]! > hi) { phi[a] = hi; clamped = true; }
  }
  if (!clamped) return false;
  const angle = Math.sqrt(phi[0]! * phi[0]! + phi[1]! * phi[1]! + phi[2]! * phi[2]!);
  if (angle > 0) quatFromAxisAngle(q, 0, phi[0]! / angle, phi[1]! / angle, phi[2]! / angle, angle);
  else { q[0] = 0; q[1] = 0; q[2] = 0; q[3] = 1; }
  quatMul(q, 0, Bone.restLocal, b * 4, q, 0);
  quatMul(Bone.rot, b * 4, Bone.rot, p * 4, q, 0);
  quatNormalize(Bone.rot, b * 4);
  return true;
}

/** A goal: an active control point's bone, its attachment (at, offset) and its effective target. */
export interface Goal { cp: number; bone: number }

export function activeGoals(world: PhysikWorld, rig: RigRecord): Goal[] {
  const { ControlPoint } = world.physik;
  const goals: Goal[] = [];
  for (const cp of rig.controlPoints) if (ControlPoint.active[cp] && !ControlPoint.pole[cp]) goals.push({ cp, bone: ControlPoint.bone[cp]! });
  return goals;
}

/** The active pole control point on `bone`, or -1. */
export function poleOf(world: PhysikWorld, rig: RigRecord, bone: number): number {
  const { ControlPoint } = world.physik;
  for (const cp of rig.controlPoints) if (ControlPoint.active[cp] && ControlPoint.pole[cp] && ControlPoint.bone[cp] === bone) return cp;
  return -1;
}
