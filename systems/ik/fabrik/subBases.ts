/**
 * FABRIK's sub-bases (fabrik.ts): a bone that carries several points to their requests (several
 * chain children, or children on locked joints, which move with it as one rigid body, e.g. a
 * torso with its hips and collarbones) takes the rotation about its head that brings them
 * closest, by least squares (`rigidFit`); and after the forward pass the whole tree is turned
 * about the base so the goal points come closest to their targets (`turnAboutBase`).
 */
import type { PhysikWorld, RigRecord } from '../../../src/world/world';
import { quatArc, quatMul, quatNormalize, quatFromRotationVector, quatRotateArr } from '../../../src/math/quat';
import { av, base, bh, chainKids, errOut, firstKid, gBone, gCp, gD, gOwn, gP, growRigidPoints, hp, kidOf, len, lo, locked, nextSib, offReq, onChain, placeAll, q, rpCount, rpFit, rpFrom, rpGoal, rpLocal, rpStart, stBone, stT, tv } from './scratch';
import { pj } from './constraints';

/** fitRotation: vector pairs, the rotation found, a length scale. */
export let wA = new Float64Array(48);

export let wB = new Float64Array(48);

export const wQ = new Float64Array(4);

export const wS = new Float64Array(1);

/**
 * The rigid points of every bone (see rpStart): goals on the bone itself and on locked chain
 * children, the heads of unlocked chain children, walking down through locked children with
 * their fixed rotation (restLocal · exp(φ), φ the locked values) composed.
 */
export function buildRigidPoints(world: PhysikWorld, rig: RigRecord, m: number): void {
  const { Bone } = world.physik;
  const n = rig.bones.length;
  growRigidPoints(m + n);
  let k = 0;
  for (let i = 0; i < n; i++) {
    rpStart[i] = k; rpFit[i] = 0;
    if (!onChain[i]) { rpCount[i] = 0; continue; }
    // stack of (bone, transform into i's frame)
    let top = 0;
    stBone[0] = i;
    stT[0] = 0; stT[1] = 0; stT[2] = 0; stT[3] = 0; stT[4] = 0; stT[5] = 0; stT[6] = 1;
    top = 1;
    while (top > 0) {
      top--;
      const c = stBone[top]!, t7 = top * 7;
      const ox = stT[t7]!, oy = stT[t7 + 1]!, oz = stT[t7 + 2]!;
      for (let a = 0; a < 4; a++) tv[a] = stT[t7 + 3 + a]!;
      if (c !== i) rpFit[i] = 1; // through a locked joint
      for (let g = 0; g < m; g++) {
        if (gBone[g] !== c) continue;
        pj[0] = gP[g * 3]!; pj[1] = gP[g * 3 + 1]!; pj[2] = gP[g * 3 + 2]!;
        quatRotateArr(rpLocal, k * 3, tv, 0, pj, 0);
        rpLocal[k * 3] = rpLocal[k * 3]! + ox; rpLocal[k * 3 + 1] = rpLocal[k * 3 + 1]! + oy; rpLocal[k * 3 + 2] = rpLocal[k * 3 + 2]! + oz;
        rpGoal[k] = g; rpFrom[k] = -1; k++;
      }
      for (let d = firstKid[c]!; d >= 0; d = nextSib[d]!) {
        if (!onChain[d]) continue;
        const de = rig.bones[d]!;
        // d's head in i's frame: o + T · attach_d
        quatRotateArr(pj, 0, tv, 0, Bone.attach, de * 3);
        const hx = ox + pj[0]!, hy = oy + pj[1]!, hz = oz + pj[2]!;
        if (locked[d]) {
          // walk into d: its rotation in i's frame is T · restLocal_d · exp(φ_d)
          const d3 = d * 3, s7 = top * 7;
          pj[6] = lo[d3]!; pj[7] = lo[d3 + 1]!; pj[8] = lo[d3 + 2]!;
          quatFromRotationVector(tv, 4, pj, 6);
          quatMul(stT, s7 + 3, Bone.restLocal, de * 4, tv, 4);
          quatMul(stT, s7 + 3, tv, 0, stT, s7 + 3);
          stT[s7] = hx; stT[s7 + 1] = hy; stT[s7 + 2] = hz;
          stBone[top] = d;
          top++;
        } else {
          rpLocal[k * 3] = hx; rpLocal[k * 3 + 1] = hy; rpLocal[k * 3 + 2] = hz;
          rpGoal[k] = -1; rpFrom[k] = d; k++;
        }
      }
    }
    rpCount[i] = k - rpStart[i]!;
    if (rpCount[i]! >= 2 || offReq[i]) rpFit[i] = 1; // one point off the axis: fitted as a point (the arc onto it), not aimed along the axis
  }
}

