/**
 * A recording back onto RiggedFigure's own file: import the .glb, drag a hand by physics and
 * record, export onto the source, and check what Blender or a game engine would get: the
 * Khronos validator finds no errors, the source's mesh, skin, materials and animation are all
 * still there, and three.js's AnimationMixer playing the new clip moves the skinned vertices
 * to the recorded pose.
 */
import { describe, expect, it, test } from 'vitest';
import { readFileSync } from 'node:fs';
import { AnimationMixer, LoopOnce, Matrix4, Quaternion, Vector3, type Object3D, type SkinnedMesh } from 'three';
import { GLTFLoader, type GLTF } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { validateBytes } from 'gltf-validator';
import { createPhysikWorld, addRig, setTarget, step } from '../../../src/core';
import { importGltf } from '../../../src/io/gltfImport';
import { recordingToSourceGlb } from '../../../src/io/gltfSource';
import { captureFrame, createRecording } from '../../../src/io/recording';
import { applyHumanoidTemplate } from '../../../src/io/humanoid';
import { recordDrag } from './posed';

const FILE = 'tests/fixtures/external/RiggedFigure.glb';
const source = new Uint8Array(readFileSync(FILE));

type Json = {
  nodes: Record<string, unknown>[]; meshes: unknown[]; skins: unknown[]; materials: unknown[];
  animations: { name?: string; channels: { target: { node: number; path: string } }[] }[]; accessors: unknown[]; bufferViews: unknown[];
};
function glbJson(buffer: ArrayBuffer | Uint8Array): Json {
  const bytes = buffer instanceof Uint8Array ? buffer : new Uint8Array(buffer);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return JSON.parse(new TextDecoder().decode(bytes.subarray(20, 20 + view.getUint32(12, true))));
}
function loadGlb(buffer: ArrayBuffer): Promise<GLTF> {
  return new Promise((resolve, reject) => new GLTFLoader().parse(buffer, '', resolve, reject));
}

/** Import RiggedFigure with the humanoid template, drag its left hand forward and up, record at 30 fps. */
async function recordFigure() {
  const imported = await importGltf(source, FILE, { template: 'none' });
  const templ = applyHumanoidTemplate(imported.scene.rig);
  const hand = templ.mapping.leftHand!;
  const world = createPhysikWorld();
  const { rig, controlPoints } = addRig(world, {
    rig: templ.rig,
    controlPoints: [{ name: 'hand', bone: hand }, { name: 'hips', bone: templ.mapping.hips!, at: 0 }],
    settings: imported.scene.settings,
  });
  const { Bone } = world.physik;
  const handEid = world.physik.rigs[0]!.boneByName.get(hand)!;
  const at = [Bone.tail[handEid * 3]!, Bone.tail[handEid * 3 + 1]!, Bone.tail[handEid * 3 + 2]!];
  const dt = imported.scene.settings.dt;
  const rec = createRecording(world, rig, 30);
  captureFrame(rec, world, rig, 0);
  setTarget(world, controlPoints.hand!, [at[0]! + 0.1, at[1]! + 0.35, at[2]! + 0.25]);
  let t = 0;
  for (let s = 1; s <= 90; s++) {
    step(world, 1);
    t += dt;
    if (t + 1e-9 >= rec.frameCount / 30) captureFrame(rec, world, rig, t);
  }
  return { imported, rec, world, rig };
}

const made = recordFigure().then(async (r) => ({ ...r, glb: await recordingToSourceGlb(source, r.rec, { joints: r.imported.joints, clipName: 'dragged hand' }) }));

