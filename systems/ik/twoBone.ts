/**
 * twoBone: analytic two-bone IK (law of cosines), after R. Juckett, "Analytic Two-Bone IK in
 * 2D"; the closed form itself is in twoBoneClosedForm.ts, the writing of a chain into the rig
 * in chainPass.ts.
 *
 * Solver (registered as 'twoBone'): each active goal on bone B poses B's parent P and B (a
 * goal on B uses exactly B and P; the first link is P from its head to B's head, the second
 * B from its head to the goal's attachment point). A goal on the root (no parent) throws an
 * Error naming the rig, the goal and the bone. Goals whose parent is the root are fine: the
 * root turns about its head, which stays where it is (also for a floating root; these solvers
 * never translate a rig). Bones off the chain keep their rotation relative to their parent (they
 * follow it). Several goals sharing bones are solved in control-point order (the last one wins
 * where they overlap).
 *
 * The bend plane (3D):
 * - A pole (an active control point with role 'pole' on B) gives the plane through S, the
 *   target and the pole; the elbow starts on the pole's side. No flip when the target crosses
 *   the pole axis (the line S→pole): the plane normal is compared with last step's normal,
 *   carried along by the change of reach direction; when it reversed (which only happens when
 *   the reach line passes through the pole axis), the side is swapped so the elbow stays where
 *   it was. Moving the pole around the reach line turns the elbow with it.
 * - Without a pole the reference normal is, in order: the middle joint's hinge axis when B's
 *   limits make it a hinge (one of x/z free-ranged, the other locked; P is then also twisted so
 *   that the hinge axis is the plane normal and the clamp keeps the solution); the current bend
 *   (d1 × d2); last step's normal; the rest bend carried by P; the joint frame's z axis signed by
 *   `bendDirection`. The reference is carried by the shortest rotation taking the current reach
 *   direction to the new one (parallel transport), then made perpendicular to the new reach:
 *   continuous for any continuous target path. When the reach reverses exactly, the half turn
 *   is about the reference itself, so the bend keeps its plane and sense (as for a target just
 *   beside the reversed reach in that plane). In 'path-independent' mode the rest pose is the
 *   reference and nothing is kept.
 * - `bendDirection` picks the sign when the normal comes from a default axis (hinge or z);
 *   for a hinge whose range allows only one sign, the range wins.
 *
 * Limits: clamped after placing each bone (P then B, `clampToLimits`), so a limited joint may miss.
 * Hot paths take vectors and scalars in typed arrays (V8 boxes floating-point arguments).
 * Status: converged when every goal is within ikTolerance × rig height, else stalled (no exact
 * solution: out of reach or limited); diverged if a result was not finite (nothing written).
 */
import type { PhysikWorld, RigRecord } from '../../src/world/world';
import { quatArc, quatMul, quatRotate, quatRotateArr } from '../../src/math/quat';
import { solved } from './common';
import type { SolveResult } from './solver';
import { AIM, SET, beginPass, endPass, hingeOf, quatFromFrames, restorePose } from './chainPass';
import { boneName, closedFormStatus, controlPointName, effectorLocal } from './goalChains';
import { twoBonePositions3D } from './twoBoneClosedForm';
import { setSolveNote } from './solveNotes';
import { STATUS_STALLED } from '../../components/Rig';

const EPS = 1e-12;

/**
 * quatArc, except that when a and b are opposite the half turn is about h[ho..] made
 * perpendicular to a (quatArc's axis if h is along a). quatArc's own axis then depends on
 * which tiny component round-off left in a, and a half turn about an axis in the bend plane
 * reverses the bend normal; about the normal it keeps the bend, as any target a little beside
 * the reversed reach in the bend plane does.
 */
