/**
 * .glb export: record the humanoid's scripted scene, export, load back with three.js's
 * GLTFLoader in Node, and find the same frames, every bone's local rotation and the root's
 * position to float32 precision, the skeleton's names, hierarchy and rest pose, and a skinned
 * mesh that actually follows the clip when played.
 */
import { describe, expect, test } from 'vitest';

import { AnimationMixer, LoopOnce, PropertyBinding, Quaternion, Vector3, type Bone, type Object3D, type SkinnedMesh } from 'three';
import { GLTFLoader, type GLTF } from 'three/examples/jsm/loaders/GLTFLoader.js';

import { headAt, localRotation, type Recording } from '../../../src/io/recording';
import { recordingToGlb } from '../../../src/io/gltfExport';
import { ensureFileReader } from '../../../src/io/node-polyfills';
import { recordHumanoid as recordHumanoidSteps } from '../../support/recordHumanoid';

const STEPS = 60;

const recordHumanoid = (): Recording => recordHumanoidSteps(STEPS);

function loadGlb(buffer: ArrayBuffer): Promise<GLTF> {
  return new Promise((resolve, reject) => new GLTFLoader().parse(buffer, '', resolve, reject));
}

/** The JSON chunk of a .glb, as written (before GLTFLoader renames anything). */
function glbJson(buffer: ArrayBuffer): { nodes: { name?: string; children?: number[] }[]; skins: { joints: number[] }[]; animations: { channels: unknown[] }[] } {
  const view = new DataView(buffer);
  const length = view.getUint32(12, true);
  return JSON.parse(new TextDecoder().decode(new Uint8Array(buffer, 20, length)));
}

const rec = recordHumanoid();
const gltfPromise = recordingToGlb(rec).then(async (buffer) => ({ buffer, gltf: await loadGlb(buffer) }));
const loadedName = (name: string) => PropertyBinding.sanitizeNodeName(name);

function findBone(root: Object3D, name: string): Bone {
  const found = root.getObjectByName(loadedName(name));
  if (!found || !(found as Bone).isBone) throw new Error(`no bone "${name}" in the loaded scene`);
  return found as Bone;
}

/** Largest component difference of two quaternions after aligning their signs. */
function quatDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const s = a[0]! * b[0]! + a[1]! * b[1]! + a[2]! * b[2]! + a[3]! * b[3]! < 0 ? -1 : 1;
  return Math.max(...[0, 1, 2, 3].map((k) => Math.abs(a[k]! - s * b[k]!)));
}

