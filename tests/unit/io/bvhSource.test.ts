/**
 * A recording back onto its BVH file: the CMU walk and the bvhio example imported (with the
 * humanoid template), a hand dragged by physics and recorded at 30 fps, then written onto the
 * source. The result has exactly the source's joints (names, count, nesting), OFFSETs, End
 * Sites, channels in the source's order and its frame time; three.js's BVHLoader playing it
 * puts every joint where the simulation had it.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Group, Vector3 } from 'three';
import { BVHLoader } from 'three/examples/jsm/loaders/BVHLoader.js';
import { AnimationMixer, LoopOnce } from 'three';
import { importBvh, parseBvh } from '../../../src/io/bvhImport';
import { recordingToSourceBvh } from '../../../src/io/bvhSource';
import { applyHumanoidTemplate, restPose } from '../../../src/io/humanoid';
import { recordDrag } from './posed';

const text = (name: string) => readFileSync(new URL(`../../fixtures/external/${name}`, import.meta.url), 'utf8');

describe.each([
  ['cmu_subject02_walk_delfem2.bvh', 'LeftHand'],
  ['bvhio_example.bvh', 'LeftHand'],
])('recordingToSourceBvh onto %s', (file, hand) => {
  const source = text(file);
  const imported = importBvh(source, file, { motion: false, template: 'none' });
  const t = applyHumanoidTemplate(imported.scene.rig);
  // recorded at the source's own frame rate, so every frame written is a frame recorded
  const frameTime = parseBvh(source, file).motion!.frameTime;
  const rec = recordDrag(imported.scene, t.rig, hand, t.mapping.hips!, [0.15, 0.3, 0.2], { fps: 1 / frameTime, seconds: 2 });
  const out = recordingToSourceBvh(source, rec, { file });

  it("keeps the source's joints, nesting, OFFSETs, End Sites, channel orders and frame time", () => {
    const a = parseBvh(source, file), b = parseBvh(out, 'out.bvh');
    expect(b.joints.map((j) => j.name)).toEqual(a.joints.map((j) => j.name));
    expect(b.joints.map((j) => j.parent)).toEqual(a.joints.map((j) => j.parent));
    expect(b.joints.map((j) => j.channels)).toEqual(a.joints.map((j) => j.channels));
    let worst = 0;
    a.joints.forEach((j, i) => {
      for (let k = 0; k < 3; k++) worst = Math.max(worst, Math.abs(j.offset[k]! - b.joints[i]!.offset[k]!));
      expect(!!b.joints[i]!.endOffset).toBe(!!j.endOffset);
      if (j.endOffset) for (let k = 0; k < 3; k++) worst = Math.max(worst, Math.abs(j.endOffset[k]! - b.joints[i]!.endOffset![k]!));
    });
    expect(worst).toBeLessThan(1e-6);
    expect(b.motion!.frameTime).toBe(a.motion!.frameTime);
    expect(b.motion!.frames).toHaveLength(rec.frameCount);
    // a 30 fps recording is resampled to the source's frame time: 2 s is 2 / frameTime + 1 frames
    const at30 = recordDrag(imported.scene, t.rig, hand, t.mapping.hips!, [0.15, 0.3, 0.2], { fps: 30, seconds: 2 });
    expect(parseBvh(recordingToSourceBvh(source, at30, { file }), 'out.bvh').motion!.frames).toHaveLength(Math.floor(2 / frameTime + 1e-9) + 1);
    // importing the export gives the same rig
    expect(importBvh(out, file, { motion: false, template: 'none' }).scene.rig).toEqual(imported.scene.rig);
  });

  it('played by three.js, every joint is where the simulation had it', () => {
    const loaded = new BVHLoader().parse(out);
    const group = new Group();
    group.add(loaded.skeleton.bones[0]!);
    const mixer = new AnimationMixer(group);
    const action = mixer.clipAction(loaded.clip).setLoop(LoopOnce, 1);
    action.clampWhenFinished = true; // the last frame holds
    action.play();
    const bones = loaded.skeleton.bones.filter((b) => b.name !== 'ENDSITE');
    const names = parseBvh(source, file).joints.map((j) => j.name);
    const index = new Map(rec.bones.map((b, i) => [b.name, i]));
    const n = rec.bones.length;
    const ys = restPose(imported.scene.rig).head.map((h) => h[1]);
    const height = Math.max(...ys) - Math.min(...ys);
    const v = new Vector3();
    let worst = 0;
    let moved = 0;
    for (let f = 0; f < rec.frameCount; f++) {
      mixer.setTime(f * frameTime);
      group.updateMatrixWorld(true);
      bones.forEach((bone, j) => {
        const i = index.get(names[j]!)!;
        bone.getWorldPosition(v);
        const h = rec.heads.subarray((f * n + i) * 3, (f * n + i) * 3 + 3);
        worst = Math.max(worst, Math.hypot(v.x - h[0]!, v.y - h[1]!, v.z - h[2]!));
        moved = Math.max(moved, Math.hypot(h[0]! - rec.heads[i * 3]!, h[1]! - rec.heads[i * 3 + 1]!, h[2]! - rec.heads[i * 3 + 2]!));
      });
    }
    console.log(`${file}: joints within ${worst.toExponential(2)} of the recording (the drag moved them up to ${moved.toFixed(2)})`);
    expect(moved).toBeGreaterThan(0.05 * height);
    expect(worst).toBeLessThan(1e-5 * height);
  });
});

describe('exports onto a source refuse what does not fit, saying what and where', () => {
  it('a recording of another rig, a source that is not BVH, a bad precision', async () => {
    const walk = text('cmu_subject02_walk_delfem2.bvh'), example = text('bvhio_example.bvh');
    const imported = importBvh(example, 'bvhio_example.bvh', { motion: false });
    const rec = recordDrag(imported.scene, imported.scene.rig, 'LeftHand', 'Hips', [0.1, 0.1, 0.1], { seconds: 0.2 });
    expect(() => recordingToSourceBvh(walk, rec, { file: 'walk.bvh' })).toThrow('recording of "bvhio_example" has no bone "LHipJoint" (a joint of walk.bvh): export onto the file the rig was imported from');
    expect(() => recordingToSourceBvh('{"not": "bvh"}', rec, { file: 'x.bvh' })).toThrow(/^x\.bvh: line 1: expected HIERARCHY/);
    expect(() => recordingToSourceBvh(example, rec, { precision: 40 })).toThrow('precision must be an integer number of decimals in [0, 15], got 40');
  });
});
