/**
 * CCD (cyclic coordinate descent) kinematic solver. Its goals and depth-first scratch are the
 * goal tree (goalTree.ts), shared with the Jacobian solvers.
 *
 * What: per iteration every bone on a goal's chain (goals: active, non-pole control points)
 * is visited children before parents, i.e. in reverse depth-first order, so each chain is
 * swept from its effector up to the root as in the guide. A bone (with its subtree) is turned
 * about its pivot (its head; a floating root's centre, which stays put) so the effectors below
 * it swing toward their goals:
 *  - a joint without limits takes the whole shortest-arc rotation from (effector − pivot) to
 *    (goal − pivot);
 *  - a joint with any limited axis is turned about each axis of its joint frame that is not
 *    locked (x, y, z in turn; locked: min = max), by the angle between the projections of the
 *    two vectors on the plane normal to that axis (the guide's per-axis GetTheta), and
 *    `clampToLimits` runs after each axis, inside the loop, so the next axis and the next joint
 *    work from a legal pose. Fully locked joints are skipped.
 *  - the guide's colinear bump: when effector, pivot and goal are colinear with the goal
 *    nearer than the effector (turning this joint cannot help and a straight chain would never
 *    bend), the joint is turned by BUMP about a deterministic axis normal to the line; colinear
 *    with the goal behind the pivot, the arc is a half turn about such an axis. A goal at or
 *    beyond the effector on the line is left alone (the straight chain is the best it gets).
 * Several goals: sorted in depth-first order of their bones (the guide's advice), so the goals
 * below a bone are one contiguous range. A joint with several goals below it turns by the mean
 * of the per-goal turns (the guide's "run the solver for each target individually and average
 * the output angles"; rotation vectors are averaged, per axis for limited joints), summed in
 * that depth-first order. The guide's other option, marking joints so later goals cannot turn
 * joints an earlier goal used, was measured worse on scenes/humanoid.json (a foot left 2.9 cm
 * off its pin after the hand target turned the floating torso, against 0.3 mm with averaging).
 *
 * Subtrees: within an iteration a bone's parent and pivot have not moved when the bone is
 * visited, so a visit only records the bone's turn (a world-frame delta) and turns the
 * effectors of its goals with it. After the sweep the forward pass composes the deltas root
 * first (a bone's new world rotation = the deltas of its ancestors and its own, in root-first
 * order, times its rotation at the iteration's start) and places the heads. Bones off every
 * goal's chain keep their local rotation and are rebuilt once at the end, so limits of
 * untouched joints stay kept.
 *
 * Safeguard: a solve keeps its best pose (least Σ|e|²). Iterations may make things worse for
 * a while (a clamp, goals pulling apart), but after PATIENCE of them in a row without a new
 * best, or at the cap, the best pose is put back; colinear bumps and half turns are taken
 * regardless. Without it, CCD against tight limits was measured wandering between poses from
 * step to step (error 0.717..0.741 on a target they put out of reach); with it the rig settles.
 *
 * Restarts: a solve that stalls short of its goals with at least RESTART_LEFT iterations left
 * (the patience ran out, or nothing changes) starts again from a pose drawn inside the limits,
 * at most MAX_RESTARTS times, the patience then counted against the best since the restart;
 * the best pose of the solve is kept. With the default 10 iterations a step never restarts. On
 * the imported characters (the CMU walk, the bvhio example) a toe or hand goal stalled with the
 * thigh or collarbone at a limit up to 1.4e-1 of the height short; with restarts at 300
 * iterations every goal of tests/scenes/characters.test.ts is reached.
 *
 * Modes: 'path-dependent' iterates at most `ikIterations` times from the current pose;
 * 'path-independent' resets every bone to its rest world rotation (root centre or pin stays)
 * and iterates to `ikTolerance` × rig height or the cap. Status: converged within tolerance,
 * stalled at the cap or when an iteration changes nothing (unreachable or blocked), diverged
 * if anything became non-finite (the world keeps the pose of the solve's start: a solve works
 * on its own copies and writes the world once, at the end).
 *
 * Limits of the method: per-axis limits hold after every joint update, but CCD with tight
 * limits converges slowly and, like any local method, can stop short of a reachable goal.
 * With one iteration per step the safeguard can hold a limited chain that needs a worse
 * iteration to get going (a straight limited chain with its goal straight ahead stays 0.95
 * away at ikIterations 1; at 10 it is reached). Goals that need the same joint in different
 * ways settle on the averaged compromise and converge more slowly than one goal (dls serves
 * them jointly). The iteration count reported is CCD sweeps. No allocation per step: scratch
 * is made once per rig (WeakMap by rig record).
 *
 * Poles: an active pole control point on bone B (the scene files' pole syntax, as for FABRIK
 * and two-bone) turns the section below B's parent about the line from its base to its
 * effector after the solve, so the joint at B's head bends toward the pole (poles.ts).
 *
 * Why one file of this length: the solve is one loop written for speed (a sweep, a forward
 * pass and the goals' effectors over compact copies, with the common joint's arithmetic written
 * out inline); its helpers share that loop's scratch and are not used elsewhere.
 *
 * Reference: SpehleonLP, "Inverse Kinematics Guide" (Cyclic Coordinate Descent Solver;
 * Advice: DFS order, colinear bump).
 */
import type { PhysikWorld, RigRecord } from '../../src/world/world';
import { STATUS_CONVERGED, STATUS_DIVERGED, STATUS_STALLED } from '../../components/Rig';
import { quatFromRotationVector, quatMul, quatMulConjA, quatNormalize, quatToRotationVector, quatTurnWorld } from '../../src/math/quat';
import { refreshPose, solved } from './common';
import { doubles, type Doubles } from '../../components/doubles';
import type { SolveResult } from './solver';
import { BUMP, collectGoals, frameAxis, goalsFinite, ikRig, restartBones, restartMask, type IkRig } from './goalTree';
import { applyPoles } from './poles';

/** Relative size of |a × b| / (|a||b|) under which three points count as colinear. */
const COLINEAR = 1e-9;
/**
 * The trigonometry-free arc (sweep) is used while 1 + cos θ > WIDE: its w component
 * |v||w|(1 + cos θ) then keeps all but about 100 ulps (the rounding of |v||w| and v·w, relative
 * to it); wider arcs take atan2.
 */
