/**
 * Jacobian kinematic solvers: Jacobian transpose (`jacobianTranspose`) and damped least
 * squares (`dls`).
 *
 * What: the goals (active, non-pole control points) are stacked, 3 rows each, into the error
 * e = target − attachment. The unknowns are small rotations of every bone on a goal's chain
 * about the free axes of its joint frame (parent · restLocal; x, y, z, minus the locked ones,
 * min = max; the root about the world axes), through its pivot (its head; a floating root's
 * centre, which stays put). Column d of J for goal j is u_d × (x_j − pivot), or 0 unless the
 * bone is the goal's bone or one of its ancestors. Per iteration:
 *   transpose: Δθ = α Jᵀ e with α = ⟨e, J Jᵀ e⟩ / ⟨J Jᵀ e, J Jᵀ e⟩ (the step that best
 *              matches e along J Jᵀ e, Buss 2004), α = 0 when J Jᵀ e vanishes;
 *   dls:       Δθ = Jᵀ (J Jᵀ + λ² I)⁻¹ e, solved by a dense Cholesky factorisation of the
 *              (3·goals)² matrix on preallocated scratch.
 * The rotation of each bone, ω = Σ u_d Δθ_d, is applied to its world rotation before its
 * parent's (the local rotation becomes parent_old⁻¹ · exp(ω) · world_old), then the world
 * rotations are rebuilt root first from the locals and each bone is clamped to its limits
 * (`clampToLimits`) as soon as its parent is final. A bone's whole turn is capped at MAX_STEP
 * radians per iteration (all of Δθ scaled down alike), so the linearisation stays honest.
 *
 * Limits (the "clamping loop"): a free axis sitting at a limit whose Δθ pushes it further out
 * has its column zeroed and Δθ is solved again (at most CLAMP_ROUNDS times), so the other
 * joints take up the work instead of it being lost to the clamp.
 *
 * Step control (dls with `dlsAdaptive`; always for the transpose): the rule of
 * Levenberg–Marquardt. An iteration that does not lower Σ|e|² is undone and μ is multiplied
 * by 4; an accepted one divides μ by 2 (not below 1). For dls, λ = (dlsLambda + 1e-6) ×
 * height × μ: an unreachable goal raises the damping until steps are tiny. For the transpose,
 * the step is α/μ (a backtracking safeguard on α, which is only optimal for the linearised
 * problem; without it the transpose was measured hopping by 0.1 per step between
 * poses of equal error against tight limits). μ restarts at 1 in path-independent mode and
 * whenever a goal's target moved; otherwise it carries over to the next step, so one
 * iteration per step still backs off. Since the pose only changes when the summed squared
 * error strictly drops, a rig facing an unreachable goal settles instead of jittering at the
 * singular, stretched pose. Without `dlsAdaptive`, dls uses λ = (dlsLambda + 1e-6) × height
 * and takes every step. (The 1e-6 floor keeps J Jᵀ + λ² I positive definite when dlsLambda
 * is 0.)
 *
 * Pull toward rest (`restPull` w > 0): a secondary task projected into the (damped) nullspace
 * of J, Δθ += (I − Jᵀ (J Jᵀ + ε² I)⁻¹ J) z with z_d = −(w/μ) φ_d, φ the bone's joint-frame
 * rotation vector from rest (the root: its world rotation vector from rest), and ε = 1e-5 ×
 * height. The goals keep priority; the pull only uses the freedom they leave, and it acts
 * only while the solver iterates (a converged rig is left alone).
 *
 * Restarts: a solve that stalls short of its goals (nothing left to move, the damping at its
 * cap, no progress, or PATIENCE iterations gaining under 0.1% on the best since the last
 * restart) with at least RESTART_LEFT iterations left starts again from a pose drawn inside
 * the limits (chain joints; the root as it is), at most MAX_RESTARTS times; the best pose and its
 * μ are kept. With the default 10 iterations a step never restarts. On the CMU walk a toe goal
 * stalled 1.7e-1 of the height short (thigh and knee at their limits) under both methods.
 *
 * Singular start (a straight chain whose goal is nearer or behind along the line, so Jᵀ e = 0
 * for that goal's rows): the guide's colinear bump, BUMP radians about each chain bone's free
 * x (else z) axis, taken even if it costs error at first. A straight chain pointing at a goal
 * beyond reach is a true minimum and is not bumped.
 *
 * Modes: 'path-dependent' at most `ikIterations` iterations per step from the current pose;
 * 'path-independent' restarts from the rest pose (root centre or pin stays) and iterates to
 * `ikTolerance` × height or the cap. Status: converged within tolerance; stalled at the cap
 * or when nothing moves any more (unreachable); diverged on a non-finite value (checked before
 * anything is written; the pose of the start of the solve is restored).
 *
 * Limits of the method: the transpose converges linearly and slowly near a solution; cost per
 * iteration is O(goals² · dofs) to form J Jᵀ plus O(goals³) to factor it; restPull needs a
 * second factorisation. No allocation per step: scratch grows per rig (WeakMap by record).
 *
 * Poles: an active pole control point on bone B (the scene files' pole syntax, as for FABRIK
 * and two-bone) turns the section below B's parent about the line from its base to its
 * effector after the solve, so the joint at B's head bends toward the pole (poles.ts).
 *
 * Why one file of this length: both methods are one iteration (build J, solve for Δθ, clamp
 * and re-solve, accept or undo) and differ only in the solve for Δθ.
 *
 * References: SpehleonLP, "Inverse Kinematics Guide" (Jacobian solver, DLS, clamp after the
 * update; Advice: DFS order, colinear bump);
 * S. R. Buss, "Introduction to Inverse Kinematics with Jacobian Transpose, Pseudoinverse and
 * Damped Least Squares methods" (2004) for α and the nullspace projection.
 */
