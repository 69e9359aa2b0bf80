/**
 * Settling: each awake rig's status from the trends of its motion and target error, the
 * hybrid finish, and sleep. Runs after metrics.
 *
 * Status (`Rig.settle`, STATUS_* of components/Rig):
 * - 'diverged': the divergence guard refused a step, even in substeps, within the last
 *   `settleSteps` steps (the rig kept its last good state).
 * - 'converged': at rest (every bone end slower than restSpeed × height, no target
 *   interpolating) for `settleSteps` steps and static now (`Rig.static`, systems/metrics.ts:
 *   every bone end slower than settleTolerance × height per second and the net load within
 *   restLoad of the spring load), with every goal within settleTolerance × height.
 * - 'stalled': at rest as long and static, a goal farther and the error no longer improving
 *   (out of reach, held by a limit, goals in conflict; a rig creeping slowly onto its goals is
 *   still settling); or still moving without improving the target error by 0.1% for
 *   `stallSteps` steps (a limit cycle: the paper's wobbling hand).
 * - 'settling': otherwise. A change of targets or settings starts it over (systems/sleep.ts).
 * Each change of status calls the world's settle listeners (`onSettle` in the API).
 *
 * Hybrid finish (`finish` 'ccd' or 'dls'): when a PhysIK rig has slowed (end speeds under
 * 10 × restSpeed × height) within finishRadius × height of its goals, the finish solver is
 * tried from that pose within the step (`hybridFinish`). CCD and DLS clamp to the limits, so
 * the finish reaches goals PhysIK's soft springs approach only exponentially. Kept when it
 * reaches every goal within tolerance (the rig is then converged, at rest); else PhysIK's state
 * is put back, so a finish never leaves a rig worse off, nor costs it simulated time.
 *
 * Sleep (`sleepWhenConverged`): a converged rig, or a stalled one, once static, gets zero
 * velocity and is no longer stepped until it is woken (so a rig never sleeps while a load on
 * it is unbalanced: woken, it would move on from where it slept).
 */
import type { PhysikWorld, RigRecord } from '../src/world/world';
import { steppingRigs } from '../src/world/world';
import { STATUS_CONVERGED, STATUS_DIVERGED, STATUS_SETTLING, STATUS_STALLED, statusNames } from '../components';
import { forwardKinematicsOf } from '../src/world/forwardKinematics';
import { measureRig, measureDiagnostics } from './metrics';
import { kinematicSolvers } from './ik/registry';
import { restoreRigState, saveRigState, savedRigState } from '../src/world/rigState';

/** An improvement of the target error smaller than this fraction is not progress. */
const PROGRESS = 1e-3;
/** The finish starts when bone ends are slower than this × restSpeed × height. */
const FINISH_SPEED = 10;

export function settling(world: PhysikWorld): void {
  const { Rig } = world.physik;
  const rigs = steppingRigs(world);
  for (let ri = 0; ri < rigs.length; ri++) {
    const rig = rigs[ri]!;
    const r = rig.eid;
    const s = rig.settings;
    const step = Rig.step[r]!;
    const H = Rig.height[r]!;
    const err = Rig.maxTargetError[r]!;
    const tolerance = s.settleTolerance * H;
    if (err < Rig.bestError[r]! * (1 - PROGRESS) - 1e-12 * H) {
      Rig.bestError[r] = err;
      Rig.progressStep[r] = step;
    }

    let status: number;
    if (Rig.substeps[r] === 0) {
      status = STATUS_DIVERGED;
      Rig.settleSince[r] = step; // stays diverged until settleSteps good steps pass
    } else if (Rig.settle[r] === STATUS_DIVERGED && step - Rig.settleSince[r]! < s.settleSteps) {
      status = STATUS_DIVERGED;
    } else if (Rig.atRest[r] && step - Rig.restSince[r]! >= s.settleSteps && Rig.static[r] && err <= tolerance) {
      status = STATUS_CONVERGED;
    } else if (Rig.atRest[r] && step - Rig.restSince[r]! >= s.settleSteps && Rig.static[r] && step - Rig.progressStep[r]! >= s.settleSteps) {
      status = STATUS_STALLED; // at rest short of a goal, and no longer creeping toward it
    } else if (step - Rig.progressStep[r]! >= s.stallSteps) {
      status = STATUS_STALLED;
    } else {
      status = STATUS_SETTLING;
    }

    if (
      s.finish !== 'none' && s.solver === 'physik' && Rig.finishing[r] === 0 && status !== STATUS_DIVERGED &&
      err > s.ikTolerance * H && err <= s.finishRadius * H &&
      Rig.maxEndSpeed[r]! < FINISH_SPEED * s.restSpeed * H && !interpolating(world, rig) &&
      hybridFinish(world, rig)
    ) {
      status = STATUS_CONVERGED;
    }

    if (status !== Rig.settle[r]) setSettleStatus(world, rig, status);
    if (s.sleepWhenConverged && Rig.static[r] && (status === STATUS_CONVERGED || status === STATUS_STALLED)) fallAsleep(world, rig);
  }
}

