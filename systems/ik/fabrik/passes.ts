/**
 * FABRIK's two reaching passes (fabrik.ts): backward from the effectors to the root, each bone
 * fitted to its requests and held by its chain child's limits; forward from the fixed base,
 * each bone aimed at its requests inside its own joint's box and rolled for the next; and the
 * pole's turn of a section about its base–effector line between them.
 */
import type { PhysikWorld, RigRecord } from '../../../src/world/world';
import { quatArc, quatMul, quatMulConjA, quatNormalize, quatToRotationVector, quatFromRotationVector, quatRotateArr, quatRotateInvArr } from '../../../src/math/quat';
import { clampToLimits } from '../common';
import { accD, accN, accU, accUD, accUU, addRequest, aimOf, arcQ, av, axisOf, bh, bq, chainKids, firstKid, frac, frame, gBone, gD, gP, gU, hasBq, headOf, hp, len, limited, loc, nextSib, offAx, offReq, par, pB, pCp, pGoal, pTop, q, r, rotateAbout, rpCount, rpFit, rpLocal, rpStart, soleKid, tv, v } from './scratch';
import { aimFrom, inBox, pj, project, Y } from './constraints';
import { setRollStraight, setupRoll, tDir, tq, tRef, tsHead, twistSearch } from './roll';
import { fitRotation, rigidFit, soleKidFwd, wA, wB, wQ, wS } from './subBases';

/**
 * Backward: bone i (its only request its chain child c, at fraction ū > 0 of it) wants to point
 * along v[0..2] from its old head (`axis`: Y; for a child attached off i's axis, the unit
 * direction of its attachment in i's frame, which is what must point along v). Hold it to c's box: bq_i ← bq_c · E⁻¹ · restLocal_c⁻¹ with
 * E inside c's box, starting from the joint rotation of the unconstrained aim (already in bq_i).
 */
export function holdByChild(world: PhysikWorld, rig: RigRecord, i: number, c: number, axis: Float64Array): void {
  const RL = world.physik.Bone.restLocal, ce = rig.bones[c]! * 4, i4 = i * 4, c4 = c * 4;
  // E of the unconstrained aim: restLocal_c⁻¹ · bq_i⁻¹ · bq_c
  quatMulConjA(tv, 4, bq, i4, bq, c4);
  quatMulConjA(tv, 0, RL, ce, tv, 4);
  quatToRotationVector(pj, 6, tv, 0);
  if (inBox(c, pj, 6)) return;
  // maximise s · E t: s = restLocal_c⁻¹ · Y (this bone's axis in c's joint frame), t = bq_c⁻¹ · aim
  quatRotateInvArr(pj, 0, bq, c4, v, 0);
  quatRotateInvArr(pj, 3, RL, ce, axis, 0);
  project(c);
  quatFromRotationVector(tv, 0, pj, 6);
  tv[0] = -tv[0]!; tv[1] = -tv[1]!; tv[2] = -tv[2]!; // E⁻¹
  quatMul(tv, 4, bq, c4, tv, 0);
  tv[0] = -RL[ce]!; tv[1] = -RL[ce + 1]!; tv[2] = -RL[ce + 2]!; tv[3] = RL[ce + 3]!;
  quatMul(bq, i4, tv, 4, tv, 0);
  quatNormalize(bq, i4);
}

/** fitPoints' result: the bone's backward head. */
export const fpHead = new Float64Array(3);

const fpP = new Float64Array(3);

/**
 * Backward, bone i with a request off its axis (offReq): its requests, goals on it and the
 * backward heads of its chain children, as points of one rigid body. All at one point p: the
 * FABRIK step about it (p turned by the shortest arc toward its target from the old head, the
 * head following), held by the sole chain child's limits; at several: the least-squares
 * rotation of the points about their centroid onto the targets'. bq_i out, the head in fpHead.
 */
