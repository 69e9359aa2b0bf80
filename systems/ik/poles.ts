/**
 * Poles for the CCD and Jacobian solvers (ccd.ts, jacobian.ts), with the scene files' pole
 * syntax that FABRIK and two-bone read: an active control point with role 'pole' on bone B
 * concerns the joint J at B's head. The section it turns is B's parent P with everything below
 * it; its base S is P's head and its effector E the first goal in B's subtree (depth-first).
 * After a solve, when J is off the line S–E, the section is turned about that line so that J
 * lies in the plane of S, E and the pole, on the pole's side. E is on the axis, so the goal's
 * error does not change; P's joint must allow the turn: if clamping P to its limits would change
 * the turned pose, the turn is not made (the pole yields to the limits). A pole on the root, or
 * whose subtree has no goal, does nothing. The next solve starts from the turned pose, so the
 * bend stays on the pole's side while the target moves.
 */
import type { PhysikWorld, RigRecord } from '../../src/world/world';
import { attachmentPoint } from '../../src/world/attachment';
import { clampToLimits, refreshPose } from './common';
import type { IkRig } from './goalTree';
import type { Doubles } from '../../components/doubles';
import { quatMul } from '../../src/math/quat';

/** Scratch: E (0..2), the pole's point (3..5), the turn (quaternion, 6..9), S (10..12). */
const pv = new Float64Array(13);
/** Rotations of the turned section before the turn (grown, never shrunk). */
let saved = new Float64Array(64);
const savedCentre = new Float64Array(3);

/** Turn the sections of every active pole of the rig (see the header). Returns true if anything turned. */
export function applyPoles(world: PhysikWorld, rig: RigRecord, T: IkRig): boolean {
  const { ControlPoint } = world.physik;
  let turned = false;
  for (let c = 0; c < rig.controlPoints.length; c++) {
    const cp = rig.controlPoints[c]!;
    if (!ControlPoint.active[cp] || !ControlPoint.pole[cp]) continue;
    if (turnSection(world, rig, T, cp, T.cpBone[c]!)) turned = true;
  }
  return turned;
}

