/**
 * FABRIK (forward and backward reaching inverse kinematics) on a bone tree, as a kinematic
 * solver, with the joint limits applied inside both reaching passes.
 *
 * References: A. Aristidou and J. Lasenby, "FABRIK: A fast, iterative solver for the Inverse
 * Kinematics problem" (Graphical Models, 2011): the backward pass from the effectors to the
 * root and the forward pass from the fixed base; sub-bases where chains meet, reached from each
 * branch and averaged; joint constraints enforced at each joint while reaching, in both passes,
 * with an orientation frame carried per joint so twist is measured in the joint frame.
 * A. Lansley, P. Vamplew, P. Smith and C. Foale, "Caliko: An Inverse Kinematics Software
 * Library Implementation of the FABRIK Algorithm" (Journal of Open Research Software, 2016):
 * rotor (cone) and hinge constraints on a bone's direction relative to the bone placed just
 * before it, in the backward pass against the outer joint's constraint, in the forward pass
 * against the bone's own. SpehleonLP, "Inverse Kinematics Guide" (Fabrik Solver): depth-first
 * order; FABRIK alone has no notion of roll (here roll is carried and chosen, below).
 *
 * Limits are per axis of the joint frame (x, z swing, y twist), a box on the joint's rotation
 * vector φ = log(restLocal⁻¹ · parent⁻¹ · world), as clampToLimits and the torsion springs read
 * them: a hinge is a box with two locked axes, a rotor one with ranges on x and z (and y).
 *
 * What it does, per step:
 * - Goals are the active non-pole control points. A goal's point lies on its bone's axis at
 *   u = (at·length + offset.y)/length (u = 1 is the tail); the offset's x/z part is taken
 *   off the target using the bone's rotation at the start of the iteration. A goal at the
 *   bone's head (u = 0) is a goal on the parent at the point where the bone attaches.
 * - Every bone carries a whole rotation through both passes, not only a direction: a pass
 *   turns a bone by the shortest arc from where it pointed to where it must point, so its roll
 *   is kept from pass to pass (the paper's joint frames) instead of being reset to rest.
 * - Backward pass, children before parents: every bone on a goal's chain is fitted to its
 *   requests (goal points, and the backward heads of its chain children at their attach
 *   fractions). Requests at one fraction are averaged and reached the usual FABRIK way (the
 *   point goes to the average, the head follows from where it was): the sub-base averaging
 *   where chains meet. Requests at different fractions along one bone (e.g. legs at the hips'
 *   head, spine at its tail) get a least-squares line fit. A bone whose only request is its
 *   one chain child c is held by c's limits: its rotation is c's backward rotation times the
 *   inverse of a joint rotation inside c's box, the one that points the bone best from its
 *   old head (`project`: in closed form for a hinge, else projected Gauss-Newton on φ).
 * - Forward pass, root first: the root's head stays where it is (at Rig.pin when pinned; a
 *   floating root also stays where it is: FABRIK's base is fixed, so this solver never
 *   translates a rig), each head follows from its parent's final rotation, and the bone aims
 *   at its requests: its backward rotation turned by the shortest arc onto the aim; where that
 *   leaves its own joint's box, the joint rotation inside the box that points the bone best.
 *   A bone with several points to carry (a sub-base: several chain children, or children on
 *   locked joints, which move with it as one rigid body, e.g. a torso with its hips and
 *   collarbones) takes the rotation about its head that brings them closest to where they
 *   reach (least squares, `rigidFit`). clampToLimits runs after every placement as a safety
 *   net (it changes nothing but rounding), so every limit holds at the end.
 * - Roll chosen ahead: a bone's roll about its own axis does not move it but turns the next
 *   joint's limits about that axis (a hinge's plane, a rotor's asymmetric ranges). When the
 *   next bones of the pass would leave their boxes, the bone just placed is rolled, within what
 *   its own joint allows, to the least roll that lets the next LOOK_DEPTH bones (placed
 *   greedily) point where they must, or that brings them closest (`twistSearch`). Forward: the
 *   next bones are the chain below; backward: the parents. This is what lets a free shoulder
 *   turn an elbow hinge toward its target, and an effector roll so its parent can follow.
 * - After the forward pass the whole tree is turned about the base so the goal points come
 *   closest to their targets (`turnAboutBase`): the root's joint is free, so no limit changes;
 *   a chain curled against its limits otherwise keeps the heading its backward pass gave it.
 * - Bones on no goal's chain (and bones whose direction no goal determines) keep their
 *   rotation relative to their parent.
 * - Pole: a pole control point on bone B concerns the joint J at B's head. The chain through
 *   J runs from its base (the head of the first bone above J that is the root or hangs from
 *   a sub-base: a bone with a goal or with two chain children) to its effector (the first
 *   goal in B's subtree). When J is off the base–effector line, the chain's backward
 *   positions and rotations are turned about that line so J lies in the plane of base,
 *   effector and pole, on the pole's side, before the section is placed.
 * - One goal beyond a straight chain's reach: the chain points straight at it (inside the
 *   limits), status stalled.
 * - Restarts: the passes are greedy, and with tight limits (one-sided hinges above all) they can
 *   settle on a pose that does not reach a reachable target. When an iteration brings nothing
 *   (or PATIENCE of them in a row gain under 0.1% on the best) and at least PATIENCE iterations
 *   are left, the chains restart from a pose drawn inside the limits (a fixed pseudo-random
 *   sequence, so the same input gives the same bits); the best pose of the solve is kept. With
 *   the default 10 iterations a step never restarts; a rig given a few hundred does.
 * - Modes: 'path-dependent' starts from the current pose and runs at most ikIterations;
 *   'path-independent' resets every rotation to rest first and iterates to tolerance
 *   (ikTolerance × Rig.height) or ikIterations. The best iteration of the step is kept.
 *   With an active pole at least one iteration runs (so moving the pole turns the bend).
 *   Status: converged within tolerance; stalled otherwise (a goal out of reach, goals that
 *   cannot all be met, or the iterations ran out first); diverged when a target or a result is
 *   not finite (then the rig is restored as it was: nothing non-finite is written).
 *
 * Measured (tests/unit/ik-fabrik-limits.test.ts): random limited chains of 3 to 30 bones
 * (rotors, one- and two-sided hinges, twist limits) reach targets taken from random poses
 * inside their limits to 1e-3 of their length in 200 of 200 cases with 300 iterations (1000 of
 * 1000 in a longer run of the same generator; 979 of 1000 with restarts turned off), no limit
 * exceeded by more than rounding (1e-13°). Clamping after each placement, as this solver did
 * before, reached 271 of 1000.
 *
 * Limits of the method: each joint does its best given the bone placed before it, with a few
 * bones of look-ahead for roll, so a solve can stall short of a reachable target until a restart
 * finds a better start, and restarts need iterations; several goals on one tree settle on a
 * compromise (averaged sub-bases, the least-squares turn) and approach their targets slowly
 * when they can all be met only just; a chain lying exactly on the line to its target
 * (straight pose, target straight ahead and closer) cannot bend (the guide's colinear case).
 */
import type { PhysikWorld, RigRecord } from '../../src/world/world';
import { STATUS_CONVERGED, STATUS_DIVERGED, STATUS_STALLED } from '../../components';
import { quatArc, quatMul, quatMulConjA, quatNormalize, quatToRotationVector, quatFromRotationVector, quatRotateArr, quatRotateInvArr } from '../../src/math/quat';
import { copyDoubles, type Doubles } from '../../components/doubles';
import type { SolveResult } from './solver';
import { clampToLimits, refreshPose, solved } from './common';

