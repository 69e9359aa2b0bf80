/**
 * A recording of an imported rig posed by physics, for the export tests: the rig with the
 * humanoid template's limits, one control point dragged by a fraction of the figure's height
 * while another holds the hips, recorded at `fps` for `seconds`.
 */
import { addRig, createPhysikWorld, readMetrics, setTarget, step } from '../../../src/core';
import { captureFrame, createRecording, type Recording } from '../../../src/io/recording';
import type { Scene } from '../../../src/scene/types';
import type { RigDescription } from '../../../src/world/types';

export function recordDrag(scene: Scene, rig: RigDescription, bone: string, hips: string, move: [number, number, number], options: { fps?: number; seconds?: number } = {}): Recording {
  const world = createPhysikWorld();
  const h = addRig(world, { rig, controlPoints: [{ name: 'drag', bone }, { name: 'hold', bone: hips, at: 0 }], settings: scene.settings });
  const { Bone } = world.physik;
  const height = readMetrics(world, h.rig).height;
  const b = h.bones[bone]!;
  setTarget(world, h.controlPoints.drag!, [0, 1, 2].map((k) => Bone.tail[b * 3 + k]! + move[k]! * height) as [number, number, number]);
  const fps = options.fps ?? 30, dt = scene.settings.dt;
  const rec = createRecording(world, h.rig, fps);
  captureFrame(rec, world, h.rig, 0);
  let t = 0;
  const end = (options.seconds ?? 1.5) + 1e-9;
  while (t < end) {
    step(world, 1);
    t += dt;
    while (rec.frameCount / fps <= t + 1e-9 && rec.frameCount / fps <= end) captureFrame(rec, world, h.rig, t);
  }
  return rec;
}
