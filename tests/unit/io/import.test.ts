/**
 * Importing rigs from BVH and glTF: the four external fixtures (tests/fixtures/external, see
 * SOURCES.md there), synthetic BVH texts for what those four do not cover (Z-up, other
 * channel orders, position channels everywhere, unnamed and duplicate names, zero offsets, a
 * 70-joint skeleton), malformed and truncated files, and the scene-file round trip.
 *
 * What "imports" means here: the scene passes parseScene, addRig builds it, every bone head
 * sits where the file puts the joint (checked against three.js's own BVHLoader / GLTFLoader),
 * and the rig poses: two control points at chain ends, targets moved by 20% of the figure's
 * height, 300 PhysIK steps, the errors shrink to under a quarter and nothing goes non-finite.
 */
import { describe, expect, it } from 'vitest';

import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { SkinnedMesh, Vector3 } from 'three';
import { addRig, createPhysikWorld, readMetrics, readPose } from '../../../src/core';
import { parseScene, SceneError } from '../../../src/scene/load';
import type { Scene, Vec3Tuple } from '../../../src/scene/types';
import { importBvh, parseBvh } from '../../../src/io/bvhImport';
import { importGltf } from '../../../src/io/gltfImport';
import { defaultControlPoints, jointsToRig, type SkeletonJoint } from '../../../src/io/skeleton';
import { rng } from '../../support/helpers';
import { errorOf } from '../../support/errors';
import { text, bytes, dist, bvhLoaderJoints, expectHeadsAt, expectPoses, expectSceneFileRoundTrip } from '../../support/importChecks';

describe('BVH fixtures', () => {
  it('bvhio_example.bvh (18 joints, ZXY, blank lines, tabs): 18 bones, heads where BVHLoader puts the joints', () => {
    const src = text('bvhio_example.bvh');
    const r = importBvh(src, 'bvhio_example.bvh');
    expect(r.scene.name).toBe('bvhio_example');
    expect(r.joints).toHaveLength(18);
    // one bone per joint, in file order with the file's parents; the thighs and collars sit off
    // their parents' axes, attached by offset (no connector bones)
    expect(r.scene.rig.bones.map((b) => b.name)).toEqual(parseBvh(src).joints.map((j) => j.name));
    expect(r.scene.rig.bones.map((b) => b.parent)).toEqual(parseBvh(src).joints.map((j) => (j.parent < 0 ? null : parseBvh(src).joints[j.parent]!.name)));
    expect(r.scene.rig.bones.find((b) => b.name === 'LeftCollar')!.offset![0]).not.toBeCloseTo(0, 3);
    // names kept; the forearm bone runs elbow → wrist
    const lowArm = r.scene.rig.bones.find((b) => b.name === 'LeftLowArm')!;
    expect(lowArm.length).toBeCloseTo(9.93, 9);
    expect(lowArm.direction[1]).toBeCloseTo(-1, 9);
    expect(r.warnings.join('\n')).not.toMatch(/Z-up/);

    const ref = bvhLoaderJoints(src);
    expect(ref.joints).toHaveLength(18);
    expect(ref.ends).toHaveLength(5);
    expectHeadsAt(r.scene, r.joints, ref.joints, 1e-9);
    // the leaf bones end at the end sites
    const world = createPhysikWorld();
    const pose = readPose(world, addRig(world, { rig: r.scene.rig }).rig);
    for (const [bone, k] of [['Head', 0], ['LeftHand', 1], ['RightHand', 2], ['LeftFoot', 3], ['RightFoot', 4]] as const) {
      expect(dist(pose[bone]!.tail, ref.ends[k]!)).toBeLessThan(1e-9);
    }

    // motion: 2 frames at 1/30 s; 6 + 17 × 3 channels, values as BVHLoader's Hips position track
    expect(r.motion!.frames).toHaveLength(2);
    expect(r.motion!.frameTime).toBeCloseTo(0.033333, 9);
    expect(r.motion!.channels).toHaveLength(57);
    expect(r.motion!.channels.slice(0, 6).map((c) => c.channel)).toEqual(['Xposition', 'Yposition', 'Zposition', 'Zrotation', 'Xrotation', 'Yrotation']);
    const hipsPos = ref.loader.clip.tracks.find((t) => t.name === 'Hips.position')!;
    expect(Array.from(hipsPos.values.slice(0, 3))).toEqual(r.motion!.frames[0]!.slice(0, 3).map((x) => Math.fround(x)));
    expect(Array.from(hipsPos.values.slice(3, 6))).toEqual(r.motion!.frames[1]!.slice(0, 3).map((x) => Math.fround(x)));
  });

  it('cmu_subject02_walk_delfem2.bvh (31 joints, coincident joints): 31 bones, none merged, 344 frames', () => {
    const src = text('cmu_subject02_walk_delfem2.bvh');
    const r = importBvh(src, 'cmu_subject02_walk_delfem2.bvh');
    expect(r.joints).toHaveLength(31);
    expect(r.scene.rig.bones).toHaveLength(31);
    expect(r.joints.every((j) => j.bone === j.name)).toBe(true);
    expect(r.scene.rig.bones.map((b) => b.name)).toContain('LowerBack');
    // joints whose first child sits on them get a short bone toward the next joint; their children stay
    expect(r.warnings.join('\n')).toMatch(/^4 joint\(s\) whose first child sits on them .*: Hips, Spine1, LeftHand, RightHand$/m);
    expect(r.scene.rig.bones.find((b) => b.name === 'LowerBack')!.offset).toEqual([0, 0, 0]);
    // no zero-length bones; the smallest is a hand's stub (0.17 units of a 26-unit figure)
    expect(Math.min(...r.scene.rig.bones.map((b) => b.length))).toBeGreaterThan(0.1);
    // the spine continues up through the neck, not off to a shoulder
    expect(r.scene.rig.bones.find((b) => b.name === 'Spine1')!.direction[1]).toBeGreaterThan(0.99);
    expectHeadsAt(r.scene, r.joints, bvhLoaderJoints(src).joints, 1e-9);
    expect(r.motion!.frames).toHaveLength(344);
    expect(r.motion!.frameTime).toBeCloseTo(1 / 120, 6);
    expect(r.motion!.channels).toHaveLength(6 + 30 * 3);
    expect(r.motion!.frames.every((f) => f.length === 96 && f.every(Number.isFinite))).toBe(true);
  });

  for (const file of ['bvhio_example.bvh', 'cmu_subject02_walk_delfem2.bvh']) {
    it(`${file}: poses with two control points; saved as a scene file it loads and builds`, () => {
      const { scene } = importBvh(text(file), file);
      const r = expectPoses(scene);
      expect(r.height).toBeGreaterThan(20); // centimetre-ish units, not rescaled
      expectSceneFileRoundTrip(scene);
    });
  }
});

