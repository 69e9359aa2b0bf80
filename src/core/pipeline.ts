/**
 * The PhysIK step, written once: the ordered systems every fixed step runs, like a
 * scheduler's system set. Each system visits the rigs of its phase in creation order:
 * targets for every rig (scripts keep time while a rig sleeps), the physics for the rigs
 * PhysIK simulates this step, the rest for every rig awake.
 */
import type { PhysikWorld, RigRecord } from './world';
import { scriptedTargets } from '../../systems/scriptedTargets';
import { targetInterpolation } from '../../systems/targetInterpolation';
import { wakeOnChange, sleepingClock } from '../../systems/sleep';
import { damping } from '../../systems/damping';
import { controlSprings } from '../../systems/controlSprings';
import { torsionSprings } from '../../systems/torsionSprings';
import { interJointSolve } from '../../systems/interJointSolve';
import { integrate } from '../../systems/integrate';
import { substepRetry } from '../../systems/substepRetry';
import { kinematicSolve } from '../../systems/kinematicSolve';
import { forwardKinematics } from '../../systems/forwardKinematics';
import { metrics } from '../../systems/metrics';
import { settling } from '../../systems/settling';

export type System = (world: PhysikWorld) => void;

/** Run systems over one phase's rigs only (see `steppingRigs`). */
function forRigs(select: (world: PhysikWorld) => RigRecord[], systems: readonly System[]): System {
  return (world) => {
    world.physik.stepping = select(world);
    try {
      for (let k = 0; k < systems.length; k++) systems[k]!(world);
    } finally {
      world.physik.stepping = null;
    }
  };
}
const simulatedRigs = (world: PhysikWorld) => world.physik.simulated;
const awakeRigs = (world: PhysikWorld) => world.physik.awake;

export const physikPipeline: readonly System[] = Object.freeze([
  scriptedTargets,     // timed target moves from the scene's script
  targetInterpolation, // effective targets advance toward their targets (eq. 12)
  wakeOnChange,        // changed rigs wake; lists this step's awake and simulated rigs
  forRigs(simulatedRigs, [
    damping,           // reset forces; F = −c v at bone ends; angular damping
    controlSprings,    // zero-length springs pull attachments to effective targets
    torsionSprings,    // per-axis torques enforce angular limits
    interJointSolve,   // joint forces so bones accelerate together at joints (eqs. 3-11)
    integrate,         // angular velocity and rotation (and a floating root's centre); guarded
    substepRetry,      // a refused step again in substeps, from the last good state
  ]),
  forRigs(awakeRigs, [
    kinematicSolve,    // rigs posed by a kinematic solver instead (FABRIK, CCD, ...), and hybrid finishes
    forwardKinematics, // heads, tails, centres and velocities from rotations
    metrics,           // errors, energy, limits, rest detection
    settling,          // status and its events, hybrid finish, sleep
  ]),
  sleepingClock,       // sleeping rigs keep the script's time
]);

/** Run the pipeline n times. */
export function step(world: PhysikWorld, n = 1): void {
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < physikPipeline.length; k++) physikPipeline[k]!(world);
  }
}
