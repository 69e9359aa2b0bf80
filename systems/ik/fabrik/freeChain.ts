/**
 * FABRIK on a free chain (fabrik.ts): one goal, no pole, and no joint on the way from the root
 * to the goal's bone limited, locked or carrying a second chain. Nothing then needs the joint
 * frames, the roll look-ahead or the sub-base fits, and the method is Aristidou and Lasenby's
 * algorithm as published: the joint positions reach backward from the goal and forward from
 * the fixed base, on positions alone. The rotations are made once at the end, root first: each
 * chain bone is its rotation carried by its parent's new one (its local rotation kept), turned
 * by the shortest arc onto its new direction, so no bone rolls more than its aim needs; bones
 * off the chain keep their local rotations. Straight at a target beyond reach (stalled), as the
 * general passes do.
 */
import type { PhysikWorld, RigRecord } from '../../../src/world/world';
import { quatArc, quatMul, quatNormalize } from '../../../src/math/quat';
import { base, chainKids, gBone, gCp, gOwn, gU, len, limited, loc, onChain, par } from './scratch';

/** Chain points (3 per joint: the root's head, the chain's heads, the goal point) and segment lengths, grown. */
let pts = new Float64Array(48);
let seg = new Float64Array(16);
let chainIdx = new Int32Array(16);
/** Arc scratch: from (0..2), to (3..5), the arc (6..9). */
const arc = new Float64Array(10);

/** Whether goal 0 (the only goal) sits on a free chain, with its control point's offset on the bone's axis. */
export function isFreeChain(world: PhysikWorld, rig: RigRecord, m: number, nPoles: number): boolean {
  if (m !== 1 || nPoles > 0 || gBone[0]! < 0 || gBone[0] !== gOwn[0]) return false;
  const off = world.physik.ControlPoint.offset, c3 = gCp[0]! * 3;
  if (off[c3] !== 0 || off[c3 + 2] !== 0) return false;
  const attach = world.physik.Bone.attach, bones = rig.bones;
  for (let i = gBone[0]!; i >= 0; i = par[i]!) {
    if (limited[i] || !onChain[i] || (i !== gBone[0] && chainKids[i]! > 1)) return false;
    // a child's head on its parent's axis (an offset to the side would need the parent's roll)
    if (par[i]! >= 0 && (attach[bones[i]! * 3] !== 0 || attach[bones[i]! * 3 + 2] !== 0)) return false;
  }
  return true;
}

/**
 * Solve goal 0 on its free chain toward `target` (the control point's effective target) with at
 * most `iterations` iterations to `tol`; writes Bone.rot of every bone. Returns the iterations
 * used (the error is measured afterwards from the rotations).
 */