const WIDE = 0.01;
/** CCD iterations in a row that may fail to beat the best pose of the solve before it stops. */
const PATIENCE = 4;
/**
 * Restarts: a solve that stalls short of its goals (blocked by limits in a local minimum) with
 * at least RESTART_LEFT iterations left starts again from a pose drawn inside the limits, at
 * most MAX_RESTARTS times; the best pose of the solve is kept. With the default 10 iterations a
 * step never restarts; a rig given a few hundred does.
 */
const RESTART_LEFT = 12;
const MAX_RESTARTS = 8;

// ---------------------------------------------------------------------------------------
// CCD
//
// Why it is laid out like this (speed; the peer bench times it against three.js's
// CCDIKSolver): a solve works on compact copies indexed by depth-first bone index (world
// rotations, heads, attach offsets, goal attachment vectors and targets), read from the
// world's stores once per solve and written back once at the end (then one forward-kinematics
// refresh). An iteration is two passes over the bones on goal chains only: the sweep tip →
// root (a visit computes the bone's turn and moves the tracked effectors, nothing else) and a
// forward pass root → tip (turns composed into world rotations, heads from the parents'
// attach offsets), then the goals' effectors. An iteration reads one pose buffer and writes
// another (three in turn), so the pose before it and the best pose of the solve are kept
// without copying. The arithmetic of the common joint (unlimited, one goal), the forward pass
// and the effectors is written out in those loops, without trigonometry or calls (doubles
// passed as arguments are boxed, and an imported helper costs a call).
// ---------------------------------------------------------------------------------------

const pv = doubles(3); // pivot of the current joint
const frame = doubles(4);
const ax = doubles(3);
const qc = doubles(4); // conjugate of the bone's rotation before its last turn
const dq = doubles(4);
const phi = doubles(3);
const qr = doubles(4);
/**
 * Axis and angle of a turn (ux, uy, uz, angle), and a vector for normalAxis: numbers go to
 * non-inlined helpers through arrays, as a floating-point argument would be boxed (the heap
 * profiler found ~5 kB a humanoid step in the joint's calls before).
 */
const turnArg = doubles(4);
const vecArg = doubles(3);
/** The statuses as module constants (an imported binding may be read through a getter). */
const CONVERGED = STATUS_CONVERGED, STALLED = STATUS_STALLED, DIVERGED = STATUS_DIVERGED;
/** Set when an iteration used a colinear bump or half turn (such a step may cost error at first). */
let special = false;

/** One pose of a solve, compact: world rotation (4 per bone), head (3). */
interface Pose { q: number[]; hd: number[] }

/** A solve's compact working set (depth-first bone index i; goal index g as in IkRig). */
interface CcdScratch {
  n: number;
  /**
   * Three pose buffers. Pose 0 is loaded at the start and holds every bone; the others hold
   * the bones on goal chains only (the rest never change their locals: they are rebuilt from
   * `loc` at the end).
   */
  pose: Pose[];
  /** Local rotations at the start of the solve (4 per bone). */
  loc: number[];
  /** The iteration each pose buffer holds (0: the start). */
  poseIt: Int32Array;
  /** Attach offset of each bone in its parent's frame (3 per bone). */
  att: number[];
  /** Per bone: this sweep's turn as a world-frame delta, its copy of the rotation for the general joints, and the forward pass's accumulated delta (4 each). */
  dq: number[]; qt: number[]; acc: number[];
  /** 1 if any axis of the bone is limited. */
  lim: Uint8Array;
  /** 1 for a fully locked non-root bone (per bone: its local is kept). */
  skip: Uint8Array;
  /** 1 on bones on a goal's chain (the goal's bone or an ancestor). */
  mark: Uint8Array;
  /** The goals' bones the chains below were made for (keyCount of them; -1: none yet). */
  keyBones: Int32Array; keyCount: number;
  /** The sweep: bones on goal chains, tip → root, with their goal ranges [g0, g1). */
  visit: Int32Array; vg0: Int32Array; vg1: Int32Array; visitCount: number;
  /** Bones on goal chains, root → tip (the forward pass). */
  fwd: Int32Array; fwdCount: number;
  /** Per goal: attachment in the bone's frame (offset + (0, at·L, 0)) and target. */
  gv: number[]; gt: number[];
  /** Floating root: its centre (the root's pivot, fixed during a solve) and half its length. */
  cx: number; cy: number; cz: number; half: number;
}

const ccdScratch = new WeakMap<IkRig, CcdScratch>();

function scratchOf(T: IkRig): CcdScratch {
  let S = ccdScratch.get(T);
  if (!S || S.n !== T.n || S.gv.length < T.goalCp.length * 3) {
    const n = T.n, ng = Math.max(1, T.goalCp.length);
    const pose: Pose[] = [];
    for (let k = 0; k < 3; k++) pose.push({ q: doubles(n * 4), hd: doubles(n * 3) });
    S = {
      n, pose, loc: doubles(n * 4), poseIt: new Int32Array(3), att: doubles(n * 3), dq: doubles(n * 4), qt: doubles(n * 4), acc: doubles(n * 4), lim: new Uint8Array(n),
      skip: new Uint8Array(n), mark: new Uint8Array(n), keyBones: new Int32Array(ng), keyCount: -1,
      visit: new Int32Array(n), vg0: new Int32Array(n), vg1: new Int32Array(n), visitCount: 0,
      fwd: new Int32Array(n), fwdCount: 0, gv: doubles(ng * 3), gt: doubles(ng * 3),
      cx: 0, cy: 0, cz: 0, half: 0,
    };
    ccdScratch.set(T, S);
  }
  return S;
}

/**
 * Fill S (pose 0) from the world: world rotations (the rest pose in path-independent mode,
 * else the current one), attach offsets, heads of the bones on goal chains (forward
 * kinematics over S, placed as refreshPose places them: a pinned root's head at the pin, a
 * floating root's at centre − R (0, L/2, 0)), locals of the others, goal attachments and
 * targets, limit flags, and the visiting orders. The world itself is not written until writeBack.
 */
