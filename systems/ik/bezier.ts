/**
 * bezier: IK along a cubic Bézier curve, after A. Crozier, "Building a better IK solver: using
 * Bézier curves to solve inverse kinematics problems".
 *
 * The curve, its length, λ and the placement of the bones on it are in bezierCurve.ts.
 *
 * Solver (registered as 'bezier'): for each active goal on bone B, the chain from the root to
 * B's parent is fitted (zero-length links skipped, locked joints folded as in `goalLinks`); B
 * keeps its world rotation (the animator's manual rotation: rotate B, the chain follows) and
 * its head is put at target − R_B·(attachment in B's frame). u is the first link's rest
 * direction carried by its parent, times the link's length. Too far (|C3 − C0| ≥ chain
 * length): the chain points straight at C3 (closest reach, status stalled). Bones are aimed by
 * the shortest arc from their rest frame carried by the parent (hinge joints: the parent is
 * twisted so the hinge axis is the bend normal), each clamped to its limits as it is placed.
 * When a limit turned a bone off the curve, the chain is built again within its limits: each
 * link aimed along the curve fitted to the links from it on, clamped, and the curve of the
 * links below fitted again from where it really ends (the paper notes joint constraints do not
 * fit this method; this keeps them and reaches what it can). B keeps its rotation unless that
 * leaves its joint's limits (then it is turned to the limit); what the method could not honour
 * is the solve's note (solveNotes.ts).
 * The root's head stays fixed; off-chain bones keep their rotation relative to their parent; a
 * goal on the root has no chain and is left alone. Closed form per step, so 'path-dependent'
 * and 'path-independent' give the same pose. iterations = root-finder evaluations of λ.
 * k2 is per rig (`setBezierShape`, default 1.1); a setting `bezierEndWeight` would hold it.
 */
import type { PhysikWorld, RigRecord } from '../../src/world/world';
import { quatRotateArr } from '../../src/math/quat';
import type { SolveResult } from './solver';
import { solved } from './common';
import { AIM, KEEP, beginPass, carriedRest, endPass, hingeTwist, type ChainPass } from './chainPass';
import { setSolveNote } from './solveNotes';
import { STATUS_STALLED } from '../../components/Rig';
import { closedFormStatus, effectorLocal, goalLinks, type GoalLinks } from './goalChains';
import { R, chainLambda, closeEnd, createBezierProblem, lengthLambda, placeAt, rfNum, type BezierProblem } from './bezierCurve';

// ───────────────────────────── the solver ─────────────────────────────

const shapes = new WeakMap<RigRecord, { k2: number }>();

/** Per-rig weight k2 of the last bone in C2 = C3 − k2·λ·v (default 1.1, the paper's). */
export function setBezierShape(rig: RigRecord, shape: { k2: number }): void {
  if (!(Number.isFinite(shape.k2) && shape.k2 >= 0)) throw new Error(`bezier solver, rig "${rig.name}": k2 must be a finite number ≥ 0, got ${shape.k2}`);
  shapes.set(rig, { k2: shape.k2 });
}

interface BezierCache {
  nCp: number;
  version: number;
  nBones: number;
  links: (GoalLinks | null)[];
  problem: BezierProblem;
  points: Float64Array;
}

const caches = new WeakMap<RigRecord, BezierCache>();

function cacheOf(rig: RigRecord): BezierCache {
  let c = caches.get(rig);
  if (!c || c.version !== rig.controlPointsVersion || c.nCp !== rig.controlPoints.length || c.nBones !== rig.bones.length) {
    c = {
      nCp: rig.controlPoints.length, version: rig.controlPointsVersion, nBones: rig.bones.length, links: new Array<GoalLinks | null>(rig.controlPoints.length).fill(null),
      problem: createBezierProblem([0, 0, 0], [0, 1, 0], [0, 0, 0], [0, 1, 0]), points: new Float64Array(3 * (rig.bones.length + 2)),
    };
    caches.set(rig, c);
  }
  return c;
}

const w = new Float64Array(16);
/** The lengths of a sub-chain (the limited build). */
let subLengths = new Float64Array(16);
/** evaluations of λ in the last fit (a field: a returned number would be boxed) */
const fitOut = new Float64Array(1);