/** Gauss-Newton iterations of one joint's projection into its box (it stops sooner when done). */
const PROJECT_ITERATIONS = 24;
/** Samples of the roll over its allowed range in the look-ahead, and refinements after them. */
const TWIST_SAMPLES = 24;
const TWIST_REFINE = 20;
/** Under this angle (radians) left to the next bones, the roll is only refined near where it is. */
const LOCAL_ANGLE = 0.05;
/** Bones the roll look-ahead places (greedily) past the bone being rolled. */
const LOOK_DEPTH = 3;
/** A joint rotation vector this far (radians) outside its box still counts as inside (rounding). */
const BOX_EPS = 1e-12;
/** Iterations in a row without a gain of 0.1% on the best before the solve restarts elsewhere. */
const PATIENCE = 12;

// ---------- scratch (grown, never shrunk) ----------

let boneCap = 0;
let par = new Int32Array(0); // parent index (depth-first index), -1 for the root
let frac = new Float64Array(0); // attach point along the parent, as a fraction of its length
let len = new Float64Array(0);
let hp = new Float64Array(0); // head positions (3 per bone)
let bh = new Float64Array(0); // backward-pass head positions
let bq = new Float64Array(0); // backward-pass world rotations (4 per bone)
let hasBq = new Uint8Array(0); // 1 when bq holds this iteration's backward rotation
let rollMiss = new Float64Array(0); // per bone and pass: the error at no roll when a roll search last found nothing (0: none)
let accN = new Float64Array(0); // requests: count, Σu, Σu², ΣD, Σu·D
let accU = new Float64Array(0);
let accUU = new Float64Array(0);
let accD = new Float64Array(0);
let accUD = new Float64Array(0);
let loc = new Float64Array(0); // rotation relative to the parent at the start of the solve
let backup = new Float64Array(0); // world rotations as they were (restored on divergence)
let best = new Float64Array(0); // world rotations of the best iteration
let onChain = new Uint8Array(0);
let hasGoal = new Uint8Array(0);
let chainKids = new Int32Array(0);
let soleKid = new Int32Array(0); // the one chain child when it is the bone's only request, else -1
let kidOf = new Int32Array(0); // a chain child of each bone (the last found; the one when chainKids is 1)
let limited = new Uint8Array(0); // any axis of the bone's joint limited
let hinge = new Int8Array(0); // the joint's one free axis (0 x, 1 y, 2 z) when the other two are locked at 0; 3 all locked; -1 otherwise
let lo = new Float64Array(0); // box of the joint rotation vector (3 per bone; ±Infinity: free axis)
let hi = new Float64Array(0);
let contrib = new Float64Array(0); // single goal: length each bone adds along a straight chain
let locked = new Uint8Array(0); // every axis of the bone's joint locked (the bone moves rigidly with its parent)
let firstKid = new Int32Array(0); // child lists (depth-first indices), -1 ends
let nextSib = new Int32Array(0);
/**
 * Rigid points: the points bone i carries to its requests in the forward pass, through chains of
 * locked joints (a locked child is part of the bone): local point (3, in i's frame), what it
 * reaches for (a goal, or the backward head of a bone), per bone a range [rpStart, rpStart+rpCount).
 */
let rpStart = new Int32Array(0);
let rpCount = new Int32Array(0);
let rpFit = new Uint8Array(0); // 1: the bone's rotation is fitted to its rigid points (several, or through a locked joint)
let rpLocal = new Float64Array(0);
let rpGoal = new Int32Array(0);
let rpFrom = new Int32Array(0);
let rpCap = 0;
let stBone = new Int32Array(0); // the walk through locked children: bone, transform (offset 3, rotation 4)
let stT = new Float64Array(0);

let cpCap = 0;
let gCp = new Int32Array(0); // goal control point
let gOwn = new Int32Array(0); // index of the bone it is attached to
let gBone = new Int32Array(0); // index of the bone that reaches for it (-1: unmovable)
let gU = new Float64Array(0); // fraction along gBone
let gD = new Float64Array(0); // point gBone's axis must reach (3 per goal)
let pCp = new Int32Array(0); // pole control point
let pB = new Int32Array(0); // bone index B (the pole's joint is B's head)
let pTop = new Int32Array(0); // first bone of the section (its head is the chain's base)
let pGoal = new Int32Array(0); // goal index of the effector

let idxOf = new Int32Array(0); // depth-first index by bone entity

const base = new Float64Array(3);
const q = new Float64Array(4);
const frame = new Float64Array(4);
const r = new Float64Array(4);
const v = new Float64Array(3);
const rootCentre = new Float64Array(3);
/**
 * Numbers handed to and from helpers V8 does not inline go through these arrays: a
 * floating-point argument or return value would be boxed (an allocation per call).
 * errOut[0]: goalError's result, errOut[1]: the rig's height; straightDir: forward's straight-line direction.
 */
const errOut = new Float64Array(2);
const straightDir = new Float64Array(3);
/** The two unit vectors of a shortest arc (quatArc: from 0..2 onto 3..5), and the arc, `arcQ`. */
const av = new Float64Array(6);
const arcQ = new Float64Array(4);
/**
 * `project` and `proxy`: maximise vf · E(φ) vr over φ in bone i's box. vr (0..2), vf (3..5),
 * φ in/out (6..8), the angle left between E(φ) vr and vf out (9), a trial φ (10..12), E(φ) vr (13..15).
 */
const pj = new Float64Array(16);
const pq = new Float64Array(4);
const Y = new Float64Array([0, 1, 0]);
/** Look-ahead: the bone's rotation before rolling (tq), its axis, the next bone's aim (world), a frame, τ and results. */
const tq = new Float64Array(4);
const tw = new Float64Array(4);
const tAxis = new Float64Array(3);
const tDir = new Float64Array(3);
const tF = new Float64Array(4);
const tS = new Float64Array(3);
const tRef = new Float64Array(4); // the next bone's reference rotation (its carried rotation, aimed)
/** tEps[0]: the angle (radians) under which the next bones count as reaching their aims (a tenth of ikTolerance). */
const tEps = new Float64Array(1);
/** fitRotation: vector pairs, the rotation found, a length scale. */
let wA = new Float64Array(48);
let wB = new Float64Array(48);
const wQ = new Float64Array(4);
const wS = new Float64Array(1);
/** The look-ahead's greedy placement: rotations (12), a head, the rolled bone's head; the world's stores it reads. */
const simQ = new Float64Array(12);
const simH = new Float64Array(3);
const tsHead = new Float64Array(3);
let tsStraight = false;
let attachS: Doubles = new Float64Array(0);
let bonesS: ArrayLike<number> = [];
const tTau = new Float64Array(3); // [0] τ, [1] error at τ (Infinity where the bone's own box is left), [2] the real error at no roll
const tv = new Float64Array(8);
let tsForward = true;
let tsBone = 0; // the bone being rolled (depth-first index)
let tsNext = 0; // forward: the chain child whose box is looked at; backward: unused (the box is tsBone's)
let tsCon = -1; // the joint that bounds the roll: forward tsBone itself (if limited), backward its chain child; -1 free
let tsBoneEid = 0, tsNextEid = 0, tsConEid = 0;
let restLocalS: Doubles = new Float64Array(0); // Bone.restLocal of the world being solved

