/**
 * Reading clips: a BVH's joints in the world as three.js's BVHLoader plays them (channel order,
 * offsets, position channels), the reference first frame dropped only when it is one, and a
 * physik recording played back on its own rig exactly.
 */
import { describe, expect, test } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AnimationMixer, LoopOnce, Vector3 } from 'three';
import { BVHLoader } from 'three/examples/jsm/loaders/BVHLoader.js';
import { createPhysikWorld, addRig, setTarget, step } from '../../../src/core';
import { recordSteps } from '../../../src/io/recorder';
import { dropReferenceFrame, motionFromBvh, motionFromRecording } from '../../../src/capture/source';
import { bindClip } from '../../../src/capture/bind';
import { attachClip, captureClip, captureSettings } from '../../../src/capture/capture';
import { loadSceneFile } from '../../../src/scene/loadFile';

const fixtures = join(__dirname, '../../fixtures/external');

describe('clips from BVH', () => {
  for (const name of ['cmu_subject02_walk_delfem2.bvh', 'bvhio_example.bvh']) {
    test(`${name}: every joint where BVHLoader puts it, at several frames`, () => {
      const text = readFileSync(join(fixtures, name), 'utf8');
      const ours = motionFromBvh(text, name);
      const three = new BVHLoader().parse(text);
      const bones = three.skeleton.bones.filter((b) => b.name !== 'ENDSITE');
      expect(bones.map((b) => b.name)).toEqual(ours.joints.map((j) => j.name));
      const mixer = new AnimationMixer(bones[0]!);
      // played once and held at its end (a repeating action wraps to frame 0 at the clip's end)
      const action = mixer.clipAction(three.clip).setLoop(LoopOnce, 1);
      action.clampWhenFinished = true;
      action.play();
      const n = ours.joints.length, v = new Vector3();
      const scale = Math.max(...Array.from(ours.positions.subarray(0, n * 3), Math.abs));
      for (const f of [0, 1, Math.floor(ours.frameCount / 2), ours.frameCount - 1]) {
        // (a hair before the clip's end: at its very end the mixer's action has finished)
        mixer.setTime(Math.min(f / ours.fps, three.clip.duration - 1e-7));
        bones[0]!.updateMatrixWorld(true);
        bones.forEach((b, j) => {
          b.getWorldPosition(v);
          const o = (f * n + j) * 3;
          expect(Math.hypot(v.x - ours.positions[o]!, v.y - ours.positions[o + 1]!, v.z - ours.positions[o + 2]!) / scale, `${b.name} frame ${f}`).toBeLessThan(1e-5);
        });
      }
    });
  }

  test('a first frame is dropped only when it is a reference pose', () => {
    const walk = motionFromBvh(readFileSync(join(fixtures, 'cmu_subject02_walk_delfem2.bvh'), 'utf8'));
    const dropped = dropReferenceFrame(walk);
    expect(dropped.frameCount).toBe(walk.frameCount - 1);
    expect(dropped.rotations[0]).toBe(walk.rotations[walk.joints.length * 4]);
    expect(dropReferenceFrame(dropped)).toBe(dropped);
  });
});

describe('clips from recordings', () => {
  test('a recording of the humanoid plays back on it exactly when followed', () => {
    const scene = loadSceneFile(join(__dirname, '../../../scenes/humanoid.json'));
    const world = createPhysikWorld();
    const { rig, controlPoints } = addRig(world, { rig: scene.rig, controlPoints: scene.controlPoints, settings: scene.settings });
    const first = Object.values(controlPoints)[0]!;
    const cp3 = first * 3;
    setTarget(world, first, [world.physik.ControlPoint.target[cp3]! + 0.3, world.physik.ControlPoint.target[cp3 + 1]! + 0.2, world.physik.ControlPoint.target[cp3 + 2]!]);
    step(world, 5);
    const rec = recordSteps(world, rig, 60, { fps: 20 });
    const clip = motionFromRecording(rec);
    const replay = createPhysikWorld();
    const { rig: r } = addRig(replay, { rig: scene.rig, settings: captureSettings(clip.fps) });
    const bound = bindClip(replay, r, clip);
    const result = captureClip(replay, attachClip(replay, r, bound.track, { markers: [{ name: 'all', kind: 'pose', mode: 'follow', bones: scene.rig.bones.map((b) => b.name) }] }));
    expect(result.recording.frameCount).toBe(rec.frameCount);
    let worst = 0;
    for (let k = 0; k < rec.frameCount * rec.bones.length * 3; k++) worst = Math.max(worst, Math.abs(result.recording.heads[k]! - rec.heads[k]!));
    expect(worst).toBeLessThan(1e-9);
  });
});