function loadScratch(world: PhysikWorld, rig: RigRecord, T: IkRig, S: CcdScratch, pinned: boolean, rest: boolean): void {
  const bones = rig.bones, rot = rest ? T.restWorld : T.rot, attach = world.physik.Bone.attach, en = T.enabled;
  const P = S.pose[0]!, q = P.q, hd = P.hd, loc = S.loc, att = S.att, par = T.parentIndex;
  const root = bones[0]!, mark = S.mark;
  S.cx = T.centre[root * 3]!; S.cy = T.centre[root * 3 + 1]!; S.cz = T.centre[root * 3 + 2]!;
  S.half = 0.5 * T.length[root]!;
  chains(T, S);
  for (let i = 0; i < T.n; i++) {
    const b = bones[i]!, o = i * 4, s = b * 4, i3 = i * 3, b3 = b * 3;
    const bx = rot[s]!, by = rot[s + 1]!, bz = rot[s + 2]!, bw = rot[s + 3]!;
    q[o] = bx; q[o + 1] = by; q[o + 2] = bz; q[o + 3] = bw;
    const vx = attach[b3]!, vy = attach[b3 + 1]!, vz = attach[b3 + 2]!;
    att[i3] = vx; att[i3 + 1] = vy; att[i3 + 2] = vz;
    const lim = en[b3] === 1 || en[b3 + 1] === 1 || en[b3 + 2] === 1;
    S.lim[i] = lim ? 1 : 0;
    S.skip[i] = lim && i > 0 && locked(T, b, 0) && locked(T, b, 1) && locked(T, b, 2) ? 1 : 0;
    const p = par[i]!;
    if (p < 0) {
      loc[o] = bx; loc[o + 1] = by; loc[o + 2] = bz; loc[o + 3] = bw;
      if (pinned) {
        const pin = world.physik.Rig.pin, r3 = rig.eid * 3;
        hd[i3] = pin[r3]!; hd[i3 + 1] = pin[r3 + 1]!; hd[i3 + 2] = pin[r3 + 2]!;
      } else {
        const h = S.half;
        hd[i3] = S.cx - 2 * (bx * by - bz * bw) * h;
        hd[i3 + 1] = S.cy - (1 - 2 * (bx * bx + bz * bz)) * h;
        hd[i3 + 2] = S.cz - 2 * (by * bz + bx * bw) * h;
      }
      // every pose has the root's head (pinned: it stays there)
      for (let k = 1; k < 3; k++) { const h2 = S.pose[k]!.hd; h2[i3] = hd[i3]!; h2[i3 + 1] = hd[i3 + 1]!; h2[i3 + 2] = hd[i3 + 2]!; }
    } else if (mark[i]) {
      // on a goal's chain: its head (a pivot) = parent's head + parent · attach (a marked
      // bone's parent is marked)
      const r = p * 4, p3 = p * 3, ax_ = q[r]!, ay = q[r + 1]!, az = q[r + 2]!, aw = q[r + 3]!;
      const tx = 2 * (ay * vz - az * vy), ty = 2 * (az * vx - ax_ * vz), tz = 2 * (ax_ * vy - ay * vx);
      hd[i3] = hd[p3]! + vx + aw * tx + (ay * tz - az * ty);
      hd[i3 + 1] = hd[p3 + 1]! + vy + aw * ty + (az * tx - ax_ * tz);
      hd[i3 + 2] = hd[p3 + 2]! + vz + aw * tz + (ax_ * ty - ay * tx);
    } else {
      // off the chains: its local = parent⁻¹ · world, to rebuild it under its moved parent
      const r = p * 4, ax_ = q[r]!, ay = q[r + 1]!, az = q[r + 2]!, aw = q[r + 3]!;
      loc[o] = aw * bx - ax_ * bw - ay * bz + az * by;
      loc[o + 1] = aw * by + ax_ * bz - ay * bw - az * bx;
      loc[o + 2] = aw * bz - ax_ * by + ay * bx - az * bw;
      loc[o + 3] = aw * bw + ax_ * bx + ay * by + az * bz;
    }
  }
  for (let g = 0; g < T.goalCount; g++) {
    const cp = T.goalCp[g]!, c3 = cp * 3, g3 = g * 3;
    S.gv[g3] = T.cpOffset[c3]!;
    S.gv[g3 + 1] = T.cpAt[cp]! * T.length[T.cpBoneEntity[cp]!]! + T.cpOffset[c3 + 1]!;
    S.gv[g3 + 2] = T.cpOffset[c3 + 2]!;
    S.gt[g3] = T.effective[c3]!; S.gt[g3 + 1] = T.effective[c3 + 1]!; S.gt[g3 + 2] = T.effective[c3 + 2]!;
  }
}

/**
 * S.mark (bones on a goal's chain) and the visiting orders with the goal ranges, from this
 * solve's goals (T.goalBone); kept while the goals' bones stay the same (they depend on
 * nothing else: the rig's topology is fixed).
 */
function chains(T: IkRig, S: CcdScratch): void {
  const gc = T.goalCount, gb = T.goalBone, key = S.keyBones;
  let same = S.keyCount === gc;
  for (let g = 0; same && g < gc; g++) same = key[g] === gb[g];
  if (same) return;
  S.keyCount = gc;
  for (let g = 0; g < gc; g++) key[g] = gb[g]!;
  const mark = S.mark, par = T.parentIndex;
  for (let i = 0; i < T.n; i++) mark[i] = 0;
  for (let g = 0; g < gc; g++) {
    for (let i = gb[g]!; i >= 0 && !mark[i]; i = par[i]!) mark[i] = 1;
  }
  let nv = 0, nf = 0, g0 = gc;
  for (let i = T.n - 1; i >= 0; i--) {
    if (!mark[i]) continue;
    // goals are sorted by bone index and a subtree is an index range: its goals are [g0, g1);
    // going down the indices, g0 only moves down
    while (g0 > 0 && gb[g0 - 1]! >= i) g0--;
    let g1 = g0;
    while (g1 < gc && gb[g1]! < T.subtreeEnd[i]!) g1++;
    S.visit[nv] = i; S.vg0[nv] = g0; S.vg1[nv] = g1;
    nv++;
  }
  for (let i = 0; i < T.n; i++) if (mark[i]) S.fwd[nf++] = i;
  S.visitCount = nv; S.fwdCount = nf;
}