function turnSection(world: PhysikWorld, rig: RigRecord, T: IkRig, cp: number, iB: number): boolean {
  const { Bone, Rig } = world.physik;
  const iP = T.parentIndex[iB]!;
  if (iP < 0) return false;
  let goal = -1;
  for (let g = 0; g < T.goalCount; g++) {
    const gb = T.goalBone[g]!;
    if (gb >= iB && gb < T.subtreeEnd[iB]!) { goal = g; break; }
  }
  if (goal < 0) return false;
  const P = rig.bones[iP]!, B = rig.bones[iB]!, p3 = P * 3, b3 = B * 3;
  attachmentPoint(world, T.goalCp[goal]!, pv, 0);
  const eff = world.physik.ControlPoint.effective, c3 = cp * 3;
  pv[3] = eff[c3]!; pv[4] = eff[c3 + 1]!; pv[5] = eff[c3 + 2]!; // the pole's point: its (interpolated) target
  const sx = Bone.head[p3]!, sy = Bone.head[p3 + 1]!, sz = Bone.head[p3 + 2]!;
  let ax = pv[0]! - sx, ay = pv[1]! - sy, az = pv[2]! - sz;
  const al = Math.sqrt(ax * ax + ay * ay + az * az);
  const scale = Rig.height[rig.eid]! > 0 ? Rig.height[rig.eid]! : 1;
  if (!(al > 1e-9 * scale)) return false;
  ax /= al; ay /= al; az /= al;
  // J and the pole, less their components along the axis
  let jx = Bone.head[b3]! - sx, jy = Bone.head[b3 + 1]! - sy, jz = Bone.head[b3 + 2]! - sz;
  let d = jx * ax + jy * ay + jz * az;
  jx -= d * ax; jy -= d * ay; jz -= d * az;
  let qx = pv[3]! - sx, qy = pv[4]! - sy, qz = pv[5]! - sz;
  d = qx * ax + qy * ay + qz * az;
  qx -= d * ax; qy -= d * ay; qz -= d * az;
  const jl = Math.sqrt(jx * jx + jy * jy + jz * jz), ql = Math.sqrt(qx * qx + qy * qy + qz * qz);
  if (!(jl > 1e-9 * scale) || !(ql > 1e-12 * scale)) return false; // no bend, or the pole on the line
  // signed angle from J⊥ to pole⊥ about the axis
  const cx = jy * qz - jz * qy, cy = jz * qx - jx * qz, cz = jx * qy - jy * qx;
  const angle = Math.atan2(cx * ax + cy * ay + cz * az, jx * qx + jy * qy + jz * qz);
  if (!(Math.abs(angle) > 1e-9) || !Number.isFinite(angle)) return false;
  const s = Math.sin(0.5 * angle);
  pv[6] = ax * s; pv[7] = ay * s; pv[8] = az * s; pv[9] = Math.cos(0.5 * angle);
  // keep the section's rotations, turn them (world rotations: the subtree turns with P)
  const end = T.subtreeEnd[iP]!, rot = Bone.rot;
  if (saved.length < (end - iP) * 4) saved = new Float64Array(Math.max((end - iP) * 4, saved.length * 2));
  for (let i = iP; i < end; i++) {
    const o = rig.bones[i]! * 4, k = (i - iP) * 4;
    saved[k] = rot[o]!; saved[k + 1] = rot[o + 1]!; saved[k + 2] = rot[o + 2]!; saved[k + 3] = rot[o + 3]!;
    turnQuat(rot, o);
  }
  const floatingRoot = T.parentIndex[iP]! < 0 && Rig.pinned[rig.eid] !== 1;
  if (floatingRoot) {
    // a floating root's state is its centre: turn it about S as well
    const c = Bone.centre;
    savedCentre[0] = c[p3]!; savedCentre[1] = c[p3 + 1]!; savedCentre[2] = c[p3 + 2]!;
    pv[10] = sx; pv[11] = sy; pv[12] = sz;
    turnPoint(c, p3);
  }
  if (clampToLimits(world, P)) {
    // P's joint does not allow the turn: put the section back
    for (let i = iP; i < end; i++) {
      const o = rig.bones[i]! * 4, k = (i - iP) * 4;
      rot[o] = saved[k]!; rot[o + 1] = saved[k + 1]!; rot[o + 2] = saved[k + 2]!; rot[o + 3] = saved[k + 3]!;
    }
    if (floatingRoot) { Bone.centre[p3] = savedCentre[0]!; Bone.centre[p3 + 1] = savedCentre[1]!; Bone.centre[p3 + 2] = savedCentre[2]!; }
    return false;
  }
  refreshPose(world, rig);
  return true;
}

/** rot[o] ← turn (pv[6..9]) · rot[o], normalised (divided by its length, as the solvers' turns are). */
function turnQuat(rot: Doubles, o: number): void {
  quatMul(rot, o, pv, 6, rot, o);
  const nx = rot[o]!, ny = rot[o + 1]!, nz = rot[o + 2]!, nw = rot[o + 3]!;
  const m = Math.sqrt(nx * nx + ny * ny + nz * nz + nw * nw);
  rot[o] = nx / m; rot[o + 1] = ny / m; rot[o + 2] = nz / m; rot[o + 3] = nw / m;
}

/** p[o..o+2] ← S + turn · (p − S), S in pv[10..12]. */
function turnPoint(p: Doubles, o: number): void {
  const sx = pv[10]!, sy = pv[11]!, sz = pv[12]!;
  const x = pv[6]!, y = pv[7]!, z = pv[8]!, w = pv[9]!;
  const vx = p[o]! - sx, vy = p[o + 1]! - sy, vz = p[o + 2]! - sz;
  const tx = 2 * (y * vz - z * vy), ty = 2 * (z * vx - x * vz), tz = 2 * (x * vy - y * vx);
  p[o] = sx + vx + w * tx + (y * tz - z * ty);
  p[o + 1] = sy + vy + w * ty + (z * tx - x * tz);
  p[o + 2] = sz + vz + w * tz + (x * ty - y * tx);
}