import type { PhysikWorld, RigRecord } from '../../src/world/world';
import { STATUS_CONVERGED, STATUS_DIVERGED, STATUS_STALLED } from '../../components/Rig';
import { quatFromRotationVector, quatMul, quatMulConjA, quatNormalize, quatToRotationVector } from '../../src/math/quat';
import { jointRotationVector } from '../../src/world/jointRotation';
import { refreshPose, solved } from './common';
import { BUMP, collectGoals, frameAxis, goalErrors, goalsFinite, ikRig, markChains, restartBones, restartMask, type IkRig } from './goalTree';
import {
  axisLocked, computeLocals, hasLimits, jointFrame, keepPose, pivotOf, rebuildFromLocals, resetToRest, restoreStart, rotateWorld, saveStart, undoPose,
} from './localPose';
import { applyPoles } from './poles';
import type { SolveResult } from './solver';

/** Largest turn of one bone in one iteration (radians). */
const MAX_STEP = 0.4;
/** Re-solves of the clamping loop per iteration. */
const CLAMP_ROUNDS = 2;
const MU_MAX = 1e8;
/**
 * Restarts: a solve that stalls short of its goals (blocked by limits in a local minimum, e.g. a
 * thigh at its limit with the knee straight) with at least RESTART_LEFT iterations left starts
 * again from a pose drawn inside the limits, at most MAX_RESTARTS times; the best pose is kept.
 * With the default 10 iterations a step never restarts; a rig given a few hundred does.
 */
const RESTART_LEFT = 12;
/** Iterations in a row without a gain of 0.1% on the run's best Σ|e|² that count as a stall (only when a restart can follow). */
const PATIENCE = 12;
const MAX_RESTARTS = 8;

interface JacScratch {
  n: number;
  /** Per bone (depth-first index): first DOF and DOF count; DOFs are bone-contiguous. */
  dofFirst: Int32Array;
  dofCount: Int32Array;
  dofBone: Int32Array;
  dofAxis: Uint8Array;
  /** World axis per DOF. */
  axis: Float64Array;
  pivot: Float64Array;
  phi: Float64Array;
  omega: Float64Array;
  tmpQ: Float64Array;
  /** World rotations (depth-first, 4 per bone) of the best pose of a solve that restarted. */
  bestRot: Float64Array;
  /** Step control μ kept between path-dependent solves while the targets stay put. */
  mu: number;
  lastTargets: Float64Array;
  /** rig.controlPointsVersion this was built for. */
  version: number;
  lastGoals: number;
  // grown on demand (m = 3 · goals rows, k DOFs)
  J: Float64Array;
  A: Float64Array;
  L: Float64Array;
  e: Float64Array;
  y: Float64Array;
  w: Float64Array;
  grad: Float64Array;
  dth: Float64Array;
  z: Float64Array;
  /**
   * Numbers for the helpers: [λ², step scale 1/μ, tolerance, ε²]. Passed in an array, as a
   * floating-point argument to a helper V8 does not inline is boxed (an allocation per call).
   */
  num: Float64Array;
}

