/** A recording of the humanoid scene's first `steps` steps, a frame per step (the exporters' tests' input). */
import { readFileSync } from 'node:fs';
import { createPhysikWorld, addRig, step } from '../../src/core';
import { parseScene } from '../../src/scene/load';
import { captureFrame, createRecording, type Recording } from '../../src/io/recording';

export function recordHumanoid(steps: number): Recording {
  const scene = parseScene(JSON.parse(readFileSync('scenes/humanoid.json', 'utf8')), 'scenes/humanoid.json');
  const world = createPhysikWorld();
  const { rig } = addRig(world, { rig: scene.rig, controlPoints: scene.controlPoints, settings: scene.settings, script: scene.script });
  const dt = scene.settings.dt!;
  const rec = createRecording(world, rig, 1 / dt);
  captureFrame(rec, world, rig, 0);
  for (let s = 1; s <= steps; s++) {
    step(world, 1);
    captureFrame(rec, world, rig, s * dt);
  }
  return rec;
}