const NOTE_KEPT = 'the goal bone keeps its rotation by this method, and its joint limits did not allow it: turned to its limit, the goal is missed';
const NOTE_LIMITS = 'the curve knows no joint limits: built bone by bone within them, the chain ends short of the goal';
const NOTE_ROTATION = 'the goal bone keeps its rotation by this method: with it the chain above could not put the goal on its target';

/**
 * Fit the curve for links i..n−1 (C0 their first head, u their first link's rest direction
 * carried by its parent; C3 and v as set) and put the links' points into P (P[0] = C0).
 * fitOut[0] ← the root-finder's evaluations. Returns false on a non-finite point.
 */
function fitFrom(world: PhysikWorld, p: BezierProblem, links: GoalLinks, i: number, P: Float64Array): boolean {
  const { Bone } = world.physik;
  const n = links.n - i, first = links.bones[i]!;
  let lengths: Float64Array = links.length;
  if (i > 0) {
    if (subLengths.length < n) subLengths = new Float64Array(Math.max(n, subLengths.length * 2));
    for (let k = 0; k < n; k++) subLengths[k] = links.length[i + k]!;
    lengths = subLengths;
  }
  for (let a = 0; a < 3; a++) p.c0[a] = Bone.head[first * 3 + a]!;
  carriedRest(world, first, w, 6);
  quatRotateArr(p.u, 0, w, 6, links.local, i * 3);
  let total = 0;
  for (let k = 0; k < n; k++) total += lengths[k]!;
  rfNum[0] = total;
  lengthLambda(p); // λ in R[0] (a returned double would be boxed)
  const lam = R[0]!;
  let evaluations = p.evaluations;
  if (lam < 0) {
    // out of reach: straight at C3
    const dx = p.c3[0]! - p.c0[0]!, dy = p.c3[1]! - p.c0[1]!, dz = p.c3[2]! - p.c0[2]!;
    const d = Math.sqrt(dx * dx + dy * dy + dz * dz);
    let run = 0;
    P[0] = p.c0[0]!; P[1] = p.c0[1]!; P[2] = p.c0[2]!;
    for (let k = 0; k < n; k++) {
      run += lengths[k]!;
      for (let a = 0; a < 3; a++) P[3 * k + 3 + a] = p.c0[a]! + (run * (a === 0 ? dx : a === 1 ? dy : dz)) / d;
    }
  } else {
    R[0] = lam;
    chainLambda(p, lengths, n, P); // λ from R[0] to R[0]
    evaluations += p.evaluations;
    placeAt(p, lengths, n, P, null); // residual in R[1]
    closeEnd(P, lengths, n, p.c3, Math.abs(R[1]!) > 1e-9 * total);
  }
  fitOut[0] = evaluations;
  for (let k = 0; k < 3 * n + 3; k++) if (!Number.isFinite(P[k]!)) return false;
  return true;
}

/** Mark links from..to−1 to be aimed at the points P (P[0] the head of link `from`), with hinge twists. */
function aimLinks(world: PhysikWorld, pass: ChainPass, links: GoalLinks, from: number, to: number, P: Float64Array): void {
  const { Bone } = world.physik;
  for (let i = from; i < to; i++) {
    const k = links.index[i]!, o = 3 * (i - from);
    pass.mark[k] = AIM;
    for (let a = 0; a < 3; a++) {
      pass.vec[k * 3 + a] = links.local[i * 3 + a]!;
      pass.dir[k * 3 + a] = P[o + 3 + a]! - P[o + a]!;
    }
  }
  for (let i = from; i + 1 < links.n; i++) {
    const a = links.bones[i]!, b = links.bones[i + 1]!;
    if (Bone.parent[b] !== a) continue;
    const o = 3 * (i - from);
    const ax = P[o + 3]! - P[o]!, ay = P[o + 4]! - P[o + 1]!, az = P[o + 5]! - P[o + 2]!;
    const bx = P[o + 6]! - P[o + 3]!, by = P[o + 7]! - P[o + 4]!, bz = P[o + 8]! - P[o + 5]!;
    const nx = ay * bz - az * by, ny = az * bx - ax * bz, nz = ax * by - ay * bx;
    const nl = Math.sqrt(nx * nx + ny * ny + nz * nz);
    if (nl > 1e-9 * links.length[i]! * links.length[i + 1]!) {
      w[13] = nx / nl; w[14] = ny / nl; w[15] = nz / nl;
      hingeTwist(world, pass, links.index[i]!, b, w, 13);
    }
    if (i + 1 >= to) break;
  }
}