/**
 * wQ ← the rotation R (about a fixed pivot) that brings the vectors wA[k] closest to wB[k], k <
 * cnt, in least squares (Wahba's problem): the sums (mean directions) aligned by the shortest
 * arc first, then Gauss-Newton on a rotation vector, lightly damped so a turn the vectors do not
 * determine (about a line they all lie on) is not taken. wS[0]: lengths under 1e-12 × it are zero.
 */
export function fitRotation(cnt: number): void {
  wQ[0] = 0; wQ[1] = 0; wQ[2] = 0; wQ[3] = 1;
  const tiny = 1e-12 * wS[0]!;
  for (let it = 0; it < 30; it++) {
    let h00 = 0, h01 = 0, h02 = 0, h11 = 0, h12 = 0, h22 = 0, gx = 0, gy = 0, gz = 0, sx = 0, sy = 0, sz = 0, tx = 0, ty = 0, tz = 0;
    for (let k = 0; k < cnt; k++) {
      quatRotateArr(pj, 0, wQ, 0, wA, k * 3);
      const ax = pj[0]!, ay = pj[1]!, az = pj[2]!, k3 = k * 3;
      const bx = wB[k3]!, by = wB[k3 + 1]!, bz = wB[k3 + 2]!;
      const a2 = ax * ax + ay * ay + az * az;
      h00 += a2 - ax * ax; h01 -= ax * ay; h02 -= ax * az; h11 += a2 - ay * ay; h12 -= ay * az; h22 += a2 - az * az;
      gx += ay * bz - az * by; gy += az * bx - ax * bz; gz += ax * by - ay * bx;
      sx += ax; sy += ay; sz += az; tx += bx; ty += by; tz += bz;
    }
    if (it === 0) {
      const sl = Math.sqrt(sx * sx + sy * sy + sz * sz), tl = Math.sqrt(tx * tx + ty * ty + tz * tz);
      if (sl > tiny && tl > tiny) {
        av[0] = sx / sl; av[1] = sy / sl; av[2] = sz / sl; av[3] = tx / tl; av[4] = ty / tl; av[5] = tz / tl;
        quatArc(wQ, 0, av, 0, av, 3);
        if (cnt === 1) return; // one vector: the arc is the answer
        continue;
      }
    }
    const mu = 1e-9 * (h00 + h11 + h22) + 1e-300;
    h00 += mu; h11 += mu; h22 += mu;
    const c00 = h11 * h22 - h12 * h12, c01 = h02 * h12 - h01 * h22, c02 = h01 * h12 - h02 * h11;
    const det = h00 * c00 + h01 * c01 + h02 * c02;
    if (!(Math.abs(det) > 1e-300)) break;
    const c11 = h00 * h22 - h02 * h02, c12 = h01 * h02 - h00 * h12, c22 = h00 * h11 - h01 * h01;
    pj[6] = (c00 * gx + c01 * gy + c02 * gz) / det;
    pj[7] = (c01 * gx + c11 * gy + c12 * gz) / det;
    pj[8] = (c02 * gx + c12 * gy + c22 * gz) / det;
    const step = Math.abs(pj[6]!) + Math.abs(pj[7]!) + Math.abs(pj[8]!);
    quatFromRotationVector(tv, 0, pj, 6);
    quatMul(wQ, 0, tv, 0, wQ, 0);
    quatNormalize(wQ, 0);
    if (step < 1e-13) break;
  }
}

