/**
 * The PhysIK step, written once: the ordered systems every fixed step runs, like a
 * scheduler's system set. Each system visits the rigs of its phase in creation order:
 * targets for every rig (scripts keep time while a rig sleeps), the physics for the rigs
 * PhysIK simulates this step, the rest for every rig awake.
 *
 * The physics and the awake phase run group by group (`PhysikContext.groups`: consecutive
 * rigs of a few hundred bones): every system of both phases over one group, then the next.
 * Rigs do not act on each other, so this is the same step, bit for bit, as each system over
 * every rig; but a crowd's rig stays in cache from one system to the next instead of being
 * read from memory by each (1000 humanoids are ~16 MB of state).
 */
import { runUserSystems, type PhysikWorld, type RigGroup, type RigRecord, type System, type UserPhase } from '../world/world';
import { scriptedTargets } from '../../systems/scriptedTargets';
import { targetInterpolation } from '../../systems/targetInterpolation';
import { wakeOnChange, sleepingClock } from '../../systems/sleep';
import { damping } from '../../systems/damping';
import { controlSprings } from '../../systems/controlSprings';
import { torsionSprings } from '../../systems/torsionSprings';
import { interJointSolve } from '../../systems/interJointSolve';
import { momentumBudget } from '../../systems/momentumBudget';
import { integrate } from '../../systems/integrate';
import { conservationProjection } from '../../systems/conservationProjection';
import { substepRetry } from '../../systems/substepRetry';
import { kinematicSolve } from '../../systems/kinematicSolve';
import { forwardKinematics } from '../../systems/forwardKinematics';
import { rigMeasures, metrics } from '../../systems/metrics';
import { settling } from '../../systems/settling';
import { poseTargets } from '../../systems/poseTargets';
import { poseFollow } from '../../systems/poseFollow';

export type { System, UserPhase };

/** The user's systems of one phase, as a system of the pipeline (nothing to do when there are none). */
function userPhase(phase: UserPhase): System {
  return (world) => { if (world.physik.userSystems[phase].length > 0) runUserSystems(world, phase); };
}
const beforeStep = userPhase('beforeStep'), userForces = userPhase('forces'), afterPose = userPhase('afterPose'), afterStep = userPhase('afterStep');

/**
 * Add a system of your own to a phase of the step (see UserPhase), after those already there;
 * it sees the rigs of its phase through `steppingRigs(world)`. Per world.
 */
export function addSystem(world: PhysikWorld, phase: UserPhase, system: System): void {
  const list = world.physik.userSystems[phase];
  if (!list) throw new Error(`addSystem: unknown phase "${String(phase)}" (expected beforeStep, forces, afterPose or afterStep)`);
  if (typeof system !== 'function') throw new Error(`addSystem: expected a function (world) => void, got ${typeof system}`);
  list.push(system);
}

/** Take a system added with addSystem out of its phase; false when it was not there. */
export function removeSystem(world: PhysikWorld, phase: UserPhase, system: System): boolean {
  const list = world.physik.userSystems[phase];
  const i = list ? list.indexOf(system) : -1;
  if (i < 0) return false;
  list!.splice(i, 1);
  return true;
}

/** A phase: systems run over one list of each group (see `steppingRigs`). */
interface Phase { rigs: (group: RigGroup) => RigRecord[]; systems: readonly System[] }

/** Run the phases group by group: for each group, every phase's systems over its rigs. */
function byGroups(...phases: Phase[]): System {
  return (world) => {
    const p = world.physik;
    try {
      for (let g = 0; g < p.groups.length; g++) {
        const group = p.groups[g]!;
        p.group = group;
        for (let ph = 0; ph < phases.length; ph++) {
          const { rigs, systems } = phases[ph]!;
          p.stepping = rigs(group);
          for (let k = 0; k < systems.length; k++) systems[k]!(world);
        }
      }
    } finally {
      p.stepping = null;
      p.group = null;
    }
  };
}
const simulatedRigs = (group: RigGroup) => group.simulated;
const awakeRigs = (group: RigGroup) => group.awake;

/**
 * The step's systems in order, grouped as they run (see the header). `step` runs exactly these,
 * written out in runStep: a system added here goes there too.
 */
export const physikPipeline: readonly System[] = Object.freeze([
  beforeStep,          // the user's 'beforeStep' systems (addSystem)
  scriptedTargets,     // timed target moves from the scene's script
  poseTargets,         // a clip's pose at the step's end: marker targets, drive targets, mode changes
  targetInterpolation, // effective targets advance toward their targets (eq. 12)
  wakeOnChange,        // changed rigs wake; lists this step's awake and simulated rigs, in groups
  byGroups({ rigs: simulatedRigs, systems: [
    damping,           // reset forces; F = −c v at bone ends; angular damping; −ω × (I ω), taken implicitly
    controlSprings,    // zero-length springs pull attachments to effective targets
    torsionSprings,    // per-axis torques enforce angular limits
    userForces,        // the user's 'forces' systems (and a clip's pose drives, systems/poseDrives.ts)
    interJointSolve,   // joint forces so bones accelerate together at joints (eqs. 3-11)
    momentumBudget,    // momentum the step should keep, energy it starts with
    integrate,         // angular velocity and rotation (and a floating root's centre); guarded
    substepRetry,      // a refused step again in substeps, from the last good state
  ] }, { rigs: awakeRigs, systems: [
    poseFollow,        // bones following a clip kinematically take its pose
    kinematicSolve,    // rigs posed by a kinematic solver instead (FABRIK, CCD, ...), and hybrid finishes
    forwardKinematics, // heads, tails, centres and velocities from rotations
    rigMeasures,       // centre of mass, kinetic energy, end speeds, target errors
    conservationProjection, // momentum kept, no energy gained (a rigid correction)
    metrics,           // step count, load residual, rest detection
    settling,          // status and its events, hybrid finish, sleep
    afterPose,         // the user's 'afterPose' systems
  ] }),
  sleepingClock,       // sleeping rigs keep the script's time
  afterStep,           // the user's 'afterStep' systems
]);

/**
 * One step: physikPipeline's systems, written out. A call site that always calls the same
 * function is cheaper than the list's one site calling them all (V8 dispatches directly and
 * inlines the small ones): 3% of the humanoid's step (docs/performance.md). The same bits as
 * running physikPipeline (tests/unit/core/pipeline.test.ts).
 */
function runStep(world: PhysikWorld): void {
  beforeStep(world);
  scriptedTargets(world);
  poseTargets(world);
  targetInterpolation(world);
  wakeOnChange(world);
  const p = world.physik;
  try {
    for (let g = 0; g < p.groups.length; g++) {
      const group = p.groups[g]!;
      p.group = group;
      p.stepping = group.simulated;
      damping(world);
      controlSprings(world);
      torsionSprings(world);
      userForces(world);
      interJointSolve(world);
      momentumBudget(world);
      integrate(world);
      substepRetry(world);
      p.stepping = group.awake;
      poseFollow(world);
      kinematicSolve(world);
      forwardKinematics(world);
      rigMeasures(world);
      conservationProjection(world);
      metrics(world);
      settling(world);
      afterPose(world);
    }
  } finally {
    p.stepping = null;
    p.group = null;
  }
  sleepingClock(world);
  afterStep(world);
}

/** Run the pipeline n times. */
export function step(world: PhysikWorld, n = 1): void {
  for (let i = 0; i < n; i++) runStep(world);
}