const scratchOf = new WeakMap<RigRecord, JacScratch>();

function jacScratch(rig: RigRecord): JacScratch {
  const n = rig.bones.length;
  let S = scratchOf.get(rig);
  if (S && S.n === n && S.version === rig.controlPointsVersion) return S;
  S = {
    n, version: rig.controlPointsVersion,
    dofFirst: new Int32Array(n), dofCount: new Int32Array(n), dofBone: new Int32Array(3 * n), dofAxis: new Uint8Array(3 * n),
    axis: new Float64Array(9 * n), pivot: new Float64Array(3 * n), phi: new Float64Array(3 * n), omega: new Float64Array(3 * n),
    tmpQ: new Float64Array(4), bestRot: new Float64Array(4 * n), mu: 1, lastTargets: new Float64Array(3 * rig.controlPoints.length), lastGoals: -1,
    J: new Float64Array(0), A: new Float64Array(0), L: new Float64Array(0),
    e: new Float64Array(0), y: new Float64Array(0), w: new Float64Array(0),
    grad: new Float64Array(0), dth: new Float64Array(0), z: new Float64Array(0),
    num: new Float64Array(4),
  };
  scratchOf.set(rig, S);
  return S;
}

function grow(S: JacScratch, m: number, k: number): void {
  if (S.J.length < m * k) S.J = new Float64Array(m * k);
  if (S.A.length < m * m) { S.A = new Float64Array(m * m); S.L = new Float64Array(m * m); }
  if (S.e.length < m) { S.e = new Float64Array(m); S.y = new Float64Array(m); S.w = new Float64Array(m); }
  if (S.grad.length < k) { S.grad = new Float64Array(k); S.dth = new Float64Array(k); S.z = new Float64Array(k); }
}

/** L Lᵀ = A + diag·I for the m×m symmetric A (row-major); false if not positive definite. */
/** Cholesky factor L of A + diag I, diag = num[ni]; false when not positive definite. */
function cholesky(A: Float64Array, L: Float64Array, m: number, num: Float64Array, ni: number): boolean {
  const diag = num[ni]!;
  for (let i = 0; i < m; i++) {
    for (let j = 0; j <= i; j++) {
      let s = A[i * m + j]!;
      if (i === j) s += diag;
      for (let k = 0; k < j; k++) s -= L[i * m + k]! * L[j * m + k]!;
      if (i === j) {
        if (!(s > 0) || !Number.isFinite(s)) return false;
        L[i * m + i] = Math.sqrt(s);
      } else {
        L[i * m + j] = s / L[j * m + j]!;
      }
    }
  }
  return true;
}

/** Solve L Lᵀ x = b in place (b becomes x). */
function cholSolve(L: Float64Array, m: number, b: Float64Array): void {
  for (let i = 0; i < m; i++) {
    let s = b[i]!;
    for (let k = 0; k < i; k++) s -= L[i * m + k]! * b[k]!;
    b[i] = s / L[i * m + i]!;
  }
  for (let i = m - 1; i >= 0; i--) {
    let s = b[i]!;
    for (let k = i + 1; k < m; k++) s -= L[k * m + i]! * b[k]!;
    b[i] = s / L[i * m + i]!;
  }
}

/** A ← J Jᵀ (m×m) from J (m×k). */
function formJJt(S: JacScratch, m: number, k: number): void {
  const { J, A } = S;
  for (let r = 0; r < m; r++) {
    for (let c = 0; c <= r; c++) {
      let s = 0;
      const ro = r * k, co = c * k;
      for (let d = 0; d < k; d++) s += J[ro + d]! * J[co + d]!;
      A[r * m + c] = s; A[c * m + r] = s;
    }
  }
}

/** out(k) ← Jᵀ v(m). */
function mulJt(S: JacScratch, m: number, k: number, v: Float64Array, out: Float64Array): void {
  const J = S.J;
  for (let d = 0; d < k; d++) out[d] = 0;
  for (let r = 0; r < m; r++) {
    const vr = v[r]!;
    if (vr === 0) continue;
    const ro = r * k;
    for (let d = 0; d < k; d++) out[d] = out[d]! + J[ro + d]! * vr;
  }
}

