/**
 * FABRIK's roll look-ahead (fabrik.ts): a bone's roll about its own axis does not move it but
 * turns the next joint's limits about that axis (a hinge's plane, a rotor's asymmetric
 * ranges). When the next bones of a pass would leave their boxes, the bone just placed is
 * rolled, within what its own joint allows, to the least roll that lets the next bones (placed
 * greedily) point where they must, or that brings them closest (`twistSearch`).
 */
import type { PhysikWorld, RigRecord } from '../../../src/world/world';
import { quatMul, quatMulConjA, quatNormalize, quatToRotationVector, quatFromRotationVector, quatRotateArr, quatRotateInvArr } from '../../../src/math/quat';
import { type Doubles } from '../../../components/doubles';
import { aimOf, bq, frac, frame, hi, hp, len, limited, lo, offAx, offReq, par, q, rollMiss, soleKid, tv, v } from './scratch';
import { inBox, pj, project, proxy, Y } from './constraints';
import { soleKidFwd } from './subBases';

/** Samples of the roll over its allowed range in the look-ahead, and refinements after them. */
export const TWIST_SAMPLES = 24;

export const TWIST_REFINE = 20;

/** Under this angle (radians) left to the next bones, the roll is only refined near where it is. */
export const LOCAL_ANGLE = 0.05;

/** Bones the roll look-ahead places (greedily) past the bone being rolled. */
export const LOOK_DEPTH = 3;

/** Look-ahead: the bone's rotation before rolling (tq), its axis, the next bone's aim (world), a frame, τ and results. */
export const tq = new Float64Array(4);

export const tw = new Float64Array(4);

export const tAxis = new Float64Array(3);

export const tDir = new Float64Array(3);

export const tF = new Float64Array(4);

export const tS = new Float64Array(3);

export const tRef = new Float64Array(4); // the next bone's reference rotation (its carried rotation, aimed)

/** tEps[0]: the angle (radians) under which the next bones count as reaching their aims (a tenth of ikTolerance). */
export const tEps = new Float64Array(1);

/** The look-ahead's greedy placement: rotations (12), a head, the rolled bone's head; the world's stores it reads. */
export const simQ = new Float64Array(12);

export const simH = new Float64Array(3);

export const tsHead = new Float64Array(3);

export let tsStraight = false;

export let attachS: Doubles = new Float64Array(0);

export let bonesS: ArrayLike<number> = [];

export const tTau = new Float64Array(3); // [0] τ, [1] error at τ (Infinity where the bone's own box is left), [2] the real error at no roll

export let tsForward = true;

export let tsBone = 0; // the bone being rolled (depth-first index)

export let tsNext = 0; // forward: the chain child whose box is looked at; backward: unused (the box is tsBone's)

export let tsCon = -1; // the joint that bounds the roll: forward tsBone itself (if limited), backward its chain child; -1 free

export let tsBoneEid = 0, tsNextEid = 0, tsConEid = 0;

export let restLocalS: Doubles = new Float64Array(0); // Bone.restLocal of the world being solved

/** tw ← tq rolled by tTau[0] about its own axis (tAxis). */
export function rolled(): void {
  const h = 0.5 * tTau[0]!, s = Math.sin(h);
  tv[0] = tAxis[0]! * s; tv[1] = tAxis[1]! * s; tv[2] = tAxis[2]! * s; tv[3] = Math.cos(h);
  quatMul(tw, 0, tv, 0, tq, 0);
}

/** Whether the roll tTau[0] keeps the bounding joint in its box. */
export function rollAllowed(): boolean {
  if (tsCon < 0) return true;
  rolled();
  if (tsForward) {
    // the bone's own joint: E = frame⁻¹ · rolled
    quatMulConjA(tv, 0, tF, 0, tw, 0);
  } else {
    // the child's joint: E = restLocal⁻¹ · rolled⁻¹ · child
    quatMulConjA(tv, 4, tw, 0, tF, 0);
    quatMulConjA(tv, 0, restLocalS, tsConEid * 4, tv, 4);
  }
  quatToRotationVector(pj, 10, tv, 0);
  return inBox(tsCon, pj, 10);
}