describe('recordingToSourceGlb onto RiggedFigure.glb', () => {
  test('the Khronos glTF validator reports no errors', async () => {
    const { glb } = await made;
    const report = await validateBytes(new Uint8Array(glb));
    const errors = report.issues.messages.filter((m: { severity: number }) => m.severity === 0);
    expect(errors).toEqual([]);
    expect(report.issues.numErrors).toBe(0);
  });

  test('the source is unchanged: nodes, meshes, skins, materials, its own animation and binary data', async () => {
    const { glb } = await made;
    const before = glbJson(source), after = glbJson(glb);
    expect(after.nodes).toEqual(before.nodes);
    expect(after.meshes).toEqual(before.meshes);
    expect(after.skins).toEqual(before.skins);
    expect(after.materials).toEqual(before.materials);
    expect(after.animations.slice(0, before.animations.length)).toEqual(before.animations);
    // accessors as they were, but for the skin weights' bounds (the weights are repaired: below)
    const weights = (before.meshes[0] as { primitives: { attributes: Record<string, number> }[] }).primitives[0]!.attributes.WEIGHTS_0!;
    const strip = (a: unknown[]) => a.map((x, i) => (i === weights ? { ...(x as object), min: undefined, max: undefined } : x));
    expect(strip(after.accessors.slice(0, before.accessors.length))).toEqual(strip(before.accessors));
    expect(after.bufferViews.slice(0, before.bufferViews.length)).toEqual(before.bufferViews);
    // the source's binary chunk starts the new one, byte for byte outside the skin weights, whose
    // vertices summing to other than 1 (an error in the source) are rescaled to sum to 1
    const binAt = (b: Uint8Array) => 20 + new DataView(b.buffer, b.byteOffset).getUint32(12, true) + 8;
    const a = new Uint8Array(glb);
    const oldBin = source.subarray(binAt(source)), newBin = a.subarray(binAt(a));
    const wAcc = before.accessors[weights] as { bufferView: number; byteOffset?: number; count: number };
    const wView = before.bufferViews[wAcc.bufferView] as { byteOffset?: number };
    const w0 = (wView.byteOffset ?? 0) + (wAcc.byteOffset ?? 0), w1 = w0 + wAcc.count * 16;
    let differ = 0;
    for (let i = 0; i < oldBin.byteLength; i++) if (oldBin[i] !== newBin[i] && (i < w0 || i >= w1)) differ++;
    expect(differ).toBe(0);
    const fv = (b: Uint8Array, i: number) => new DataView(b.buffer, b.byteOffset).getFloat32(i, true);
    let repaired = 0;
    for (let v = 0; v < wAcc.count; v++) {
      const was = [0, 1, 2, 3].map((c) => fv(oldBin, w0 + v * 16 + c * 4)), now = [0, 1, 2, 3].map((c) => fv(newBin, w0 + v * 16 + c * 4));
      const sum = was.reduce((x, y) => x + y, 0);
      expect(Math.abs(now.reduce((x, y) => x + y, 0) - 1)).toBeLessThan(1e-6);
      for (let c = 0; c < 4; c++) expect(now[c]!).toBeCloseTo(was[c]! / sum, 6);
      if (Math.abs(sum - 1) > 1e-6) repaired++;
    }
    expect(repaired).toBeGreaterThan(0);
    // one new clip: a rotation track on every joint node, the translation of the root joint
    const clip = after.animations.at(-1)!;
    expect(clip.name).toBe('dragged hand');
    const skinJoints = (before.skins[0] as { joints: number[] }).joints;
    expect(clip.channels.filter((c) => c.target.path === 'rotation').map((c) => c.target.node).sort((x, y) => x - y)).toEqual([...skinJoints].sort((x, y) => x - y));
    expect(clip.channels.filter((c) => c.target.path === 'translation').map((c) => c.target.node)).toEqual([2]);
  });

  test('AnimationMixer playing the new clip moves the skinned vertices to the recorded pose', async () => {
    const { glb, rec, imported } = await made;
    const gltf = await loadGlb(glb);
    const clip = gltf.animations.find((c) => c.name === 'dragged hand');
    expect(clip).toBeDefined();
    let mesh: SkinnedMesh | undefined;
    gltf.scene.traverse((o) => { if ((o as SkinnedMesh).isSkinnedMesh) mesh = o as SkinnedMesh; });
    expect(mesh).toBeDefined();
    const objectOf = new Map<number, Object3D>();
    for (const [o, a] of gltf.parser.associations) if (a.nodes !== undefined && !objectOf.has(a.nodes)) objectOf.set(a.nodes, o as Object3D);
    // expected joint world matrices straight from the recording: head where the simulation had
    // it, rotation turned from rest as the bone turned, the rest world scale
    gltf.scene.updateMatrixWorld(true);
    const rest = new Map<number, { q: Quaternion; s: Vector3 }>();
    for (const j of imported.joints) {
      const t = new Vector3(), q = new Quaternion(), s = new Vector3();
      objectOf.get(j.node)!.matrixWorld.decompose(t, q, s);
      rest.set(j.node, { q, s });
    }
    const boneIndex = new Map(rec.bones.map((b, i) => [b.name, i]));
    const mixer = new AnimationMixer(gltf.scene);
    const action = mixer.clipAction(clip!).setLoop(LoopOnce, 1);
    action.clampWhenFinished = true; // the last frame holds, not the rest pose
    action.play();
    const skeleton = mesh!.skeleton;
    const jointOfBone = skeleton.bones.map((b) => imported.joints.find((j) => objectOf.get(j.node) === b)!);
    const height = 1.3; // about the figure's height (its joints span 1.2 to 1.4)
    const n = rec.bones.length;
    const positions = mesh!.geometry.getAttribute('position');
    const skinIndex = mesh!.geometry.getAttribute('skinIndex'), skinWeight = mesh!.geometry.getAttribute('skinWeight');
    let worst = 0;
    let moved = 0;
    const atRest: Vector3[] = [];
    for (const f of [0, Math.floor(rec.frameCount / 2), rec.frameCount - 1]) {
      mixer.setTime(f / rec.fps);
      gltf.scene.updateMatrixWorld(true);
      const expected = jointOfBone.map((j) => {
        const i = boneIndex.get(j.name)!;
        const r = rec.rotations.subarray((f * n + i) * 4, (f * n + i) * 4 + 4);
        const r0 = rec.bones[i]!.restWorld;
        const d = new Quaternion(r[0], r[1], r[2], r[3]).multiply(new Quaternion(r0[0], r0[1], r0[2], r0[3]).invert());
        const h = rec.heads.subarray((f * n + i) * 3, (f * n + i) * 3 + 3);
        const { q, s } = rest.get(j.node)!;
        return new Matrix4().compose(new Vector3(h[0], h[1], h[2]), d.multiply(q), s);
      });
      const v = new Vector3(), e = new Vector3(), tmp = new Vector3(), m = new Matrix4();
      for (let k = 0; k < positions.count; k++) {
        mesh!.getVertexPosition(k, v);
        mesh!.localToWorld(v);
        e.set(0, 0, 0);
        const bound = new Vector3().fromBufferAttribute(positions, k).applyMatrix4(mesh!.bindMatrix);
        for (let c = 0; c < 4; c++) {
          const w = skinWeight.getComponent(k, c);
          if (w === 0) continue;
          const b = skinIndex.getComponent(k, c);
          m.multiplyMatrices(expected[b]!, skeleton.boneInverses[b]!);
          e.addScaledVector(tmp.copy(bound).applyMatrix4(m), w);
        }
        // as three.js draws a skinned mesh: back through the bind matrix, then the mesh's world
        e.applyMatrix4(mesh!.bindMatrixInverse).applyMatrix4(mesh!.matrixWorld);
        worst = Math.max(worst, v.distanceTo(e));
        if (f === 0) atRest.push(v.clone());
        else moved = Math.max(moved, v.distanceTo(atRest[k]!));
      }
    }
    console.log(`RiggedFigure clip: skinned vertices within ${worst.toExponential(2)} of the recorded pose; the drag moved vertices up to ${moved.toFixed(3)} from rest`);
    expect(worst).toBeLessThan(1e-5 * height);
    expect(moved).toBeGreaterThan(0.1); // the drag really posed the mesh
  });
});

