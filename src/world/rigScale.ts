/**
 * A rig's scale (Rig.height): the diameter of its rest pose, the largest distance between two
 * of its bones' heads and tails. Every derived scale (spring cap, inertia and limit floors,
 * rest and settle tolerances, the integrator's guard, normalised errors) is a multiple of it,
 * so it must not depend on the world's axes: a rig turned as a whole gets the same scale, and
 * a scene moved by any rigid motion moves its result the same way. (The largest side of the
 * axis-aligned bounding box it replaces changed by up to √3 when a rig was turned.) For an
 * upright figure it is close to that side: the distance from a foot to the farthest hand or
 * the top of the head.
 */
import type { BoneStore } from '../../components';
import { quatRotate } from '../math/quat';

/**
 * Up to this many distinct points the diameter is exact (all pairs: at most ~8M distances, a
 * small part of what building a rig that large takes; docs/performance.md has the timings).
 * Beyond, see pointsDiameter.
 */
export const EXACT_DIAMETER_POINTS = 4096;

/**
 * Largest distance between two of the first n points of xyz (x, y, z packed). Exact up to
 * EXACT_DIAMETER_POINTS points; beyond, twice the largest distance from the points' centroid:
 * all pairs would cost seconds on a 10,000-bone rig, and this bound is still invariant under
 * rigid motions, deterministic (no sampling, no order-dependent choice of points, so rounding
 * cannot pick a different pair in a turned copy) and between the diameter and twice it.
 */
export function pointsDiameter(xyz: ArrayLike<number>, n: number): number {
  if (n < 2) return 0;
  if (n <= EXACT_DIAMETER_POINTS) {
    let best = 0;
    for (let i = 0; i < n; i++) {
      const x = xyz[3 * i]!, y = xyz[3 * i + 1]!, z = xyz[3 * i + 2]!;
      for (let j = i + 1; j < n; j++) {
        const dx = xyz[3 * j]! - x, dy = xyz[3 * j + 1]! - y, dz = xyz[3 * j + 2]! - z;
        const d2 = dx * dx + dy * dy + dz * dz;
        if (d2 > best) best = d2;
      }
    }
    return Math.sqrt(best);
  }
  let cx = 0, cy = 0, cz = 0;
  for (let i = 0; i < n; i++) { cx += xyz[3 * i]!; cy += xyz[3 * i + 1]!; cz += xyz[3 * i + 2]!; }
  cx /= n; cy /= n; cz /= n;
  let far = 0;
  for (let i = 0; i < n; i++) {
    const dx = xyz[3 * i]! - cx, dy = xyz[3 * i + 1]! - cy, dz = xyz[3 * i + 2]! - cz;
    const d2 = dx * dx + dy * dy + dz * dz;
    if (d2 > far) far = d2;
  }
  return 2 * Math.sqrt(far);
}

/**
 * The scale of a rig: the diameter of its rest pose (restWorld rotations, the root's head at
 * `pin[po..po+2]`) over the root's head and every bone's tail, plus the heads that sit
 * elsewhere than their parent's tail (once per joint: siblings there share it). A head at its
 * parent's tail is the same point, so a chain or a humanoid counts about one point per bone.
 * Measured from the rest pose, not the current one, so a rig moved mid-run (moveRig) is
 * measured as it was built.
 */
export function rigScale(Bone: BoneStore, bones: ArrayLike<number>, pin: ArrayLike<number>, po: number): number {
  const n = bones.length;
  const heads = new Float64Array(3 * n), xyz = new Float64Array(6 * n), v = new Float64Array(3);
  const index = new Map<number, number>();
  const joints = new Set<number>();
  let m = 0;
  const push = (x: number, y: number, z: number) => { xyz[3 * m] = x; xyz[3 * m + 1] = y; xyz[3 * m + 2] = z; m++; };
  for (let k = 0; k < n; k++) {
    const b = bones[k]!, parent = Bone.parent[b]!;
    index.set(b, k);
    if (parent < 0) {
      heads[3 * k] = pin[po]!; heads[3 * k + 1] = pin[po + 1]!; heads[3 * k + 2] = pin[po + 2]!;
      push(heads[3 * k]!, heads[3 * k + 1]!, heads[3 * k + 2]!);
    } else {
      // the same arithmetic as addRig's placing of a head (so a rig at rest measures its pose)
      const pk = index.get(parent)!;
      quatRotate(v, 0, Bone.restWorld, parent * 4, Bone.attach[3 * b]!, Bone.attach[3 * b + 1]!, Bone.attach[3 * b + 2]!);
      for (let a = 0; a < 3; a++) heads[3 * k + a] = v[a]! + heads[3 * pk + a]!;
      const atTail = Bone.attach[3 * b] === 0 && Bone.attach[3 * b + 2] === 0 && Bone.attach[3 * b + 1] === Bone.length[parent];
      if (!atTail && !joints.has(Bone.joint[b]!)) { joints.add(Bone.joint[b]!); push(heads[3 * k]!, heads[3 * k + 1]!, heads[3 * k + 2]!); }
    }
    quatRotate(v, 0, Bone.restWorld, b * 4, 0, Bone.length[b]!, 0);
    push(v[0]! + heads[3 * k]!, v[1]! + heads[3 * k + 1]!, v[2]! + heads[3 * k + 2]!);
  }
  return pointsDiameter(xyz, m);
}