/**
 * A unit axis normal to v = vecArg, deterministic: the x axis of rotation q[o] with its
 * component along v removed (its z axis if x is nearly along v), into ax.
 */
function normalAxis(q: number[], o: number): void {
  const vx = vecArg[0]!, vy = vecArg[1]!, vz = vecArg[2]!;
  const vn = Math.sqrt(vx * vx + vy * vy + vz * vz);
  const dx = vx / vn, dy = vy / vn, dz = vz / vn;
  for (let a = 0; a <= 2; a += 2) {
    frameAxis(q, o, a, ax, 0);
    const d = ax[0]! * dx + ax[1]! * dy + ax[2]! * dz;
    const x = ax[0]! - d * dx, y = ax[1]! - d * dy, z = ax[2]! - d * dz;
    const m = Math.sqrt(x * x + y * y + z * z);
    if (m > 0.1 || a === 2) { ax[0] = x / m; ax[1] = y / m; ax[2] = z / m; return; }
  }
}

/**
 * rot[o] ← R(axis, angle) · rot[o] with axis and angle from turnArg (CCD's inner loop writes
 * them there: as arguments the doubles were boxed); false (nothing written) if non-finite.
 */
function turn(rot: Doubles, o: number): boolean {
  return quatTurnWorld(rot, o, turnArg, 0);
}

/** Axis a of bone b locked (limited to a single value), from T's limit arrays. */
function locked(T: IkRig, b: number, a: number): boolean {
  return T.enabled[b * 3 + a] === 1 && T.lmax[b * 3 + a]! - T.lmin[b * 3 + a]! <= 1e-12;
}

/**
 * Clamp bone i (entity b; its rotation in qb, its parent's, of this iteration's start, in qa)
 * to its limits: clampToLimits (common.ts) over the compact pose, the same arithmetic:
 * φ = rotation vector of restLocal⁻¹ · parent⁻¹ · world, clamped, world = parent · restLocal · exp(φ).
 */
function clampCompact(T: IkRig, qa: number[], qb: number[], i: number, b: number): void {
  const p = T.parentIndex[i]!;
  if (p < 0) return;
  const b3 = b * 3;
  quatMulConjA(qr, 0, qa, p * 4, qb, i * 4);
  quatMulConjA(qr, 0, T.restLocal, b * 4, qr, 0);
  quatToRotationVector(phi, 0, qr, 0);
  let clamped = false;
  for (let a = 0; a < 3; a++) {
    if (!T.enabled[b3 + a]) continue;
    const lo = T.lmin[b3 + a]!, hi = T.lmax[b3 + a]!;
    if (phi[a]! < lo) { phi[a] = lo; clamped = true; } else if (phi[a]! > hi) { phi[a] = hi; clamped = true; }
  }
  if (!clamped) return;
  quatFromRotationVector(qr, 0, phi, 0);
  quatMul(qr, 0, T.restLocal, b * 4, qr, 0);
  quatMul(qb, i * 4, qa, p * 4, qr, 0);
  quatNormalize(qb, i * 4);
}

/** Turn the tracked effectors of goals [g0, g1) about pv by bone i's change (in qb) since qc was taken; qc ← the new rotation's conjugate. */
function moveEffectors(T: IkRig, qb: number[], i: number, g0: number, g1: number): void {
  const o = i * 4;
  quatMul(dq, 0, qb, o, qc, 0);
  const x = dq[0]!, y = dq[1]!, z = dq[2]!, w = dq[3]!;
  const px = pv[0]!, py = pv[1]!, pz = pv[2]!, e = T.effector;
  for (let g = g0; g < g1; g++) {
    const o3 = g * 3;
    const vx = e[o3]! - px, vy = e[o3 + 1]! - py, vz = e[o3 + 2]! - pz;
    const tx = 2 * (y * vz - z * vy), ty = 2 * (z * vx - x * vz), tz = 2 * (x * vy - y * vx);
    e[o3] = px + vx + w * tx + (y * tz - z * ty);
    e[o3 + 1] = py + vy + w * ty + (z * tx - x * tz);
    e[o3 + 2] = pz + vz + w * tz + (x * ty - y * tx);
  }
  qc[0] = -qb[o]!; qc[1] = -qb[o + 1]!; qc[2] = -qb[o + 2]!; qc[3] = qb[o + 3]!;
}

/**
 * A joint with any limited axis (bone i, entity b, pivot pv; its rotation in qb, already
 * copied from qa, the parent's in qa): each free axis of the joint frame in turn (the guide's
 * per-axis GetTheta on the plane normal to the axis), clamped to the limits right after each
 * axis; per-goal angles averaged. False on a non-finite value.
 */
function limitedJoint(T: IkRig, S: CcdScratch, qa: number[], qb: number[], i: number, b: number, g0: number, g1: number): boolean {
  const o = i * 4, tiny = T.tiny, gt = S.gt, effector = T.effector;
  const px = pv[0]!, py = pv[1]!, pz = pv[2]!;
  qc[0] = -qb[o]!; qc[1] = -qb[o + 1]!; qc[2] = -qb[o + 2]!; qc[3] = qb[o + 3]!;
  const p = T.parentIndex[i]!;
  if (p < 0) { frame[0] = 0; frame[1] = 0; frame[2] = 0; frame[3] = 1; } else quatMul(frame, 0, qa, p * 4, T.restLocal, b * 4);
  for (let a = 0; a < 3; a++) {
    if (locked(T, b, a)) continue;
    frameAxis(frame, 0, a, ax, 0);
    const ux = ax[0]!, uy = ax[1]!, uz = ax[2]!;
    let sum = 0, cnt = 0;
    for (let g = g0; g < g1; g++) {
      const g3 = g * 3;
      const vx = effector[g3]! - px, vy = effector[g3 + 1]! - py, vz = effector[g3 + 2]! - pz;
      const wx = gt[g3]! - px, wy = gt[g3 + 1]! - py, wz = gt[g3 + 2]! - pz;
      const dv = vx * ux + vy * uy + vz * uz, dw = wx * ux + wy * uy + wz * uz;
      const qx = vx - dv * ux, qy = vy - dv * uy, qz = vz - dv * uz;
      const rx = wx - dw * ux, ry = wy - dw * uy, rz = wz - dw * uz;
      const pn = qx * qx + qy * qy + qz * qz, qn = rx * rx + ry * ry + rz * rz;
      if (!(pn > tiny * tiny) || !(qn > tiny * tiny)) continue; // the guide's default: leave the angle
      cnt++;
      const sine = ux * (qy * rz - qz * ry) + uy * (qz * rx - qx * rz) + uz * (qx * ry - qy * rx);
      const cosine = qx * rx + qy * ry + qz * rz;
      // colinear in this plane with the goal nearer: the bump; behind: atan2 gives the half turn
      if (Math.abs(sine) <= COLINEAR * Math.sqrt(pn * qn) && (cosine < 0 || qn < pn)) special = true;
      // (two additions, not one of a choice between BUMP and atan2: V8 merged that choice as a
      // boxed number, ~1 kB a humanoid step)
      if (Math.abs(sine) <= COLINEAR * Math.sqrt(pn * qn) && cosine > 0 && qn < pn) sum += BUMP;
      else sum += Math.atan2(sine, cosine);
    }
    if (cnt === 0) continue;
    const theta = sum / cnt;
    if (!Number.isFinite(theta)) return false;
    if (theta === 0) continue;
    turnArg[0] = ux; turnArg[1] = uy; turnArg[2] = uz; turnArg[3] = theta;
    if (!turn(qb, o)) return false;
    clampCompact(T, qa, qb, i, b);
    moveEffectors(T, qb, i, g0, g1);
  }
  return true;
}

