/**
 * Shared pieces of the kinematic solvers: limits applied in the joint frame, a pose refresh
 * and the shared result object. Kinematic solvers write world
 * rotations (Bone.rot) of their rig's bones, and a floating root's centre (Bone.centre) if
 * they move it; `kinematicSolve` then derives velocities from the change, and forward
 * kinematics and metrics run as for PhysIK.
 */
import type { PhysikWorld, RigRecord } from '../../src/world/world';
import type { SolveResult } from './solver';
import { quatMul, quatFromRotationVector, quatNormalize } from '../../src/math/quat';
import { jointRotationVector } from '../../src/world/jointRotation';
import { forwardPositionsOf } from '../../src/world/forwardKinematics';

/**
 * A solver's result, in one shared object: `kinematicSolve` reads it at once, and a new object
 * per solve was an allocation every step. (Whoever keeps a result must copy it.)
 */
const result: SolveResult = { iterations: 0, status: 0 };
export function solved(iterations: number, status: number): SolveResult {
  result.iterations = iterations;
  result.status = status;
  return result;
}

/**
 * Refresh heads, tails and centres of the rig from its rotations (and the root). Velocities
 * are left alone: the forwardKinematics system sets them after kinematicSolve.
 */
export function refreshPose(world: PhysikWorld, rig: RigRecord): void {
  forwardPositionsOf(world, rig);
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
  quatFromRotationVector(q, 0, phi, 0);
  quatMul(q, 0, Bone.restLocal, b * 4, q, 0);
  quatMul(Bone.rot, b * 4, Bone.rot, p * 4, q, 0);
  quatNormalize(Bone.rot, b * 4);
  return true;
}