export function quatArcAbout(out: Float64Array, o: number, a: Float64Array, ao: number, b: Float64Array, bo: number, h: Float64Array, ho: number): void {
  const ax = a[ao]!, ay = a[ao + 1]!, az = a[ao + 2]!;
  if (ax * b[bo]! + ay * b[bo + 1]! + az * b[bo + 2]! < -1 + 1e-12) {
    const hx = h[ho]!, hy = h[ho + 1]!, hz = h[ho + 2]!;
    const dh = hx * ax + hy * ay + hz * az;
    const px = hx - dh * ax, py = hy - dh * ay, pz = hz - dh * az;
    const n = Math.sqrt(px * px + py * py + pz * pz);
    if (n > 1e-6 * Math.sqrt(hx * hx + hy * hy + hz * hz)) {
      out[o] = px / n; out[o + 1] = py / n; out[o + 2] = pz / n; out[o + 3] = 0;
      return;
    }
  }
  quatArc(out, o, a, ao, b, bo);
}

// ───────────────────────────── the solver ─────────────────────────────

interface TwoBoneState {
  nCp: number;
  version: number;
  lastStep: number;
  /** Per control point index: last step's bend normal (3) and whether it is set; pole side (+1 toward, -1 away). */
  normal: Float64Array;
  hasNormal: Uint8Array;
  poleSide: Int8Array;
  /** Whether the pole decided the plane last step (a newly active pole starts on its own side). */
  poleUsed: Uint8Array;
}

const states = new WeakMap<RigRecord, TwoBoneState>();

function stateOf(world: PhysikWorld, rig: RigRecord): TwoBoneState {
  let s = states.get(rig);
  const step = world.physik.Rig.step[rig.eid]!;
  if (!s || s.version !== rig.controlPointsVersion || s.nCp !== rig.controlPoints.length) {
    const n = rig.controlPoints.length;
    s = { nCp: n, version: rig.controlPointsVersion, lastStep: -1, normal: new Float64Array(n * 3), hasNormal: new Uint8Array(n), poleSide: new Int8Array(n).fill(1), poleUsed: new Uint8Array(n) };
    states.set(rig, s);
  } else if (step <= s.lastStep) {
    // the rig was reset (or solved twice in one step): forget the bend memory
    s.hasNormal.fill(0); s.poleSide.fill(1); s.poleUsed.fill(0);
  }
  s.lastStep = step;
  return s;
}

const sq = new Float64Array(16);
const sv = new Float64Array(24);
const cu = new Float64Array(9); // current reach ĉ, new reach û, −û
const io3 = new Float64Array(14);
const hinge = new Int8Array(2);
/**
 * One goal's numbers between the steps of its solve: S (0..2), target W (3..5), new reach û
 * (6..8), bend normal N (9..11), l1 (12), l2 (13), link 1 in P's frame (14..16), link 2 in
 * B's frame (17..19). The solve is split in three functions (goalFrame, bendNormal,
 * placeGoal) so that V8 optimises each soon: one large function took hundreds of steps to be
 * compiled, and ran unoptimised meanwhile (every floating-point result a new heap number).
 */
const g = new Float64Array(20);

const NOTE_TWO = 'two-bone turns only the goal\'s bone and its parent: the bones above them stay as they are';

/** The 'twoBone' kinematic solver: one closed-form solve per active goal (see the header). */
export function twoBoneSolve(world: PhysikWorld, rig: RigRecord): SolveResult {
  const { Bone, ControlPoint } = world.physik;
  const state = stateOf(world, rig);
  const independent = rig.settings.ikMode === 'path-independent';
  const bendSign = rig.settings.bendDirection === 'negative' ? -1 : 1;
  let failed = false, longer = false;
  if (independent) restorePose(world, rig); // restart from the rest pose
  for (let ci = 0; ci < rig.controlPoints.length; ci++) {
    const cp = rig.controlPoints[ci]!;
    if (!ControlPoint.active[cp] || ControlPoint.pole[cp]) continue;
    const B = ControlPoint.bone[cp]!;
    if (Bone.parent[B]! < 0) rootGoal(rig, cp, B);
    if (!goalFrame(world, cp)) { failed = true; continue; }
    // hinge? (then B's hinge range may decide the bend sign)
    hingeOf(world, B, hinge);
    const sigma = hinge[0]! >= 0 && hinge[1] !== 0 ? hinge[1]! : bendSign;
    bendNormal(world, rig, state, ci, B, independent, sigma);
    if (!placeGoal(world, rig, state, ci, B, independent, sigma)) failed = true;
    if (Bone.parent[Bone.parent[B]!]! >= 0) longer = true;
  }
  const status = closedFormStatus(world, rig, failed);
  setSolveNote(rig, 'twoBone', status === STATUS_STALLED && longer ? NOTE_TWO : '');
  return solved(1, status);
}

