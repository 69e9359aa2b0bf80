/**
 * Welded joints: a joint locked on all three axes (every axis limited to one angle, [a, a]) is
 * a weld, not a stiff spring. The child then moves with its parent as one rigid composite body:
 * the joint solve adds the child's mass, centre and inertia to its parent's body and solves the
 * body as one (jointSolve/coupledArticulated.ts), then finds the force and torque that hold the
 * child from its motion. The integrator sets the child's rotation and angular velocity from its
 * parent's every step, so the joint holds its angle exactly, not only at rest. Every bone is still a bone for the API, poses,
 * recording and the view.
 *
 * Welds need the coupled exact solve (`interJoint: 'exact'` with `limitImplicit`) and the
 * setting `welds` (on by default, off in the paper preset, whose locked joints are springs).
 * Limits are set when a rig is built, so the welded bones are found once per rig.
 */
import type { PhysikWorld, RigRecord } from '../src/world/world';
import { quatFromRotationVector, quatMul } from '../src/math/quat';
import { perRig, perRigGet, perRigSet } from '../src/world/perRig';

export interface Welds {
  /** Welded bones. */
  count: number;
  /** 1 for a welded bone, by depth-first index. */
  flag: Uint8Array;
  /** The welded bone's rotation relative to its parent (rest rotation turned by the locked angles), 4 per depth-first index. */
  local: Float64Array;
}

const cache = perRig<Welds>();
const phi = new Float64Array(3);
const turn = new Float64Array(4);

/** The rig's welded bones (found on first use). */
export function weldsOf(world: PhysikWorld, rig: RigRecord): Welds {
  let w = perRigGet(cache, rig);
  if (w && w.flag.length === rig.bones.length) return w;
  const { Bone, AngularLimit: L } = world.physik;
  const n = rig.bones.length;
  w = { count: 0, flag: new Uint8Array(n), local: new Float64Array(4 * n) };
  for (let i = 1; i < n; i++) {
    const b = rig.bones[i]!, b3 = b * 3;
    let locked = true;
    for (let a = 0; a < 3; a++) if (!(L.enabled[b3 + a] === 1 && L.min[b3 + a] === L.max[b3 + a])) locked = false;
    if (!locked) continue;
    w.flag[i] = 1;
    w.count++;
    // child = parent · restLocal · exp(φ) with φ the locked angles (the joint frame's rotation vector)
    phi[0] = L.min[b3]!; phi[1] = L.min[b3 + 1]!; phi[2] = L.min[b3 + 2]!;
    quatFromRotationVector(turn, 0, phi, 0);
    quatMul(w.local, 4 * i, Bone.restLocal, b * 4, turn, 0);
  }
  perRigSet(cache, rig, w);
  return w;
}

/** True when this rig's welds act this step (see the header). */
export function weldsActive(rig: RigRecord): boolean {
  const s = rig.settings;
  return s.welds && s.solver === 'physik' && s.interJoint === 'exact' && s.limitImplicit;
}