/** C3 (the head the goal bone B must have: target − R_B · e) and v (B's vector) from B's rotation now. */
function endFrame(world: PhysikWorld, p: BezierProblem, cp: number, B: number): void {
  const { Bone, ControlPoint } = world.physik;
  const c3 = cp * 3;
  effectorLocal(world, cp, w, 0);
  quatRotateArr(w, 3, Bone.rot, B * 4, w, 0);
  for (let a = 0; a < 3; a++) p.c3[a] = ControlPoint.effective[c3 + a]! - w[3 + a]!;
  w[10] = 0; w[11] = Bone.length[B]!; w[12] = 0;
  quatRotateArr(p.v, 0, Bone.rot, B * 4, w, 10);
}

/** The 'bezier' kinematic solver (see the header). */
export function bezierSolve(world: PhysikWorld, rig: RigRecord): SolveResult {
  const { ControlPoint } = world.physik;
  const cache = cacheOf(rig);
  const p = cache.problem;
  p.k2 = shapes.get(rig)?.k2 ?? 1.1;
  let failed = false, evaluations = 0, keptClamped = false, limited = false, rotationMiss = false;
  for (let ci = 0; ci < rig.controlPoints.length; ci++) {
    const cp = rig.controlPoints[ci]!;
    if (!ControlPoint.active[cp] || ControlPoint.pole[cp]) continue;
    let links = cache.links[ci]!;
    if (!links) links = cache.links[ci] = goalLinks(world, rig, cp, true);
    const n = links.n;
    if (n === 0) continue; // a goal on the root (or nothing above it moves): no chain to fit
    const B = ControlPoint.bone[cp]!;
    endFrame(world, p, cp, B);
    if (!Number.isFinite(p.c3[0]! + p.c3[1]! + p.c3[2]!)) { failed = true; continue; }
    const P = cache.points;
    if (!fitFrom(world, p, links, 0, P)) { failed = true; continue; }
    evaluations += fitOut[0]!;
    // the goal point not beyond the reach of the whole chain (B turned too): a miss no limit
    // explains is the kept rotation's (B's head, where it must be with it, out of the chain's reach)
    let chain = 0;
    for (let k = 0; k < n; k++) chain += links.length[k]!;
    {
      const c3 = cp * 3, eff = ControlPoint.effective;
      const tx = eff[c3]! - p.c0[0]!, ty = eff[c3 + 1]! - p.c0[1]!, tz = eff[c3 + 2]! - p.c0[2]!;
      const lx = eff[c3]! - p.c3[0]!, ly = eff[c3 + 1]! - p.c3[1]!, lz = eff[c3 + 2]! - p.c3[2]!;
      if (Math.sqrt(tx * tx + ty * ty + tz * tz) < chain + Math.sqrt(lx * lx + ly * ly + lz * lz)) rotationMiss = true;
    }
    let pass = beginPass(world, rig);
    aimLinks(world, pass, links, 0, n, P);
    pass.mark[links.goalIndex] = KEEP;
    if (!endPass(world, rig, pass)) { failed = true; continue; }
    if (pass.keptClamped) keptClamped = true;
    if (!pass.clamped) continue;
    // a limit turned a bone off the curve: build again with the limits inside the build, each
    // link aimed along the curve fitted to the links from it on, clamped, and the curve of the
    // links below fitted again from where it really ends
    limited = true;
    endFrame(world, p, cp, B);
    for (let i = 0; i < n; i++) {
      if (!fitFrom(world, p, links, i, P)) { failed = true; break; }
      evaluations += fitOut[0]!;
      pass = beginPass(world, rig);
      aimLinks(world, pass, links, i, i + 1, P);
      pass.mark[links.goalIndex] = KEEP;
      if (!endPass(world, rig, pass)) { failed = true; break; }
      if (pass.keptClamped) keptClamped = true;
    }
  }
  const status = closedFormStatus(world, rig, failed);
  setSolveNote(rig, 'bezier', keptClamped ? NOTE_KEPT : limited && status === STATUS_STALLED ? NOTE_LIMITS : rotationMiss && status === STATUS_STALLED ? NOTE_ROTATION : '');
  return solved(Math.max(1, evaluations), status);
}
