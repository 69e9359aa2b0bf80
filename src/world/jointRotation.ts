/**
 * A joint's rotation as a rotation vector: bone b relative to its parent and its rest pose, in
 * the joint frame (the bone's rest frame carried by the parent; y along the bone). Taken from
 * the relative quaternion on the w >= 0 hemisphere, so each component lies in [-π, π]. The
 * limits, the kinematic solvers and the view all measure joints with it.
 */
import type { PhysikWorld } from './world';
import { quatMulConjA, quatToRotationVector } from '../math/quat';

const qRel = new Float64Array(4);

/** Joint-frame rotation vector of bone b relative to its parent and rest pose, to out. */
export function jointRotationVector(world: PhysikWorld, b: number, out: Float64Array): void {
  const { Bone } = world.physik;
  const p = Bone.parent[b]!;
  quatMulConjA(qRel, 0, Bone.rot, p * 4, Bone.rot, b * 4); // local = parent⁻¹ · world
  quatMulConjA(qRel, 0, Bone.restLocal, b * 4, qRel, 0); // relative to rest
  quatToRotationVector(out, 0, qRel, 0);
}