/** out(m) ← J v(k). */
function mulJ(S: JacScratch, m: number, k: number, v: Float64Array, out: Float64Array): void {
  const J = S.J;
  for (let r = 0; r < m; r++) {
    let s = 0;
    const ro = r * k;
    for (let d = 0; d < k; d++) s += J[ro + d]! * v[d]!;
    out[r] = s;
  }
}

/** DOFs of the bones on the goals' chains (marked in T.mark); returns their count k. */
function buildDofs(world: PhysikWorld, rig: RigRecord, T: IkRig, S: JacScratch): number {
  markChains(T);
  let k = 0;
  for (let i = 0; i < T.n; i++) {
    S.dofFirst[i] = k; S.dofCount[i] = 0;
    if (!T.mark[i]) continue;
    const b = rig.bones[i]!;
    for (let a = 0; a < 3; a++) {
      if (i > 0 && axisLocked(world, b, a)) continue;
      S.dofBone[k] = i; S.dofAxis[k] = a; k++;
    }
    S.dofCount[i] = k - S.dofFirst[i]!;
  }
  return k;
}

/** Pivots, world axes of the DOFs, and (when needed) joint-frame rotation vectors from rest. */
function frames(world: PhysikWorld, rig: RigRecord, T: IkRig, S: JacScratch, pinned: boolean, pull: boolean): void {
  const { Bone } = world.physik;
  for (let i = 0; i < T.n; i++) {
    if (!T.mark[i]) continue;
    const b = rig.bones[i]!;
    pivotOf(world, b, i === 0, pinned, S.pivot, i * 3);
    jointFrame(world, b, S.tmpQ, 0);
    for (let d = S.dofFirst[i]!, end = d + S.dofCount[i]!; d < end; d++) frameAxis(S.tmpQ, 0, S.dofAxis[d]!, S.axis, d * 3);
    if (i > 0 ? !(pull || hasLimits(world, b)) : !pull) continue;
    if (i > 0) {
      jointRotationVector(world, b, S.tmpQ); // first 3 entries
      S.phi[i * 3] = S.tmpQ[0]!; S.phi[i * 3 + 1] = S.tmpQ[1]!; S.phi[i * 3 + 2] = S.tmpQ[2]!;
    } else {
      // root: world rotation vector of rot · restWorld⁻¹
      const q = b * 4;
      const x = Bone.rot[q]!, y = Bone.rot[q + 1]!, z = Bone.rot[q + 2]!, w = Bone.rot[q + 3]!;
      const rx = -Bone.restWorld[q]!, ry = -Bone.restWorld[q + 1]!, rz = -Bone.restWorld[q + 2]!, rw = Bone.restWorld[q + 3]!;
      S.tmpQ[0] = w * rx + x * rw + y * rz - z * ry;
      S.tmpQ[1] = w * ry - x * rz + y * rw + z * rx;
      S.tmpQ[2] = w * rz + x * ry - y * rx + z * rw;
      S.tmpQ[3] = w * rw - x * rx - y * ry - z * rz;
      quatToRotationVector(S.phi, i * 3, S.tmpQ, 0);
    }
  }
}

/** J (m×k) and e (m) from the current attachments T.effector. */
function formJacobian(world: PhysikWorld, T: IkRig, S: JacScratch, m: number, k: number): void {
  const eff = world.physik.ControlPoint.effective;
  const { J, e, axis, pivot } = S;
  J.fill(0, 0, m * k);
  for (let g = 0; g < T.goalCount; g++) {
    const c3 = T.goalCp[g]! * 3, g3 = g * 3;
    const x = T.effector[g3]!, y = T.effector[g3 + 1]!, z = T.effector[g3 + 2]!;
    e[g3] = eff[c3]! - x; e[g3 + 1] = eff[c3 + 1]! - y; e[g3 + 2] = eff[c3 + 2]! - z;
    const r0 = g3 * k, r1 = r0 + k, r2 = r1 + k;
    for (let i = T.goalBone[g]!; i >= 0; i = T.parentIndex[i]!) {
      const rx = x - pivot[i * 3]!, ry = y - pivot[i * 3 + 1]!, rz = z - pivot[i * 3 + 2]!;
      for (let d = S.dofFirst[i]!, end = d + S.dofCount[i]!; d < end; d++) {
        const ux = axis[d * 3]!, uy = axis[d * 3 + 1]!, uz = axis[d * 3 + 2]!;
        J[r0 + d] = uy * rz - uz * ry;
        J[r1 + d] = uz * rx - ux * rz;
        J[r2 + d] = ux * ry - uy * rx;
      }
    }
  }
}