/** tTau[1] ← how far the next bone stays from its aim with the roll tTau[0] (Infinity if not allowed). */
export function rollError(): void {
  if (!rollAllowed()) { tTau[1] = Number.POSITIVE_INFINITY; return; }
  rolled();
  if (tsForward) {
    // the chain below, placed greedily (each bone the clamped arc onto its aim) for a few bones
    let total = 0, bone = tsBone;
    simQ[0] = tw[0]!; simQ[1] = tw[1]!; simQ[2] = tw[2]!; simQ[3] = tw[3]!;
    simH[0] = tsHead[0]!; simH[1] = tsHead[1]!; simH[2] = tsHead[2]!;
    for (let lvl = 0; lvl < LOOK_DEPTH; lvl++) {
      const c = lvl === 0 ? tsNext : soleKidFwd(bone);
      if (c < 0 || (lvl > 0 && (!limited[c] || offReq[c]))) break;
      const ce = bonesS[c]!;
      quatRotateArr(tv, 0, simQ, 0, attachS, ce * 3);
      tv[0] = tv[0]! + simH[0]!; tv[1] = tv[1]! + simH[1]!; tv[2] = tv[2]! + simH[2]!;
      if (lvl === 0) { v[0] = tDir[0]!; v[1] = tDir[1]!; v[2] = tDir[2]!; } else if (!aimOf(c, tsStraight)) break;
      simH[0] = tv[0]!; simH[1] = tv[1]!; simH[2] = tv[2]!;
      quatMul(simQ, 4, simQ, 0, restLocalS, ce * 4); // the child's frame
      pj[0] = 0; pj[1] = 1; pj[2] = 0;
      quatRotateInvArr(pj, 3, simQ, 4, v, 0);
      proxy(c);
      total += pj[9]! * pj[9]!;
      quatFromRotationVector(simQ, 8, pj, 10);
      quatMul(simQ, 0, simQ, 4, simQ, 8);
      bone = c;
    }
    tTau[1] = Math.sqrt(total);
    return;
  }
  // backward: the chain above, placed greedily for a few bones. The parent's axis is
  // rolled · E⁻¹ · restLocal⁻¹ · Y: E turns rolled⁻¹·aim onto restLocal⁻¹·Y
  let total = 0, bone = tsBone;
  simQ[0] = tw[0]!; simQ[1] = tw[1]!; simQ[2] = tw[2]!; simQ[3] = tw[3]!;
  simH[0] = tsHead[0]!; simH[1] = tsHead[1]!; simH[2] = tsHead[2]!;
  for (let lvl = 0; lvl < LOOK_DEPTH; lvl++) {
    const p = par[bone]!;
    if (p < 0 || (lvl > 0 && (!limited[bone] || soleKid[p] !== bone || offAx[bone]))) break;
    const be = bonesS[bone]!, Lp = len[p]!, f = frac[bone]!;
    if (!(f * Lp > 1e-12 * Lp)) break;
    if (lvl === 0) { v[0] = tDir[0]!; v[1] = tDir[1]!; v[2] = tDir[2]!; } else {
      const p3 = p * 3;
      const ex = simH[0]! - hp[p3]!, ey = simH[1]! - hp[p3 + 1]!, ez = simH[2]! - hp[p3 + 2]!;
      const el = Math.sqrt(ex * ex + ey * ey + ez * ez);
      if (!(el > 1e-12 * Lp)) break;
      v[0] = ex / el; v[1] = ey / el; v[2] = ez / el;
    }
    quatRotateInvArr(pj, 0, simQ, 0, v, 0);
    quatRotateInvArr(pj, 3, restLocalS, be * 4, Y, 0);
    proxy(bone);
    total += pj[9]! * pj[9]!;
    // the parent: simQ · exp(φ)⁻¹ · restLocal⁻¹, its head f·Lp back along its axis
    quatFromRotationVector(simQ, 4, pj, 10);
    simQ[4] = -simQ[4]!; simQ[5] = -simQ[5]!; simQ[6] = -simQ[6]!;
    quatMul(simQ, 0, simQ, 0, simQ, 4);
    simQ[4] = -restLocalS[be * 4]!; simQ[5] = -restLocalS[be * 4 + 1]!; simQ[6] = -restLocalS[be * 4 + 2]!; simQ[7] = restLocalS[be * 4 + 3]!;
    quatMul(simQ, 0, simQ, 0, simQ, 4);
    const x = simQ[0]!, y = simQ[1]!, z = simQ[2]!, w = simQ[3]!;
    const k = f * Lp;
    simH[0] -= k * 2 * (x * y - z * w); simH[1] -= k * (1 - 2 * (x * x + z * z)); simH[2] -= k * 2 * (y * z + x * w);
    bone = p;
  }
  tTau[1] = Math.sqrt(total);
}

/**
 * tTau[1] ← the angle the next bone is left from its aim by `project` with the roll tTau[0]
 * (from its reference rotation tRef; Infinity if the roll is not allowed).
 */