/** A goal on the root: the two-bone solver has no chain for it. */
function rootGoal(rig: RigRecord, cp: number, B: number): never {
  throw new Error(
    `twoBone solver, rig "${rig.name}": goal "${controlPointName(rig, cp)}" is on bone "${boneName(rig, B)}", the root, which has no parent; ` +
    `the two-bone solver poses a goal's bone and its parent (a chain of 2 bones). Move the goal to a child bone or use another solver.`,
  );
}

/**
 * Goal cp on bone B (parent P): lengths, S, W, the current reach ĉ and the new reach û into g
 * and cu; d1·l1 and d2·l2 into sv[3..8]; B's joint frame (P · restLocal_B) into sq[0..3].
 * False when the target is not finite.
 */
function goalFrame(world: PhysikWorld, cp: number): boolean {
  const { Bone, ControlPoint } = world.physik;
  const B = ControlPoint.bone[cp]!;
  const P = Bone.parent[B]!;
  const P3 = P * 3, P4 = P * 4, B4 = B * 4, B3 = B * 3;
  // lengths: link 1 from P's head to B's head, link 2 from B's head to the attachment
  const ax = Bone.attach[B3]!, ay = Bone.attach[B3 + 1]!, az = Bone.attach[B3 + 2]!;
  const l1 = Math.sqrt(ax * ax + ay * ay + az * az);
  effectorLocal(world, cp, sv, 0); // e (B frame)
  const lex = sv[0]!, ley = sv[1]!, lez = sv[2]!;
  const l2 = Math.sqrt(lex * lex + ley * ley + lez * lez);
  const sx = Bone.head[P3]!, sy = Bone.head[P3 + 1]!, sz = Bone.head[P3 + 2]!;
  const c3 = cp * 3;
  const wx = ControlPoint.effective[c3]!, wy = ControlPoint.effective[c3 + 1]!, wz = ControlPoint.effective[c3 + 2]!;
  if (!(Number.isFinite(wx) && Number.isFinite(wy) && Number.isFinite(wz))) return false;

  // current directions: d1 (P's link), d2 (B's effector link), reach c (S → current effector)
  quatRotateArr(sv, 3, Bone.rot, P4, Bone.attach, B3); // d1·l1
  quatRotateArr(sv, 6, Bone.rot, B4, sv, 0); // d2·l2
  let cx = sv[3]! + sv[6]!, cy = sv[4]! + sv[7]!, cz = sv[5]! + sv[8]!;
  let cl = Math.sqrt(cx * cx + cy * cy + cz * cz);
  if (!(cl > EPS * (l1 + l2 + 1))) {
    quatRotate(sv, 9, Bone.rot, P4, 0, 1, 0); cx = sv[9]!; cy = sv[10]!; cz = sv[11]!; cl = 1;
  }
  cx /= cl; cy /= cl; cz /= cl;
  // new reach û
  let ux = wx - sx, uy = wy - sy, uz = wz - sz;
  const D = Math.sqrt(ux * ux + uy * uy + uz * uz);
  if (D > EPS) { ux /= D; uy /= D; uz /= D; } else { ux = cx; uy = cy; uz = cz; }
  cu[0] = cx; cu[1] = cy; cu[2] = cz; cu[3] = ux; cu[4] = uy; cu[5] = uz;
  g[0] = sx; g[1] = sy; g[2] = sz; g[3] = wx; g[4] = wy; g[5] = wz; g[6] = ux; g[7] = uy; g[8] = uz;
  g[12] = l1; g[13] = l2; g[14] = ax; g[15] = ay; g[16] = az; g[17] = lex; g[18] = ley; g[19] = lez;
  // joint frame of B (P · restLocal_B) → sq[0..3]
  quatMul(sq, 0, Bone.rot, P4, Bone.restLocal, B4);
  return true;
}