/**
 * Δθ into S.dth for the current J and e (with its clamped columns zeroed): dls or transpose.
 * Returns false if the damped matrix could not be factored.
 */
/** Δθ into S.dth, with λ² = S.num[0] (dls) or the step scale S.num[1] (transpose). */
function solveStep(S: JacScratch, m: number, k: number, dls: boolean): boolean {
  const scale = S.num[1]!;
  if (dls) {
    formJJt(S, m, k);
    if (!cholesky(S.A, S.L, m, S.num, 0)) return false;
    for (let r = 0; r < m; r++) S.y[r] = S.e[r]!;
    cholSolve(S.L, m, S.y);
    mulJt(S, m, k, S.y, S.dth);
    return true;
  }
  mulJt(S, m, k, S.e, S.grad);
  mulJ(S, m, k, S.grad, S.w); // J Jᵀ e
  let num = 0, den = 0;
  for (let r = 0; r < m; r++) { num += S.e[r]! * S.w[r]!; den += S.w[r]! * S.w[r]!; }
  const alpha = den > 1e-300 ? (scale * num) / den : 0;
  for (let d = 0; d < k; d++) S.dth[d] = alpha * S.grad[d]!;
  return true;
}

/** The clamping loop's test: zero the columns of free axes at a limit that Δθ pushes outward. */
function zeroBlockedColumns(world: PhysikWorld, rig: RigRecord, S: JacScratch, m: number, k: number): boolean {
  const L = world.physik.AngularLimit;
  let any = false;
  for (let d = 0; d < k; d++) {
    const i = S.dofBone[d]!;
    if (i === 0) continue;
    const b = rig.bones[i]!, a = S.dofAxis[d]!;
    if (!L.enabled[b * 3 + a]) continue;
    const t = S.dth[d]!, p = S.phi[i * 3 + a]!;
    if ((t > 0 && p >= L.max[b * 3 + a]! - 1e-9) || (t < 0 && p <= L.min[b * 3 + a]! + 1e-9)) {
      let nonzero = false;
      for (let r = 0; r < m; r++) { if (S.J[r * k + d] !== 0) nonzero = true; S.J[r * k + d] = 0; }
      if (nonzero) any = true;
    }
  }
  return any;
}

const turn = new Float64Array(3);

/** Bone i's rotation vector this update: Σ over its degrees of freedom of axis × Δθ, to out. */
function boneTurn(S: JacScratch, i: number, out: Float64Array): void {
  let wx = 0, wy = 0, wz = 0;
  for (let d = S.dofFirst[i]!, end = d + S.dofCount[i]!; d < end; d++) {
    const t = S.dth[d]!;
    wx += S.axis[d * 3]! * t; wy += S.axis[d * 3 + 1]! * t; wz += S.axis[d * 3 + 2]! * t;
  }
  out[0] = wx; out[1] = wy; out[2] = wz;
}

/** Apply Δθ: new locals from the turned world rotations, rebuild root first with clamping. */
function applyStep(world: PhysikWorld, rig: RigRecord, T: IkRig, S: JacScratch): boolean {
  const { Bone } = world.physik;
  for (let i = 0; i < T.n; i++) {
    const cnt = S.dofCount[i]!;
    if (!T.mark[i] || cnt === 0) continue;
    boneTurn(S, i, turn);
    const wx = turn[0]!, wy = turn[1]!, wz = turn[2]!;
    const angle = Math.sqrt(wx * wx + wy * wy + wz * wz);
    if (angle === 0) continue;
    const b = rig.bones[i]!;
    for (let c = 0; c < 4; c++) S.tmpQ[c] = Bone.rot[b * 4 + c]!;
    if (!rotateWorld(S.tmpQ, 0, wx / angle, wy / angle, wz / angle, angle)) return false;
    const p = T.parentIndex[i]!;
    if (p < 0) for (let c = 0; c < 4; c++) T.local[i * 4 + c] = S.tmpQ[c]!;
    else quatMulConjA(T.local, i * 4, Bone.rot, rig.bones[p]! * 4, S.tmpQ, 0);
  }
  rebuildFromLocals(world, rig, T, 0, T.n, true);
  refreshPose(world, rig);
  return true;
}


