/**
 * The skinned character layer, headless (it needs no WebGL: GLTFLoader reads the file, three.js
 * skins on the CPU here): RiggedFigure imported, its hand dragged by physics, and every frame
 * the file's own joint nodes sit where the rig's bones are, the skinned mesh moving with them.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Scene, Vector3, type SkinnedMesh } from 'three';
import { addRig, createPhysikWorld, readMetrics, readPose, setTarget, step } from '../../../src/core';
import { importGltf } from '../../../src/io/gltfImport';
import { createCharacterLayer } from '../../../src/render/characterLayer';

const FILE = 'tests/fixtures/external/RiggedFigure.glb';

describe('createCharacterLayer', () => {
  it("draws RiggedFigure's skinned mesh with its joints on the rig's bones as the rig moves", async () => {
    const bytes = readFileSync(FILE);
    const data = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    const imported = await importGltf(new Uint8Array(data), 'RiggedFigure.glb');
    const world = createPhysikWorld();
    const hand = imported.humanoid!.mapping.leftHand!;
    const { rig, controlPoints } = addRig(world, { rig: imported.scene.rig, controlPoints: [{ name: 'hand', bone: hand }, { name: 'hips', bone: imported.humanoid!.mapping.hips!, at: 0 }], settings: imported.scene.settings });
    const scene = new Scene();
    const layer = await createCharacterLayer(world, rig, scene, { data, joints: imported.joints, file: 'RiggedFigure.glb' });
    expect(layer.meshes).toBe(1);
    expect(layer.skinnedMeshes).toBe(1);
    expect(scene.children).toContain(layer.root);

    const nodeObject = new Map<string, import('three').Object3D>();
    let mesh: SkinnedMesh | undefined;
    layer.root.traverse((o) => { if ((o as SkinnedMesh).isSkinnedMesh) mesh = o as SkinnedMesh; });
    for (const j of imported.joints) nodeObject.set(j.name, layer.jointObject(j.name)!);
    expect(new Set(mesh!.skeleton.bones)).toEqual(new Set(nodeObject.values())); // the skin's own joints
    const height = readMetrics(world, rig).height;
    const tip = readPose(world, rig)[hand]!.tail;
    setTarget(world, controlPoints.hand!, [tip[0] + 0.1 * height, tip[1] + 0.3 * height, tip[2] + 0.2 * height]);
    const v = new Vector3();
    const vertex = new Vector3(), rest: Vector3[] = [];
    let worst = 0, moved = 0;
    for (let s = 0; s <= 60; s++) {
      if (s > 0) step(world, 1);
      layer.update();
      scene.updateMatrixWorld(true);
      const pose = readPose(world, rig);
      for (const j of imported.joints) {
        nodeObject.get(j.name)!.getWorldPosition(v);
        worst = Math.max(worst, v.distanceTo(new Vector3(...pose[j.name]!.head)));
      }
      for (let k = 0; k < mesh!.geometry.getAttribute('position').count; k += 7) {
        mesh!.getVertexPosition(k, vertex);
        if (s === 0) rest[k] = vertex.clone();
        else moved = Math.max(moved, vertex.distanceTo(rest[k]!));
      }
    }
    console.log(`character layer: joints within ${worst.toExponential(2)} of the rig's heads over 60 steps; skinned vertices moved up to ${moved.toFixed(3)}`);
    expect(worst).toBeLessThan(1e-6 * height);
    expect(moved).toBeGreaterThan(0.05 * height);
    layer.dispose();
    expect(scene.children).not.toContain(layer.root);
  });
});
