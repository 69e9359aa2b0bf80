/**
 * Divergence recovery: a step `integrate` refused (`Rig.substeps` = 0: the joint solve went
 * non-finite, or a bone would turn more than a quarter turn, or the root would jump more than
 * the rig's height) is retried from the last good state in 2, 4, 8, ... substeps of dt / k, up
 * to the `maxSubsteps` setting. Each substep runs the force systems, the joint solve,
 * integration and forward kinematics for this rig alone, and is checked by the same guard
 * with its own dt. A light bone flung by a stiff far pull turns α (dt/k)² per substep, so
 * halving dt quarters what the guard sees.
 *
 * The count that worked is kept (`Rig.substepCount`): the next steps are taken in as many
 * substeps straight away, and only after HOLD good steps is half as many tried. Retrying
 * each step from a whole one kept an unstable rig (explicit damping on light bones)
 * oscillating: the whole step stays under the guard's bound yet amplifies the motion many times
 * over, so it never came to rest; kept, the count lets it settle (docs/robustness.md).
 *
 * When even `maxSubsteps` is refused for speed, the step is taken whole with the speeds
 * clamped to the guard's bound (`Rig.speedClamp`, counted in `Rig.clampedSteps`), as physics
 * engines cap angular velocity: a 1 cm, 10 g bone on a stiff spring pulled 100 rig heights
 * away would need thousands of substeps to follow, and a clamp only removes energy. Held for
 * HOLD steps, then the unclamped step is tried again. (Before, the guard zeroed the
 * velocities and kept the pose, and such a rig stayed frozen for good: most of the fuzz's
 * steps, docs/robustness.md.)
 * Only a non-finite solve is refused outright: the rig is put back to the last good state
 * with zero velocity and the step is counted in `Rig.diverged`; the world never holds NaN.
 * The paper's settings (`maxSubsteps` 1) have neither substeps nor clamp.
 *
 * Allocation: the saved state (src/world/rigState.ts) grows once to the largest rig retried; nothing per step.
 */
import type { PhysikWorld, RigRecord } from '../src/world/world';
import { runUserSystems, steppingRigs } from '../src/world/world';
import { STATUS_DIVERGED } from '../components';
import { damping } from './damping';
import { controlSprings } from './controlSprings';
import { torsionSprings } from './torsionSprings';
import { interJointSolve } from './interJointSolve';
import { integrate } from './integrate';
import { forwardKinematics } from './forwardKinematics';
import { forwardKinematicsOf } from '../src/world/forwardKinematics';
import { restoreRigState, saveRigState, savedRigState } from '../src/world/rigState';

/** The last good state of the rig being retried. */
const saved = savedRigState();
const single: RigRecord[] = [];

/** Good steps at a substep count (or with clamped speeds) before the next finer try. */
const HOLD = 20;

export function substepRetry(world: PhysikWorld): void {
  const { Rig, group } = world.physik;
  const substepped = group ? group.substepped : world.physik.substepped; // this group's, in the step
  const rigs = steppingRigs(world);
  for (let ri = 0; ri < rigs.length; ri++) {
    const rig = rigs[ri]!;
    if (rig.settings.solver !== 'physik' || Rig.substeps[rig.eid] !== 0) continue;
    retry(world, rig, 2);
  }
  // rigs that needed substeps (or a clamp) lately start there (wakeOnChange listed them)
  for (let ri = 0; ri < substepped.length; ri++) {
    const rig = substepped[ri]!;
    const r = rig.eid;
    if (Rig.substepHeld[r]! >= HOLD) {
      // held long enough: try without the clamp, or with half the substeps
      Rig.substepHeld[r] = 0;
      if (Rig.speedClamp[r]) Rig.speedClamp[r] = 0;
      else Rig.substepCount[r] = Math.max(1, Rig.substepCount[r]! >> 1);
    }
    if (Rig.speedClamp[r]) clampedStep(world, rig);
    else retry(world, rig, Math.min(Rig.substepCount[r]!, rig.settings.maxSubsteps));
  }
}