/**
 * An unlimited joint (bone i, pivot pv; its rotation in qb) by the general rule: per goal of
 * [g0, g1) the whole shortest-arc turn as a rotation vector (the colinear bump or half turn
 * where they apply), the mean applied to the bone and the goals' effectors. False on a
 * non-finite value.
 */
function averagedTurn(T: IkRig, S: CcdScratch, qb: number[], i: number, g0: number, g1: number): boolean {
  const E = T.effector, G = S.gt, tiny = T.tiny, o = i * 4;
  const px = pv[0]!, py = pv[1]!, pz = pv[2]!;
  let sx = 0, sy = 0, sz = 0, cnt = 0;
  for (let g = g0; g < g1; g++) {
    const g3 = g * 3;
    const vx = E[g3]! - px, vy = E[g3 + 1]! - py, vz = E[g3 + 2]! - pz;
    const wx = G[g3]! - px, wy = G[g3 + 1]! - py, wz = G[g3 + 2]! - pz;
    const vn = Math.sqrt(vx * vx + vy * vy + vz * vz), wn = Math.sqrt(wx * wx + wy * wy + wz * wz);
    if (!(vn > tiny) || !(wn > tiny)) continue; // no lever, or the goal at the pivot
    cnt++;
    const cx = vy * wz - vz * wy, cy = vz * wx - vx * wz, cz = vx * wy - vy * wx;
    const sn = Math.sqrt(cx * cx + cy * cy + cz * cz), dt = vx * wx + vy * wy + vz * wz;
    if (sn <= COLINEAR * vn * wn) {
      // colinear: behind the pivot a half turn about a normal; nearer on the line the bump;
      // at or beyond the effector this joint cannot help
      const angle = dt < 0 ? Math.PI : wn < vn - tiny ? BUMP : 0;
      if (angle === 0) continue;
      special = true;
      vecArg[0] = vx; vecArg[1] = vy; vecArg[2] = vz;
      normalAxis(qb, o);
      sx += ax[0]! * angle; sy += ax[1]! * angle; sz += ax[2]! * angle;
    } else {
      const f = Math.atan2(sn, dt) / sn;
      sx += cx * f; sy += cy * f; sz += cz * f;
    }
  }
  if (cnt === 0) return true;
  sx /= cnt; sy /= cnt; sz /= cnt;
  const angle = Math.sqrt(sx * sx + sy * sy + sz * sz);
  if (!Number.isFinite(angle)) return false;
  if (angle === 0) return true;
  turnArg[0] = sx / angle; turnArg[1] = sy / angle; turnArg[2] = sz / angle; turnArg[3] = angle;
  qc[0] = -qb[o]!; qc[1] = -qb[o + 1]!; qc[2] = -qb[o + 2]!; qc[3] = qb[o + 3]!;
  if (!turn(qb, o)) return false;
  moveEffectors(T, qb, i, g0, g1);
  return true;
}

/**
 * The sweep of one CCD iteration over pose A: every bone on a goal's chain, children before
 * parents, turned for the goals of its subtree (its pivot, A's head, has not moved yet: only
 * descendants have turned). A turn is not applied to any rotation here: it is kept as the
 * bone's world-frame delta D (S.dq; identity for a fully locked bone), which the forward pass
 * composes down the tree. T.effector holds the goals' attachments of pose A and is kept up to
 * date through the turns. False on a non-finite value.
 *
 * The common case, an unlimited joint with one goal below it, is done here without
 * trigonometry: D = normalize(v × w, |v||w| + v·w) (v = effector − pivot, w = target − pivot)
 * is the half-angle quaternion of the shortest arc, the rotation the general rule makes from
 * atan2, sin and cos (to rounding), and the effector, D v from the pivot, is pivot + w |v|/|w|.
 * Near a half turn |v||w| + v·w cancels (an arc wider than about 172°, where 1 + cos θ < WIDE),
 * and colinear cases need the bump or half turn: those go to averagedTurn, and limited joints
 * to limitedJoint, on a copy of the bone's rotation (S.qt) from which D is taken.
 */
