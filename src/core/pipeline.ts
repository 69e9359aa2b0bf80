/**
 * The PhysIK step, written once: the ordered systems every fixed step runs, like a
 * scheduler's system set. Each system visits every rig of the world in creation order; the
 * physics systems skip rigs whose `solver` is a kinematic one, which `kinematicSolve` poses.
 */
import type { PhysikWorld } from './world';
import { scriptedTargets } from '../../systems/scriptedTargets';
import { targetInterpolation } from '../../systems/targetInterpolation';
import { damping } from '../../systems/damping';
import { controlSprings } from '../../systems/controlSprings';
import { torsionSprings } from '../../systems/torsionSprings';
import { interJointSolve } from '../../systems/interJointSolve';
import { integrate } from '../../systems/integrate';
import { kinematicSolve } from '../../systems/kinematicSolve';
import { forwardKinematics } from '../../systems/forwardKinematics';
import { metrics } from '../../systems/metrics';

export type System = (world: PhysikWorld) => void;

export const physikPipeline: readonly System[] = Object.freeze([
  scriptedTargets,     // timed target moves from the scene's script
  targetInterpolation, // effective targets advance toward their targets (eq. 12)
  damping,             // reset forces; F = −c v at bone ends; angular damping
  controlSprings,      // zero-length springs pull attachments to effective targets
  torsionSprings,      // per-axis torques enforce angular limits
  interJointSolve,     // joint forces so bones accelerate together at joints (eqs. 3-11)
  integrate,           // angular velocity and rotation (and a floating root's centre)
  kinematicSolve,      // rigs posed by a kinematic solver instead (FABRIK, CCD, ...)
  forwardKinematics,   // heads, tails, centres and velocities from rotations
  metrics,             // errors, energy, limits, rest detection
]);

/** Run the pipeline n times. */
export function step(world: PhysikWorld, n = 1): void {
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < physikPipeline.length; k++) physikPipeline[k]!(world);
  }
}