export function fitPoints(world: PhysikWorld, rig: RigRecord, i: number, m: number): void {
  const { Bone } = world.physik;
  const R = Bone.rot, b4 = rig.bones[i]! * 4, i3 = i * 3, i4 = i * 4, L = len[i]!;
  let cnt = 0, px = 0, py = 0, pz = 0, dx = 0, dy = 0, dz = 0;
  for (let g = 0; g < m; g++) {
    if (gBone[g] !== i) continue;
    const k3 = cnt * 3, g3 = g * 3;
    wA[k3] = gP[g3]!; wA[k3 + 1] = gP[g3 + 1]!; wA[k3 + 2] = gP[g3 + 2]!;
    wB[k3] = gD[g3]!; wB[k3 + 1] = gD[g3 + 1]!; wB[k3 + 2] = gD[g3 + 2]!;
    cnt++;
  }
  for (let d = firstKid[i]!; d >= 0; d = nextSib[d]!) {
    if (!hasBq[d]) continue;
    const k3 = cnt * 3, a3 = rig.bones[d]! * 3, d3 = d * 3;
    wA[k3] = Bone.attach[a3]!; wA[k3 + 1] = Bone.attach[a3 + 1]!; wA[k3 + 2] = Bone.attach[a3 + 2]!;
    wB[k3] = bh[d3]!; wB[k3 + 1] = bh[d3 + 1]!; wB[k3 + 2] = bh[d3 + 2]!;
    cnt++;
  }
  for (let k = 0; k < cnt; k++) {
    const k3 = k * 3;
    px += wA[k3]!; py += wA[k3 + 1]!; pz += wA[k3 + 2]!; dx += wB[k3]!; dy += wB[k3 + 1]!; dz += wB[k3 + 2]!;
  }
  px /= cnt; py /= cnt; pz /= cnt; dx /= cnt; dy /= cnt; dz /= cnt;
  let spread = 0;
  for (let k = 0; k < cnt; k++) {
    const k3 = k * 3, ex = wA[k3]! - px, ey = wA[k3 + 1]! - py, ez = wA[k3 + 2]! - pz;
    spread += ex * ex + ey * ey + ez * ez;
  }
  const pl = Math.sqrt(px * px + py * py + pz * pz);
  if (spread > 1e-18 * L * L) {
    // several points: the rotation about their centroid that brings them closest to their targets
    for (let k = 0; k < cnt; k++) {
      const k3 = k * 3;
      fpP[0] = wA[k3]! - px; fpP[1] = wA[k3 + 1]! - py; fpP[2] = wA[k3 + 2]! - pz;
      quatRotateArr(wA, k3, R, b4, fpP, 0);
      wB[k3] = wB[k3]! - dx; wB[k3 + 1] = wB[k3 + 1]! - dy; wB[k3 + 2] = wB[k3 + 2]! - dz;
    }
    wS[0] = L;
    fitRotation(cnt);
    quatMul(bq, i4, wQ, 0, R, b4);
    quatNormalize(bq, i4);
  } else if (pl > 1e-12 * L) {
    // one point: the usual FABRIK step, the point goes to its target, the head follows from where it was
    fpP[0] = px / pl; fpP[1] = py / pl; fpP[2] = pz / pl;
    let ex = dx - hp[i3]!, ey = dy - hp[i3 + 1]!, ez = dz - hp[i3 + 2]!;
    const el = Math.sqrt(ex * ex + ey * ey + ez * ez);
    quatRotateArr(av, 0, R, b4, fpP, 0);
    if (el > 1e-12 * L) { ex /= el; ey /= el; ez /= el; } else { ex = av[0]!; ey = av[1]!; ez = av[2]!; }
    av[3] = ex; av[4] = ey; av[5] = ez;
    quatArc(arcQ, 0, av, 0, av, 3);
    quatMul(bq, i4, arcQ, 0, R, b4);
    quatNormalize(bq, i4);
    const c = soleKid[i]!;
    if (c >= 0 && limited[c]) {
      v[0] = ex; v[1] = ey; v[2] = ez;
      holdByChild(world, rig, i, c, fpP);
    }
  } else {
    // only the head is asked for
    bq[i4] = R[b4]!; bq[i4 + 1] = R[b4 + 1]!; bq[i4 + 2] = R[b4 + 2]!; bq[i4 + 3] = R[b4 + 3]!;
  }
  fpP[0] = px; fpP[1] = py; fpP[2] = pz;
  quatRotateArr(fpHead, 0, bq, i4, fpP, 0);
  fpHead[0] = dx - fpHead[0]!; fpHead[1] = dy - fpHead[1]!; fpHead[2] = dz - fpHead[2]!;
}

