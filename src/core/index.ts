/**
 * physik-ecs core: PhysIK (physics-based inverse kinematics) as a bitecs plugin.
 *
 *   const world = createPhysikWorld();               // or installPhysik(yourWorld)
 *   const { rig, controlPoints } = addRig(world, { rig, controlPoints });
 *   setTarget(world, controlPoints.hand, [0.4, 1.2, 0.3]);
 *   step(world, 100);
 *   readPose(world, rig); readMetrics(world, rig);
 */
export { createPhysikWorld, installPhysik, steppingRigs, type PhysikWorld, type PhysikOptions, type SettleEvent, type SettleListener } from '../world/world';
export { addRig, addRigs, removeRig, type RigInput, type RigHandle } from './rig';
export { addControlPoint, removeControlPoint, describeControlPoint } from './controlPoints';
export { step, physikPipeline, addSystem, removeSystem, type System, type UserPhase } from './pipeline';
export {
  setTarget, setControlPointActive, setSettings, getSettings, readPose, readMetrics, resetRig, onSettle,
  type BonePose, type RigMetrics,
} from './api';
export { defaultSettings, paperSettings } from './settings';
export { wakeRig } from '../world/wake';
export { moveRig } from './move';
export { snapshotRig, createSnapshot, snapshotInto, restoreRig, type RigSnapshot } from './snapshot';
export { getScript, setScript } from './script';
export { getJointLimits, setJointLimits, withJointLimits, type JointLimits, type LimitAxis } from './limits';