function growBones(n: number): void {
  if (n <= boneCap) return;
  const c = Math.max(n, boneCap * 2, 16);
  boneCap = c;
  par = new Int32Array(c); frac = new Float64Array(c); len = new Float64Array(c);
  hp = new Float64Array(c * 3); bh = new Float64Array(c * 3); bq = new Float64Array(c * 4); hasBq = new Uint8Array(c); rollMiss = new Float64Array(c * 2);
  accN = new Float64Array(c); accU = new Float64Array(c); accUU = new Float64Array(c);
  accD = new Float64Array(c * 3); accUD = new Float64Array(c * 3);
  loc = new Float64Array(c * 4); backup = new Float64Array(c * 4); best = new Float64Array(c * 4);
  onChain = new Uint8Array(c); hasGoal = new Uint8Array(c); chainKids = new Int32Array(c); soleKid = new Int32Array(c); kidOf = new Int32Array(c);
  limited = new Uint8Array(c); hinge = new Int8Array(c); lo = new Float64Array(c * 3); hi = new Float64Array(c * 3);
  contrib = new Float64Array(c);
  locked = new Uint8Array(c); firstKid = new Int32Array(c); nextSib = new Int32Array(c);
  rpStart = new Int32Array(c); rpCount = new Int32Array(c); rpFit = new Uint8Array(c);
  stBone = new Int32Array(c); stT = new Float64Array(c * 7);
}

function growRigidPoints(k: number): void {
  if (k <= rpCap) return;
  const c = Math.max(k, rpCap * 2, 16);
  rpCap = c;
  rpLocal = new Float64Array(c * 3); rpGoal = new Int32Array(c); rpFrom = new Int32Array(c);
}

function growControlPoints(m: number): void {
  if (m <= cpCap) return;
  const c = Math.max(m, cpCap * 2, 8);
  cpCap = c;
  gCp = new Int32Array(c); gOwn = new Int32Array(c); gBone = new Int32Array(c);
  gU = new Float64Array(c); gD = new Float64Array(c * 3);
  pCp = new Int32Array(c); pB = new Int32Array(c); pTop = new Int32Array(c); pGoal = new Int32Array(c);
}

function growIndex(maxEid: number): void {
  if (maxEid < idxOf.length) return;
  idxOf = new Int32Array(Math.max(maxEid + 1, idxOf.length * 2, 64));
}

// ---------- rotations and boxes ----------

/** out ← rotation `src` turned by the shortest arc from its +Y axis onto unit direction a[ao..ao+2]. */
function aimFrom(out: Float64Array, oo: number, src: Doubles, so: number, a: Doubles, ao: number): void {
  const x = src[so]!, y = src[so + 1]!, z = src[so + 2]!, w = src[so + 3]!;
  av[0] = 2 * (x * y - z * w); av[1] = 1 - 2 * (x * x + z * z); av[2] = 2 * (y * z + x * w);
  av[3] = a[ao]!; av[4] = a[ao + 1]!; av[5] = a[ao + 2]!;
  quatArc(arcQ, 0, av, 0, av, 3);
  quatMul(out, oo, arcQ, 0, src, so);
  quatNormalize(out, oo);
}

/** Whether φ (arr[o..o+2]) lies in bone i's box, to BOX_EPS. */
function inBox(i: number, arr: Float64Array, o: number): boolean {
  const i3 = i * 3;
  for (let a = 0; a < 3; a++) {
    const x = arr[o + a]!;
    if (!(x >= lo[i3 + a]! - BOX_EPS && x <= hi[i3 + a]! + BOX_EPS)) return false;
  }
  return true;
}

/** pj[13..15] ← exp(φ) vr with φ = pj[o..o+2]; the angle between it and vf into pj[9]. */
function alignAt(o: number): void {
  quatFromRotationVector(pq, 0, pj, o);
  quatRotateArr(pj, 13, pq, 0, pj, 0);
  const wx = pj[13]!, wy = pj[14]!, wz = pj[15]!, fx = pj[3]!, fy = pj[4]!, fz = pj[5]!;
  const cx = wy * fz - wz * fy, cy = wz * fx - wx * fz, cz = wx * fy - wy * fx;
  pj[9] = Math.atan2(Math.sqrt(cx * cx + cy * cy + cz * cz), wx * fx + wy * fy + wz * fz);
}

/**
 * `project` for a hinge (one free axis a, the others locked at 0) or a locked joint, in closed
 * form: turning vr about the axis by θ gives vf · R(θ) vr = C + A cos θ + B sin θ with
 * A = vf · vr⊥ and B = vf · (e_a × vr), largest at θ* = atan2(B, A), else at the end of the
 * range nearer to it. Writes φ to pj[6..8] and the angle left to pj[9].
 */
function projectHinge(i: number): void {
  const a = hinge[i]!, i3 = i * 3;
  pj[6] = lo[i3]!; pj[7] = lo[i3 + 1]!; pj[8] = lo[i3 + 2]!;
  if (a < 3) {
    const rx = pj[0]!, ry = pj[1]!, rz = pj[2]!, fx = pj[3]!, fy = pj[4]!, fz = pj[5]!;
    let A: number, B: number;
    // e_a × vr, and vr without its part along e_a
    if (a === 0) { A = fy * ry + fz * rz; B = fy * -rz + fz * ry; } else if (a === 1) { A = fx * rx + fz * rz; B = fx * rz + fz * -rx; } else { A = fx * rx + fy * ry; B = fx * -ry + fy * rx; }
    let t = Math.atan2(B, A);
    const l = lo[i3 + a]!, h = hi[i3 + a]!;
    if (t < l || t > h) {
      // outside the range: the end with the larger A cos θ + B sin θ
      const fl = A * Math.cos(l) + B * Math.sin(l), fh = A * Math.cos(h) + B * Math.sin(h);
      t = fl >= fh ? l : h;
    }
    pj[6 + a] = t;
  }
  alignAt(6);
}

/**
 * The joint rotation inside bone i's box that turns vr (pj[0..2]) closest to vf (pj[3..5]),
 * starting from φ (pj[6..8], clamped into the box first), by projected Gauss-Newton on the
 * rotation vector: a step solves for the change of φ whose left-Jacobian image turns E(φ)·vr
 * onto vf (axes at a bound that the step would push out are held), lightly damped so a
 * turn about E(φ)·vr itself (which changes nothing) is not taken; a step that does not improve
 * is halved. Writes φ to pj[6..8] and the angle left to pj[9].
 */