/** The bend normal of goal ci (on bone B) into g[9..11]: the pole's plane, else a reference carried to the new reach (see the header). */
function bendNormal(world: PhysikWorld, rig: RigRecord, state: TwoBoneState, ci: number, B: number, independent: boolean, sigma: number): void {
  const { Bone, ControlPoint } = world.physik;
  const P4 = Bone.parent[B]! * 4;
  const sx = g[0]!, sy = g[1]!, sz = g[2]!, ux = g[6]!, uy = g[7]!, uz = g[8]!, l1 = g[12]!, l2 = g[13]!;
  const hingeAxis = hinge[0]!;
  let nx = 0, ny = 0, nz = 0, found = false;
  // 1. pole
  const pole = poleCp(world, rig, B);
  if (pole >= 0) {
    const p3 = pole * 3;
    const qx = ControlPoint.effective[p3]! - sx, qy = ControlPoint.effective[p3 + 1]! - sy, qz = ControlPoint.effective[p3 + 2]! - sz;
    const ql = Math.sqrt(qx * qx + qy * qy + qz * qz);
    const dq = qx * ux + qy * uy + qz * uz;
    const mx = qx - dq * ux, my = qy - dq * uy, mz = qz - dq * uz;
    const ml = Math.sqrt(mx * mx + my * my + mz * mz);
    if (ml > 1e-6 * ql && Number.isFinite(ml)) {
      // N = m̂ × û (elbow toward the pole), with the kept side
      let side = independent || !state.poleUsed[ci] ? 1 : state.poleSide[ci]!;
      const px = (my * uz - mz * uy) / ml, py = (mz * ux - mx * uz) / ml, pz = (mx * uy - my * ux) / ml;
      if (!independent && state.poleUsed[ci] && state.hasNormal[ci]) {
        // last normal carried by the change of reach direction (a reversed reach turns about it)
        quatArcAbout(sq, 4, cu, 0, cu, 3, state.normal, ci * 3);
        quatRotateArr(sv, 12, sq, 4, state.normal, ci * 3);
        if (side * (px * sv[12]! + py * sv[13]! + pz * sv[14]!) < 0) side = -side;
      }
      state.poleSide[ci] = side;
      nx = side * px; ny = side * py; nz = side * pz;
      found = true;
    }
  }
  state.poleUsed[ci] = found ? 1 : 0;
  if (!found) {
    // 2. reference normal, then carried from the current reach to the new one
    // (path-independent: the pose was just restored to rest, so "current" is the rest pose)
    let rx = 0, ry = 0, rz = 0, ref = false;
    if (hingeAxis >= 0) {
      quatRotate(sv, 12, sq, 0, hingeAxis === 0 ? 1 : 0, 0, hingeAxis === 2 ? 1 : 0);
      rx = sigma * sv[12]!; ry = sigma * sv[13]!; rz = sigma * sv[14]!; ref = true;
    }
    if (!ref) {
      const bx = sv[4]! * sv[8]! - sv[5]! * sv[7]!, by = sv[5]! * sv[6]! - sv[3]! * sv[8]!, bz = sv[3]! * sv[7]! - sv[4]! * sv[6]!;
      const bl = Math.sqrt(bx * bx + by * by + bz * bz);
      if (bl > 1e-9 * (l1 * l2 + EPS)) { rx = bx / bl; ry = by / bl; rz = bz / bl; ref = true; }
    }
    if (!ref && !independent && state.hasNormal[ci]) {
      rx = state.normal[ci * 3]!; ry = state.normal[ci * 3 + 1]!; rz = state.normal[ci * 3 + 2]!; ref = true;
    }
    if (!ref) {
      // rest bend carried by P: P's Y against B's rest effector direction (joint frame · e)
      quatRotate(sv, 12, Bone.rot, P4, 0, 1, 0);
      quatRotateArr(sv, 15, sq, 0, sv, 0);
      const bx = sv[13]! * sv[17]! - sv[14]! * sv[16]!, by = sv[14]! * sv[15]! - sv[12]! * sv[17]!, bz = sv[12]! * sv[16]! - sv[13]! * sv[15]!;
      const bl = Math.sqrt(bx * bx + by * by + bz * bz);
      if (bl > 1e-9 * (l2 + EPS)) { rx = bx / bl; ry = by / bl; rz = bz / bl; ref = true; }
    }
    if (!ref) {
      quatRotate(sv, 12, sq, 0, 0, 0, 1);
      rx = sigma * sv[12]!; ry = sigma * sv[13]!; rz = sigma * sv[14]!;
    }
    sv[21] = rx; sv[22] = ry; sv[23] = rz;
    quatArcAbout(sq, 4, cu, 0, cu, 3, sv, 21);
    quatRotateArr(sv, 12, sq, 4, sv, 21);
    nx = sv[12]!; ny = sv[13]!; nz = sv[14]!;
    const dn = nx * ux + ny * uy + nz * uz;
    nx -= dn * ux; ny -= dn * uy; nz -= dn * uz;
    if (!(Math.sqrt(nx * nx + ny * ny + nz * nz) > 1e-9)) {
      // reference along the reach (exact reversal): any perpendicular, deterministically
      cu[6] = -ux; cu[7] = -uy; cu[8] = -uz;
      quatArc(sq, 4, cu, 3, cu, 6);
      nx = sq[4]!; ny = sq[5]!; nz = sq[6]!;
    }
  }
  g[9] = nx; g[10] = ny; g[11] = nz;
}