describe('glTF fixtures', () => {
  /** World positions of the first skinned mesh's joints, from a full GLTFLoader load. */
  async function gltfLoaderJoints(data: Uint8Array): Promise<Vec3Tuple[]> {
    const ab = data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) as ArrayBuffer;
    const gltf = await new GLTFLoader().parseAsync(ab, '');
    gltf.scene.updateMatrixWorld(true);
    let mesh: SkinnedMesh | undefined;
    gltf.scene.traverse((o) => (mesh ??= o instanceof SkinnedMesh ? o : undefined));
    const v = new Vector3();
    return mesh!.skeleton.bones.map((b) => (b.getWorldPosition(v), [v.x, v.y, v.z]));
  }

  it('RiggedSimple.glb (2 unnamed joints): a 2-bone chain named after the nodes, node2 and node3', async () => {
    const data = bytes('RiggedSimple.glb');
    const r = await importGltf(data, 'RiggedSimple.glb');
    expect(r.scene.rig.bones.map((b) => [b.name, b.parent])).toEqual([['node2', null], ['node3', 'node2']]);
    expect(r.joints.map((j) => j.node)).toEqual([2, 3]);
    expect(r.warnings.join('\n')).toMatch(/2 unnamed joint\(s\) named after their node index: node2, node3/);
    // the leaf gets half its incoming segment's length
    expect(r.scene.rig.bones[1]!.length).toBeCloseTo(r.scene.rig.bones[0]!.length / 2, 9);
    expectHeadsAt(r.scene, r.joints, await gltfLoaderJoints(data), 1e-6);
    // one chain: its two ends are the tip and the root's head
    expect(defaultControlPoints(r.scene.rig, 2)).toEqual([
      { name: 'node3', bone: 'node3', at: 1 },
      { name: 'node2', bone: 'node2', at: 0 },
    ]);
  });

  it('RiggedFigure.glb (19 unnamed joints, Z-up armature node): 19 bones at GLTFLoader\'s joint positions', async () => {
    const data = bytes('RiggedFigure.glb');
    const r = await importGltf(data, 'RiggedFigure.glb');
    expect(r.joints).toHaveLength(19);
    const skin = [2, 11, 12, 19, 20, 16, 13, 17, 14, 18, 15, 7, 3, 8, 4, 9, 5, 10, 6];
    expect(r.joints.map((j) => j.node)).toEqual(skin);
    expect(r.joints.map((j) => j.name)).toEqual(skin.map((n) => `node${n}`));
    expect(r.scene.rig.bones.map((b) => b.name)).toEqual(skin.map((n) => `node${n}`)); // one bone per joint, none added
    expectHeadsAt(r.scene, r.joints, await gltfLoaderJoints(data), 1e-6);
    // the armature node's Z-up → Y-up matrix is composed in: the figure stands along +Y
    const world = createPhysikWorld();
    const h = addRig(world, { rig: r.scene.rig });
    const m = readMetrics(world, h.rig);
    expect(m.height).toBeGreaterThan(1);
    const pose = readPose(world, h.rig);
    expect(pose['node20']!.tail[1]).toBeGreaterThan(pose['node2']!.head[1]); // head above hips
  });

  for (const file of ['RiggedSimple.glb', 'RiggedFigure.glb']) {
    it(`${file}: poses with two control points; saved as a scene file it loads and builds`, async () => {
      const { scene } = await importGltf(bytes(file), file);
      expectPoses(scene);
      expectSceneFileRoundTrip(scene);
    });
  }
});