function project(i: number): void {
  if (hinge[i]! >= 0) { projectHinge(i); return; }
  const i3 = i * 3;
  for (let a = 0; a < 3; a++) {
    const x = pj[6 + a]!, l = lo[i3 + a]!, h = hi[i3 + a]!;
    pj[6 + a] = x < l ? l : x > h ? h : x;
  }
  alignAt(6);
  let ang = pj[9]!;
  for (let it = 0; it < PROJECT_ITERATIONS && ang > 1e-14; it++) {
    const px = pj[6]!, py = pj[7]!, pz = pj[8]!;
    const wx = pj[13]!, wy = pj[14]!, wz = pj[15]!, fx = pj[3]!, fy = pj[4]!, fz = pj[5]!;
    let rx = wy * fz - wz * fy, ry = wz * fx - wx * fz, rz = wx * fy - wy * fx;
    const sn = Math.sqrt(rx * rx + ry * ry + rz * rz);
    if (sn < 1e-300) {
      // opposite: any turn perpendicular to E(φ)·vr
      const ax = Math.abs(wx), ay = Math.abs(wy), az = Math.abs(wz);
      if (ax <= ay && ax <= az) { rx = 0; ry = wz; rz = -wy; } else if (ay <= az) { rx = -wz; ry = 0; rz = wx; } else { rx = wy; ry = -wx; rz = 0; }
      const l = Math.sqrt(rx * rx + ry * ry + rz * rz);
      rx *= ang / l; ry *= ang / l; rz *= ang / l;
    } else { rx *= ang / sn; ry *= ang / sn; rz *= ang / sn; }
    // left Jacobian J = I + c1 K + c2 K², K = [φ]×
    const t2 = px * px + py * py + pz * pz;
    let c1: number, c2: number;
    if (t2 < 1e-8) { c1 = 0.5 - t2 / 24; c2 = 1 / 6 - t2 / 120; } else {
      const t = Math.sqrt(t2);
      c1 = (1 - Math.cos(t)) / t2; c2 = (t - Math.sin(t)) / (t2 * t);
    }
    // columns of J: J e_k = e_k + c1 φ×e_k + c2 φ×(φ×e_k);  φ×(φ×e) = φ (φ·e) − e t²
    const j00 = 1 + c2 * (px * px - t2), j10 = c1 * pz + c2 * py * px, j20 = -c1 * py + c2 * pz * px;
    const j01 = -c1 * pz + c2 * px * py, j11 = 1 + c2 * (py * py - t2), j21 = c1 * px + c2 * pz * py;
    const j02 = c1 * py + c2 * px * pz, j12 = -c1 * px + c2 * py * pz, j22 = 1 + c2 * (pz * pz - t2);
    // P J: the part of each column perpendicular to E(φ)·vr
    const d0 = wx * j00 + wy * j10 + wz * j20, d1 = wx * j01 + wy * j11 + wz * j21, d2 = wx * j02 + wy * j12 + wz * j22;
    const a00 = j00 - wx * d0, a10 = j10 - wy * d0, a20 = j20 - wz * d0;
    const a01 = j01 - wx * d1, a11 = j11 - wy * d1, a21 = j21 - wz * d1;
    const a02 = j02 - wx * d2, a12 = j12 - wy * d2, a22 = j22 - wz * d2;
    let m00 = a00 * a00 + a10 * a10 + a20 * a20, m01 = a00 * a01 + a10 * a11 + a20 * a21, m02 = a00 * a02 + a10 * a12 + a20 * a22;
    let m11 = a01 * a01 + a11 * a11 + a21 * a21, m12 = a01 * a02 + a11 * a12 + a21 * a22, m22 = a02 * a02 + a12 * a12 + a22 * a22;
    let g0 = j00 * rx + j10 * ry + j20 * rz, g1 = j01 * rx + j11 * ry + j21 * rz, g2 = j02 * rx + j12 * ry + j22 * rz;
    // held axes: locked, or at a bound the step pushes against
    const h0 = lo[i3]! === hi[i3]! || (px <= lo[i3]! && g0 < 0) || (px >= hi[i3]! && g0 > 0);
    const h1 = lo[i3 + 1]! === hi[i3 + 1]! || (py <= lo[i3 + 1]! && g1 < 0) || (py >= hi[i3 + 1]! && g1 > 0);
    const h2 = lo[i3 + 2]! === hi[i3 + 2]! || (pz <= lo[i3 + 2]! && g2 < 0) || (pz >= hi[i3 + 2]! && g2 > 0);
    if (h0 && h1 && h2) break;
    const mu = 1e-9 * (m00 + m11 + m22) + 1e-300;
    if (h0) { m00 = 1; m01 = 0; m02 = 0; g0 = 0; } else m00 += mu;
    if (h1) { m11 = 1; m01 = 0; m12 = 0; g1 = 0; } else m11 += mu;
    if (h2) { m22 = 1; m02 = 0; m12 = 0; g2 = 0; } else m22 += mu;
    // solve the symmetric 3×3 system by its adjugate
    const c00 = m11 * m22 - m12 * m12, c01 = m02 * m12 - m01 * m22, c02 = m01 * m12 - m02 * m11;
    const det = m00 * c00 + m01 * c01 + m02 * c02;
    if (!(Math.abs(det) > 1e-300)) break;
    const c11 = m00 * m22 - m02 * m02, c12 = m01 * m02 - m00 * m12, c22 = m00 * m11 - m01 * m01;
    const dx = (c00 * g0 + c01 * g1 + c02 * g2) / det;
    const dy = (c01 * g0 + c11 * g1 + c12 * g2) / det;
    const dz = (c02 * g0 + c12 * g1 + c22 * g2) / det;
    let step = 1, accepted = false;
    for (let k = 0; k < 8; k++, step *= 0.5) {
      let nx = px + step * dx, ny = py + step * dy, nz = pz + step * dz;
      nx = nx < lo[i3]! ? lo[i3]! : nx > hi[i3]! ? hi[i3]! : nx;
      ny = ny < lo[i3 + 1]! ? lo[i3 + 1]! : ny > hi[i3 + 1]! ? hi[i3 + 1]! : ny;
      nz = nz < lo[i3 + 2]! ? lo[i3 + 2]! : nz > hi[i3 + 2]! ? hi[i3 + 2]! : nz;
      if (nx * nx + ny * ny + nz * nz > (Math.PI - 1e-6) * (Math.PI - 1e-6)) continue; // stay on one side of the half turn
      pj[10] = nx; pj[11] = ny; pj[12] = nz;
      alignAt(10);
      if (pj[9]! < ang) { accepted = true; break; }
    }
    if (!accepted) { alignAt(6); break; } // leaves pj[13..15] and pj[9] at the kept φ
    const moved = Math.abs(pj[10]! - px) + Math.abs(pj[11]! - py) + Math.abs(pj[12]! - pz);
    pj[6] = pj[10]!; pj[7] = pj[11]!; pj[8] = pj[12]!;
    ang = pj[9]!;
    if (moved < 1e-15) break;
  }
  pj[9] = ang;
}

/**
 * A cheap estimate of `project`'s result, for ranking rolls: the shortest arc from vr to vf as a
 * rotation vector, clamped into bone i's box; the angle it leaves into pj[9].
 */
function proxy(i: number): void {
  if (hinge[i]! >= 0) {
    projectHinge(i);
    pj[10] = pj[6]!; pj[11] = pj[7]!; pj[12] = pj[8]!;
    return;
  }
  const ux = pj[0]!, uy = pj[1]!, uz = pj[2]!, wx = pj[3]!, wy = pj[4]!, wz = pj[5]!;
  let nx = uy * wz - uz * wy, ny = uz * wx - ux * wz, nz = ux * wy - uy * wx;
  const s = Math.sqrt(nx * nx + ny * ny + nz * nz), c = ux * wx + uy * wy + uz * wz;
  const ang = Math.atan2(s, c);
  if (s < 1e-300) {
    if (c > 0) { nx = 0; ny = 0; nz = 0; } else {
      const ax = Math.abs(ux), ay = Math.abs(uy), az = Math.abs(uz);
      if (ax <= ay && ax <= az) { nx = 0; ny = uz; nz = -uy; } else if (ay <= az) { nx = -uz; ny = 0; nz = ux; } else { nx = uy; ny = -ux; nz = 0; }
      const l = Math.sqrt(nx * nx + ny * ny + nz * nz);
      nx *= ang / l; ny *= ang / l; nz *= ang / l;
    }
  } else { nx *= ang / s; ny *= ang / s; nz *= ang / s; }
  const i3 = i * 3;
  pj[10] = nx < lo[i3]! ? lo[i3]! : nx > hi[i3]! ? hi[i3]! : nx;
  pj[11] = ny < lo[i3 + 1]! ? lo[i3 + 1]! : ny > hi[i3 + 1]! ? hi[i3 + 1]! : ny;
  pj[12] = nz < lo[i3 + 2]! ? lo[i3 + 2]! : nz > hi[i3 + 2]! ? hi[i3 + 2]! : nz;
  alignAt(10);
}

// ---------- roll look-ahead ----------

/** tw ← tq rolled by tTau[0] about its own axis (tAxis). */
function rolled(): void {
  const h = 0.5 * tTau[0]!, s = Math.sin(h);
  tv[0] = tAxis[0]! * s; tv[1] = tAxis[1]! * s; tv[2] = tAxis[2]! * s; tv[3] = Math.cos(h);
  quatMul(tw, 0, tv, 0, tq, 0);
}