export function growPairs(k: number): void {
  if (k * 3 <= wA.length) return;
  const c = Math.max(k, (wA.length / 3) * 2, 16);
  wA = new Float64Array(c * 3); wB = new Float64Array(c * 3);
}

/** q ← bone i's rotation (from q) turned about its head to bring its rigid points closest to what they reach for. */
export function rigidFit(i: number): void {
  const s0 = rpStart[i]!, cnt = rpCount[i]!, i3 = i * 3;
  const hx = hp[i3]!, hy = hp[i3 + 1]!, hz = hp[i3 + 2]!;
  for (let k = 0; k < cnt; k++) {
    const j = s0 + k, k3 = k * 3;
    quatRotateArr(wA, k3, q, 0, rpLocal, j * 3);
    const g = rpGoal[j]!;
    if (g >= 0) { wB[k3] = gD[g * 3]! - hx; wB[k3 + 1] = gD[g * 3 + 1]! - hy; wB[k3 + 2] = gD[g * 3 + 2]! - hz; } else {
      const f3 = rpFrom[j]! * 3;
      wB[k3] = bh[f3]! - hx; wB[k3 + 1] = bh[f3 + 1]! - hy; wB[k3 + 2] = bh[f3 + 2]! - hz;
    }
  }
  wS[0] = len[i]!;
  fitRotation(cnt);
  quatMul(q, 0, wQ, 0, q, 0);
  quatNormalize(q, 0);
}

/**
 * The whole tree turned about the fixed base so its goal points come closest (least squares) to
 * their targets: the root's joint has no limits, so this changes no joint, only the heading of the
 * shape the forward pass gave (a chain curled to its limits otherwise keeps pointing where its
 * backward pass left it).
 */
export function turnAboutBase(world: PhysikWorld, rig: RigRecord, m: number): void {
  const { Bone, ControlPoint } = world.physik;
  let cnt = 0;
  for (let g = 0; g < m; g++) {
    if (gBone[g]! < 0) continue;
    const cp = gCp[g]!, c3 = cp * 3, i = gOwn[g]!, b = rig.bones[i]!, o = b * 4, i3 = i * 3, k3 = cnt * 3;
    pj[0] = ControlPoint.offset[c3]!; pj[1] = ControlPoint.at[cp]! * Bone.length[b]! + ControlPoint.offset[c3 + 1]!; pj[2] = ControlPoint.offset[c3 + 2]!;
    quatRotateArr(wA, k3, Bone.rot, o, pj, 0);
    wA[k3] = wA[k3]! + (hp[i3]! - base[0]!); wA[k3 + 1] = wA[k3 + 1]! + (hp[i3 + 1]! - base[1]!); wA[k3 + 2] = wA[k3 + 2]! + (hp[i3 + 2]! - base[2]!);
    wB[k3] = ControlPoint.effective[c3]! - base[0]!; wB[k3 + 1] = ControlPoint.effective[c3 + 1]! - base[1]!; wB[k3 + 2] = ControlPoint.effective[c3 + 2]! - base[2]!;
    cnt++;
  }
  if (cnt === 0) return;
  wS[0] = errOut[1]!;
  fitRotation(cnt);
  if (wQ[3]! >= 1) return;
  const R = Bone.rot;
  for (let i = 0; i < rig.bones.length; i++) {
    const b4 = rig.bones[i]! * 4;
    quatMul(R, b4, wQ, 0, R, b4);
    quatNormalize(R, b4);
  }
  placeAll(world, rig);
}

/** The one chain child of bone i in the forward pass (-1 if none or several). */
export function soleKidFwd(i: number): number {
  return chainKids[i] === 1 ? kidOf[i]! : -1;
}