function sweep(rig: RigRecord, T: IkRig, S: CcdScratch, A: Pose, pinned: boolean): boolean {
  const qa = A.q, hd = A.hd, dq = S.dq, qt = S.qt, E = T.effector, G = S.gt, lim = S.lim;
  const visit = S.visit, vg0 = S.vg0, vg1 = S.vg1, skip = S.skip, tiny2 = T.tiny * T.tiny, col2 = COLINEAR * COLINEAR;
  for (let k = 0; k < S.visitCount; k++) {
    const i = visit[k]!, o = i * 4;
    if (skip[i] === 1) { dq[o] = 0; dq[o + 1] = 0; dq[o + 2] = 0; dq[o + 3] = 1; continue; } // fully locked: no turn
    const g0 = vg0[k]!, g1 = vg1[k]!;
    // the pivot: the head, or a floating root's centre
    let px: number, py: number, pz: number;
    if (i === 0 && !pinned) { px = S.cx; py = S.cy; pz = S.cz; } else { px = hd[i * 3]!; py = hd[i * 3 + 1]!; pz = hd[i * 3 + 2]!; }
    let general = true;
    if (lim[i] === 0 && g1 - g0 === 1) {
      const g3 = g0 * 3;
      const vx = E[g3]! - px, vy = E[g3 + 1]! - py, vz = E[g3 + 2]! - pz;
      const wx = G[g3]! - px, wy = G[g3 + 1]! - py, wz = G[g3 + 2]! - pz;
      const vv = vx * vx + vy * vy + vz * vz, ww = wx * wx + wy * wy + wz * wz;
      const dt = vx * wx + vy * wy + vz * wz;
      const cx = vy * wz - vz * wy, cy = vz * wx - vx * wz, cz = vx * wy - vy * wx;
      const cc = cx * cx + cy * cy + cz * cz;
      if (vv > tiny2 && ww > tiny2 && cc > col2 * vv * ww) {
        // r = |v|/|w|; |v||w| = r |w|²; dw = |v||w| + v·w = |v||w| (1 + cos θ)
        const r = Math.sqrt(vv / ww), vw = r * ww, dw = vw + dt;
        if (!Number.isFinite(r)) return false;
        if (dw > WIDE * vw) {
          // the effector lands on the pivot-target line at its distance, pivot + w |v|/|w| (the
          // next joint waits for this, so it comes first and takes one square root); then
          // D, with |(v × w, dw)|² = 2 |v||w| dw
          E[g3] = px + wx * r; E[g3 + 1] = py + wy * r; E[g3 + 2] = pz + wz * r;
          const f = 1 / Math.sqrt(2 * vw * dw);
          dq[o] = cx * f; dq[o + 1] = cy * f; dq[o + 2] = cz * f; dq[o + 3] = dw * f;
          general = false;
        }
      }
    }
    if (general) {
      const qx = qa[o]!, qy = qa[o + 1]!, qz = qa[o + 2]!, qw = qa[o + 3]!;
      qt[o] = qx; qt[o + 1] = qy; qt[o + 2] = qz; qt[o + 3] = qw;
      pv[0] = px; pv[1] = py; pv[2] = pz;
      if (lim[i] === 1 ? !limitedJoint(T, S, qa, qt, i, rig.bones[i]!, g0, g1) : !averagedTurn(T, S, qt, i, g0, g1)) return false;
      // D = turned · start⁻¹
      const bx = qt[o]!, by = qt[o + 1]!, bz = qt[o + 2]!, bw = qt[o + 3]!;
      dq[o] = bw * -qx + bx * qw + by * -qz - bz * -qy;
      dq[o + 1] = bw * -qy - bx * -qz + by * qw + bz * -qx;
      dq[o + 2] = bw * -qz + bx * -qy - by * -qx + bz * qw;
      dq[o + 3] = bw * qw - bx * -qx - by * -qy - bz * -qz;
    }
  }
  return true;
}

/**
 * The forward pass from pose A into pose B over the bones on goal chains: each bone's
 * accumulated delta (its ancestors' and its own turns of this sweep, composed root first:
 * acc = acc(parent) · D) gives its new world rotation acc · A's (normalised); its head is the
 * parent's new head + the parent's new rotation · attach (a pinned root's head stays; a
 * floating root's is its centre − R (0, L/2, 0)); then the goals' attachments (effectors).
 * (The world rotation after the sweep is D_root ⋯ D_parent · D · A's: every turn of an ancestor
 * was made in the frame of the sweep's start, which it had not left yet.)
 */
