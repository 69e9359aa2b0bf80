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
 * - Off-axis attachments (imported characters: legs on the hips' sides, arms on the chest's):
 *   a bone with a request off its axis (a chain child whose Bone.attach has an x or z part)
 *   treats its requests as points of a rigid body, not fractions along the axis: backward, one
 *   point takes the FABRIK step about that point (held by the child's limits about the
 *   direction to it), several the least-squares rotation about their centroid
 *   (`fitPoints`); forward, it is fitted as a sub-base (`rigidFit`), its joint's box holding
 *   the direction to its one point. The roll look-ahead stops at such bones. Before, the
 *   requests were taken along the axis, and RiggedFigure's hand and foot were missed by up to
 *   6e-2 of its height at 4 ms a step.
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
 * Where the parts live: fabrik/scratch.ts (the working set and the helpers over it),
 * fabrik/constraints.ts (a joint's box), fabrik/roll.ts (the roll look-ahead),
 * fabrik/subBases.ts (rigid fits and the turn about the base), fabrik/passes.ts (backward,
 * forward, poles), fabrik/freeChain.ts (one goal on a chain with no limits: the published
 * passes on positions alone); this file restarts, keeps the best pose and reports. How often it reaches
 * random limited chains is measured in docs/solvers.md.
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
import { quatMul, quatMulConjA, quatNormalize, quatFromRotationVector } from '../../src/math/quat';
import { copyDoubles } from '../../components/doubles';
import type { SolveResult } from './solver';
import { refreshPose, solved } from './common';
import { axisOf, backup, base, best, chainKids, contrib, errOut, firstKid, frac, gBone, gCp, gD, goalError, goalPoints, gOwn, growBones, growControlPoints, growIndex, gP, gU, hasBq, hasGoal, hi, hinge, idxOf, kidOf, len, limited, lo, loc, locked, nextSib, offAx, offReq, onChain, par, pB, pCp, pGoal, placeAll, pTop, rollMiss, rootCentre, soleKid, straightDir, tv, v } from './fabrik/scratch';
import { pj } from './fabrik/constraints';
import { tEps } from './fabrik/roll';
import { buildRigidPoints, growPairs, turnAboutBase } from './fabrik/subBases';
import { backward, forward } from './fabrik/passes';
import { isFreeChain, solveFreeChain } from './fabrik/freeChain';

/** Iterations in a row without a gain of 0.1% on the best before the solve restarts elsewhere. */
const PATIENCE = 12;

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

export function fabrikSolve(world: PhysikWorld, rig: RigRecord): SolveResult {
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
    offAx[i] = p >= 0 && Math.sqrt(Bone.attach[b3]! * Bone.attach[b3]! + Bone.attach[b3 + 2]! * Bone.attach[b3 + 2]!) > 1e-9 * Bone.length[p]! ? 1 : 0;
    offReq[i] = 0;
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
    let off = false;
    if (Math.abs(u) < 1e-9) { u = par[i]! >= 0 ? frac[i]! : 0; off = offAx[i] === 1; i = par[i]!; } // a goal at the head is the parent's
    gCp[m] = cp; gOwn[m] = own; gBone[m] = i; gU[m] = u;
    const m3 = m * 3, o3 = bones[own]! * 3;
    if (off) {
      gP[m3] = Bone.attach[o3]!; gP[m3 + 1] = Bone.attach[o3 + 1]!; gP[m3 + 2] = Bone.attach[o3 + 2]!;
      offReq[i] = 1;
    } else { gP[m3] = 0; gP[m3 + 1] = i >= 0 ? u * len[i]! : 0; gP[m3 + 2] = 0; }
    if (i >= 0) {
      movable++; single = m;
      hasGoal[i] = 1;
      for (let k = i; k >= 0 && !onChain[k]; k = par[k]!) onChain[k] = 1;
    }
    m++;
  }
  for (let i = 1; i < n; i++) if (onChain[i]) { chainKids[par[i]!]! += 1; kidOf[par[i]!] = i; if (offAx[i]) offReq[par[i]!] = 1; }
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
    // an off-axis attachment adds at most its distance from the parent's head
    for (; par[k]! >= 0; k = par[k]!) {
      const a3 = bones[k]! * 3, ax = Bone.attach[a3]!, ay = Bone.attach[a3 + 1]!, az = Bone.attach[a3 + 2]!;
      contrib[par[k]!] = offAx[k] ? Math.sqrt(ax * ax + ay * ay + az * az) : frac[k]! * len[par[k]!]!;
      reach += contrib[par[k]!]!;
    }
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
  if (err > tol && isFreeChain(world, rig, m, nPoles)) {
    // one goal on a chain without limits: the published algorithm on positions (freeChain.ts)
    iterations = solveFreeChain(world, rig, s.ikIterations, tol);
    placeAll(world, rig);
    goalError(world, rig, m);
    err = errOut[0]!;
    if (!Number.isFinite(err)) return diverged(world, rig, iterations);
    placeRootCentre(world, rig);
    refreshPose(world, rig);
    return solved(iterations, err <= tol ? STATUS_CONVERGED : STATUS_STALLED);
  }
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
