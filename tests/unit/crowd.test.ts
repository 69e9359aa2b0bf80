/**
 * Crowds: copies of a scene's rig on a grid, each following its own seeded wander, stepped
 * together in one world: placed apart, deterministic, each reaching for its own targets.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { addRig, addRigs, createPhysikWorld, readMetrics, readPose, step } from '../../src/core';
import { parseScene } from '../../src/scene/load';
import { crowdOf } from '../../src/scene/crowd';

const humanoid = parseScene(JSON.parse(readFileSync(new URL('../../scenes/humanoid.json', import.meta.url), 'utf8')));

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