function forward(T: IkRig, S: CcdScratch, A: Pose, B: Pose, pinned: boolean): void {
  const qa = A.q, q = B.q, hd = B.hd, acc = S.acc, dq = S.dq, att = S.att, par = T.parentIndex, fwd = S.fwd;
  // the previous bone's results, carried: in a chain it is the next bone's parent
  let last = -1, lax = 0, lay = 0, laz = 0, law = 1, lqx = 0, lqy = 0, lqz = 0, lqw = 1, lhx = 0, lhy = 0, lhz = 0;
  for (let k = 0; k < S.fwdCount; k++) {
    const i = fwd[k]!, o = i * 4, i3 = i * 3, p = par[i]!;
    let ux = dq[o]!, uy = dq[o + 1]!, uz = dq[o + 2]!, uw = dq[o + 3]!;
    let hx: number, hy: number, hz: number;
    if (p >= 0) {
      if (p !== last) {
        const r = p * 4, p3 = p * 3;
        lax = acc[r]!; lay = acc[r + 1]!; laz = acc[r + 2]!; law = acc[r + 3]!;
        lqx = q[r]!; lqy = q[r + 1]!; lqz = q[r + 2]!; lqw = q[r + 3]!;
        lhx = hd[p3]!; lhy = hd[p3 + 1]!; lhz = hd[p3 + 2]!;
      }
      // acc = acc(parent) · D: not normalised (each factor is unit to rounding; the
      // normalisation below stays off this chain from bone to bone)
      const dx = ux, dy = uy, dz = uz, dw = uw;
      ux = law * dx + lax * dw + lay * dz - laz * dy;
      uy = law * dy - lax * dz + lay * dw + laz * dx;
      uz = law * dz + lax * dy - lay * dx + laz * dw;
      uw = law * dw - lax * dx - lay * dy - laz * dz;
      // head: the parent's head + the attach offset rotated by the parent's new rotation
      const vx = att[i3]!, vy = att[i3 + 1]!, vz = att[i3 + 2]!;
      if (vx === 0 && vz === 0) {
        // attached on the parent's axis (at its tail, as a chain is): the matrix's y column × vy
        hx = lhx + 2 * (lqx * lqy - lqz * lqw) * vy;
        hy = lhy + (1 - 2 * (lqx * lqx + lqz * lqz)) * vy;
        hz = lhz + 2 * (lqy * lqz + lqx * lqw) * vy;
      } else {
        const tx = 2 * (lqy * vz - lqz * vy), ty = 2 * (lqz * vx - lqx * vz), tz = 2 * (lqx * vy - lqy * vx);
        hx = lhx + vx + lqw * tx + (lqy * tz - lqz * ty);
        hy = lhy + vy + lqw * ty + (lqz * tx - lqx * tz);
        hz = lhz + vz + lqw * tz + (lqx * ty - lqy * tx);
      }
    } else {
      hx = hd[i3]!; hy = hd[i3 + 1]!; hz = hd[i3 + 2]!;
    }
    acc[o] = ux; acc[o + 1] = uy; acc[o + 2] = uz; acc[o + 3] = uw;
    // world = acc · A's world
    const bx = qa[o]!, by = qa[o + 1]!, bz = qa[o + 2]!, bw = qa[o + 3]!;
    let x = uw * bx + ux * bw + uy * bz - uz * by;
    let y = uw * by - ux * bz + uy * bw + uz * bx;
    let z = uw * bz + ux * by - uy * bx + uz * bw;
    let w = uw * bw - ux * bx - uy * by - uz * bz;
    // normalise: |q|² is 1 to rounding here (unit factors), where one Newton step
    // 1/|q| ≈ 1.5 − 0.5 |q|² is exact to double precision (error 3δ²/8 for |q|² = 1 + δ)
    // and needs no square root; otherwise the square root
    const n2 = x * x + y * y + z * z + w * w;
    if (n2 > 1 - 1e-9 && n2 < 1 + 1e-9) {
      const s = 1.5 - 0.5 * n2;
      x *= s; y *= s; z *= s; w *= s;
    } else {
      const m = Math.sqrt(n2);
      const s = m > 0 ? 1 / m : 0;
      x *= s; y *= s; z *= s; w = m === 0 ? 1 : w * s;
    }
    q[o] = x; q[o + 1] = y; q[o + 2] = z; q[o + 3] = w;
    if (p < 0 && !pinned) {
      // the root's head from its centre: centre − R (0, L/2, 0)
      const h = S.half;
      hx = S.cx - 2 * (x * y - z * w) * h;
      hy = S.cy - (1 - 2 * (x * x + z * z)) * h;
      hz = S.cz - 2 * (y * z + x * w) * h;
    }
    hd[i3] = hx; hd[i3 + 1] = hy; hd[i3 + 2] = hz;
    last = i; lax = ux; lay = uy; laz = uz; law = uw; lqx = x; lqy = y; lqz = z; lqw = w; lhx = hx; lhy = hy; lhz = hz;
  }
  effectors(T, S, B);
}

/** The goals' attachments in pose B (head + R (offset + (0, at·L, 0))) into T.effector; Σ|e|² into T.sumSq, the largest distance (NaN if non-finite) into T.worst. */
function effectors(T: IkRig, S: CcdScratch, B: Pose): void {
  const q = B.q, hd = B.hd, gv = S.gv, gt = S.gt, E = T.effector, gb = T.goalBone;
  let worst = 0, sum = 0;
  for (let g = 0; g < T.goalCount; g++) {
    const i = gb[g]!, o = i * 4, i3 = i * 3, g3 = g * 3;
    const x = q[o]!, y = q[o + 1]!, z = q[o + 2]!, w = q[o + 3]!;
    const vx = gv[g3]!, vy = gv[g3 + 1]!, vz = gv[g3 + 2]!;
    const tx = 2 * (y * vz - z * vy), ty = 2 * (z * vx - x * vz), tz = 2 * (x * vy - y * vx);
    const ex = hd[i3]! + vx + w * tx + (y * tz - z * ty);
    const ey = hd[i3 + 1]! + vy + w * ty + (z * tx - x * tz);
    const ez = hd[i3 + 2]! + vz + w * tz + (x * ty - y * tx);
    E[g3] = ex; E[g3 + 1] = ey; E[g3 + 2] = ez;
    const dx = gt[g3]! - ex, dy = gt[g3 + 1]! - ey, dz = gt[g3 + 2]! - ez;
    const d2 = dx * dx + dy * dy + dz * dz, d = Math.sqrt(d2);
    sum += d2;
    if (!(d <= worst)) worst = d; // NaN propagates
  }
  T.sumSq = sum;
  T.worst = worst;
}

/**
 * Pose F into the world: world rotations of the bones on goal chains from F, the others (with
 * `rebuild`: the chains moved) rebuilt from their unchanged locals (S.loc) under their new
 * parents, else as loaded (F is pose 0 then); then heads and tails.
 */
function writeBack(world: PhysikWorld, rig: RigRecord, T: IkRig, S: CcdScratch, F: Pose, rebuild: boolean): void {
  const q = F.q, loc = S.loc, par = T.parentIndex, rot = T.rot, bones = rig.bones;
  for (let i = 0; i < T.n; i++) {
    const o = i * 4;
    if (rebuild && !S.mark[i]) {
      const p = par[i]!;
      if (p < 0) { q[o] = loc[o]!; q[o + 1] = loc[o + 1]!; q[o + 2] = loc[o + 2]!; q[o + 3] = loc[o + 3]!; }
      else quatMul(q, o, q, p * 4, loc, o);
      quatNormalize(q, o);
    }
    const s = bones[i]! * 4;
    rot[s] = q[o]!; rot[s + 1] = q[o + 1]!; rot[s + 2] = q[o + 2]!; rot[s + 3] = q[o + 3]!;
  }
  refreshPose(world, rig);
}

const rv = doubles(3), rq = doubles(4);

/**
 * Restart r into pose F: every chain joint's rotation vector at a pseudo-random point of its box
 * (free axes within ±1 rad), the root as in pose C; heads from the parents; deterministic in r.
 */
