/**
 * A world holding the humanoid scene (scenes/humanoid.json) with one more scripted target move,
 * so a test that rewinds or replays has a script whose cursor matters.
 */
import { readFileSync } from 'node:fs';
import { addRig, createPhysikWorld, type PhysikWorld, type RigHandle } from '../../src/core';
import { parseSceneText } from '../../src/scene/load';
import type { ScriptEvent, Settings } from '../../src/scene/types';

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
