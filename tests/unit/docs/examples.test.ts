/**
 * The programs in docs/examples run as a user would run them (importing 'physik-ecs' by name)
 * and do what their headers say. The three.js page is type-checked by `npm test`'s tsc.
 */
import { describe, expect, it } from 'vitest';
import { AnimationMixer, LoopOnce, type Bone } from 'three';
import { GLTFLoader, type GLTF } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { headlessRun } from '../../../docs/examples/headless-run';
import { recordReach } from '../../../docs/examples/record-gltf';

describe('docs/examples', () => {
  it('headless-run: the humanoid scene comes to rest and meets its expect block', () => {
    const result = headlessRun('scenes/humanoid.json');
    expect(result.failures).toEqual([]);
    expect(result.atRest).toBe(true);
    expect(result.maxTargetError).toBeLessThan(0.005);
  });

  it('headless-run: a bad scene is refused naming the file', () => {
    expect(() => headlessRun('scenes/no-such-scene.json')).toThrow(/no-such-scene\.json/);
  });

  it('record-gltf: the .glb loads in three.js, and playing its clip brings the hand to the target', async () => {
    const glb = await recordReach(120);
    const gltf = await new Promise<GLTF>((resolve, reject) => new GLTFLoader().parse(glb, '', resolve, reject));
    expect(gltf.animations).toHaveLength(1);
    const clip = gltf.animations[0]!;
    // 120 steps of the default dt 0.05 at 30 fps: 6 s
    expect(clip.duration).toBeCloseTo(6, 1);
    const mixer = new AnimationMixer(gltf.scene);
    const action = mixer.clipAction(clip).setLoop(LoopOnce, 1);
    action.clampWhenFinished = true;
    action.play();
    mixer.setTime(clip.duration);
    gltf.scene.updateMatrixWorld(true);
    const end = gltf.scene.getObjectByName('fore_end') as Bone | undefined;
    expect(end).toBeDefined();
    const tip = end!.getWorldPosition(end!.position.clone());
    expect(Math.hypot(tip.x - 0.3, tip.y - 0.3, tip.z)).toBeLessThan(0.01);
  });
});