describe('recordingToGlb', () => {
  test('the recording is non-trivial (bones move well away from rest)', () => {
    // guards the round trip below from passing on a recording that never moved
    const n = rec.bones.length;
    const q0 = new Float64Array(4), q1 = new Float64Array(4);
    let maxMove = 0;
    for (let i = 0; i < n; i++) {
      localRotation(rec, 0, i, q0);
      localRotation(rec, rec.frameCount - 1, i, q1);
      maxMove = Math.max(maxMove, quatDiff(q0, q1));
    }
    expect(rec.frameCount).toBe(STEPS + 1);
    expect(maxMove).toBeGreaterThan(0.05);
  });

  test('writes a binary glTF 2.0 with every bone as a named node, one skin and one animation', async () => {
    const { buffer } = await gltfPromise;
    const view = new DataView(buffer);
    expect(view.getUint32(0, true)).toBe(0x46546c67); // "glTF"
    expect(view.getUint32(4, true)).toBe(2);
    expect(view.getUint32(8, true)).toBe(buffer.byteLength);
    const json = glbJson(buffer);
    const names = json.nodes.map((node) => node.name);
    for (const b of rec.bones) expect(names.filter((x) => x === b.name)).toHaveLength(1);
    expect(json.skins).toHaveLength(1);
    expect(json.skins[0]!.joints.map((j) => json.nodes[j]!.name)).toEqual(rec.bones.map((b) => b.name));
    expect(json.animations).toHaveLength(1);
    // one rotation channel per bone plus the root's translation: none was dropped
    expect(json.animations[0]!.channels).toHaveLength(rec.bones.length + 1);
  });

  test('GLTFLoader finds the hierarchy, names and rest TRS', async () => {
    const { gltf } = await gltfPromise;
    let maxPos = 0, maxRot = 0;
    rec.bones.forEach((b) => {
      const bone = findBone(gltf.scene, b.name);
      if (b.parent < 0) expect((bone.parent as Bone | null)?.isBone).toBeFalsy();
      else expect(bone.parent!.name).toBe(loadedName(rec.bones[b.parent]!.name));
      const expected = b.parent < 0 ? b.restHead : b.offset;
      maxPos = Math.max(maxPos, bone.position.distanceTo(new Vector3(...expected)));
      maxRot = Math.max(maxRot, quatDiff(bone.quaternion.toArray(), b.restLocal));
    });
    expect(maxPos).toBeLessThan(1e-6);
    expect(maxRot).toBeLessThan(1e-6);
  });

  test('the clip has every frame and every local rotation and root position within 1e-5', async () => {
    const { gltf } = await gltfPromise;
    expect(gltf.animations).toHaveLength(1);
    const clip = gltf.animations[0]!;
    const n = rec.bones.length;
    const q = new Float64Array(4);
    let maxRot = 0, maxTime = 0;
    for (let i = 0; i < n; i++) {
      const track = clip.tracks.find((t) => t.name === `${loadedName(rec.bones[i]!.name)}.quaternion`);
      expect(track, `track of ${rec.bones[i]!.name}`).toBeDefined();
      expect(track!.times.length).toBe(rec.frameCount);
      for (let f = 0; f < rec.frameCount; f++) {
        maxTime = Math.max(maxTime, Math.abs(track!.times[f]! - rec.times[f]!));
        localRotation(rec, f, i, q);
        maxRot = Math.max(maxRot, quatDiff(track!.values.subarray(f * 4, f * 4 + 4), q));
      }
    }
    const rootTrack = clip.tracks.find((t) => t.name === `${loadedName(rec.bones[0]!.name)}.position`)!;
    expect(rootTrack.times.length).toBe(rec.frameCount);
    let maxRoot = 0;
    for (let f = 0; f < rec.frameCount; f++) {
      const h = headAt(rec, f, 0);
      const d = Math.hypot(...h.map((x, k) => x - rootTrack.values[f * 3 + k]!)) / Math.max(1, Math.hypot(...h));
      maxRoot = Math.max(maxRoot, d);
    }
    console.log(`glb round trip: max quaternion component error ${maxRot.toExponential(2)}, root position ${maxRoot.toExponential(2)} (relative), time ${maxTime.toExponential(2)} s`);
    expect(maxRot).toBeLessThan(1e-5);
    expect(maxRoot).toBeLessThan(1e-5);
    expect(maxTime).toBeLessThan(1e-5);
  });

  test('played back, the skinned mesh follows the recording (bone world poses and bone tips)', async () => {
    const { gltf } = await gltfPromise;
    let mesh: SkinnedMesh | undefined;
    gltf.scene.traverse((o) => { if ((o as SkinnedMesh).isSkinnedMesh) mesh = o as SkinnedMesh; });
    expect(mesh).toBeDefined();
    expect(mesh!.skeleton.bones.map((b) => b.name)).toEqual(rec.bones.map((b) => loadedName(b.name)));

    const mixer = new AnimationMixer(gltf.scene);
    // play once and hold the last frame (looping would wrap the clip's end back to frame 0)
    const action = mixer.clipAction(gltf.animations[0]!).setLoop(LoopOnce, 1);
    action.clampWhenFinished = true;
    action.play();
    const n = rec.bones.length;
    const wq = new Quaternion(), wp = new Vector3(), tip = new Vector3();
    let maxRot = 0, maxHead = 0, maxTip = 0;
    for (const f of [0, 7, 30, rec.frameCount - 1]) {
      mixer.setTime(rec.times[f]!);
      gltf.scene.updateMatrixWorld(true);
      mesh!.skeleton.update();
      for (let i = 0; i < n; i++) {
        const bone = mesh!.skeleton.bones[i]!;
        bone.getWorldQuaternion(wq);
        bone.getWorldPosition(wp);
        const c = (f * n + i) * 4;
        const r = rec.rotations.subarray(c, c + 4);
        maxRot = Math.max(maxRot, quatDiff(wq.toArray(), r));
        const h = headAt(rec, f, i);
        maxHead = Math.max(maxHead, wp.distanceTo(new Vector3(...h)));
        // vertex 3 of each bone's 24 is its tail: it must land on head + R·(0, length, 0)
        mesh!.getVertexPosition(i * 24 + 3, tip);
        const expectedTip = new Vector3(0, rec.bones[i]!.length, 0).applyQuaternion(new Quaternion(r[0], r[1], r[2], r[3])).add(new Vector3(...h));
        maxTip = Math.max(maxTip, tip.distanceTo(expectedTip));
      }
    }
    console.log(`glb playback: world rotation ${maxRot.toExponential(2)}, heads ${maxHead.toExponential(2)}, skinned tips ${maxTip.toExponential(2)}`);
    expect(maxRot).toBeLessThan(1e-5);
    expect(maxHead).toBeLessThan(1e-5);
    expect(maxTip).toBeLessThan(1e-5);
  });

  test('refuses an empty recording and names the frame and bone of a NaN', async () => {
    const empty: Recording = { ...rec, frameCount: 0 };
    await expect(recordingToGlb(empty)).rejects.toThrow(/nothing recorded/);
    const bad: Recording = { ...rec, rotations: rec.rotations.slice() };
    const i = rec.bones.findIndex((b) => b.name === 'hand.R');
    bad.rotations[(3 * rec.bones.length + i) * 4 + 2] = NaN;
    await expect(recordingToGlb(bad)).rejects.toThrow(/frame 3, bone "hand\.R"/);
    const badHead: Recording = { ...rec, heads: rec.heads.slice() };
    badHead.heads[(5 * rec.bones.length + 0) * 3] = Infinity;
    await expect(recordingToGlb(badHead)).rejects.toThrow(new RegExp(`frame 5, bone "${rec.bones[0]!.name}": head`));
  });

  test('works without the mesh, and names the animation', async () => {
    const gltf = await loadGlb(await recordingToGlb(rec, { mesh: false, clipName: 'reach' }));
    let skinned = 0;
    gltf.scene.traverse((o) => { if ((o as SkinnedMesh).isSkinnedMesh) skinned++; });
    expect(skinned).toBe(0);
    expect(gltf.animations[0]!.name).toBe('reach');
    expect(gltf.animations[0]!.tracks).toHaveLength(rec.bones.length + 1);
  });

  test('the FileReader that Node lacks reads a Blob as bytes and as a data URL', async () => {
    ensureFileReader(); // a no-op where FileReader exists (browsers, newer Node)
    const read = (how: 'readAsArrayBuffer' | 'readAsDataURL') => new Promise<unknown>((resolve) => {
      const reader = new FileReader();
      reader.onloadend = () => resolve(reader.result);
      reader[how](new Blob([new Uint8Array([104, 105, 0, 255])]));
    });
    expect(Array.from(new Uint8Array((await read('readAsArrayBuffer')) as ArrayBuffer))).toEqual([104, 105, 0, 255]);
    expect(await read('readAsDataURL')).toBe('data:application/octet-stream;base64,aGkA/w==');
  });
});