/** Errors (T.effector, S.e) after a pose change; the largest into T.worst (goalErrors), S.e filled. */
function errorsInto(world: PhysikWorld, T: IkRig, S: JacScratch): void {
  goalErrors(world, T);
  const eff = world.physik.ControlPoint.effective;
  for (let g = 0; g < T.goalCount; g++) {
    const c3 = T.goalCp[g]! * 3, g3 = g * 3;
    S.e[g3] = eff[c3]! - T.effector[g3]!; S.e[g3 + 1] = eff[c3 + 1]! - T.effector[g3 + 1]!; S.e[g3 + 2] = eff[c3 + 2]! - T.effector[g3 + 2]!;
  }
}

/** The guide's colinear bump, added to Δθ for goals whose own rows give Jᵀ e = 0 with the goal not beyond reach. */
function bumpSingular(T: IkRig, S: JacScratch, k: number): boolean {
  const tol = S.num[2]!;
  let bumped = false;
  for (let g = 0; g < T.goalCount; g++) {
    const g3 = g * 3;
    const ex = S.e[g3]!, ey = S.e[g3 + 1]!, ez = S.e[g3 + 2]!;
    const en2 = ex * ex + ey * ey + ez * ez;
    if (en2 <= tol * tol) continue;
    let gradSq = 0, colSq = 0;
    const r0 = g3 * k, r1 = r0 + k, r2 = r1 + k;
    for (let i = T.goalBone[g]!; i >= 0; i = T.parentIndex[i]!) {
      for (let d = S.dofFirst[i]!, end = d + S.dofCount[i]!; d < end; d++) {
        const a = S.J[r0 + d]!, b = S.J[r1 + d]!, c = S.J[r2 + d]!;
        const t = a * ex + b * ey + c * ez;
        gradSq += t * t; colSq += a * a + b * b + c * c;
      }
    }
    if (!(colSq > 0) || gradSq > 1e-16 * colSq * en2) continue;
    // along the line: is the goal beyond the effector (a true minimum) or not?
    const x = T.effector[g3]!, y = T.effector[g3 + 1]!, z = T.effector[g3 + 2]!;
    if (ex * (x - S.pivot[0]!) + ey * (y - S.pivot[1]!) + ez * (z - S.pivot[2]!) >= 0) continue;
    for (let i = T.goalBone[g]!; i >= 0; i = T.parentIndex[i]!) {
      let pick = -1;
      for (let d = S.dofFirst[i]!, end = d + S.dofCount[i]!; d < end; d++) {
        if (S.dofAxis[d] === 0) { pick = d; break; }
        if (S.dofAxis[d] === 2 && pick < 0) pick = d;
      }
      if (pick >= 0) { S.dth[pick] = S.dth[pick]! + BUMP; bumped = true; }
    }
  }
  return bumped;
}

const rv = new Float64Array(3), rq = new Float64Array(4);

/**
 * Restart r: every chain joint's rotation vector at a pseudo-random point of its box (free axes
 * within ±1 rad), the root as it is; deterministic in r. Heads and tails refreshed.
 */
function restartPose(world: PhysikWorld, rig: RigRecord, T: IkRig, r: number, tol: number): void {
  const { Bone, AngularLimit: L } = world.physik;
  restartMask(T, T.mark, tol);
  let h = Math.imul(r + 1, 0x9e3779b9) | 0;
  for (let i = 1; i < T.n; i++) {
    if (!restartBones[i]) continue;
    const b = rig.bones[i]!;
    for (let a = 0; a < 3; a++) {
      h = (h + 0x6d2b79f5) | 0;
      let t = Math.imul(h ^ (h >>> 15), 1 | h);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      const u = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
      rv[a] = L.enabled[b * 3 + a] ? L.min[b * 3 + a]! + (L.max[b * 3 + a]! - L.min[b * 3 + a]!) * u : 2 * u - 1;
    }
    quatFromRotationVector(rq, 0, rv, 0);
    quatMul(T.local, i * 4, Bone.restLocal, b * 4, rq, 0);
    quatNormalize(T.local, i * 4);
  }
  rebuildFromLocals(world, rig, T, 0, T.n, true);
  refreshPose(world, rig);
}

