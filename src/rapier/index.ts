/**
 * Rapier as an independent physics cross-check of PhysIK (optional: import this module, or
 * `await import('physik-ecs/src/rapier')`, only where a cross-check is wanted; nothing in the
 * core imports it, and Rapier itself is loaded on first use).
 *
 *   const mirror = await createRapierMirror(world, rig, { jointModel: 'impulse' });
 *   step(world, 1); mirror.step(); mirror.tipPositions(out);   // every frame
 *   mirror.dispose();
 *   const result = await runCrosscheck(scene);                  // a whole scene, both engines
 *   const dynamics = await runDynamicsCheck();                  // undamped swings against multibody joints
 */
export { loadRapier, type Rapier } from './load';
export { createRapierMirror, buildRapierMirror, type RapierMirror, type MirrorOptions } from './mirror';
export { runCrosscheck, type CrosscheckOptions, type CrosscheckResult, type CrosscheckBone } from './crosscheck';
export { runDynamicsCheck, type DynamicsCheckOptions, type DynamicsCheckResult, type DynamicsCase, type DynamicsRun, type DynamicsRunOptions } from './dynamics';
export { planJoints, summarisePlan, capabilityTable, jointModels, type JointModel, type JointPlanEntry, type MirrorJointKind } from './jointPlan';