describe.each(['RiggedSimple.glb', 'RiggedFigure.glb'])('import then export onto %s', (file) => {
  const path = `tests/fixtures/external/${file}`;
  const bytes = new Uint8Array(readFileSync(path));
  it("gives exactly the source's joints, names, hierarchy and rest transforms; importing it again gives the same rig", async () => {
    const imported = await importGltf(bytes, file, { template: 'none' });
    const t = applyHumanoidTemplate(imported.scene.rig);
    const root = imported.scene.rig.bones.find((b) => b.parent === null)!.name;
    const leaf = imported.scene.rig.bones.find((b) => !imported.scene.rig.bones.some((c) => c.parent === b.name))!.name;
    const rec = recordDrag(imported.scene, t.rig, leaf, root, [0.1, 0.2, 0.1], { seconds: 1 });
    const glb = await recordingToSourceGlb(bytes, rec, { joints: imported.joints });
    const before = glbJson(bytes), after = glbJson(glb);
    // the skin's joints: the same nodes, names (none, in these files), children and rest TRS
    expect(after.skins).toEqual(before.skins);
    const joints = (before.skins[0] as { joints: number[] }).joints;
    // (as JSON numbers: a "-0" in the source is written "0", the same value)
    for (const j of joints) expect(after.nodes[j]).toEqual(JSON.parse(JSON.stringify(before.nodes[j])));
    const again = await importGltf(new Uint8Array(glb), file, { template: 'none' });
    expect(again.joints).toEqual(imported.joints);
    const a = imported.scene.rig.bones, b = again.scene.rig.bones;
    expect(b.map((x) => [x.name, x.parent])).toEqual(a.map((x) => [x.name, x.parent]));
    let worst = 0;
    a.forEach((x, i) => {
      const y = b[i]!;
      const va = [...(x.offset ?? x.head!), ...x.direction, x.length], vb = [...(y.offset ?? y.head!), ...y.direction, y.length];
      va.forEach((v, k) => (worst = Math.max(worst, Math.abs(v - vb[k]!))));
    });
    expect(worst).toBeLessThan(1e-6);
    expect((await validateBytes(new Uint8Array(glb))).issues.numErrors).toBe(0);
  });
});

describe('recordingToSourceGlb refuses what does not fit, saying what and where', () => {
  it('a recording of another rig, a .gltf text, a truncated file', async () => {
    const simple = new Uint8Array(readFileSync('tests/fixtures/external/RiggedSimple.glb'));
    const { rec } = await made;
    await expect(recordingToSourceGlb(simple, rec, { file: 'RiggedSimple.glb' })).rejects.toThrow('recording of "RiggedFigure": bone "node11" is not a joint of the source file RiggedSimple.glb (its joints: node2, node3)');
    await expect(recordingToSourceGlb(new TextEncoder().encode('{"asset":{"version":"2.0"}}'), rec, { file: 'figure.gltf' })).rejects.toThrow('figure.gltf: the source must be a binary glTF (.glb) to export onto it (a .gltf can be saved as .glb first)');
    await expect(recordingToSourceGlb(source.slice(0, 30000), rec, { file: 'RiggedFigure.glb' })).rejects.toThrow('RiggedFigure.glb: truncated: header says 49532 bytes, got 30000');
  });
});