/** Backward reaching: effectors toward the root, children before parents. */
export function backward(world: PhysikWorld, rig: RigRecord, m: number): void {
  const n = rig.bones.length;
  const { Bone } = world.physik;
  const R = Bone.rot;
  accN.fill(0, 0, n); accU.fill(0, 0, n); accUU.fill(0, 0, n);
  accD.fill(0, 0, n * 3); accUD.fill(0, 0, n * 3);
  hasBq.fill(0, 0, n);
  for (let g = 0; g < m; g++) if (gBone[g]! >= 0) addRequest(gBone[g]!, gU, g, gD, g * 3);
  for (let i = n - 1; i >= 0; i--) {
    const cnt = accN[i]!;
    if (cnt === 0) continue;
    const i3 = i * 3, i4 = i * 4, L = len[i]!, b4 = rig.bones[i]! * 4;
    const ub = accU[i]! / cnt;
    const dx = accD[i3]! / cnt, dy = accD[i3 + 1]! / cnt, dz = accD[i3 + 2]! / cnt;
    const spread = accUU[i]! - cnt * ub * ub; // Σ (u − ū)²
    let hx: number, hy: number, hz: number;
    let aimed = true;
    if (offReq[i]) {
      fitPoints(world, rig, i, m);
      hx = fpHead[0]!; hy = fpHead[1]!; hz = fpHead[2]!;
      aimed = false;
    } else if (spread > 1e-12) {
      // requests at different fractions: least-squares line, direction Σ (u − ū)(D − D̄)
      let wx = accUD[i3]! - cnt * ub * dx, wy = accUD[i3 + 1]! - cnt * ub * dy, wz = accUD[i3 + 2]! - cnt * ub * dz;
      const wl = Math.sqrt(wx * wx + wy * wy + wz * wz);
      if (wl > 1e-12 * L) { wx /= wl; wy /= wl; wz /= wl; } else { axisOf(world, rig.bones[i]!); wx = v[0]!; wy = v[1]!; wz = v[2]!; }
      v[0] = wx; v[1] = wy; v[2] = wz;
      hx = dx - ub * L * wx; hy = dy - ub * L * wy; hz = dz - ub * L * wz;
      aimFrom(bq, i4, R, b4, v, 0);
    } else if (Math.abs(ub) * L > 1e-12 * L) {
      // the usual FABRIK step: the point goes to D̄, the head follows from where it was
      let ex = dx - hp[i3]!, ey = dy - hp[i3 + 1]!, ez = dz - hp[i3 + 2]!;
      const el = Math.sqrt(ex * ex + ey * ey + ez * ez);
      if (el > 1e-12 * L) { const s = (ub < 0 ? -1 : 1) / el; ex *= s; ey *= s; ez *= s; } else { axisOf(world, rig.bones[i]!); ex = v[0]!; ey = v[1]!; ez = v[2]!; }
      v[0] = ex; v[1] = ey; v[2] = ez;
      aimFrom(bq, i4, R, b4, v, 0);
      const c = soleKid[i]!;
      if (c >= 0 && ub > 0 && limited[c]) {
        holdByChild(world, rig, i, c, Y);
        const x = bq[i4]!, y = bq[i4 + 1]!, z = bq[i4 + 2]!, w = bq[i4 + 3]!;
        ex = 2 * (x * y - z * w); ey = 1 - 2 * (x * x + z * z); ez = 2 * (y * z + x * w);
      }
      hx = dx - ub * L * ex; hy = dy - ub * L * ey; hz = dz - ub * L * ez;
    } else {
      hx = dx; hy = dy; hz = dz; // only the head is asked for
      bq[i4] = R[b4]!; bq[i4 + 1] = R[b4 + 1]!; bq[i4 + 2] = R[b4 + 2]!; bq[i4 + 3] = R[b4 + 3]!;
      aimed = false;
    }
    hasBq[i] = 1;
    bh[i3] = hx; bh[i3 + 1] = hy; bh[i3 + 2] = hz;
    const p = par[i]!;
    // roll ahead: this bone's roll so that its parent, pulled toward the new head, stays in this joint's box
    if (aimed && p >= 0 && limited[i] && soleKid[p] === i && !offAx[i] && frac[i]! * len[p]! > 1e-12 * len[p]! && (chainKids[i] === 0 || soleKid[i]! >= 0)) {
      const p3 = p * 3;
      const ex = hx - hp[p3]!, ey = hy - hp[p3 + 1]!, ez = hz - hp[p3 + 2]!;
      const el = Math.sqrt(ex * ex + ey * ey + ez * ez);
      if (el > 1e-12 * len[p]!) {
        tDir[0] = ex / el; tDir[1] = ey / el; tDir[2] = ez / el;
        aimFrom(tRef, 0, R, rig.bones[p]! * 4, tDir, 0);
        tsHead[0] = hx; tsHead[1] = hy; tsHead[2] = hz;
        const c = soleKid[i]!;
        setupRoll(world, rig, false, i, -1, c >= 0 && limited[c] ? c : -1);
        if (twistSearch()) { bq[i4] = tq[0]!; bq[i4 + 1] = tq[1]!; bq[i4 + 2] = tq[2]!; bq[i4 + 3] = tq[3]!; }
      }
    }
    if (p >= 0) addRequest(p, frac, i, bh, i3);
  }
}