/**
 * The step of one rig in k, 2k, 4k ... substeps up to maxSubsteps (k = 1: a whole step, still
 * guarded); when every count is refused, a whole step with clamped speeds; when even that is
 * refused (a non-finite solve), the last good state at rest, reported as diverged.
 */
function retry(world: PhysikWorld, rig: RigRecord, from: number): void {
  const { Rig } = world.physik;
  const r = rig.eid;
  const max = rig.settings.maxSubsteps;
  saveRigState(world, rig, saved);
  for (let k = from; k <= max; k *= 2) {
    if (substeps(world, rig, k)) {
      Rig.substeps[r] = k;
      if (k > 1) Rig.retriedSteps[r] = Rig.retriedSteps[r]! + 1;
      hold(Rig, r, k, 0);
      return;
    }
    restoreRigState(world, rig, saved);
  }
  if (max > 1) clampedStep(world, rig); // (the paper's settings, maxSubsteps 1, have no clamp either)
  else refuse(world, rig);
}

/** A whole step with speeds clamped to the guard's bound; refused only when non-finite. */
function clampedStep(world: PhysikWorld, rig: RigRecord): void {
  const { Rig } = world.physik;
  const r = rig.eid;
  saveRigState(world, rig, saved);
  Rig.speedClamp[r] = 1;
  if (substeps(world, rig, 1)) {
    Rig.substeps[r] = 1;
    Rig.retriedSteps[r] = Rig.retriedSteps[r]! + 1;
    hold(Rig, r, 1, 1);
    return;
  }
  restoreRigState(world, rig, saved);
  refuse(world, rig);
}

/** Keep what worked (substep count, clamp) and count the good steps taken so. */
function hold(Rig: PhysikWorld['physik']['Rig'], r: number, k: number, clamp: number): void {
  if (k !== Rig.substepCount[r] || clamp !== Rig.speedClamp[r]) {
    Rig.substepCount[r] = k;
    Rig.speedClamp[r] = clamp;
    Rig.substepHeld[r] = 0;
  } else {
    Rig.substepHeld[r] = Rig.substepHeld[r]! + 1;
  }
}

/** Every attempt refused: the last good pose, at rest, reported as a diverged step. */
function refuse(world: PhysikWorld, rig: RigRecord): void {
  const { Bone, Rig } = world.physik;
  const r = rig.eid;
  for (let bi = 0; bi < rig.bones.length; bi++) {
    const b3 = rig.bones[bi]! * 3;
    Bone.angVel.fill(0, b3, b3 + 3);
    Bone.vel.fill(0, b3, b3 + 3);
    Bone.jointForce.fill(0, b3, b3 + 3);
  }
  forwardKinematicsOf(world, rig);
  Rig.substeps[r] = 0;
  Rig.solveStatus[r] = STATUS_DIVERGED;
  Rig.diverged[r] = Rig.diverged[r]! + 1;
  Rig.substepCount[r] = 1;
  Rig.speedClamp[r] = 0;
  Rig.substepHeld[r] = 0;
}

/** k substeps of dt / k for this rig alone; false (state half-written) when one is refused. */
function substeps(world: PhysikWorld, rig: RigRecord, k: number): boolean {
  const { Rig } = world.physik;
  const s = rig.settings;
  const dt = s.dt;
  const outer = world.physik.stepping;
  single[0] = rig;
  world.physik.stepping = single;
  try {
    s.dt = dt / k;
    for (let j = 0; j < k; j++) {
      damping(world);
      controlSprings(world);
      torsionSprings(world);
      runUserSystems(world, 'forces');
      interJointSolve(world);
      integrate(world);
      if (Rig.substeps[rig.eid] === 0) return false;
      forwardKinematics(world);
    }
    return true;
  } finally {
    s.dt = dt;
    world.physik.stepping = outer;
  }
}

