/**
 * The floor follows the rig: under the CMU walk's feet (its root is at the origin, its feet
 * 35 units below) with cells of a round size near a quarter of its height, and under
 * RiggedFigure (1.3 m tall, feet at 0) with 0.2 m cells; the unit floor without rigs.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { addRig, createPhysikWorld, readPose } from '../../../src/core';
import { importBvh } from '../../../src/io/bvhImport';
import { importGltf } from '../../../src/io/gltfImport';
import { floorFor, roundSize } from '../../../src/render/floor';

describe('floorFor', () => {
  it('round sizes', () => {
    expect([0.013, 0.2, 0.35, 0.7, 6.2, 1000].map(roundSize)).toEqual([0.01, 0.2, 0.2, 0.5, 5, 1000]);
  });

  it('places the floor at the lowest bone and sizes it from the height', async () => {
    const world = createPhysikWorld();
    expect(floorFor(world)).toEqual({ y: 0, x: 0, z: 0, size: 10, cell: 0.25, divisions: 40 });
    const { scene } = importBvh(readFileSync('tests/fixtures/external/cmu_subject02_walk_delfem2.bvh', 'utf8'), 'walk.bvh', { motion: false });
    const { rig } = addRig(world, { rig: scene.rig });
    const lowest = Math.min(...Object.values(readPose(world, rig)).flatMap((p) => [p.head[1], p.tail[1]]));
    const walk = floorFor(world);
    expect(walk.y).toBe(lowest);
    expect(walk.y).toBeLessThan(-15); // the feet, not the hips at 0
    expect(walk.cell).toBe(5); // a quarter of ~26 units, rounded down
    expect(walk.size).toBe(200);

    const fig = createPhysikWorld();
    addRig(fig, { rig: (await importGltf(new Uint8Array(readFileSync('tests/fixtures/external/RiggedFigure.glb')), 'f.glb')).scene.rig });
    const f = floorFor(fig);
    expect(Math.abs(f.y)).toBeLessThan(0.05);
    expect(f.cell).toBe(0.2);
    expect(f.size).toBeCloseTo(8, 12);
  });
});