/**
 * Pole k: turn the backward positions (and rotations) of its section about the line from the
 * base c (= hp[top]) to the effector, so that the joint (B's backward head) lies in the plane
 * of base, effector and pole, on the pole's side.
 */
export function applyPole(world: PhysikWorld, k: number): void {
  const { ControlPoint } = world.physik;
  const top = pTop[k]!, bi = pB[k]!, g = pGoal[k]!;
  const t3 = top * 3, g3 = g * 3, b3 = bi * 3, c3 = pCp[k]! * 3;
  const cx = hp[t3]!, cy = hp[t3 + 1]!, cz = hp[t3 + 2]!;
  let ax = gD[g3]! - cx, ay = gD[g3 + 1]! - cy, az = gD[g3 + 2]! - cz;
  const al = Math.sqrt(ax * ax + ay * ay + az * az);
  const scale = len[bi]! + len[par[bi]!]!;
  if (!(al > 1e-9 * scale)) return;
  ax /= al; ay /= al; az /= al;
  let jx = bh[b3]! - cx, jy = bh[b3 + 1]! - cy, jz = bh[b3 + 2]! - cz;
  let d = jx * ax + jy * ay + jz * az;
  jx -= d * ax; jy -= d * ay; jz -= d * az;
  let px = ControlPoint.effective[c3]! - cx, py = ControlPoint.effective[c3 + 1]! - cy, pz = ControlPoint.effective[c3 + 2]! - cz;
  d = px * ax + py * ay + pz * az;
  px -= d * ax; py -= d * ay; pz -= d * az;
  const jl = Math.sqrt(jx * jx + jy * jy + jz * jz), pl = Math.sqrt(px * px + py * py + pz * pz);
  if (!(jl > 1e-9 * scale) || !(pl > 1e-12 * scale)) return; // no bend, or pole on the line
  const sin = ax * (jy * pz - jz * py) + ay * (jz * px - jx * pz) + az * (jx * py - jy * px);
  const cos = jx * px + jy * py + jz * pz;
  const theta = Math.atan2(sin, cos);
  if (theta === 0) return;
  const s = Math.sin(0.5 * theta);
  r[0] = ax * s; r[1] = ay * s; r[2] = az * s; r[3] = Math.cos(0.5 * theta);
  // the path from the effector's bone up to the section's first bone
  for (let i = gBone[g]!; ; i = par[i]!) {
    const i3 = i * 3, cnt = accN[i]!, su = accU[i]!;
    rotateAbout(accD, i3, cnt, cx, cy, cz);
    rotateAbout(accUD, i3, su, cx, cy, cz);
    rotateAbout(bh, i3, 1, cx, cy, cz);
    if (hasBq[i]) { quatMul(bq, i * 4, r, 0, bq, i * 4); quatNormalize(bq, i * 4); }
    if (i === top) break;
  }
}

/**
 * Forward reaching: root first. Each bone's head follows from its parent; a bone with a
 * direction to aim at takes its backward rotation turned onto it, held in its joint's box,
 * rolled for its chain child; others keep their rotation relative to the parent; then the
 * limits' safety clamp. `straight`: one goal beyond reach, the bones that carry it point along
 * straightDir. Returns false on a non-finite result.
 */