export function rollReal(): void {
  if (!rollAllowed()) { tTau[1] = Number.POSITIVE_INFINITY; return; }
  rolled();
  if (tsForward) {
    // the child's joint: (rolled · restLocal)⁻¹ · ref, the aim in that frame against +Y
    quatMul(tv, 0, tw, 0, restLocalS, tsNextEid * 4);
    quatMulConjA(tv, 4, tv, 0, tRef, 0);
    quatToRotationVector(pj, 6, tv, 4);
    pj[0] = 0; pj[1] = 1; pj[2] = 0;
    quatRotateInvArr(pj, 3, tv, 0, tDir, 0);
    project(tsNext);
  } else {
    // this bone's joint: restLocal⁻¹ · ref⁻¹ · rolled; maximise s · E t
    quatMulConjA(tv, 4, tRef, 0, tw, 0);
    quatMulConjA(tv, 0, restLocalS, tsBoneEid * 4, tv, 4);
    quatToRotationVector(pj, 6, tv, 0);
    quatRotateInvArr(pj, 0, tw, 0, tDir, 0);
    pj[3] = tS[0]!; pj[4] = tS[1]!; pj[5] = tS[2]!;
    project(tsBone);
  }
  tTau[1] = pj[9]!;
}

/** The allowed roll's end on one side of 0 (sign ±1), into tv[7]: outward in 5° steps, then bisection. */
export function rollEnd(sign: number): void {
  const stepA = Math.PI / 36;
  let inside = 0;
  tv[7] = 0;
  for (let k = 1; k <= 36; k++) {
    tTau[0] = sign * k * stepA;
    if (rollAllowed()) { inside = k * stepA; continue; }
    let a = inside, b = k * stepA;
    for (let j = 0; j < 14; j++) {
      const m = 0.5 * (a + b);
      tTau[0] = sign * m;
      if (rollAllowed()) a = m; else b = m;
    }
    tv[7] = sign * a;
    return;
  }
  tv[7] = sign * Math.PI;
}

/**
 * Roll tq about its own axis to the least roll that lets the next bone reach its aim tDir, or
 * the roll that brings it closest, within what the bounding joint allows. True if it rolled.
 */
export function twistSearch(): boolean {
  // forward, the roll is the joint's own twist (E · exp(τ Y)): a locked twist leaves none
  if (tsForward && tsCon >= 0 && lo[tsCon * 3 + 1] === hi[tsCon * 3 + 1]) return false;
  // the greedy estimate first: when it reaches, so does the projection (it finds as good or better)
  tTau[0] = 0;
  rollError();
  const e0 = tTau[1]!;
  if (!(e0 > tEps[0]!)) return false;
  // a search that found nothing for this bone and pass, with the error as it was then, is not redone
  const mk = tsBone * 2 + (tsForward ? 0 : 1), miss = rollMiss[mk]!;
  if (miss > 0 && Math.abs(e0 - miss) <= 0.05 * miss) return false;
  tTau[1] = e0;
  const rolledNow = searchRoll();
  rollMiss[mk] = rolledNow ? 0 : e0;
  return rolledNow;
}

/** The search of twistSearch, the error at no roll in tTau[1]. */
export function searchRoll(): boolean {
  const TWIST_EPS = tEps[0]!;
  const e0 = tTau[1]!;
  tTau[0] = 0;
  rollReal();
  const real0 = tTau[1]!;
  tTau[2] = real0;
  const worst0 = real0 > e0 ? real0 : e0;
  if (worst0 < LOCAL_ANGLE) {
    // nearly there: parabolic steps on the roll from e at 0 and ±h (the error is smooth there)
    let t = 0, f = e0, h = 2 * worst0;
    for (let j = 0; j < 3; j++) {
      tTau[0] = t - h; rollError(); const fm = tTau[1]!;
      tTau[0] = t + h; rollError(); const fp = tTau[1]!;
      const curv = fp + fm - 2 * f;
      let tn: number;
      if (curv > 0 && Number.isFinite(curv)) tn = t - 0.5 * h * (fp - fm) / curv; else tn = fp < fm ? t + h : t - h;
      if (tn > t + 4 * h) tn = t + 4 * h; else if (tn < t - 4 * h) tn = t - 4 * h;
      tTau[0] = tn; rollError(); const fn = tTau[1]!;
      let bt = t, bf = f;
      if (fm < bf) { bt = t - h; bf = fm; }
      if (fp < bf) { bt = t + h; bf = fp; }
      if (fn < bf) { bt = tn; bf = fn; }
      if (!(bf < f - 1e-15)) break;
      h = Math.max(Math.abs(bt - t) * 0.25, 1e-9);
      t = bt; f = bf;
      if (f <= TWIST_EPS) break;
    }
    if (!(f < e0 - 1e-12)) return false;
    tTau[0] = t;
    return acceptRoll();
  }
  rollEnd(1); const tHi = tv[7]!;
  rollEnd(-1); const tLo = tv[7]!;
  if (!(tHi - tLo > 1e-9)) return false;
  let bestT = 0, bestE = e0;
  const h = (tHi - tLo) / TWIST_SAMPLES;
  for (let k = 0; k <= TWIST_SAMPLES; k++) {
    const t = tLo + k * h;
    tTau[0] = t;
    rollError();
    const e = tTau[1]!;
    if (e < bestE - 1e-12 || (e <= bestE + 1e-12 && Math.abs(t) < Math.abs(bestT))) { bestE = e; bestT = t; }
  }
  if (!(bestE < e0 - 1e-12)) return false;
  if (bestE <= TWIST_EPS) {
    // reached: the least roll that still reaches, between bestT and the sample before it toward 0
    let a = bestT, b = bestT > 0 ? Math.max(0, bestT - h) : Math.min(0, bestT + h);
    for (let j = 0; j < TWIST_REFINE; j++) {
      const m = 0.5 * (a + b);
      tTau[0] = m;
      rollError();
      if (tTau[1]! <= TWIST_EPS) a = m; else b = m;
    }
    bestT = a;
  } else {
    // not reached: golden-section refinement of the least error around the best sample
    let a = Math.max(tLo, bestT - h), b = Math.min(tHi, bestT + h);
    const g = 0.3819660112501051;
    let x1 = a + g * (b - a), x2 = b - g * (b - a);
    tTau[0] = x1; rollError(); let f1 = tTau[1]!;
    tTau[0] = x2; rollError(); let f2 = tTau[1]!;
    for (let j = 0; j < TWIST_REFINE; j++) {
      if (f1 <= f2) {
        b = x2; x2 = x1; f2 = f1; x1 = a + g * (b - a); tTau[0] = x1; rollError(); f1 = tTau[1]!;
      } else {
        a = x1; x1 = x2; f1 = f2; x2 = b - g * (b - a); tTau[0] = x2; rollError(); f2 = tTau[1]!;
      }
    }
    if (f1 < bestE) { bestE = f1; bestT = x1; }
    if (f2 < bestE) { bestE = f2; bestT = x2; }
  }
  tTau[0] = bestT;
  return acceptRoll();
}