// ---------------------------------------------------------------------------------------
// Synthetic BVH

/** Write a BVH text (tabs, any channel order, `frames` rows of zeros unless given). */

function gltfText(extra: Record<string, unknown> = {}): string {
  const s = Math.SQRT1_2;
  // file axes are Z-up centimetres; the armature node makes them Y-up metres: (x, y, z) → (x, z, −y) / 100
  return JSON.stringify({
    asset: { version: '2.0' },
    scene: 0,
    scenes: [{ nodes: [0, 14] }],
    nodes: [
      { name: 'Armature', rotation: [-s, 0, 0, s], scale: [0.01, 0.01, 0.01], children: [1] },
      { name: 'mixamorig:Hips', translation: [0, 0, 100], children: [2, 4, 7] },
      { name: 'mixamorig:Spine', translation: [0, 0, 30], children: [3, 10, 12] },
      { translation: [0, 0, 40] },
      { name: 'Leg L', translation: [10, 0, 0], children: [5] },
      { name: 'Leg L', translation: [0, -5, -45], children: [6] },
      { name: 'Foot L', translation: [0, 5, -45] },
      { name: 'Leg R', translation: [-10, 0, 0], children: [8] },
      { name: 'Knee R', translation: [0, -5, -45], children: [9] },
      { name: 'Foot R', translation: [0, 5, -45], extras: { x: 1 } },
      { name: 'Arm L', translation: [18, 0, 25], children: [11] },
      { name: 'Hand L', translation: [0, -5, -50], mesh: 0 },
      { name: 'Arm R', translation: [-18, 0, 25], children: [13] },
      { name: 'Hand R', translation: [0, -5, -50] },
      { name: 'Camera', translation: [0, 1, 5], camera: 0 },
    ],
    meshes: [{ primitives: [{ attributes: { POSITION: 0 } }] }],
    accessors: [{ bufferView: 0, componentType: 5126, count: 1, type: 'VEC3' }],
    bufferViews: [{ buffer: 0, byteLength: 12 }],
    buffers: [{ byteLength: 12, uri: 'missing.bin' }],
    cameras: [{ type: 'perspective', perspective: { yfov: 1, znear: 0.1 } }],
    skins: [{ joints: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13], inverseBindMatrices: 0 }],
    extensionsRequired: ['KHR_draco_mesh_compression'],
    extensionsUsed: ['KHR_draco_mesh_compression'],
    ...extra,
  });
}
const gltfNames = ['mixamorig:Hips', 'mixamorig:Spine', 'node3', 'Leg_L', 'Leg_L.2', 'Foot_L', 'Leg_R', 'Knee_R', 'Foot_R', 'Arm_L', 'Hand_L', 'Arm_R', 'Hand_R'];