/**
 * Goal ci (on bone B) from g: the elbow and the reached end, the plane normal kept, and the
 * write through a root-first pass. False if something was not finite.
 */
function placeGoal(world: PhysikWorld, rig: RigRecord, state: TwoBoneState, ci: number, B: number, independent: boolean, sigma: number): boolean {
  const { Bone } = world.physik;
  const P = Bone.parent[B]!, B4 = B * 4;
  const sx = g[0]!, sy = g[1]!, sz = g[2]!, ux = g[6]!, uy = g[7]!, uz = g[8]!;
  let nx = g[9]!, ny = g[10]!, nz = g[11]!;
  const l1 = g[12]!, l2 = g[13]!, ax = g[14]!, ay = g[15]!, az = g[16]!;
  const hingeAxis = hinge[0]!;
  // positions
  for (let k = 0; k < 6; k++) io3[k] = g[k]!; // S, W
  io3[6] = nx; io3[7] = ny; io3[8] = nz;
  io3[9] = ux; io3[10] = uy; io3[11] = uz; io3[12] = l1; io3[13] = l2;
  twoBonePositions3D(sv, 12, io3, 0); // closest reach when not exact
  const ex = sv[12]!, ey = sv[13]!, ez = sv[14]!;
  const fx = sv[15]!, fy = sv[16]!, fz = sv[17]!;
  if (!(Number.isFinite(ex + ey + ez + fx + fy + fz))) return false;
  // remember the plane normal actually used (unit, ⟂ reach)
  {
    const dn = nx * ux + ny * uy + nz * uz;
    let px = nx - dn * ux, py = ny - dn * uy, pz = nz - dn * uz;
    const pl = Math.sqrt(px * px + py * py + pz * pz);
    px /= pl; py /= pl; pz /= pl;
    if (!independent && Number.isFinite(pl)) {
      state.normal[ci * 3] = px; state.normal[ci * 3 + 1] = py; state.normal[ci * 3 + 2] = pz; state.hasNormal[ci] = 1;
    }
    nx = px; ny = py; nz = pz;
  }

  // write through a root-first pass: P (aimed, or set with a hinge twist), then B; the rest carried
  const pass = beginPass(world, rig);
  const pi = rig.bones.indexOf(P), bi = rig.bones.indexOf(B);
  const d1x = ex - sx, d1y = ey - sy, d1z = ez - sz;
  const d1l = Math.sqrt(d1x * d1x + d1y * d1y + d1z * d1z);
  if (l1 > EPS && d1l > EPS) {
    pass.mark[pi] = AIM;
    pass.vec[pi * 3] = ax; pass.vec[pi * 3 + 1] = ay; pass.vec[pi * 3 + 2] = az;
    pass.dir[pi * 3] = d1x; pass.dir[pi * 3 + 1] = d1y; pass.dir[pi * 3 + 2] = d1z;
    if (hingeAxis >= 0) {
      // twist P so that B's hinge axis is the plane normal: a = restLocal_B · hinge (P frame),
      // made ⟂ to P's link direction, goes to h_t = sigma·N̂ (a positive hinge bend for sigma = +1)
      quatRotate(sv, 18, Bone.restLocal, B4, hingeAxis === 0 ? 1 : 0, 0, hingeAxis === 2 ? 1 : 0);
      const lx = ax / l1, ly = ay / l1, lz = az / l1;
      const da = sv[18]! * lx + sv[19]! * ly + sv[20]! * lz;
      let hx = sv[18]! - da * lx, hy = sv[19]! - da * ly, hz = sv[20]! - da * lz;
      const hl = Math.sqrt(hx * hx + hy * hy + hz * hz);
      const wx1 = d1x / d1l, wy1 = d1y / d1l, wz1 = d1z / d1l;
      const dn = nx * wx1 + ny * wy1 + nz * wz1; // ~0: N ⟂ the plane of d1
      let tx = sigma * (nx - dn * wx1), ty = sigma * (ny - dn * wy1), tz = sigma * (nz - dn * wz1);
      const tl = Math.sqrt(tx * tx + ty * ty + tz * tz);
      if (hl > 1e-6 && tl > 1e-9) {
        hx /= hl; hy /= hl; hz /= hl; tx /= tl; ty /= tl; tz /= tl;
        frameA[0] = lx; frameA[1] = ly; frameA[2] = lz; frameA[3] = hx; frameA[4] = hy; frameA[5] = hz;
        frameB[0] = wx1; frameB[1] = wy1; frameB[2] = wz1; frameB[3] = tx; frameB[4] = ty; frameB[5] = tz;
        quatFromFrames(pass.quat, pi * 4, frameA, 0, frameB, 0);
        pass.mark[pi] = SET;
      }
    }
  }
  if (l2 > EPS) {
    pass.mark[bi] = AIM;
    pass.vec[bi * 3] = g[17]!; pass.vec[bi * 3 + 1] = g[18]!; pass.vec[bi * 3 + 2] = g[19]!;
    pass.dir[bi * 3] = fx - ex; pass.dir[bi * 3 + 1] = fy - ey; pass.dir[bi * 3 + 2] = fz - ez;
  }
  return endPass(world, rig, pass);
}

const frameA = new Float64Array(6);
const frameB = new Float64Array(6);

/** The active pole control point on bone b, or -1. */
function poleCp(world: PhysikWorld, rig: RigRecord, b: number): number {
  const { ControlPoint } = world.physik;
  for (let i = 0; i < rig.controlPoints.length; i++) {
    const cp = rig.controlPoints[i]!;
    if (ControlPoint.active[cp] && ControlPoint.pole[cp] && ControlPoint.bone[cp] === b) return cp;
  }
  return -1;
}