function saveBest(rig: RigRecord, T: IkRig, S: JacScratch): void {
  const rot = T.rot;
  for (let i = 0; i < T.n; i++) {
    const q = rig.bones[i]! * 4;
    for (let c = 0; c < 4; c++) S.bestRot[i * 4 + c] = rot[q + c]!;
  }
}

function restoreBest(world: PhysikWorld, rig: RigRecord, T: IkRig, S: JacScratch): void {
  const rot = T.rot;
  for (let i = 0; i < T.n; i++) {
    const q = rig.bones[i]! * 4;
    for (let c = 0; c < 4; c++) rot[q + c] = S.bestRot[i * 4 + c]!;
  }
  refreshPose(world, rig);
  computeLocals(world, rig, T);
}

/** Something went non-finite: put back the pose of the start of the solve. */
function diverged(world: PhysikWorld, rig: RigRecord, T: IkRig, iterations: number): SolveResult {
  restoreStart(world, rig, T);
  return solved(iterations, STATUS_DIVERGED);
}

function solveJacobian(world: PhysikWorld, rig: RigRecord, dls: boolean): SolveResult {
  const { Rig } = world.physik;
  const s = rig.settings;
  const T = ikRig(world, rig);
  const S = jacScratch(rig);
  const h = Rig.height[rig.eid]! > 0 ? Rig.height[rig.eid]! : 1;
  const tol = s.ikTolerance * h;
  const pinned = Rig.pinned[rig.eid] === 1;
  const G = collectGoals(world, rig, T);
  if (G === 0) return solved(0, STATUS_CONVERGED);
  if (!goalsFinite(world, T)) return solved(0, STATUS_DIVERGED);
  const m = 3 * G;
  const k = buildDofs(world, rig, T, S);
  grow(S, m, k);
  saveStart(world, rig, T);
  if (s.ikMode === 'path-independent') resetToRest(world, rig);
  else refreshPose(world, rig);
  computeLocals(world, rig, T);
  const adaptive = !dls || s.dlsAdaptive;
  const lambda0 = (s.dlsLambda + 1e-6) * h;
  const eps2 = (1e-5 * h) * (1e-5 * h);
  const pull = s.restPull;
  // μ: restarts at 1 in path-independent mode, on a rig's first step (also after resetRig)
  // and whenever a goal moved or the goal set changed
  let mu = S.mu;
  let moved = s.ikMode === 'path-independent' || S.lastGoals !== G || Rig.step[rig.eid] === 0;
  const eff = world.physik.ControlPoint.effective;
  for (let g = 0; g < G; g++) {
    const c3 = T.goalCp[g]! * 3;
    for (let a = 0; a < 3; a++) {
      if (S.lastTargets[g * 3 + a] !== eff[c3 + a]) moved = true;
      S.lastTargets[g * 3 + a] = eff[c3 + a]!;
    }
  }
  S.lastGoals = G;
  if (moved || !adaptive) mu = 1;
  errorsInto(world, T, S);
  let err = T.worst;
  if (!Number.isFinite(err)) { restoreStart(world, rig, T); return solved(0, STATUS_DIVERGED); }
  // Σ e² written out (a helper returning it would box the number)
  let ss = 0;
  for (let r = 0; r < m; r++) ss += S.e[r]! * S.e[r]!;
  S.num[2] = tol; S.num[3] = eps2;
  let status = err <= tol ? STATUS_CONVERGED : STATUS_STALLED;
  let it = 0, restarts = 0, bestSs = Number.POSITIVE_INFINITY, bestMu = mu;
  let stuck = false, runBest = ss, sinceBest = 0;
  while (status !== STATUS_CONVERGED && it < s.ikIterations) {
    if (stuck) {
      // stalled short of the goals: start again from elsewhere if enough iterations are left
      stuck = false;
      if (s.ikIterations - it < RESTART_LEFT || restarts >= MAX_RESTARTS) break;
      if (ss < bestSs) { bestSs = ss; bestMu = mu; saveBest(rig, T, S); }
      restartPose(world, rig, T, restarts++, tol);
      errorsInto(world, T, S);
      err = T.worst;
      if (!Number.isFinite(err)) return diverged(world, rig, T, it);
      ss = 0;
      for (let r = 0; r < m; r++) ss += S.e[r]! * S.e[r]!;
      mu = 1; runBest = ss; sinceBest = 0;
      if (err <= tol) { status = STATUS_CONVERGED; break; }
    }
    it++;
    // creeping (each iteration gains next to nothing): a stall too, when a restart can follow
    if (++sinceBest > PATIENCE && s.ikIterations - it >= RESTART_LEFT && restarts < MAX_RESTARTS) { stuck = true; continue; }
    frames(world, rig, T, S, pinned, pull > 0);
    formJacobian(world, T, S, m, k);
    const lambda = lambda0 * mu;
    S.num[0] = lambda * lambda; S.num[1] = 1 / mu;
    if (!solveStep(S, m, k, dls)) return diverged(world, rig, T, it);
    for (let round = 0; round < CLAMP_ROUNDS && zeroBlockedColumns(world, rig, S, m, k); round++) {
      if (!solveStep(S, m, k, dls)) return diverged(world, rig, T, it);
    }
    if (pull > 0) {
      // z = −(w/μ) φ per DOF, projected into the damped nullspace of J
      const wgt = pull / mu;
      for (let d = 0; d < k; d++) S.z[d] = -wgt * S.phi[S.dofBone[d]! * 3 + S.dofAxis[d]!]!;
      formJJt(S, m, k);
      if (!cholesky(S.A, S.L, m, S.num, 3)) return diverged(world, rig, T, it);
      mulJ(S, m, k, S.z, S.y);
      cholSolve(S.L, m, S.y);
      mulJt(S, m, k, S.y, S.grad);
      for (let d = 0; d < k; d++) S.dth[d] = S.dth[d]! + (S.z[d]! - S.grad[d]!);
    }
    const bumped = bumpSingular(T, S, k);
    // cap each bone's turn; check finiteness before anything is written
    let worst = 0, finite = true;
    for (let i = 0; i < T.n; i++) {
      const cnt = S.dofCount[i]!;
      if (!T.mark[i] || cnt === 0) continue;
      boneTurn(S, i, turn);
      const a = Math.sqrt(turn[0]! * turn[0]! + turn[1]! * turn[1]! + turn[2]! * turn[2]!);
      if (!Number.isFinite(a)) finite = false;
      else if (a > worst) worst = a;
    }
    if (!finite) return diverged(world, rig, T, it);
    if (worst > MAX_STEP) { const f = MAX_STEP / worst; for (let d = 0; d < k; d++) S.dth[d] = S.dth[d]! * f; worst = MAX_STEP; }
    if (worst < 1e-14) { stuck = true; continue; } // nothing to do: stalled (unreachable or blocked)
    if (adaptive) keepPose(world, rig, T);
    if (!applyStep(world, rig, T, S)) return diverged(world, rig, T, it);
    errorsInto(world, T, S);
    const nextErr = T.worst;
    if (!Number.isFinite(nextErr)) return diverged(world, rig, T, it);
    let nextSs = 0;
    for (let r = 0; r < m; r++) nextSs += S.e[r]! * S.e[r]!;
    if (adaptive && !bumped && !(nextSs < ss)) {
      // undo, damp harder (a bump is kept: it leaves a saddle, so it may cost error at first)
      undoPose(world, rig, T);
      errorsInto(world, T, S);
      if (mu >= MU_MAX) { stuck = true; continue; }
      mu = Math.min(MU_MAX, mu * 4);
      continue;
    }
    if (adaptive) mu = Math.max(1, mu * 0.5);
    const improvement = ss - nextSs;
    err = nextErr; ss = nextSs;
    if (ss < runBest * (1 - 1e-3)) { runBest = ss; sinceBest = 0; }
    if (err <= tol) { status = STATUS_CONVERGED; break; }
    if (pull === 0 && Math.abs(improvement) <= 1e-15 * h * h) stuck = true; // no progress: stalled
  }
  if (status !== STATUS_CONVERGED && bestSs < ss) {
    // a restart ended worse than a pose before it: that pose back
    restoreBest(world, rig, T, S);
    mu = bestMu;
  }
  S.mu = mu;
  refreshPose(world, rig);
  applyPoles(world, rig, T);
  return solved(it, status);
}

/** Jacobian transpose with the optimal step along J Jᵀ e. */
export function jacobianTransposeSolve(world: PhysikWorld, rig: RigRecord): SolveResult {
  return solveJacobian(world, rig, false);
}

/** Damped least squares (Levenberg–Marquardt adaptive damping when dlsAdaptive). */
export function dlsSolve(world: PhysikWorld, rig: RigRecord): SolveResult {
  return solveJacobian(world, rig, true);
}
