/**
 * Import then export keeps the rig: each external rig imported, exported (.bvh and .glb) and
 * imported again gives the same bones (names, parents), lengths, rest directions and rest
 * heads (through BVH up to where the root stands: BVH keeps it in the motion, not the rest). Our exports lay a rig out the way the importer reads one (leaf tails as BVH End
 * Sites and glTF "_end" nodes; children on the parent's axis), so nothing drifts.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { addRig, createPhysikWorld, readPose } from '../../../src/core';
import { importBvh } from '../../../src/io/bvhImport';
import { importGltf } from '../../../src/io/gltfImport';
import { recordSteps } from '../../../src/io/recorder';
import { recordingToBvh } from '../../../src/io/bvhExport';
import { recordingToGlb } from '../../../src/io/gltfExport';
import type { Scene } from '../../../src/scene/types';

const fixture = (f: string) => readFileSync(new URL(`../../fixtures/external/${f}`, import.meta.url));

async function importFile(name: string, data: Uint8Array | string): Promise<Scene> {
  return name.endsWith('.bvh')
    ? importBvh(typeof data === 'string' ? data : new TextDecoder().decode(data), name, { up: 'y' }).scene
    : (await importGltf(data, name)).scene;
}

/** Rest pose of a scene's rig as built: name → parent, length, head, tail. */
function restOf(scene: Scene) {
  const world = createPhysikWorld();
  const { rig } = addRig(world, { rig: scene.rig });
  const pose = readPose(world, rig);
  // in the built rig's (depth-first) order, which exports keep; an import lists the file's order
  const byName = new Map(scene.rig.bones.map((b) => [b.name, b]));
  const bones = world.physik.rigs[0]!.boneNames.map((name) => {
    const b = byName.get(name)!;
    return { name, parent: b.parent, length: b.length, head: pose[name]!.head, tail: pose[name]!.tail };
  });
  return { world, rig, bones };
}

describe('import then export keeps hierarchy, names and rest pose', () => {
  it.each(['bvhio_example.bvh', 'cmu_subject02_walk_delfem2.bvh', 'RiggedSimple.glb', 'RiggedFigure.glb'])('%s through .bvh and .glb', async (file) => {
    const first = restOf(await importFile(file, new Uint8Array(fixture(file))));
    const height = Math.max(...first.bones.flatMap((b) => [b.head[1], b.tail[1]])) - Math.min(...first.bones.flatMap((b) => [b.head[1], b.tail[1]]));
    const rec = recordSteps(first.world, first.rig, 0); // the rest pose, one frame
    for (const [kind, data] of [['bvh', recordingToBvh(rec)], ['glb', new Uint8Array(await recordingToGlb(rec))]] as const) {
      const again = restOf(await importFile(`again.${kind}`, data));
      expect(again.bones.map((b) => `${b.name} < ${b.parent}`), kind).toEqual(first.bones.map((b) => `${b.name} < ${b.parent}`));
      // glTF stores float32: agreement to ~1e-6 of the figure's size
      const tol = 2e-6 * Math.max(1, height);
      // BVH has no place for the root's rest position (its OFFSET is 0, the position channels
      // carry it), so through BVH the rest pose is compared relative to the root's head
      const shift = kind === 'bvh' ? first.bones[0]!.head.map((h, k) => h - again.bones[0]!.head[k]!) : [0, 0, 0];
      first.bones.forEach((b, i) => {
        const c0 = again.bones[i]!;
        const c = { ...c0, head: c0.head.map((h, k) => h + shift[k]!), tail: c0.tail.map((t, k) => t + shift[k]!) };
        expect(Math.abs(c.length - b.length), `${kind} ${b.name} length`).toBeLessThan(tol);
        for (let k = 0; k < 3; k++) {
          expect(Math.abs(c.head[k]! - b.head[k]!), `${kind} ${b.name} head`).toBeLessThan(tol);
          expect(Math.abs(c.tail[k]! - b.tail[k]!), `${kind} ${b.name} tail`).toBeLessThan(tol);
        }
      });
    }
  });
});