/**
 * The roll found (tTau[0]), kept only when the real error it leaves is no worse than the one
 * without rolling (tTau[2]) or within the reach tolerance tEps: then tq ← that rolled rotation,
 * and true. (Arguments in the scratch: V8 boxes doubles passed to calls it does not inline.)
 */
export function acceptRoll(): boolean {
  const t = tTau[0]!, real0 = tTau[2]!;
  rollReal();
  if (!(tTau[1]! <= Math.max(real0, tEps[0]!) + 1e-12)) return false;
  tTau[0] = t;
  rolled();
  tq[0] = tw[0]!; tq[1] = tw[1]!; tq[2] = tw[2]!; tq[3] = tw[3]!;
  quatNormalize(tq, 0);
  return true;
}

/**
 * Prepare `twistSearch` for bone i (rotation from bq when backward, q when forward): its axis,
 * the bounding joint `con` (forward: i itself; backward: its chain child; -1 free) and the frame
 * that joint is measured against, and what the next bone's box is (forward: child `next`).
 */
export function setupRoll(world: PhysikWorld, rig: RigRecord, forward: boolean, i: number, next: number, con: number): void {
  const { Bone } = world.physik;
  tsForward = forward; tsBone = i; tsNext = next; tsCon = con;
  tsBoneEid = rig.bones[i]!; tsNextEid = next >= 0 ? rig.bones[next]! : 0; tsConEid = con >= 0 ? rig.bones[con]! : 0;
  restLocalS = Bone.restLocal; attachS = Bone.attach; bonesS = rig.bones;
  if (forward) {
    tq[0] = q[0]!; tq[1] = q[1]!; tq[2] = q[2]!; tq[3] = q[3]!;
    tF[0] = frame[0]!; tF[1] = frame[1]!; tF[2] = frame[2]!; tF[3] = frame[3]!;
  } else {
    const i4 = i * 4;
    tq[0] = bq[i4]!; tq[1] = bq[i4 + 1]!; tq[2] = bq[i4 + 2]!; tq[3] = bq[i4 + 3]!;
    if (con >= 0) { const c4 = con * 4; tF[0] = bq[c4]!; tF[1] = bq[c4 + 1]!; tF[2] = bq[c4 + 2]!; tF[3] = bq[c4 + 3]!; }
    // this bone's parent axis in its joint frame: restLocal⁻¹ · Y
    quatRotateInvArr(tS, 0, Bone.restLocal, tsBoneEid * 4, Y, 0);
  }
  const x = tq[0]!, y = tq[1]!, z = tq[2]!, w = tq[3]!;
  tAxis[0] = 2 * (x * y - z * w); tAxis[1] = 1 - 2 * (x * x + z * z); tAxis[2] = 2 * (y * z + x * w);
}

/** Whether the forward pass's look-ahead reaches along the straight line (one goal beyond reach). */
export function setRollStraight(straight: boolean): void {
  tsStraight = straight;
}
