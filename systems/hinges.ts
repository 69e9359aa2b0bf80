/**
 * Hinge joints: a joint locked at 0° on two of its axes (a knee or an elbow: `[0, 0]` on y and
 * z) turns about the third only. It is a revolute joint, not a ball held by two stiff springs:
 * the articulated solve gives the joint one degree of freedom (motion subspace s, the free axis
 * in the world; jointSolve/coupledArticulated.ts) and passes the torque that holds the other
 * two, and after integration `projectHinge` takes the child's rotation and angular velocity to
 * the nearest ones the hinge allows (what rounding let drift), so the locked axes hold exactly
 * at every step. The free axis keeps its limit spring. Every bone is still a bone for the API,
 * poses, recording and the view.
 *
 * Like welds (welds.ts), hinges need the coupled exact solve (`interJoint: 'exact'` with
 * `limitImplicit`) and their own setting `hinges` (on by default, off in the paper preset,
 * whose locked axes are springs). A joint locked on two axes at another angle than 0 keeps its
 * springs: its motion is not a rotation about one axis.
 */
import type { PhysikWorld, RigRecord } from '../src/world/world';
import { perRig, perRigDelete, perRigGet, perRigSet } from '../src/world/perRig';

export interface Hinges {
  /** Hinged bones. */
  count: number;
  /** The free axis (0 x, 1 y, 2 z of the joint frame) of a hinged bone, −1 for any other, by depth-first index. */
  axis: Int8Array;
  /**
   * The depth-first indices of the bones with a limit on any axis (the root has none), in order:
   * found with the hinges, from the same limits, for the loops that visit limited joints only.
   */
  limited: Int32Array;
}

const cache = perRig<Hinges>();
const freeAxis = new Float64Array(3);

/** The rig's hinged and limited bones (found on first use, again after `forgetHinges`). */
export function hingesOf(world: PhysikWorld, rig: RigRecord): Hinges {
  let h = perRigGet(cache, rig);
  if (h && h.axis.length === rig.bones.length) return h;
  const L = world.physik.AngularLimit;
  const n = rig.bones.length;
  const limited: number[] = [];
  h = { count: 0, axis: new Int8Array(n).fill(-1), limited: new Int32Array(0) };
  for (let i = 1; i < n; i++) {
    const b3 = rig.bones[i]! * 3;
    if (L.enabled[b3] === 1 || L.enabled[b3 + 1] === 1 || L.enabled[b3 + 2] === 1) limited.push(i);
    let locked = 0, free = -1;
    for (let a = 0; a < 3; a++) {
      if (L.enabled[b3 + a] === 1 && L.min[b3 + a] === 0 && L.max[b3 + a] === 0) locked++;
      else if (!(L.enabled[b3 + a] === 1 && L.min[b3 + a] === L.max[b3 + a])) free = a;
    }
    if (locked !== 2 || free < 0) continue;
    h.axis[i] = free;
    h.count++;
  }
  h.limited = Int32Array.from(limited);
  perRigSet(cache, rig, h);
  return h;
}

/** Find the rig's hinges and limited bones again at its next step (its limits changed). */
export function forgetHinges(rig: RigRecord): void {
  perRigDelete(cache, rig);
}

/** True when this rig's hinges act this step (see the header). */
export function hingesActive(rig: RigRecord): boolean {
  const s = rig.settings;
  return s.hinges && s.solver === 'physik' && s.interJoint === 'exact' && s.limitImplicit;
}

/**
 * After integration, a hinged bone b (free axis f) to the rotation and angular velocity its hinge
 * allows nearest to its own, once its parent has its final ones: the rotation relative to the
 * joint frame reduced to its twist about the free axis (the swing-twist split), the angular
 * velocity relative to the parent reduced to its part along that axis. The solve gave the joint
 * its hinge accelerations; this keeps rounding from opening it.
 */