function restartPose(T: IkRig, S: CcdScratch, C: Pose, F: Pose, bones: ArrayLike<number>, r: number, tol: number): void {
  const q = F.q, hd = F.hd, att = S.att, par = T.parentIndex;
  restartMask(T, S.mark, tol);
  q[0] = C.q[0]!; q[1] = C.q[1]!; q[2] = C.q[2]!; q[3] = C.q[3]!;
  hd[0] = C.hd[0]!; hd[1] = C.hd[1]!; hd[2] = C.hd[2]!;
  let h = Math.imul(r + 1, 0x9e3779b9) | 0;
  for (let i = 1; i < T.n; i++) {
    if (!S.mark[i]) continue;
    const b = bones[i]!, p = par[i]!, o = i * 4, i3 = i * 3;
    if (!restartBones[i]) {
      // kept: its rotation relative to its parent as in pose C
      quatMulConjA(rq, 0, C.q, p * 4, C.q, o);
      quatMul(q, o, q, p * 4, rq, 0);
    } else {
      for (let a = 0; a < 3; a++) {
        h = (h + 0x6d2b79f5) | 0;
        let t = Math.imul(h ^ (h >>> 15), 1 | h);
        t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
        const u = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
        rv[a] = T.enabled[b * 3 + a] ? T.lmin[b * 3 + a]! + (T.lmax[b * 3 + a]! - T.lmin[b * 3 + a]!) * u : 2 * u - 1;
      }
      quatFromRotationVector(rq, 0, rv, 0);
      quatMul(q, o, q, p * 4, T.restLocal, b * 4);
      quatMul(q, o, q, o, rq, 0);
    }
    quatNormalize(q, o);
    const r4 = p * 4, p3 = p * 3, x = q[r4]!, y = q[r4 + 1]!, z = q[r4 + 2]!, w = q[r4 + 3]!;
    const vx = att[i3]!, vy = att[i3 + 1]!, vz = att[i3 + 2]!;
    const tx = 2 * (y * vz - z * vy), ty = 2 * (z * vx - x * vz), tz = 2 * (x * vy - y * vx);
    hd[i3] = hd[p3]! + vx + w * tx + (y * tz - z * ty);
    hd[i3 + 1] = hd[p3 + 1]! + vy + w * ty + (z * tx - x * tz);
    hd[i3 + 2] = hd[p3 + 2]! + vz + w * tz + (x * ty - y * tx);
  }
}

export function ccdSolve(world: PhysikWorld, rig: RigRecord): SolveResult {
  const { Rig } = world.physik;
  const s = rig.settings;
  const T = ikRig(world, rig);
  const h = Rig.height[rig.eid]! > 0 ? Rig.height[rig.eid]! : 1;
  const tol = s.ikTolerance * h;
  T.tiny = 1e-12 * h; // (a field: a double passed as an argument would be boxed)
  const pinned = Rig.pinned[rig.eid] === 1;
  if (collectGoals(world, rig, T) === 0) return solved(0, CONVERGED);
  if (!goalsFinite(world, T)) return solved(0, DIVERGED);
  // the world is not written before writeBack: on a non-finite value it still holds the pose
  // of the solve's start, which is what a diverged solve must leave
  const rest = s.ikMode === 'path-independent';
  const S = scratchOf(T), pose = S.pose;
  loadScratch(world, rig, T, S, pinned, rest);
  effectors(T, S, pose[0]!);
  let err = T.worst;
  if (!Number.isFinite(err)) { refreshPose(world, rig); return solved(0, DIVERGED); }
  let it = 0;
  let status = STALLED;
  if (err <= tol) status = CONVERGED;
  // The best pose of this solve is kept; iterations may make things worse for a while (a
  // clamp, goals pulling apart), but if PATIENCE of them in a row do not beat the best, or the
  // cap is reached, the best pose is put back. So a solve never ends worse than it started and
  // a blocked rig settles instead of wandering from step to step. A colinear bump or half turn
  // leaves a saddle and may cost error at first: it becomes the new best unconditionally.
  // Poses: cur is the latest, best the best so far (maybe the same); an iteration writes into
  // a third, neither of them.
  let best = T.sumSq, worse = 0, cur = 0, bestPose = 0;
  // since the last restart: the best Σ|e|² (the patience counts against it); a stall restarts
  let runBest = best, restarts = 0, stuck = false;
  const poseIt = S.poseIt;
  poseIt[0] = 0;
  while (status !== CONVERGED && it < s.ikIterations) {
    if (stuck) {
      stuck = false;
      if (s.ikIterations - it < RESTART_LEFT || restarts >= MAX_RESTARTS) break;
      const next = cur !== 1 && bestPose !== 1 ? 1 : cur !== 2 && bestPose !== 2 ? 2 : 0;
      restartPose(T, S, pose[cur]!, pose[next]!, rig.bones, restarts++, tol);
      cur = next;
      poseIt[cur] = it;
      effectors(T, S, pose[cur]!);
      err = T.worst; runBest = T.sumSq; worse = 0;
      if (!Number.isFinite(err)) { refreshPose(world, rig); return solved(it, DIVERGED); }
      if (err <= tol) { status = CONVERGED; break; }
    }
    it++;
    special = false;
    const next = cur !== 1 && bestPose !== 1 ? 1 : cur !== 2 && bestPose !== 2 ? 2 : 0;
    if (!sweep(rig, T, S, pose[cur]!, pinned)) { refreshPose(world, rig); return solved(it, DIVERGED); }
    forward(T, S, pose[cur]!, pose[next]!, pinned);
    cur = next;
    poseIt[cur] = it;
    const e = T.worst;
    if (!Number.isFinite(e)) { refreshPose(world, rig); return solved(it, DIVERGED); }
    if (e <= tol) { status = CONVERGED; break; }
    const still = Math.abs(err - e) <= 1e-13 * h; // nothing changes: unreachable or blocked
    err = e;
    if (special || T.sumSq < best) { best = T.sumSq; bestPose = cur; }
    if (special || T.sumSq < runBest) { runBest = T.sumSq; worse = 0; } else if (++worse >= PATIENCE) { stuck = true; continue; }
    if (still) stuck = true;
  }
  // the best pose back unless the latest converged or is as good
  const final = status !== CONVERGED && T.sumSq > best ? bestPose : cur;
  // a pose of iteration 0 is the pose of the solve's start (pose 0 as loaded: the rest pose, or
  // the current one, which the world already holds: then only heads and tails are refreshed)
  const moved = poseIt[final]! > 0;
  if (moved || rest) writeBack(world, rig, T, S, pose[final]!, moved);
  else refreshPose(world, rig);
  applyPoles(world, rig, T);
  return solved(it, status);
}
