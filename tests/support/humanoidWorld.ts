/**
 * The humanoid scene (scenes/humanoid.json) in a world: with one more scripted target move, so a
 * test that rewinds or replays has a script whose cursor matters; or its reach run through,
 * watching an angle of chosen joints at every step.
 */
import { readFileSync } from 'node:fs';
import { addRig, createPhysikWorld, step, type PhysikWorld, type RigHandle } from '../../src/core';
import { parseSceneText } from '../../src/scene/load';
import type { BoneDescription, ScriptEvent, Settings } from '../../src/scene/types';

export const humanoidScene = parseSceneText(readFileSync(new URL('../../scenes/humanoid.json', import.meta.url), 'utf8'), 'humanoid.json');

/** The humanoid scene's rig, points and settings (with `settings` over them), its script plus `event`. */
export function humanoidWithMove(event: ScriptEvent, settings: Partial<Settings> = {}): { world: PhysikWorld; h: RigHandle } {
  const world = createPhysikWorld();
  const h = addRig(world, {
    rig: humanoidScene.rig,
    controlPoints: humanoidScene.controlPoints,
    settings: { ...humanoidScene.settings, ...settings },
    script: [...humanoidScene.script, event],
  });
  return { world, h };
}

/**
 * The humanoid scene's reach (its script, its steps) with `settings` over its own: how many bones
 * `pick` chose, the largest `angle(world, bone)` of them at any step, and the largest target error
 * at the end.
 */
export function humanoidReach(
  settings: Partial<Settings>, pick: (b: BoneDescription) => boolean, angle: (world: PhysikWorld, bone: number) => number,
): { bones: number; worst: number; error: number } {
  const world = createPhysikWorld();
  const h = addRig(world, { rig: humanoidScene.rig, controlPoints: humanoidScene.controlPoints, settings: { ...humanoidScene.settings, ...settings }, script: humanoidScene.script });
  const bones = humanoidScene.rig.bones.filter(pick).map((b) => h.bones[b.name]!);
  let worst = 0;
  for (let i = 0; i < humanoidScene.steps; i++) {
    step(world);
    for (const b of bones) worst = Math.max(worst, angle(world, b));
  }
  return { bones: bones.length, worst, error: world.physik.Rig.maxTargetError[h.rig]! };
}
