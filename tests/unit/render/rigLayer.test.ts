/**
 * The rig layer, headless (three.js builds its instanced meshes without WebGL): a tail gets its
 * own joint sphere unless a child's head sits exactly on it. A child attached beside the tail,
 * level with it (an imported skeleton's offset attachment), leaves the tail its sphere.
 */
import { describe, expect, it } from 'vitest';
import { Matrix4, Scene, Vector3 } from 'three';
import { addRig, createPhysikWorld } from '../../../src/core';
import { createRigLayer } from '../../../src/render/rigLayer';
import { createShapes } from '../../../src/render/shapes';

/** The radius each joint sphere is drawn with: per bone, its head's and its tail's. */
function sphereRadii(offset: [number, number, number]) {
  const world = createPhysikWorld();
  addRig(world, {
    rig: {
      name: 'pair', root: 'pinned', bones: [
        { name: 'upper', parent: null, direction: [0, 1, 0], length: 1 },
        { name: 'lower', parent: 'upper', direction: [0, 1, 0], length: 1, offset },
      ],
    },
    controlPoints: [],
  });
  const layer = createRigLayer(world, new Scene(), createShapes());
  layer.write(-1);
  const joints = layer.current().joints, m = new Matrix4(), scale = new Vector3();
  const radii: number[] = [];
  for (let i = 0; i < 4; i++) {
    joints.getMatrixAt(i, m);
    radii.push(scale.setFromMatrixScale(m).x);
  }
  layer.dispose();
  return radii;
}

describe('rig layer joint spheres', () => {
  it("a child's head on the tail takes the tail's sphere; a child beside the tail leaves it", () => {
    const onTail = sphereRadii([0, 1, 0]);
    expect(onTail[1]).toBe(0); // upper's tail: lower's head sphere is there
    expect(onTail[0]).toBeGreaterThan(0);
    const beside = sphereRadii([0.3, 1, 0]);
    expect(beside[1]).toBeGreaterThan(0); // upper's tail is bare: drawn
    expect(beside[1]).toBeCloseTo(beside[0]!, 12);
  });
});
