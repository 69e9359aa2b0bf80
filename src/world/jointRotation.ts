/**
 * A joint's rotation as a rotation vector: bone b relative to its parent and its rest pose, in
 * the joint frame (the bone's rest frame carried by the parent; y along the bone). Taken from
 * the relative quaternion on the w >= 0 hemisphere, so each component lies in [-π, π]. The
 * limits, the kinematic solvers and the view all measure joints with it.
 */
import type { PhysikWorld } from './world';

/**
 * Joint-frame rotation vector of bone b relative to its parent and rest pose, to out:
 * qRel = parent⁻¹ · world, then rest⁻¹ · qRel, then its rotation vector (quatMulConjA twice and
 * quatToRotationVector written out, the same arithmetic in the same order: torsionSprings takes
 * the limits' angles the same way, so the two agree to the bit; shared helpers see every kind of
 * array, which makes their reads slower where they are not inlined).
 */
export function jointRotationVector(world: PhysikWorld, b: number, out: Float64Array): void {
  const { rot, restLocal, parent } = world.physik.Bone;
  const pq = parent[b]! * 4, bq = b * 4;
  let ax = -rot[pq]!, ay = -rot[pq + 1]!, az = -rot[pq + 2]!, aw = rot[pq + 3]!;
  const bx = rot[bq]!, by = rot[bq + 1]!, bz = rot[bq + 2]!, bw = rot[bq + 3]!;
  const r0 = aw * bx + ax * bw + ay * bz - az * by;
  const r1 = aw * by - ax * bz + ay * bw + az * bx;
  const r2 = aw * bz + ax * by - ay * bx + az * bw;
  const r3 = aw * bw - ax * bx - ay * by - az * bz;
  ax = -restLocal[bq]!; ay = -restLocal[bq + 1]!; az = -restLocal[bq + 2]!; aw = restLocal[bq + 3]!;
  let x = aw * r0 + ax * r3 + ay * r2 - az * r1;
  let y = aw * r1 - ax * r2 + ay * r3 + az * r0;
  let z = aw * r2 + ax * r1 - ay * r0 + az * r3;
  let w = aw * r3 - ax * r0 - ay * r1 - az * r2;
  // the w >= 0 hemisphere; φ ≈ 2 v for a small angle
  if (w < 0) { x = -x; y = -y; z = -z; w = -w; }
  const s = Math.sqrt(x * x + y * y + z * z);
  if (s < 1e-12) { out[0] = 2 * x; out[1] = 2 * y; out[2] = 2 * z; return; }
  const f = 2 * Math.atan2(s, w) * (1 / s);
  out[0] = x * f; out[1] = y * f; out[2] = z * f;
}
