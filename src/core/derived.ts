/** Quantities derived from a bone's shape: solid-cylinder inertia along local +Y. */
import type { BoneStore } from '../../components';

export function computeBoneDerived(Bone: BoneStore, eid: number): void {
  const m = Bone.mass[eid]!, r = Bone.radius[eid]!, L = Bone.length[eid]!;
  const transverse = (m * (3 * r * r + L * L)) / 12;
  Bone.inertia[eid * 3] = transverse;
  Bone.inertia[eid * 3 + 1] = 0.5 * m * r * r;
  Bone.inertia[eid * 3 + 2] = transverse;
}