export function solveFreeChain(world: PhysikWorld, rig: RigRecord, iterations: number, tol: number): number {
  const { Bone, ControlPoint } = world.physik;
  const rot = Bone.rot, bones = rig.bones;
  // the chain root first: k + 1 points, k segments
  let k = 0;
  for (let i = gBone[0]!; i >= 0; i = par[i]!) k++;
  if (chainIdx.length < k) { chainIdx = new Int32Array(2 * k); seg = new Float64Array(2 * k); pts = new Float64Array(6 * k + 3); }
  for (let i = gBone[0]!, j = k - 1; i >= 0; i = par[i]!, j--) chainIdx[j] = i;
  for (let j = 0; j < k; j++) {
    const i = chainIdx[j]!;
    // bone i's segment: to the next chain bone's head, or to the goal's point on it
    seg[j] = j + 1 < k ? Bone.attach[bones[chainIdx[j + 1]!]! * 3 + 1]! : gU[0]! * len[i]!;
  }
  // points of the current pose
  pts[0] = base[0]!; pts[1] = base[1]!; pts[2] = base[2]!;
  let reach = 0;
  for (let j = 0; j < k; j++) {
    const o = bones[chainIdx[j]!]! * 4;
    const x = rot[o]!, y = rot[o + 1]!, z = rot[o + 2]!, w = rot[o + 3]!;
    const l = seg[j]!, p = 3 * j;
    pts[p + 3] = pts[p]! + 2 * (x * y - z * w) * l;
    pts[p + 4] = pts[p + 1]! + (1 - 2 * (x * x + z * z)) * l;
    pts[p + 5] = pts[p + 2]! + 2 * (y * z + x * w) * l;
    reach += l;
  }
  const c3 = gCp[0]! * 3, eff = ControlPoint.effective;
  const tx = eff[c3]!, ty = eff[c3 + 1]!, tz = eff[c3 + 2]!;
  const e = 3 * k;
  let used = 0;
  const dx0 = tx - pts[0]!, dy0 = ty - pts[1]!, dz0 = tz - pts[2]!;
  const dist = Math.sqrt(dx0 * dx0 + dy0 * dy0 + dz0 * dz0);
  if (dist >= reach) {
    // beyond reach: straight at the target
    used = 1;
    let run = 0;
    for (let j = 0; j < k; j++) {
      run += seg[j]!;
      const p = 3 * j + 3;
      pts[p] = pts[0]! + (dx0 * run) / dist; pts[p + 1] = pts[1]! + (dy0 * run) / dist; pts[p + 2] = pts[2]! + (dz0 * run) / dist;
    }
  } else {
    let ex = pts[e]! - tx, ey = pts[e + 1]! - ty, ez = pts[e + 2]! - tz;
    while (used < iterations && ex * ex + ey * ey + ez * ez > tol * tol) {
      used++;
      // backward: the goal point onto the target, each joint toward its old place
      pts[e] = tx; pts[e + 1] = ty; pts[e + 2] = tz;
      for (let j = k - 1; j >= 1; j--) {
        const p = 3 * j, q = p + 3;
        const vx = pts[p]! - pts[q]!, vy = pts[p + 1]! - pts[q + 1]!, vz = pts[p + 2]! - pts[q + 2]!;
        const vl = Math.sqrt(vx * vx + vy * vy + vz * vz);
        if (vl > 0) { const f = seg[j]! / vl; pts[p] = pts[q]! + vx * f; pts[p + 1] = pts[q + 1]! + vy * f; pts[p + 2] = pts[q + 2]! + vz * f; }
      }
      // forward: from the fixed base
      for (let j = 0; j < k; j++) {
        const p = 3 * j, q = p + 3;
        const vx = pts[q]! - pts[p]!, vy = pts[q + 1]! - pts[p + 1]!, vz = pts[q + 2]! - pts[p + 2]!;
        const vl = Math.sqrt(vx * vx + vy * vy + vz * vz);
        if (vl > 0) { const f = seg[j]! / vl; pts[q] = pts[p]! + vx * f; pts[q + 1] = pts[p + 1]! + vy * f; pts[q + 2] = pts[p + 2]! + vz * f; }
      }
      ex = pts[e]! - tx; ey = pts[e + 1]! - ty; ez = pts[e + 2]! - tz;
    }
  }
  // rotations, root first: carried by the parent, then the shortest arc onto the new direction
  let j = 0;
  for (let i = 0; i < bones.length; i++) {
    const o = bones[i]! * 4, p = par[i]!;
    if (p >= 0) quatMul(rot, o, rot, bones[p]! * 4, loc, i * 4);
    else { const l4 = i * 4; rot[o] = loc[l4]!; rot[o + 1] = loc[l4 + 1]!; rot[o + 2] = loc[l4 + 2]!; rot[o + 3] = loc[l4 + 3]!; }
    quatNormalize(rot, o);
    if (j >= k || chainIdx[j] !== i) continue;
    const q = 3 * j;
    const dx = pts[q + 3]! - pts[q]!, dy = pts[q + 4]! - pts[q + 1]!, dz = pts[q + 5]! - pts[q + 2]!;
    const dl = Math.sqrt(dx * dx + dy * dy + dz * dz);
    j++;
    if (!(dl > 0)) continue;
    const x = rot[o]!, y = rot[o + 1]!, z = rot[o + 2]!, w = rot[o + 3]!;
    arc[0] = 2 * (x * y - z * w); arc[1] = 1 - 2 * (x * x + z * z); arc[2] = 2 * (y * z + x * w);
    arc[3] = dx / dl; arc[4] = dy / dl; arc[5] = dz / dl;
    quatArc(arc, 6, arc, 0, arc, 3);
    quatMul(rot, o, arc, 6, rot, o);
    quatNormalize(rot, o);
  }
  return used;
}
