/**
 * The skinned character layer, headless (it needs no WebGL: GLTFLoader reads the file, three.js
 * skins on the CPU here): RiggedFigure imported, its hand dragged by physics, and every frame
 * the file's own joint nodes sit where the rig's bones are, the skinned mesh moving with them;
 * a ray through the skinned mesh as posed picks the bone that part of the skin follows, and the
 * skin of the bone hovered and of the one selected is lit (the shader given their skin indices).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Ray, Scene, ShaderLib, Vector3, type SkinnedMesh } from 'three';
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

  it('picks the bone under a ray through the posed skin: thighs, shins, hands, spine; a moved hand is found where it went', async () => {
    const bytes = readFileSync(FILE);
    const data = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    const imported = await importGltf(new Uint8Array(data), 'RiggedFigure.glb');
    const world = createPhysikWorld();
    const m = imported.humanoid!.mapping;
    const { rig, controlPoints } = addRig(world, { rig: imported.scene.rig, controlPoints: [{ name: 'hand', bone: m.leftHand! }], settings: imported.scene.settings });
    const layer = await createCharacterLayer(world, rig, new Scene(), { data, joints: imported.joints, file: 'RiggedFigure.glb' });
    const record = world.physik.rigs[0]!;
    const nameOf = (e: number) => record.boneNames[record.bones.indexOf(e)];
    /** The bone picked by a ray from in front (+Z, 5 units off) through the middle of bone `name`. */
    const pickFront = (name: string, from = new Vector3(0, 0, 1)) => {
      layer.update();
      const p = readPose(world, rig)[name]!;
      const mid = new Vector3(...p.head).add(new Vector3(...p.tail)).multiplyScalar(0.5);
      const pick = layer.pickBone(new Ray(mid.clone().addScaledVector(from, 5), from.clone().negate()));
      return pick && { bone: nameOf(pick.bone), at: pick.at, point: pick.point, distance: pick.distance };
    };
    for (const bone of [m.leftUpperLeg!, m.rightUpperLeg!, m.leftLowerLeg!, m.rightLowerArm!, m.leftHand!, m.rightHand!, m.spine[0]!, m.neck[0]!]) {
      const pick = pickFront(bone)!;
      expect(pick.bone, bone).toBe(bone);
      // the point is on the bone's axis, near the middle the ray went through
      expect(pick.at).toBeGreaterThan(0.2);
      expect(pick.at).toBeLessThan(0.9);
      expect(pick.distance).toBeGreaterThan(4);
    }
    // the hand lifted up and forward: the mesh is picked where the hand is now, not where it was
    const before = readPose(world, rig)[m.leftHand!]!;
    const height = readMetrics(world, rig).height;
    setTarget(world, controlPoints.hand!, [before.tail[0] + 0.1 * height, before.tail[1] + 0.3 * height, before.tail[2] + 0.2 * height]);
    step(world, 200);
    const after = readPose(world, rig)[m.leftHand!]!;
    expect(Math.hypot(after.tail[0] - before.tail[0], after.tail[1] - before.tail[1], after.tail[2] - before.tail[2])).toBeGreaterThan(0.15 * height);
    expect(pickFront(m.leftHand!)?.bone).toBe(m.leftHand!);
    const was = new Vector3(...before.head).add(new Vector3(...before.tail)).multiplyScalar(0.5);
    layer.update();
    const old = layer.pickBone(new Ray(was.clone().add(new Vector3(0, 0, 5)), new Vector3(0, 0, -1)));
    expect(old === null || nameOf(old.bone) !== m.leftHand).toBe(true);
    // the skin of the hovered and the selected bone is lit: the shader gets their skin indices
    let mesh: SkinnedMesh | undefined;
    layer.root.traverse((o) => { if ((o as SkinnedMesh).isSkinnedMesh) mesh = o as SkinnedMesh; });
    const skinIndex = (name: string) => mesh!.skeleton.bones.indexOf(layer.jointObject(name) as never);
    layer.highlight(record.bones[record.boneNames.indexOf(m.leftHand!)]!, record.bones[record.boneNames.indexOf(m.leftUpperLeg!)]!);
    expect(layer.lit).toEqual([{ hover: skinIndex(m.leftHand!), selected: skinIndex(m.leftUpperLeg!) }]);
    expect(skinIndex(m.leftHand!)).toBeGreaterThanOrEqual(0);
    layer.highlight(-1, -1);
    expect(layer.lit).toEqual([{ hover: -1, selected: -1 }]);
    const material = (Array.isArray(mesh!.material) ? mesh!.material[0] : mesh!.material)!;
    const lib = ShaderLib.standard;
    const shader = { uniforms: {} as Record<string, unknown>, vertexShader: lib.vertexShader, fragmentShader: lib.fragmentShader };
    material.onBeforeCompile(shader as never, undefined as never);
    expect(Object.keys(shader.uniforms)).toEqual(['physikHover', 'physikSelected']);
    expect(shader.vertexShader).toMatch(/vPhysikLit = vec2\(dot\(vec4\(equal\(skinIndex, vec4\(physikHover\)\)\), skinWeight\)/);
    expect(shader.fragmentShader).toMatch(/mix\(gl_FragColor\.rgb, vec3\(0\.55, 0\.8, 1\.0\), 0\.5 \* clamp\(vPhysikLit\.x/);
    // hidden, the mesh is not picked
    layer.setVisible(false);
    expect(pickFront(m.leftUpperLeg!)).toBeNull();
    layer.dispose();
  });
});
