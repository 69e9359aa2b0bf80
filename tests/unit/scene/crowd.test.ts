/**
 * Crowds: copies of a scene's rig on a grid, each following its own seeded wander, stepped
 * together in one world: placed apart, deterministic, each reaching for its own targets.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { addRig, addRigs, createPhysikWorld, readMetrics, readPose, step } from '../../../src/core';
import { parseScene } from '../../../src/scene/load';
import { crowdOf, sceneCrowd } from '../../../src/scene/crowd';
import { runScene, summaryMetric } from '../../../src/scene/run';
import { replaceCrowd } from '../../../src/app/simScene';
import type { SceneError } from '../../../src/scene/load';

const humanoid = parseScene(JSON.parse(readFileSync(new URL('../../../scenes/humanoid.json', import.meta.url), 'utf8')));

function crowdWorld(n: number, seed = 1) {
  const world = createPhysikWorld();
  const rigs = crowdOf(humanoid, n, { seed }).map((input) => addRig(world, input).rig);
  return { world, rigs };
}

describe('crowd', () => {
  it('places copies a spacing apart, each wandering its own way, and every copy follows', () => {
    const { world, rigs } = crowdWorld(9);
    const roots = rigs.map((r) => readPose(world, r).torso!.head);
    for (let i = 0; i < roots.length; i++) for (let j = i + 1; j < roots.length; j++) {
      expect(Math.hypot(roots[i]![0] - roots[j]![0], roots[i]![2] - roots[j]![2])).toBeGreaterThanOrEqual(1.5 - 1e-9);
    }
    const scripts = world.physik.rigs.map((r) => JSON.stringify(r.script.slice(1, 4).map((e) => e.target)));
    expect(new Set(scripts).size).toBe(9); // different wanders
    step(world, 100); // the first wander move is due at step 100: it plays in the next step
    const before = rigs.map((r) => readMetrics(world, r).targetErrors.handR!);
    step(world, 1);
    const jumped = rigs.map((r) => readMetrics(world, r).targetErrors.handR!);
    step(world, 90);
    const after = rigs.map((r) => readMetrics(world, r).targetErrors.handR!);
    // the wander moved every copy's target (each to its own place), and each hand followed it
    rigs.forEach((_, k) => {
      expect(jumped[k]!).not.toBe(before[k]!);
      expect(after[k]!).toBeLessThan(jumped[k]!);
    });
    const ratio = after.reduce((a, e, k) => a + e / jumped[k]!, 0) / rigs.length;
    expect(ratio).toBeLessThan(0.5);
  });

  it('is deterministic: the same seed gives bit-identical crowds, another seed another one', () => {
    const a = crowdWorld(4, 7), b = crowdWorld(4, 7), c = crowdWorld(4, 8);
    for (const w of [a, b, c]) step(w.world, 120);
    expect(readPose(a.world, a.rigs[3]!)).toEqual(readPose(b.world, b.rigs[3]!));
    expect(readPose(a.world, a.rigs[3]!)).not.toEqual(readPose(c.world, c.rigs[3]!));
  });

  it('addRigs builds the same crowd as addRig one by one, its bones numbered without gaps', () => {
    const one = crowdWorld(5, 3);
    const world = createPhysikWorld();
    const rigs = addRigs(world, crowdOf(humanoid, 5, { seed: 3 })).map((h) => h.rig);
    // the bones of all rigs first, one after another: every bone array holds them densely
    const bones = world.physik.rigs.flatMap((r) => Array.from(r.bones));
    expect(bones).toEqual(bones.map((_, k) => bones[0]! + k));
    step(one.world, 150); step(world, 150);
    rigs.forEach((r, k) => {
      expect(readPose(world, r)).toEqual(readPose(one.world, one.rigs[k]!));
      expect(readMetrics(world, r).targetErrors).toEqual(readMetrics(one.world, one.rigs[k]!).targetErrors);
    });
  });

  it('a crowd added to a running world grows its stores without disturbing the rig already there', () => {
    // the stores start small (64 entities) and grow once for the whole crowd, past the size
    // where their arrays are joined from chunks (components/doubles.ts)
    const alone = crowdWorld(1, 5), grown = crowdWorld(1, 5);
    step(alone.world, 60); step(grown.world, 60);
    const crowd = addRigs(grown.world, crowdOf(humanoid, 120, { seed: 9 })).map((h) => h.rig);
    expect(grown.world.physik.Bone.rot.length).toBeGreaterThan(4 * 120 * 18);
    expect(readPose(grown.world, grown.rigs[0]!)).toEqual(readPose(alone.world, alone.rigs[0]!));
    step(alone.world, 60); step(grown.world, 60);
    expect(readPose(grown.world, grown.rigs[0]!)).toEqual(readPose(alone.world, alone.rigs[0]!));
    expect(readMetrics(grown.world, grown.rigs[0]!).targetErrors).toEqual(readMetrics(alone.world, alone.rigs[0]!).targetErrors);
    // and the last copy, whose values sit at the end of the grown arrays, moved and stayed finite
    const last = readPose(grown.world, crowd[crowd.length - 1]!);
    expect(Object.values(last).every((b) => [...b.head, ...b.local].every(Number.isFinite))).toBe(true);
  });

  it('addRigs refuses a bad input by its index, adding nothing', () => {
    const world = createPhysikWorld();
    const inputs = crowdOf(humanoid, 3);
    const bad = { ...inputs[2]!, controlPoints: [{ name: 'x', bone: 'nope' }] };
    expect(() => addRigs(world, [inputs[0]!, inputs[1]!, bad])).toThrow(/rigs\[2\].*nope/s);
    expect(world.physik.rigs).toHaveLength(0);
    // the world still works: a rig added afterwards steps
    const h = addRigs(world, inputs.slice(0, 1))[0]!;
    step(world, 5);
    expect(Number.isFinite(readPose(world, h.rig).torso!.head[1])).toBe(true);
  });

  it('refuses a bad size or an unknown point', () => {
    expect(() => crowdOf(humanoid, 0)).toThrow(/crowd size must be a whole number from 1/);
    expect(() => crowdOf(humanoid, 2, { point: 'tail' })).toThrow(/no control point "tail"/);
  });
});

describe('a scene with a crowd block (scenes/crowd.json)', () => {
  const crowdText = readFileSync(new URL('../../../scenes/crowd.json', import.meta.url), 'utf8');
  const withCrowd = (crowd: unknown) => ({ ...JSON.parse(crowdText), crowd });

  it('runs its crowd beside the rig without touching the rig, and reports the crowd', () => {
    const scene = parseScene(withCrowd({ count: 12, every: 60, seed: 3 }));
    const alone = runScene({ ...scene, crowd: undefined }, { steps: 179 });
    const run = runScene(scene, { steps: 179 });
    // rigs do not act on each other: the scene's own rig moves bit for bit as without its crowd
    expect(run.pose).toEqual(alone.pose);
    expect(run.targetErrors).toEqual(alone.targetErrors);
    expect(alone.crowd).toBeUndefined();
    expect(run.crowd!.rigs).toBe(12);
    expect(run.crowd!.finite).toBe(true);
    // the copies follow their wander: just after the move at step 120 their hands are far from
    // the new targets, 58 steps later less than half as far on average
    const justMoved = runScene(scene, { steps: 121 }).crowd!;
    expect(run.crowd!.meanTargetError).toBeLessThan(0.5 * justMoved.meanTargetError);
    expect(summaryMetric(run, 'crowd.rigs')).toBe(12);
  });

  it('places the crowd behind the rig as the sandbox spawns it, with the wander it asks for', () => {
    const scene = parseScene(withCrowd({ count: 4, every: 70, seed: 5, spacing: 2 }));
    const inputs = sceneCrowd(scene, 1.8);
    expect(inputs).toHaveLength(4);
    const heads = inputs.map((i) => i.rig.bones.find((b) => b.parent === null)!.head!);
    const rootZ = scene.rig.bones.find((b) => b.parent === null)!.head![2]!;
    for (const h of heads) expect(h[2]).toBeLessThan(rootZ - 1.9); // behind: a row at least a spacing back
    expect(Math.abs(heads[1]![0] - heads[0]![0])).toBeCloseTo(2, 12); // the spacing asked for
    expect(inputs[0]!.script!.filter((e) => e.point === 'handR').map((e) => e.step).slice(1, 4)).toEqual([70, 140, 210]);
    // the sandbox's replaceCrowd builds the same copies
    const world = createPhysikWorld();
    const main = addRig(world, { rig: scene.rig, controlPoints: scene.controlPoints, settings: scene.settings, script: scene.script }).rig;
    const copies = replaceCrowd(world, scene, main, [], 4);
    const height = world.physik.Rig.height[main]!;
    const again = sceneCrowd(scene, height);
    copies.forEach((r, k) => expect(readPose(world, r).torso!.head).toEqual(again[k]!.rig.bones[0]!.head));
  });

  it('refuses a bad crowd block, naming the field', () => {
    const problems = (crowd: unknown) => {
      try { parseScene(withCrowd(crowd), 'crowd.json'); } catch (e) { return (e as SceneError).issues.map((i) => `${i.path}: ${i.message}`); }
      return [];
    };
    expect(problems({ count: 0 }).join('\n')).toMatch(/crowd\.count/);
    expect(problems({ count: 1001 }).join('\n')).toMatch(/crowd\.count/);
    expect(problems({ count: 2.5 }).join('\n')).toMatch(/crowd\.count/);
    expect(problems({ count: 3, point: 'tail' }).join('\n')).toMatch(/crowd\.point: unknown control point "tail"/);
    expect(problems({ count: 3, spacing: -1 }).join('\n')).toMatch(/crowd\.spacing/);
    expect(problems({ count: 3, every: 0 }).join('\n')).toMatch(/crowd\.every/);
    expect(problems({ count: 3, radius: 1, sizes: 2 }).join('\n')).toMatch(/crowd/);
    expect(problems({ count: 3 })).toEqual([]);
  });
});