/** Whether the roll tTau[0] keeps the bounding joint in its box. */
function rollAllowed(): boolean {
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
function rollError(): void {
  if (!rollAllowed()) { tTau[1] = Number.POSITIVE_INFINITY; return; }
  rolled();
  if (tsForward) {
    // the chain below, placed greedily (each bone the clamped arc onto its aim) for a few bones
    let total = 0, bone = tsBone;
    simQ[0] = tw[0]!; simQ[1] = tw[1]!; simQ[2] = tw[2]!; simQ[3] = tw[3]!;
    simH[0] = tsHead[0]!; simH[1] = tsHead[1]!; simH[2] = tsHead[2]!;
    for (let lvl = 0; lvl < LOOK_DEPTH; lvl++) {
      const c = lvl === 0 ? tsNext : soleKidFwd(bone);
      if (c < 0 || (lvl > 0 && !limited[c])) break;
      const ce = bonesS[c]!;
      quatRotateArr(tv, 0, simQ, 0, attachS, ce * 3);
      tv[0] += simH[0]!; tv[1] += simH[1]!; tv[2] += simH[2]!;
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
    if (p < 0 || (lvl > 0 && (!limited[bone] || soleKid[p] !== bone))) break;
    const be = bonesS[bone]!, Lp = len[p]!, f = frac[bone]!;
    if (!(f * Lp > 1e-12 * Lp)) break;
    if (lvl === 0) { v[0] = tDir[0]!; v[1] = tDir[1]!; v[2] = tDir[2]!; } else {
      const p3 = p * 3;
      let ex = simH[0]! - hp[p3]!, ey = simH[1]! - hp[p3 + 1]!, ez = simH[2]! - hp[p3 + 2]!;
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
function rollReal(): void {
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
function rollEnd(sign: number): void {
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
function twistSearch(): boolean {
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
function searchRoll(): boolean {
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
      if (f1 <= f2) { b = x2; x2 = x1; f2 = f1; x1 = a + g * (b - a); tTau[0] = x1; rollError(); f1 = tTau[1]!; } else { a = x1; x1 = x2; f1 = f2; x2 = b - g * (b - a); tTau[0] = x2; rollError(); f2 = tTau[1]!; }
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
function acceptRoll(): boolean {
  const t = tTau[0]!, real0 = tTau[2]!;
  rollReal();
  if (!(tTau[1]! <= Math.max(real0, tEps[0]!) + 1e-12)) return false;
  tTau[0] = t;
  rolled();
  tq[0] = tw[0]!; tq[1] = tw[1]!; tq[2] = tw[2]!; tq[3] = tw[3]!;
  quatNormalize(tq, 0);
  return true;
}

// ---------- helpers over the scratch ----------

/** Head of bone index i (into hp) from its parent's head and rotation; the base for the root. */
function headOf(world: PhysikWorld, rig: RigRecord, i: number): void {
  const { Bone } = world.physik;
  const p = par[i]!, i3 = i * 3;
  if (p < 0) { hp[i3] = base[0]!; hp[i3 + 1] = base[1]!; hp[i3 + 2] = base[2]!; return; }
  const b = rig.bones[i]!, pq4 = rig.bones[p]! * 4, p3 = p * 3;
  const x = Bone.rot[pq4]!, y = Bone.rot[pq4 + 1]!, z = Bone.rot[pq4 + 2]!, w = Bone.rot[pq4 + 3]!;
  const ox = Bone.attach[b * 3]!, oy = Bone.attach[b * 3 + 1]!, oz = Bone.attach[b * 3 + 2]!;
  hp[i3] = hp[p3]! + (1 - 2 * (y * y + z * z)) * ox + 2 * (x * y - z * w) * oy + 2 * (x * z + y * w) * oz;
  hp[i3 + 1] = hp[p3 + 1]! + 2 * (x * y + z * w) * ox + (1 - 2 * (x * x + z * z)) * oy + 2 * (y * z - x * w) * oz;
  hp[i3 + 2] = hp[p3 + 2]! + 2 * (x * z - y * w) * ox + 2 * (y * z + x * w) * oy + (1 - 2 * (x * x + y * y)) * oz;
}

/** All heads from the rotations in Bone.rot (depth-first). */
function placeAll(world: PhysikWorld, rig: RigRecord): void {
  for (let i = 0; i < rig.bones.length; i++) headOf(world, rig, i);
}

/** Unit axis (+Y) of bone entity b in world, into v. */
function axisOf(world: PhysikWorld, b: number): void {
  const R = world.physik.Bone.rot, o = b * 4;
  const x = R[o]!, y = R[o + 1]!, z = R[o + 2]!, w = R[o + 3]!;
  v[0] = 2 * (x * y - z * w); v[1] = 1 - 2 * (x * x + z * z); v[2] = 2 * (y * z + x * w);
}

/** Goal points: effective target less the offset's x/z part, rotated by the bone's rotation. */
function goalPoints(world: PhysikWorld, rig: RigRecord, m: number): void {
  const { Bone, ControlPoint } = world.physik;
  for (let g = 0; g < m; g++) {
    const cp = gCp[g]!, c3 = cp * 3, g3 = g * 3;
    const o = rig.bones[gOwn[g]!]! * 4;
    const x = Bone.rot[o]!, y = Bone.rot[o + 1]!, z = Bone.rot[o + 2]!, w = Bone.rot[o + 3]!;
    const ox = ControlPoint.offset[c3]!, oz = ControlPoint.offset[c3 + 2]!;
    gD[g3] = ControlPoint.effective[c3]! - ((1 - 2 * (y * y + z * z)) * ox + 2 * (x * z + y * w) * oz);
    gD[g3 + 1] = ControlPoint.effective[c3 + 1]! - (2 * (x * y + z * w) * ox + 2 * (y * z - x * w) * oz);
    gD[g3 + 2] = ControlPoint.effective[c3 + 2]! - (2 * (x * z - y * w) * ox + (1 - 2 * (x * x + y * y)) * oz);
  }
}

/** The largest distance of a goal's attachment point from its effective target (NaN propagates) into errOut[0]. */
function goalError(world: PhysikWorld, rig: RigRecord, m: number): void {
  const { Bone, ControlPoint } = world.physik;
  let err = 0;
  for (let g = 0; g < m; g++) {
    const cp = gCp[g]!, c3 = cp * 3, i = gOwn[g]!, b = rig.bones[i]!, o = b * 4, i3 = i * 3;
    const x = Bone.rot[o]!, y = Bone.rot[o + 1]!, z = Bone.rot[o + 2]!, w = Bone.rot[o + 3]!;
    const ox = ControlPoint.offset[c3]!, oy = ControlPoint.at[cp]! * Bone.length[b]! + ControlPoint.offset[c3 + 1]!, oz = ControlPoint.offset[c3 + 2]!;
    const px = hp[i3]! + (1 - 2 * (y * y + z * z)) * ox + 2 * (x * y - z * w) * oy + 2 * (x * z + y * w) * oz;
    const py = hp[i3 + 1]! + 2 * (x * y + z * w) * ox + (1 - 2 * (x * x + z * z)) * oy + 2 * (y * z - x * w) * oz;
    const pz = hp[i3 + 2]! + 2 * (x * z - y * w) * ox + 2 * (y * z + x * w) * oy + (1 - 2 * (x * x + y * y)) * oz;
    const dx = px - ControlPoint.effective[c3]!, dy = py - ControlPoint.effective[c3 + 1]!, dz = pz - ControlPoint.effective[c3 + 2]!;
    const e = Math.sqrt(dx * dx + dy * dy + dz * dz);
    if (!(e <= err)) err = e; // NaN propagates
  }
  errOut[0] = err;
}

function addRequest(i: number, U: Float64Array, uo: number, D: Float64Array, o: number): void {
  const i3 = i * 3, u = U[uo]!;
  accN[i] += 1; accU[i] += u; accUU[i] += u * u;
  accD[i3] += D[o]!; accD[i3 + 1] += D[o + 1]!; accD[i3 + 2] += D[o + 2]!;
  accUD[i3] += u * D[o]!; accUD[i3 + 1] += u * D[o + 1]!; accUD[i3 + 2] += u * D[o + 2]!;
}

/**
 * Backward: bone i (its only request its chain child c, at fraction ū > 0 of it) wants to point
 * along v[0..2] from its old head. Hold it to c's box: bq_i ← bq_c · E⁻¹ · restLocal_c⁻¹ with
 * E inside c's box, starting from the joint rotation of the unconstrained aim (already in bq_i).
 */
function holdByChild(world: PhysikWorld, rig: RigRecord, i: number, c: number): void {
  const RL = world.physik.Bone.restLocal, ce = rig.bones[c]! * 4, i4 = i * 4, c4 = c * 4;
  // E of the unconstrained aim: restLocal_c⁻¹ · bq_i⁻¹ · bq_c
  quatMulConjA(tv, 4, bq, i4, bq, c4);
  quatMulConjA(tv, 0, RL, ce, tv, 4);
  quatToRotationVector(pj, 6, tv, 0);
  if (inBox(c, pj, 6)) return;
  // maximise s · E t: s = restLocal_c⁻¹ · Y (this bone's axis in c's joint frame), t = bq_c⁻¹ · aim
  quatRotateInvArr(pj, 0, bq, c4, v, 0);
  quatRotateInvArr(pj, 3, RL, ce, Y, 0);
  project(c);
  quatFromRotationVector(tv, 0, pj, 6);
  tv[0] = -tv[0]!; tv[1] = -tv[1]!; tv[2] = -tv[2]!; // E⁻¹
  quatMul(tv, 4, bq, c4, tv, 0);
  tv[0] = -RL[ce]!; tv[1] = -RL[ce + 1]!; tv[2] = -RL[ce + 2]!; tv[3] = RL[ce + 3]!;
  quatMul(bq, i4, tv, 4, tv, 0);
  quatNormalize(bq, i4);
}

/** Backward reaching: effectors toward the root, children before parents. */
function backward(world: PhysikWorld, rig: RigRecord, m: number): void {
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
    if (spread > 1e-12) {
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
        holdByChild(world, rig, i, c);
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
    if (aimed && p >= 0 && limited[i] && soleKid[p] === i && frac[i]! * len[p]! > 1e-12 * len[p]! && (chainKids[i] === 0 || soleKid[i]! >= 0)) {
      const p3 = p * 3;
      let ex = hx - hp[p3]!, ey = hy - hp[p3 + 1]!, ez = hz - hp[p3 + 2]!;
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
 * Prepare `twistSearch` for bone i (rotation from bq when backward, q when forward): its axis,
 * the bounding joint `con` (forward: i itself; backward: its chain child; -1 free) and the frame
 * that joint is measured against, and what the next bone's box is (forward: child `next`).
 */
function setupRoll(world: PhysikWorld, rig: RigRecord, forward: boolean, i: number, next: number, con: number): void {
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

/**
 * Pole k: turn the backward positions (and rotations) of its section about the line from the
 * base c (= hp[top]) to the effector, so that the joint (B's backward head) lies in the plane
 * of base, effector and pole, on the pole's side.
 */
function applyPole(world: PhysikWorld, k: number): void {
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

/** a[o..o+2] ← w·c + R (a − w·c), R = r: a weighted sum of points turned about c. */
function rotateAbout(a: Float64Array, o: number, wgt: number, cx: number, cy: number, cz: number): void {
  const vx = a[o]! - wgt * cx, vy = a[o + 1]! - wgt * cy, vz = a[o + 2]! - wgt * cz;
  const x = r[0]!, y = r[1]!, z = r[2]!, w = r[3]!;
  const tx = 2 * (y * vz - z * vy), ty = 2 * (z * vx - x * vz), tz = 2 * (x * vy - y * vx);
  a[o] = wgt * cx + vx + w * tx + (y * tz - z * ty);
  a[o + 1] = wgt * cy + vy + w * ty + (z * tx - x * tz);
  a[o + 2] = wgt * cz + vz + w * tz + (x * ty - y * tx);
}

/**
 * Where bone c (depth-first index) must point in the forward pass, its head at tv[0..2]: into
 * v, true if it has a direction. Straight: along the straight line if it adds to the reach.
 */
function aimOf(c: number, straight: boolean): boolean {
  const L = len[c]!;
  let wx: number, wy: number, wz: number;
  if (straight) {
    if (!(contrib[c]! > 1e-12 * L)) return false;
    wx = straightDir[0]!; wy = straightDir[1]!; wz = straightDir[2]!;
  } else {
    const c3 = c * 3, su = accU[c]!;
    wx = accUD[c3]! - su * tv[0]!; wy = accUD[c3 + 1]! - su * tv[1]!; wz = accUD[c3 + 2]! - su * tv[2]!; // Σ u (D − H)
  }
  const wl = Math.sqrt(wx * wx + wy * wy + wz * wz);
  if (!(wl > 1e-12 * L)) return false;
  v[0] = wx / wl; v[1] = wy / wl; v[2] = wz / wl;
  return true;
}

/**
 * Forward reaching: root first. Each bone's head follows from its parent; a bone with a
 * direction to aim at takes its backward rotation turned onto it, held in its joint's box,
 * rolled for its chain child; others keep their rotation relative to the parent; then the
 * limits' safety clamp. `straight`: one goal beyond reach, the bones that carry it point along
 * straightDir. Returns false on a non-finite result.
 */
function forward(world: PhysikWorld, rig: RigRecord, nPoles: number, straight: boolean): boolean {
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
        const x = q[0]!, y = q[1]!, z = q[2]!, w = q[3]!;
        v[0] = 2 * (x * y - z * w); v[1] = 1 - 2 * (x * x + z * z); v[2] = 2 * (y * z + x * w);
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
          pj[0] = 0; pj[1] = 1; pj[2] = 0;
          quatRotateInvArr(pj, 3, frame, 0, v, 0);
          project(i);
          quatFromRotationVector(tv, 0, pj, 6);
          quatMul(q, 0, frame, 0, tv, 0);
          quatNormalize(q, 0);
        }
      }
      // roll ahead for the chain child
      const c = fit ? -1 : soleKidFwd(i);
      if (c >= 0 && limited[c]) {
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
          tsHead[0] = hx; tsHead[1] = hy; tsHead[2] = hz; tsStraight = straight;
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

/**
 * The rigid points of every bone (see rpStart): goals on the bone itself and on locked chain
 * children, the heads of unlocked chain children, walking down through locked children with
 * their fixed rotation (restLocal · exp(φ), φ the locked values) composed.
 */
function buildRigidPoints(world: PhysikWorld, rig: RigRecord, m: number): void {
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
        pj[0] = 0; pj[1] = gU[g]! * len[c]!; pj[2] = 0;
        quatRotateArr(rpLocal, k * 3, tv, 0, pj, 0);
        rpLocal[k * 3] += ox; rpLocal[k * 3 + 1] += oy; rpLocal[k * 3 + 2] += oz;
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
    if (rpCount[i]! >= 2) rpFit[i] = 1;
  }
}

/**
 * wQ ← the rotation R (about a fixed pivot) that brings the vectors wA[k] closest to wB[k], k <
 * cnt, in least squares (Wahba's problem): the sums (mean directions) aligned by the shortest
 * arc first, then Gauss-Newton on a rotation vector, lightly damped so a turn the vectors do not
 * determine (about a line they all lie on) is not taken. wS[0]: lengths under 1e-12 × it are zero.
 */
function fitRotation(cnt: number): void {
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

function growPairs(k: number): void {
  if (k * 3 <= wA.length) return;
  const c = Math.max(k, (wA.length / 3) * 2, 16);
  wA = new Float64Array(c * 3); wB = new Float64Array(c * 3);
}

/** q ← bone i's rotation (from q) turned about its head to bring its rigid points closest to what they reach for. */
function rigidFit(i: number): void {
  const s0 = rpStart[i]!, cnt = rpCount[i]!, i3 = i * 3;
  const hx = hp[i3]!, hy = hp[i3 + 1]!, hz = hp[i3 + 2]!;
  for (let k = 0; k < cnt; k++) {
    const j = s0 + k, k3 = k * 3;
    quatRotateArr(wA, k3, q, 0, rpLocal, j * 3);
    const g = rpGoal[j]!;
    if (g >= 0) { wB[k3] = gD[g * 3]! - hx; wB[k3 + 1] = gD[g * 3 + 1]! - hy; wB[k3 + 2] = gD[g * 3 + 2]! - hz; } else { const f3 = rpFrom[j]! * 3; wB[k3] = bh[f3]! - hx; wB[k3 + 1] = bh[f3 + 1]! - hy; wB[k3 + 2] = bh[f3 + 2]! - hz; }
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
function turnAboutBase(world: PhysikWorld, rig: RigRecord, m: number): void {
  const { Bone, ControlPoint } = world.physik;
  let cnt = 0;
  for (let g = 0; g < m; g++) {
    if (gBone[g]! < 0) continue;
    const cp = gCp[g]!, c3 = cp * 3, i = gOwn[g]!, b = rig.bones[i]!, o = b * 4, i3 = i * 3, k3 = cnt * 3;
    pj[0] = ControlPoint.offset[c3]!; pj[1] = ControlPoint.at[cp]! * Bone.length[b]! + ControlPoint.offset[c3 + 1]!; pj[2] = ControlPoint.offset[c3 + 2]!;
    quatRotateArr(wA, k3, Bone.rot, o, pj, 0);
    wA[k3] += hp[i3]! - base[0]!; wA[k3 + 1] += hp[i3 + 1]! - base[1]!; wA[k3 + 2] += hp[i3 + 2]! - base[2]!;
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
function soleKidFwd(i: number): number {
  return chainKids[i] === 1 ? kidOf[i]! : -1;
}

/**
 * Restart k: every chain joint's rotation vector at a pseudo-random point of its box (free axes
 * within ±1 rad), the root as it is; deterministic in k.
 */
function restartPose(world: PhysikWorld, rig: RigRecord, k: number): void {
  const { Bone } = world.physik;
  const R = Bone.rot, RL = Bone.restLocal;
  let h = Math.imul(k + 1, 0x9e3779b9) | 0;
  for (let i = 1; i < rig.bones.length; i++) {
    if (!onChain[i]) continue;
    const i3 = i * 3, b4 = rig.bones[i]! * 4;
    for (let a = 0; a < 3; a++) {
      h = (h + 0x6d2b79f5) | 0;
      let t = Math.imul(h ^ (h >>> 15), 1 | h);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      const u = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
      const l = lo[i3 + a]!, hh = hi[i3 + a]!;
      pj[6 + a] = l > -1e300 ? l + (hh - l) * u : 2 * u - 1;
    }
    quatFromRotationVector(tv, 0, pj, 6);
    quatMul(tv, 4, R, rig.bones[par[i]!]! * 4, RL, b4);
    quatMul(R, b4, tv, 4, tv, 0);
    quatNormalize(R, b4);
  }
}

function restore(world: PhysikWorld, rig: RigRecord, from: Float64Array): void {
  const R = world.physik.Bone.rot;
  for (let i = 0; i < rig.bones.length; i++) {
    const b4 = rig.bones[i]! * 4, i4 = i * 4;
    R[b4] = from[i4]!; R[b4 + 1] = from[i4 + 1]!; R[b4 + 2] = from[i4 + 2]!; R[b4 + 3] = from[i4 + 3]!;
  }
}

function save(world: PhysikWorld, rig: RigRecord, to: Float64Array): void {
  const R = world.physik.Bone.rot;
  for (let i = 0; i < rig.bones.length; i++) {
    const b4 = rig.bones[i]! * 4, i4 = i * 4;
    to[i4] = R[b4]!; to[i4 + 1] = R[b4 + 1]!; to[i4 + 2] = R[b4 + 2]!; to[i4 + 3] = R[b4 + 3]!;
  }
}

/** The root's centre from its (fixed) head and its rotation, for a floating root's forward kinematics. */
function placeRootCentre(world: PhysikWorld, rig: RigRecord): void {
  const { Bone } = world.physik;
  const root = rig.bones[0]!;
  axisOf(world, root);
  const h = 0.5 * Bone.length[root]!;
  Bone.centre[root * 3] = base[0]! + h * v[0]!;
  Bone.centre[root * 3 + 1] = base[1]! + h * v[1]!;
  Bone.centre[root * 3 + 2] = base[2]! + h * v[2]!;
}

function diverged(world: PhysikWorld, rig: RigRecord, iterations: number): SolveResult {
  const root = rig.bones[0]!;
  restore(world, rig, backup);
  copyDoubles(world.physik.Bone.centre, root * 3, rootCentre);
  refreshPose(world, rig);
  return solved(iterations, STATUS_DIVERGED);
}

export function fabrik(world: PhysikWorld, rig: RigRecord): SolveResult {
  const { Bone, ControlPoint, Rig, AngularLimit } = world.physik;
  const bones = rig.bones, n = bones.length, cps = rig.controlPoints;
  const s = rig.settings;
  growBones(n);
  growControlPoints(cps.length);
  let maxEid = 0;
  for (let i = 0; i < n; i++) if (bones[i]! > maxEid) maxEid = bones[i]!;
  growIndex(maxEid);

  // topology (depth-first indices) and the limits' boxes
  for (let i = 0; i < n; i++) idxOf[bones[i]!] = i;
  for (let i = 0; i < n; i++) {
    const b = bones[i]!, p = Bone.parent[b]!, b3 = b * 3, i3 = i * 3;
    par[i] = p >= 0 ? idxOf[p]! : -1;
    len[i] = Bone.length[b]!;
    frac[i] = p >= 0 ? Bone.attach[b * 3 + 1]! / Bone.length[p]! : 0;
    let any = 0;
    for (let a = 0; a < 3; a++) {
      const on = p >= 0 && AngularLimit.enabled[b3 + a] === 1;
      lo[i3 + a] = on ? AngularLimit.min[b3 + a]! : Number.NEGATIVE_INFINITY;
      hi[i3 + a] = on ? AngularLimit.max[b3 + a]! : Number.POSITIVE_INFINITY;
      if (on) any = 1;
    }
    limited[i] = any;
    locked[i] = p >= 0 && lo[i3] === hi[i3] && lo[i3 + 1] === hi[i3 + 1] && lo[i3 + 2] === hi[i3 + 2] ? 1 : 0;
    hinge[i] = locked[i] ? 3 : -1;
    for (let a = 0; a < 3 && !locked[i]; a++) {
      const b1 = (a + 1) % 3, b2 = (a + 2) % 3;
      if (lo[i3 + b1] === 0 && hi[i3 + b1] === 0 && lo[i3 + b2] === 0 && hi[i3 + b2] === 0 && hi[i3 + a]! - lo[i3 + a]! < 2 * Math.PI) hinge[i] = a;
    }
    firstKid[i] = -1; nextSib[i] = -1;
  }
  const root = bones[0]!;
  save(world, rig, backup);
  rootCentre[0] = Bone.centre[root * 3]!; rootCentre[1] = Bone.centre[root * 3 + 1]!; rootCentre[2] = Bone.centre[root * 3 + 2]!;

  // the fixed base: the pin, or where a floating root's head is now
  const src = Rig.pinned[rig.eid] ? Rig.pin : Bone.head;
  const so = Rig.pinned[rig.eid] ? rig.eid * 3 : root * 3;
  base[0] = src[so]!; base[1] = src[so + 1]!; base[2] = src[so + 2]!;

  if (s.ikMode === 'path-independent') {
    for (let i = 0; i < n; i++) {
      const b4 = bones[i]! * 4;
      Bone.rot[b4] = Bone.restWorld[b4]!; Bone.rot[b4 + 1] = Bone.restWorld[b4 + 1]!;
      Bone.rot[b4 + 2] = Bone.restWorld[b4 + 2]!; Bone.rot[b4 + 3] = Bone.restWorld[b4 + 3]!;
    }
  }
  for (let i = 0; i < n; i++) {
    const b4 = bones[i]! * 4;
    if (par[i]! >= 0) quatMulConjA(loc, i * 4, Bone.rot, bones[par[i]!]! * 4, Bone.rot, b4);
    else { loc[0] = Bone.rot[b4]!; loc[1] = Bone.rot[b4 + 1]!; loc[2] = Bone.rot[b4 + 2]!; loc[3] = Bone.rot[b4 + 3]!; }
  }

  // goals
  let m = 0, movable = 0, single = -1;
  onChain.fill(0, 0, n); hasGoal.fill(0, 0, n); chainKids.fill(0, 0, n); contrib.fill(0, 0, n);
  for (let c = 0; c < cps.length; c++) {
    const cp = cps[c]!;
    if (!ControlPoint.active[cp] || ControlPoint.pole[cp]) continue;
    const c3 = cp * 3;
    if (!Number.isFinite(ControlPoint.effective[c3]! + ControlPoint.effective[c3 + 1]! + ControlPoint.effective[c3 + 2]!)) return diverged(world, rig, 0);
    const own = idxOf[ControlPoint.bone[cp]!]!;
    let i = own, u = (ControlPoint.at[cp]! * len[own]! + ControlPoint.offset[c3 + 1]!) / len[own]!;
    if (Math.abs(u) < 1e-9) { u = par[i]! >= 0 ? frac[i]! : 0; i = par[i]!; } // a goal at the head is the parent's
    gCp[m] = cp; gOwn[m] = own; gBone[m] = i; gU[m] = u;
    if (i >= 0) {
      movable++; single = m;
      hasGoal[i] = 1;
      for (let k = i; k >= 0 && !onChain[k]; k = par[k]!) onChain[k] = 1;
    }
    m++;
  }
  for (let i = 1; i < n; i++) if (onChain[i]) { chainKids[par[i]!]! += 1; kidOf[par[i]!] = i; }
  for (let i = 0; i < n; i++) soleKid[i] = chainKids[i] === 1 && !hasGoal[i] ? kidOf[i]! : -1;
  for (let i = n - 1; i >= 1; i--) { const p = par[i]!; nextSib[i] = firstKid[p]!; firstKid[p] = i; }
  buildRigidPoints(world, rig, m);
  growPairs(n + m);
  errOut[1] = Rig.height[rig.eid]!;
  tEps[0] = s.ikTolerance;
  // one goal: how far a straight chain reaches, and what each bone adds to it
  let reach = 0;
  if (movable === 1) {
    let k = gBone[single]!;
    contrib[k] = gU[single]! * len[k]!;
    reach = contrib[k]!;
    for (; par[k]! >= 0; k = par[k]!) { contrib[par[k]!] = frac[k]! * len[par[k]!]!; reach += contrib[par[k]!]!; }
  } else single = -1;

  // poles
  let nPoles = 0;
  for (let c = 0; c < cps.length; c++) {
    const cp = cps[c]!;
    if (!ControlPoint.active[cp] || !ControlPoint.pole[cp]) continue;
    if (!Number.isFinite(ControlPoint.effective[cp * 3]! + ControlPoint.effective[cp * 3 + 1]! + ControlPoint.effective[cp * 3 + 2]!)) return diverged(world, rig, 0);
    const bi = idxOf[ControlPoint.bone[cp]!]!;
    const k0 = par[bi]!;
    if (k0 < 0 || !onChain[bi] || hasGoal[k0] || chainKids[k0]! >= 2) continue; // no bend at B's head to turn
    let eff = -1;
    for (let g = 0; g < m && eff < 0; g++) {
      for (let k = gBone[g]!; k >= 0; k = par[k]!) if (k === bi) { eff = g; break; }
    }
    if (eff < 0) continue;
    let top = k0;
    while (par[top]! >= 0 && !hasGoal[par[top]!] && chainKids[par[top]!]! < 2) top = par[top]!;
    pCp[nPoles] = cp; pB[nPoles] = bi; pTop[nPoles] = top; pGoal[nPoles] = eff;
    nPoles++;
  }

  const tol = s.ikTolerance * Rig.height[rig.eid]!;
  placeAll(world, rig);
  goalError(world, rig, m);
  let err = errOut[0]!;
  if (!Number.isFinite(err)) return diverged(world, rig, 0);
  let iterations = 0;
  hasBq.fill(0, 0, n);
  rollMiss.fill(0, 0, 2 * n);
  // a pole turns the bend even when the goals are already met: one iteration at least
  if ((err > tol || nPoles > 0) && movable > 0) {
    let bestErr = Number.POSITIVE_INFINITY, prev = err, sinceBest = 0, restarts = 0;
    for (let it = 0; it < s.ikIterations; it++) {
      goalPoints(world, rig, m);
      let straight = false, sx = 0, sy = 0, sz = 0;
      if (single >= 0 && reach > 0) {
        const g3 = single * 3;
        sx = gD[g3]! - base[0]!; sy = gD[g3 + 1]! - base[1]!; sz = gD[g3 + 2]! - base[2]!;
        const dl = Math.sqrt(sx * sx + sy * sy + sz * sz);
        if (dl >= reach) { straight = true; sx /= dl; sy /= dl; sz /= dl; }
      }
      if (!straight) backward(world, rig, m);
      iterations++;
      straightDir[0] = sx; straightDir[1] = sy; straightDir[2] = sz;
      if (!forward(world, rig, nPoles, straight)) return diverged(world, rig, iterations);
      turnAboutBase(world, rig, m);
      goalError(world, rig, m);
      err = errOut[0]!;
      if (!Number.isFinite(err)) return diverged(world, rig, iterations);
      if (err < bestErr * (1 - 1e-3)) sinceBest = 0; else sinceBest++;
      if (err < bestErr) { bestErr = err; save(world, rig, best); }
      if (err <= tol || straight) break;
      if (Math.abs(prev - err) <= 1e-12 * Rig.height[rig.eid]! || sinceBest >= PATIENCE) {
        // stuck: start again from elsewhere if enough iterations are left for it to get somewhere
        if (s.ikIterations - it - 1 < PATIENCE) break;
        restartPose(world, rig, restarts++);
        placeAll(world, rig);
        sinceBest = 0;
      }
      prev = err;
    }
    // the best iteration's pose, copied back every time (a no-op when it was the last): a copy
    // run only now and then stays in V8's interpreter, where every double it moves is allocated
    restore(world, rig, best);
    if (err > bestErr) {
      placeAll(world, rig);
      err = bestErr;
    }
  }
  placeRootCentre(world, rig);
  refreshPose(world, rig);
  return solved(iterations, err <= tol ? STATUS_CONVERGED : STATUS_STALLED);
}