export function projectHinge(Bone: PhysikWorld['physik']['Bone'], b: number, f: number): void {
  const { rot, angVel, restLocal, parent } = Bone;
  const p = parent[b]!, bq = b * 4, pq = p * 4, b3 = b * 3, p3 = p * 3;
  // the joint frame in the world: F = rot_p · restLocal_b
  const px = rot[pq]!, py = rot[pq + 1]!, pz = rot[pq + 2]!, pw = rot[pq + 3]!;
  const lx = restLocal[bq]!, ly = restLocal[bq + 1]!, lz = restLocal[bq + 2]!, lw = restLocal[bq + 3]!;
  const fx = pw * lx + px * lw + py * lz - pz * ly;
  const fy = pw * ly - px * lz + py * lw + pz * lx;
  const fz = pw * lz + px * ly - py * lx + pz * lw;
  const fw = pw * lw - px * lx - py * ly - pz * lz;
  // the joint's rotation: q = F⁻¹ · rot_b
  const bx = rot[bq]!, by = rot[bq + 1]!, bz = rot[bq + 2]!, bw = rot[bq + 3]!;
  const qx = fw * bx - fx * bw - fy * bz + fz * by;
  const qy = fw * by + fx * bz - fy * bw - fz * bx;
  const qz = fw * bz - fx * by + fy * bx - fz * bw;
  const qw = fw * bw + fx * bx + fy * by + fz * bz;
  // its twist about the free axis
  const t = f === 0 ? qx : f === 1 ? qy : qz;
  const n = Math.sqrt(t * t + qw * qw);
  if (!(n > 0)) return; // (a half turn about a locked axis: no nearest twist; never near a hinge)
  const inv = 1 / n, c = t * inv, w = qw * inv;
  const tx = f === 0 ? c : 0, ty = f === 1 ? c : 0, tz = f === 2 ? c : 0;
  // rot_b = F · twist
  const nx = fw * tx + fx * w + fy * tz - fz * ty;
  const ny = fw * ty - fx * tz + fy * w + fz * tx;
  const nz = fw * tz + fx * ty - fy * tx + fz * w;
  const nw = fw * w - fx * tx - fy * ty - fz * tz;
  rot[bq] = nx; rot[bq + 1] = ny; rot[bq + 2] = nz; rot[bq + 3] = nw;
  // the free axis in the world, and ω_b = ω_p + s (s · (ω_b − ω_p))
  hingeAxisWorld(rot, b, f, freeAxis);
  const sx = freeAxis[0]!, sy = freeAxis[1]!, sz = freeAxis[2]!;
  const wpx = angVel[p3]!, wpy = angVel[p3 + 1]!, wpz = angVel[p3 + 2]!;
  const rate = sx * (angVel[b3]! - wpx) + sy * (angVel[b3 + 1]! - wpy) + sz * (angVel[b3 + 2]! - wpz);
  angVel[b3] = wpx + sx * rate; angVel[b3 + 1] = wpy + sy * rate; angVel[b3 + 2] = wpz + sz * rate;
}

/** The free axis of bone b's hinge in the world (column `f` of its rotation matrix), to out[0..2]. */
export function hingeAxisWorld(rot: ArrayLike<number>, b: number, f: number, out: Float64Array): void {
  const q = b * 4, x = rot[q]!, y = rot[q + 1]!, z = rot[q + 2]!, w = rot[q + 3]!;
  if (f === 0) { out[0] = 1 - 2 * (y * y + z * z); out[1] = 2 * (x * y + z * w); out[2] = 2 * (x * z - y * w); }
  else if (f === 1) { out[0] = 2 * (x * y - z * w); out[1] = 1 - 2 * (x * x + z * z); out[2] = 2 * (y * z + x * w); }
  else { out[0] = 2 * (x * z + y * w); out[1] = 2 * (y * z - x * w); out[2] = 1 - 2 * (x * x + y * y); }
}
