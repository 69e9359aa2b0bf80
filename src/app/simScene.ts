/**
 * What worker mode builds, written once for both threads: the simulation worker's world and
 * the page's copy of it (which the view draws and the pose buffer fills) must hold the same
 * rigs in the same order, so both make them with these two functions, call for call.
 *
 * - `addSceneRig`: a scene's rig with its control points, settings (the solver overridden
 *   when asked) and script, as the sandbox's main rig.
 * - `replaceScene`: the next scene's rig and its own crowd added first (a refused scene leaves
 *   the world as it was), then the old rigs removed.
 * - `replaceCrowd`: removes the old crowd and spawns `n` copies of the scene's rig on a grid
 *   behind the main rig, each with its own wandering target (the sandbox's crowd, sceneCrowd;
 *   a scene's `crowd` block sets the wander and the spacing).
 *
 * Limits: DOM-free (runs in the worker); the crowd copies keep the scene's settings (a
 * setting changed later applies to the main rig only, as on the main thread).
 */
import { addRig, addRigs, removeRig, type PhysikWorld } from '../core';
import { sceneCrowd } from '../scene/crowd';
import { CROWD_MAX } from '../core/validation/schema';
import type { Scene } from '../scene/types';

/** Most copies in a crowd (the panel's, the deep link's and a scene's `crowd.count` limit). */
export { CROWD_MAX };

/** Add the scene's rig; its entity id. Throws (nothing added) when the scene is refused. */
export function addSceneRig(world: PhysikWorld, scene: Scene, solver?: string): number {
  return addRig(world, {
    rig: scene.rig, controlPoints: scene.controlPoints, script: scene.script, ...(scene.start ? { start: scene.start } : {}),
    settings: { ...scene.settings, ...(solver ? { solver } : {}) },
  }).rig;
}

/**
 * Add the scene's rig and its own crowd (a scene with a `crowd` block), then remove the rigs of
 * `old`; the new rig's and crowd's entity ids. Throws (nothing changed) when refused.
 */
export function replaceScene(world: PhysikWorld, scene: Scene, solver: string | undefined, old: readonly number[]): { rig: number; crowd: number[] } {
  const rig = addSceneRig(world, scene, solver);
  let crowd: number[];
  try {
    crowd = replaceCrowd(world, scene, rig, [], scene.crowd?.count ?? 0);
  } catch (e) {
    removeRig(world, rig);
    throw e;
  }
  for (const r of old) removeRig(world, r);
  return { rig, crowd };
}

/** Remove the rigs of `old` and add `n` crowd copies of the scene behind `mainRig`; their entity ids. */
export function replaceCrowd(world: PhysikWorld, scene: Scene, mainRig: number, old: readonly number[], n: number): number[] {
  if (!(Number.isInteger(n) && n >= 0 && n <= CROWD_MAX)) throw new Error(`crowd size must be a whole number from 0 to ${CROWD_MAX}, got ${n}`);
  for (const r of old) removeRig(world, r);
  if (n === 0) return [];
  return addRigs(world, sceneCrowd(scene, world.physik.Rig.height[mainRig]!, n)).map((h) => h.rig);
}
