/**
 * A simulation recorded and saved as an animated glTF binary (.glb) that Blender, three.js or
 * any glTF viewer plays: a pinned two-bone arm reaches for a target, 30 frames a second.
 * Needs the optional peer dependency three (`npm install three`).
 *
 *   npx tsx docs/examples/record-gltf.ts reach.glb
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createPhysikWorld, addRig, setTarget } from 'physik-ecs';
import { recordSteps } from 'physik-ecs/recording';
import { recordingToGlb } from 'physik-ecs/io';

export async function recordReach(steps = 120): Promise<ArrayBuffer> {
  const world = createPhysikWorld();
  const { rig, controlPoints } = addRig(world, {
    rig: { name: 'arm', root: 'pinned', bones: [
      { name: 'upper', parent: null, direction: [1, 0, 0], length: 0.3 },
      { name: 'fore', parent: 'upper', direction: [1, 0, 0], length: 0.3, limits: { x: [0, 0], y: [0, 0], z: [0, 120] } },
    ] },
    controlPoints: [{ name: 'hand', bone: 'fore' }],
  });
  const hand = controlPoints['hand'];
  if (hand === undefined) throw new Error('the rig has no control point "hand"');
  setTarget(world, hand, [0.3, 0.3, 0]);
  const recording = recordSteps(world, rig, steps, { fps: 30 });
  return recordingToGlb(recording);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = process.argv[2] ?? 'reach.glb';
  const glb = await recordReach();
  writeFileSync(out, new Uint8Array(glb));
  console.log(`${out}: ${glb.byteLength} bytes`);
}