export function forward(world: PhysikWorld, rig: RigRecord, nPoles: number, straight: boolean): boolean {
  const { Bone } = world.physik;
  const R = Bone.rot, RL = Bone.restLocal;
  for (let i = 0; i < rig.bones.length; i++) {
    const b = rig.bones[i]!, p = par[i]!, b4 = b * 4, i3 = i * 3, i4 = i * 4;
    headOf(world, rig, i);
    if (!straight) for (let k = 0; k < nPoles; k++) if (pTop[k] === i) applyPole(world, k);
    const hx = hp[i3]!, hy = hp[i3 + 1]!, hz = hp[i3 + 2]!;
    tv[0] = hx; tv[1] = hy; tv[2] = hz;
    const fit = !straight && rpFit[i] === 1;
    if (fit || aimOf(i, straight)) {
      if (fit) {
        // several points (or points through a locked joint): a least-squares rotation about the head
        if (hasBq[i]) { q[0] = bq[i4]!; q[1] = bq[i4 + 1]!; q[2] = bq[i4 + 2]!; q[3] = bq[i4 + 3]!; } else { q[0] = R[b4]!; q[1] = R[b4 + 1]!; q[2] = R[b4 + 2]!; q[3] = R[b4 + 3]!; }
        rigidFit(i);
        if (offReq[i] && rpCount[i] === 1) {
          // one point off the axis: the joint's box holds the direction to it, not the axis
          const r3 = rpStart[i]! * 3;
          const pl = Math.sqrt(rpLocal[r3]! * rpLocal[r3]! + rpLocal[r3 + 1]! * rpLocal[r3 + 1]! + rpLocal[r3 + 2]! * rpLocal[r3 + 2]!);
          fpP[0] = rpLocal[r3]! / pl; fpP[1] = rpLocal[r3 + 1]! / pl; fpP[2] = rpLocal[r3 + 2]! / pl;
          quatRotateArr(v, 0, q, 0, fpP, 0);
        } else {
          const x = q[0]!, y = q[1]!, z = q[2]!, w = q[3]!;
          v[0] = 2 * (x * y - z * w); v[1] = 1 - 2 * (x * x + z * z); v[2] = 2 * (y * z + x * w);
        }
      } else if (!straight && hasBq[i]) {
        aimFrom(q, 0, bq, i4, v, 0); // the rotation it had in the backward pass, turned onto the aim
      } else {
        aimFrom(q, 0, R, b4, v, 0);
      }
      const own = p >= 0 && limited[i] === 1;
      if (own) {
        quatMul(frame, 0, R, rig.bones[p]! * 4, RL, b4); // joint frame: parentWorld · restLocal
        quatMulConjA(tv, 0, frame, 0, q, 0);
        quatToRotationVector(pj, 6, tv, 0);
        if (!inBox(i, pj, 6)) {
          if (fit && offReq[i] && rpCount[i] === 1) { pj[0] = fpP[0]!; pj[1] = fpP[1]!; pj[2] = fpP[2]!; } else { pj[0] = 0; pj[1] = 1; pj[2] = 0; }
          quatRotateInvArr(pj, 3, frame, 0, v, 0);
          project(i);
          quatFromRotationVector(tv, 0, pj, 6);
          quatMul(q, 0, frame, 0, tv, 0);
          quatNormalize(q, 0);
        }
      }
      // roll ahead for the chain child
      const c = fit ? -1 : soleKidFwd(i);
      if (c >= 0 && limited[c] && !offReq[c]) {
        const ce = rig.bones[c]! * 3;
        // the child's head with this rotation
        const x = q[0]!, y = q[1]!, z = q[2]!, w = q[3]!;
        const ox = Bone.attach[ce]!, oy = Bone.attach[ce + 1]!, oz = Bone.attach[ce + 2]!;
        tv[0] = hx + (1 - 2 * (y * y + z * z)) * ox + 2 * (x * y - z * w) * oy + 2 * (x * z + y * w) * oz;
        tv[1] = hy + 2 * (x * y + z * w) * ox + (1 - 2 * (x * x + z * z)) * oy + 2 * (y * z - x * w) * oz;
        tv[2] = hz + 2 * (x * z - y * w) * ox + 2 * (y * z + x * w) * oy + (1 - 2 * (x * x + y * y)) * oz;
        if (aimOf(c, straight)) {
          tDir[0] = v[0]!; tDir[1] = v[1]!; tDir[2] = v[2]!;
          if (!straight && hasBq[c]) aimFrom(tRef, 0, bq, c * 4, tDir, 0); else aimFrom(tRef, 0, R, rig.bones[c]! * 4, tDir, 0);
          tsHead[0] = hx; tsHead[1] = hy; tsHead[2] = hz; setRollStraight(straight);
          setupRoll(world, rig, true, i, c, own ? i : -1);
          if (twistSearch()) { q[0] = tq[0]!; q[1] = tq[1]!; q[2] = tq[2]!; q[3] = tq[3]!; }
        }
      }
    } else if (p >= 0) {
      quatMul(q, 0, R, rig.bones[p]! * 4, loc, i4);
    } else {
      q[0] = loc[0]!; q[1] = loc[1]!; q[2] = loc[2]!; q[3] = loc[3]!;
    }
    quatNormalize(q, 0);
    if (!Number.isFinite(q[0]! + q[1]! + q[2]! + q[3]!) || !Number.isFinite(hx + hy + hz)) return false;
    R[b4] = q[0]!; R[b4 + 1] = q[1]!; R[b4 + 2] = q[2]!; R[b4 + 3] = q[3]!;
    clampToLimits(world, b);
  }
  return true;
}
