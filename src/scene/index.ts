/**
 * Scenes (`physik-ecs/scene`): a rig, its control points, settings, a script of timed target
 * moves and an `expect` block, validated with errors that name the file and JSON path; run
 * headless and checked against their expectations.
 *
 *   const scene = loadSceneFile('scenes/humanoid.json');   // or parseSceneText(text, name)
 *   const summary = runScene(scene, { steps: 600 });
 *   const { ok, failures } = checkExpect(scene, summary);
 */
export { parseScene, parseSceneText, validateScene, parseControlPoint, SceneError, type SceneIssue } from './load';
export { loadSceneFile, readInputFile, MAX_SCENE_BYTES } from './loadFile';
export { runScene, checkExpect, summaryMetric, STEADY_STEPS, type RunOptions, type RunSummary, type CrowdSummary, type ExpectResult } from './run';
export type * from './types';
