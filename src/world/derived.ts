/** Quantities derived from a bone's shape: solid-cylinder inertia along local +Y. */
import type { BoneStore } from '../../components';

export function computeBoneDerived(Bone: BoneStore, eid: number): void {
  const m = Bone.mass[eid]!, r = Bone.radius[eid]!, L = Bone.length[eid]!;
  const transverse = (m * (3 * r * r + L * L)) / 12;
  Bone.inertia[eid * 3] = transverse;
  Bone.inertia[eid * 3 + 1] = 0.5 * m * r * r;
  Bone.inertia[eid * 3 + 2] = transverse;
}

/**
 * Radius of gyration floor, as a fraction of the rig's height: no bone's inertia about any
 * axis is below m (GYRATION_FLOOR × height)². A bone far shorter than its rig (fuzzing made
 * 0.1 mm bones in 500 m rigs) is dragged at its head like a point mass on a stick and spins
 * with α ≈ 6a/L: thousands of substeps would be needed to follow it, and where it points is
 * worth less than the rig's height × 1e-3 anyway. Bones longer than 0.35% of the rig's height
 * (a finger in a human) are unaffected, and so is a bone's axial inertia unless it is thin.
 */
export const GYRATION_FLOOR = 1e-3;

export function applyInertiaFloor(Bone: BoneStore, eid: number, height: number): void {
  const g = GYRATION_FLOOR * height;
  const min = Bone.mass[eid]! * g * g;
  for (let a = 0; a < 3; a++) if (!(Bone.inertia[eid * 3 + a]! >= min)) Bone.inertia[eid * 3 + a] = min;
}