/** Set a rig's status and tell the listeners (also used when a change wakes the rig). */
export function setSettleStatus(world: PhysikWorld, rig: RigRecord, status: number): void {
  const { Rig, settleListeners } = world.physik;
  const r = rig.eid;
  const previous = Rig.settle[r]!;
  if (previous === status) return;
  Rig.settle[r] = status;
  Rig.settleSince[r] = Rig.step[r]!;
  for (let i = 0; i < settleListeners.length; i++) {
    settleListeners[i]!({
      rig: r, name: rig.name, status: statusNames[status]!, previous: statusNames[previous]!,
      step: Rig.step[r]!, maxTargetError: Rig.maxTargetError[r]!,
    });
  }
}

function interpolating(world: PhysikWorld, rig: RigRecord): boolean {
  const { ControlPoint } = world.physik;
  for (let i = 0; i < rig.controlPoints.length; i++) {
    const cp = rig.controlPoints[i]!;
    if (ControlPoint.interpStep[cp]! < ControlPoint.interpSteps[cp]!) return true;
  }
  return false;
}

/** Zero velocity everywhere (positions unchanged). */
function stopMotion(world: PhysikWorld, rig: RigRecord): void {
  const { Bone } = world.physik;
  for (let i = 0; i < rig.bones.length; i++) {
    const b3 = rig.bones[i]! * 3;
    Bone.angVel.fill(0, b3, b3 + 3);
    Bone.vel.fill(0, b3, b3 + 3);
  }
  forwardKinematicsOf(world, rig);
}

/**
 * The metrics of a rig that stands still: no kinetic energy, no speed, at rest and static from
 * now (a finished pose is held by the finish solver, not by PhysIK's loads; a sleeping rig was
 * static already).
 */
function markStill(world: PhysikWorld, rig: RigRecord): void {
  const { Rig } = world.physik;
  Rig.kineticEnergy[rig.eid] = 0;
  Rig.maxEndSpeed[rig.eid] = 0;
  Rig.static[rig.eid] = 1;
  if (!Rig.atRest[rig.eid]) { Rig.atRest[rig.eid] = 1; Rig.restSince[rig.eid] = Rig.step[rig.eid]!; }
}

/** PhysIK's state when it handed over to the finish. */
const handover = savedRigState();
/** Calls of the finish solver in one attempt (each runs up to `ikIterations` iterations). */
const FINISH_ROUNDS = 20;

/**
 * Try the hybrid finish from the current pose, within this step: the finish solver runs until
 * it reports converged, stalled or diverged (at most FINISH_ROUNDS × ikIterations iterations,
 * always from the current pose). Kept, at rest, when every goal is then within tolerance and
 * no limit is violated more than before; else PhysIK's pose and velocities are put back, as if
 * it had not been tried. Either way not tried again until targets or settings change.
 */
function hybridFinish(world: PhysikWorld, rig: RigRecord): boolean {
  const { Rig } = world.physik;
  const r = rig.eid;
  const s = rig.settings;
  const solve = kinematicSolvers[s.finish];
  if (!solve) throw new Error(`rig "${rig.name}": unknown finish solver "${s.finish}"`);
  saveRigState(world, rig, handover);
  measureDiagnostics(world, rig);
  const violationBefore = Rig.maxLimitViolation[r]!;
  const solveStatus = Rig.solveStatus[r]!;

  const mode = s.ikMode;
  s.ikMode = 'path-dependent';
  try {
    for (let round = 0; round < FINISH_ROUNDS; round++) {
      const status = solve(world, rig).status;
      if (status !== STATUS_SETTLING) break;
    }
  } finally {
    s.ikMode = mode;
  }
  Rig.solveStatus[r] = solveStatus; // the joint solve's status stays PhysIK's
  stopMotion(world, rig);
  measureRig(world, rig);
  measureDiagnostics(world, rig);
  if (Rig.maxTargetError[r]! <= s.settleTolerance * Rig.height[r]! && Rig.maxLimitViolation[r]! <= violationBefore + 1e-9) {
    Rig.finishing[r] = 1;
    markStill(world, rig);
    return true;
  }
  // stopped short (a local minimum against the limits, goals in conflict): PhysIK goes on
  restoreRigState(world, rig, handover);
  measureRig(world, rig);
  Rig.finishing[r] = 2;
  return false;
}

function fallAsleep(world: PhysikWorld, rig: RigRecord): void {
  stopMotion(world, rig);
  markStill(world, rig);
  world.physik.Rig.sleeping[rig.eid] = 1;
}
