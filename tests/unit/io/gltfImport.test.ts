/**
 * A generated humanoid-like glTF, as character tools write them: children off their parent's
 * axis (thighs beside the hips, shoulders in front of the chest's axis), a zero-length joint
 * (a neck twist joint on the neck's tip) and rotated joint frames. It imports with exactly its
 * joints, none added or removed, every joint where three.js's GLTFLoader puts it, and poses by
 * physics with the humanoid template: finite, joints connected, the hand reaching its target.
 */
import { describe, expect, it } from 'vitest';
import { Vector3, type Object3D } from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { addRig, createPhysikWorld, readMetrics, readPose, setTarget, step } from '../../../src/core';
import { importGltf } from '../../../src/io/gltfImport';
import { applyHumanoidTemplate } from '../../../src/io/humanoid';

type Node = { name: string; translation?: number[]; rotation?: number[]; children?: number[] };
const s = Math.SQRT1_2;

/** Nodes: an armature turned 30° about Y, then the skeleton (name, parent, translation, rotation). */
function humanoidGltf(): string {
  const spec: [string, string | null, number[], number[]?][] = [
    ['Hips', null, [0, 1, 0]],
    ['Spine', 'Hips', [0, 0.1, 0.02]],
    ['Chest', 'Spine', [0, 0.25, 0]],
    ['Neck', 'Chest', [0, 0.2, -0.01]],
    ['NeckTwist', 'Neck', [0, 0, 0]], // zero length: on the neck's joint
    ['Head', 'NeckTwist', [0, 0.08, 0.01]],
    ['LeftShoulder', 'Chest', [0.05, 0.17, 0.03]],
    ['LeftUpperArm', 'LeftShoulder', [0, 0.12, 0], [0, 0, -s, s]], // frames along the arm (+Y of each node)
    ['LeftLowerArm', 'LeftUpperArm', [0, 0.28, 0]],
    ['LeftHand', 'LeftLowerArm', [0, 0.25, 0]],
    ['RightShoulder', 'Chest', [-0.05, 0.17, 0.03]],
    ['RightUpperArm', 'RightShoulder', [0, 0.12, 0], [0, 0, s, s]],
    ['RightLowerArm', 'RightUpperArm', [0, 0.28, 0]],
    ['RightHand', 'RightLowerArm', [0, 0.25, 0]],
    ['LeftUpperLeg', 'Hips', [0.1, -0.05, 0]],
    ['LeftLowerLeg', 'LeftUpperLeg', [0, -0.45, 0]],
    ['LeftFoot', 'LeftLowerLeg', [0, -0.42, 0]],
    ['LeftToes', 'LeftFoot', [0, -0.05, 0.12]],
    ['RightUpperLeg', 'Hips', [-0.1, -0.05, 0]],
    ['RightLowerLeg', 'RightUpperLeg', [0, -0.45, 0]],
    ['RightFoot', 'RightLowerLeg', [0, -0.42, 0]],
    ['RightToes', 'RightFoot', [0, -0.05, 0.12]],
  ];
  const nodes: Node[] = [{ name: 'Armature', rotation: [0, Math.sin(Math.PI / 12), 0, Math.cos(Math.PI / 12)], children: [1] }];
  const index = new Map<string, number>();
  for (const [name, parent, t, r] of spec) {
    index.set(name, nodes.length);
    nodes.push({ name, translation: t, ...(r ? { rotation: r } : {}) });
    if (parent) (nodes[index.get(parent)!]!.children ??= []).push(index.get(name)!);
  }
  return JSON.stringify({
    asset: { version: '2.0' }, scene: 0, scenes: [{ nodes: [0] }], nodes,
    skins: [{ joints: spec.map(([name]) => index.get(name)!) }],
  });
}

async function loaderPositions(text: string): Promise<Map<string, Vector3>> {
  const gltf = await new GLTFLoader().parseAsync(text, '');
  gltf.scene.updateMatrixWorld(true);
  const out = new Map<string, Vector3>();
  gltf.scene.traverse((o: Object3D) => out.set(o.name, o.getWorldPosition(new Vector3())));
  return out;
}

describe('a generated humanoid glTF: off-axis children, a zero-length joint, rotated frames', () => {
  it('imports with no joint added or removed, each where GLTFLoader puts it, and poses finitely', async () => {
    const text = humanoidGltf();
    const r = await importGltf(text, 'humanoid.gltf', { template: 'none' });
    const names = JSON.parse(text).skins[0].joints.map((j: number) => JSON.parse(text).nodes[j].name);
    expect(r.scene.rig.bones.map((b) => b.name)).toEqual(names);
    expect(r.scene.rig.bones.filter((b) => /link/.test(b.name))).toEqual([]);
    // the zero-length joint keeps its bone, with a length of its own
    expect(r.scene.rig.bones.find((b) => b.name === 'NeckTwist')!.offset).toEqual([0, 0, 0]);
    expect(r.scene.rig.bones.every((b) => b.length > 0)).toBe(true);

    const t = applyHumanoidTemplate(r.scene.rig);
    expect(t.method).toBe('names');
    expect(t.mapping).toMatchObject({ leftLowerArm: 'LeftLowerArm', rightLowerLeg: 'RightLowerLeg', neck: ['Neck'], head: 'Head' });
    expect(t.defaulted).toEqual(['NeckTwist']);
    const world = createPhysikWorld();
    const h = addRig(world, { rig: t.rig, controlPoints: [{ name: 'hand', bone: 'LeftHand' }, { name: 'hips', bone: 'Hips', at: 0 }] });
    const at = await loaderPositions(text);
    let worst = 0;
    const rest = readPose(world, h.rig);
    for (const name of names) worst = Math.max(worst, at.get(name)!.distanceTo(new Vector3(...rest[name]!.head)));
    expect(worst).toBeLessThan(1e-6);

    const hand = rest.LeftHand!.tail;
    const target: [number, number, number] = [hand[0] + 0.1, hand[1] + 0.5, hand[2] + 0.3];
    setTarget(world, h.controlPoints.hand!, target);
    step(world, 600);
    const m = readMetrics(world, h.rig);
    const pose = readPose(world, h.rig);
    expect(Object.values(pose).every((p) => [...p.head, ...p.tail, ...p.world].every(Number.isFinite))).toBe(true);
    expect(m.divergedSteps).toBe(0);
    expect(m.maxJointGap).toBeLessThan(1e-9 * m.height);
    const reached = Math.hypot(...pose.LeftHand!.tail.map((v, k) => v - target[k]!));
    console.log(`generated humanoid: ${names.length} joints, ${r.scene.rig.bones.length} bones; hand ${reached.toFixed(4)} from its target after 600 steps (moved ${Math.hypot(...hand.map((v, k) => v - target[k]!)).toFixed(2)})`);
    expect(reached).toBeLessThan(0.1 * Math.hypot(0.1, 0.5, 0.3));
  });
});