describe('synthetic glTF', () => {
  it('a .gltf text: file names kept, unnamed joints by node index, armature composed, meshes/buffers/Draco not needed', async () => {
    const r = await importGltf(gltfText(), 'figure.gltf');
    expect(r.joints.map((j) => j.name)).toEqual(gltfNames);
    expect(r.joints.map((j) => j.node)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
    const world = createPhysikWorld();
    const pose = readPose(world, addRig(world, { rig: r.scene.rig }).rig);
    // Hips at 100 cm up (Z in the file) → 1 m up in Y; the spine points up
    expect(dist(pose['mixamorig:Hips']!.head, [0, 1, 0])).toBeLessThan(1e-12);
    expect(dist(pose['mixamorig:Spine']!.head, [0, 1.3, 0])).toBeLessThan(1e-12);
    expect(dist(pose['Leg_L.2']!.head, [0.1, 0.55, 0.05])).toBeLessThan(1e-12);
    expect(r.scene.rig.bones.find((b) => b.name === 'mixamorig:Spine')!.length).toBeCloseTo(0.4, 12);
    expectPoses(r.scene);
  });

  it('without a skin, the scene\'s node hierarchy is the skeleton; one node alone is an error', async () => {
    const noSkin = JSON.parse(gltfText());
    delete noSkin.skins;
    noSkin.scenes = [{ nodes: [1] }];
    const r = await importGltf(JSON.stringify(noSkin), 'noskin.gltf');
    expect(r.warnings[0]).toBe('no skin: imported the node hierarchy of the scene (13 nodes)');
    // depth first through the node children (the skin listed the legs before the arms)
    expect(r.joints.map((j) => j.name)).toEqual(['mixamorig:Hips', 'mixamorig:Spine', 'node3', 'Arm_L', 'Hand_L', 'Arm_R', 'Hand_R', 'Leg_L', 'Leg_L.2', 'Foot_L', 'Leg_R', 'Knee_R', 'Foot_R']);
    const single = JSON.stringify({ asset: { version: '2.0' }, scenes: [{ nodes: [0] }], nodes: [{ name: 'Cube', mesh: 0 }] });
    expect((await errorOf(() => importGltf(single, 'cube.gltf'))).message).toBe('cube.gltf: no skin or bones found (no skins, and the 1 node(s) of the scene form no hierarchy)');
  });

  it('truncated GLB, random bytes, broken JSON and bad node graphs give clear errors', async () => {
    const glb = bytes('RiggedFigure.glb');
    expect((await errorOf(() => importGltf(glb.slice(0, 20000), 'RiggedFigure.glb'))).message).toBe('RiggedFigure.glb: truncated: header says 49532 bytes, got 20000');
    expect((await errorOf(() => importGltf(glb.slice(0, 10), 'RiggedFigure.glb'))).message).toMatch(/^RiggedFigure\.glb: truncated: 10 bytes/);
    const r = rng(3);
    const noise = Uint8Array.from({ length: 4096 }, () => Math.floor(r() * 256));
    noise[0] = 0x89; // not 'g' nor '{'
    expect((await errorOf(() => importGltf(noise, 'noise.glb'))).message).toMatch(/^noise\.glb: not a glTF file \(starts with 89 [0-9a-f ]+ ".*"; a \.glb starts with "glTF", a \.gltf with "\{"\)$/);
    expect((await errorOf(() => importGltf(new Uint8Array(0), 'empty.glb'))).message).toBe('empty.glb: empty file (expected a .glb or .gltf)');
    const half = gltfText().slice(0, 200);
    expect((await errorOf(() => importGltf(half, 'half.gltf'))).message).toMatch(/^half\.gltf: not valid glTF JSON \(.*\) \(file truncated\?\)$/);
    expect((await errorOf(() => importGltf(JSON.stringify({ asset: { version: '1.0' } }), 'old.gltf'))).message).toBe('old.gltf: glTF 1.0 is not supported (glTF 2.0 only)');
    const cyclic = JSON.parse(gltfText());
    cyclic.nodes[3].children = [1];
    cyclic.nodes[0].children = [];
    expect((await errorOf(() => importGltf(JSON.stringify(cyclic), 'cycle.gltf'))).message).toMatch(/^cycle\.gltf: node \d+( ".*")? is in a cycle of node children$/);
    const badJoint = JSON.parse(gltfText());
    badJoint.skins[0].joints.push(42);
    expect((await errorOf(() => importGltf(JSON.stringify(badJoint), 'bad.gltf'))).message).toBe('bad.gltf: skin 0: joint 42 is not a node index (0..14)');
    const nanNode = JSON.parse(gltfText());
    nanNode.nodes[2].translation = [0, 0, 'x'];
    expect((await errorOf(() => importGltf(JSON.stringify(nanNode), 'nan.gltf'))).message).toBe('nan.gltf: node 2 "mixamorig:Spine": translation must be 3 finite numbers');
  });
});

describe('jointsToRig', () => {
  const joints = (): SkeletonJoint[] => [
    { name: 'a', parent: -1, position: [0, 0, 0] },
    { name: 'b', parent: 0, position: [0, 1, 0] },
    { name: 'c', parent: 1, position: [0, 2, 0] },
  ];

  it('rejects bad skeletons with errors naming the joint', async () => {
    const nan = joints();
    nan[2]!.position = [0, Number.NaN, 0];
    expect((await errorOf(() => jointsToRig(nan, { file: 'x.bvh' }))).message).toBe('x.bvh: joint 2 "c": position [0, NaN, 0] is not 3 finite numbers');
    const twoRoots = joints();
    twoRoots[2]!.parent = -1;
    expect((await errorOf(() => jointsToRig(twoRoots))).message).toBe('expected exactly one root joint, found 2: joint 0 "a", joint 2 "c"');
    const cycle = [...joints(), { name: 'd', parent: 4, position: [1, 0, 0] as Vec3Tuple }, { name: 'e', parent: 3, position: [2, 0, 0] as Vec3Tuple }];
    expect((await errorOf(() => jointsToRig(cycle))).message).toBe('joint 3 "d": parent cycle (d -> e -> d)');
    const outOfRange = joints();
    outOfRange[1]!.parent = 7;
    expect((await errorOf(() => jointsToRig(outOfRange))).message).toBe('joint 1 "b": parent 7 is not a joint index (expected -1 for the root or 0..2, not itself)');
    expect((await errorOf(() => jointsToRig([]))).message).toBe('no joints: the skeleton is empty');
    const same = joints().map((j) => ({ ...j, position: [1, 1, 1] as Vec3Tuple }));
    expect((await errorOf(() => jointsToRig(same))).message).toBe('all 3 joints are at the same position [1, 1, 1]: no bone lengths can be derived');
  });

  it('a child attaches where the file has it: on the parent bone\'s axis or off it, by offset; scale', () => {
    const j = joints();
    j.push({ name: 'side', parent: 1, position: [1, 1.5, 0] }, { name: 'mid', parent: 1, position: [0, 1.5, 0] });
    const r = jointsToRig(j, { scale: 0.5 });
    expect(r.rig.bones.map((b) => b.name)).toEqual(['a', 'b', 'c', 'side', 'mid']);
    expect(r.rig.bones.find((b) => b.name === 'side')).toMatchObject({ parent: 'b', offset: [0.5, 0.25, 0] });
    // a leaf continues its incoming segment (b's head to side, 0.559) for half its length
    expect(r.rig.bones.find((b) => b.name === 'side')!.length).toBeCloseTo(Math.hypot(0.5, 0.25) / 2, 12);
    expect(r.rig.bones.find((b) => b.name === 'mid')).toMatchObject({ parent: 'b', offset: [0, 0.25, 0], length: 0.125 });
    expect(r.rig.bones[0]!.length).toBe(0.5);
    const positions = j.map((x) => x.position.map((c) => c * 0.5) as Vec3Tuple);
    expectHeadsAt({ name: 'x', rig: r.rig } as Scene, r.boneOfJoint.map((bone) => ({ bone })), positions, 1e-12);
  });

  it('a rig that addRig refuses leaves the world empty', () => {
    const r = jointsToRig(joints());
    // pure data: a broken description is refused by addRig before anything is built
    const world = createPhysikWorld();
    const broken = structuredClone(r.rig);
    broken.bones[2]!.length = -1;
    expect(() => addRig(world, { rig: broken })).toThrow(SceneError);
    expect(world.physik.rigs).toHaveLength(0);
    expect(() => parseScene({ name: 'x', rig: r.rig })).not.toThrow();
  });
});
