/**
 * A rig's scale (Rig.height, src/world/rigScale.ts): the diameter of its rest pose, exact
 * (against all pairs of heads and tails) up to EXACT_DIAMETER_POINTS distinct points, a
 * bound between the diameter and twice it beyond; unchanged, to rounding, when the rig is
 * turned and moved (moveRig measures it again), where the largest side of the axis-aligned
 * box it replaces changes.
 */
import { describe, expect, it } from 'vitest';
import { addRig, createPhysikWorld, moveRig } from '../../../src/core';
import { EXACT_DIAMETER_POINTS, pointsDiameter } from '../../../src/world/rigScale';
import type { BoneDescription } from '../../../src/scene/types';
import { matVec, quatMatrix, rng, type Q } from '../../support/helpers';

/** A random tree of n bones hanging at their parent's tail, head, middle or a quarter. */
function randomTree(n: number, seed: number): BoneDescription[] {
  const r = rng(seed);
  const bones: BoneDescription[] = [];
  for (let i = 0; i < n; i++) {
    bones.push({
      name: `b${i}`, parent: i === 0 ? null : `b${Math.floor(r() * i)}`, length: 0.05 + 0.2 * r(),
      direction: [r() - 0.5, r() - 0.5, r() - 0.5], roll: 360 * r(),
      ...(i === 0 ? { head: [r() - 0.5, 1 + r(), r() - 0.5] } : { attach: [1, 1, 0, 0.5, 0.25][Math.floor(5 * r())]! }),
    });
  }
  return bones;
}

function randomRotation(r: () => number): Q {
  const u1 = r(), u2 = 2 * Math.PI * r(), u3 = 2 * Math.PI * r();
  const s1 = Math.sqrt(1 - u1), s2 = Math.sqrt(u1);
  return [s1 * Math.sin(u2), s1 * Math.cos(u2), s2 * Math.sin(u3), s2 * Math.cos(u3)];
}

/** Largest distance over all pairs, by the definition. */
function bruteDiameter(points: number[][]): number {
  let best = 0;
  for (let i = 0; i < points.length; i++) {
    const a = points[i]!;
    for (let j = i + 1; j < points.length; j++) {
      const b = points[j]!;
      best = Math.max(best, (a[0]! - b[0]!) ** 2 + (a[1]! - b[1]!) ** 2 + (a[2]! - b[2]!) ** 2);
    }
  }
  return Math.sqrt(best);
}

const boxSide = (points: number[][]) => Math.max(...[0, 1, 2].map((a) => Math.max(...points.map((p) => p[a]!)) - Math.min(...points.map((p) => p[a]!))));

describe('pointsDiameter', () => {
  it('is the largest distance between two points, up to the exact limit', () => {
    const r = rng(11);
    for (const n of [0, 1, 2, 3, 10, 257]) {
      const points = Array.from({ length: n }, () => [r() * 4 - 2, r() * 3, r() - 0.5]);
      expect(pointsDiameter(points.flat(), n)).toBeCloseTo(n < 2 ? 0 : bruteDiameter(points), 14);
    }
  });

  it('beyond the limit: between the diameter and twice it, the same for a turned and moved copy', () => {
    const r = rng(12);
    const n = EXACT_DIAMETER_POINTS + 500;
    const points = Array.from({ length: n }, () => [r() * 4 - 2, r() * 3, r() - 0.5]);
    const d = pointsDiameter(points.flat(), n), exact = bruteDiameter(points);
    expect(d).toBeGreaterThanOrEqual(exact);
    expect(d).toBeLessThanOrEqual(2 * exact);
    const R = quatMatrix(randomRotation(r));
    const moved = points.map((p) => matVec(R, p).map((x, a) => x + [5, -7, 3][a]!));
    expect(Math.abs(pointsDiameter(moved.flat(), n) - d)).toBeLessThan(1e-12 * d);
  });
});

describe('Rig.height', () => {
  for (const seed of [1, 2, 3]) {
    it(`random tree (seed ${seed}): the diameter of the rest pose's heads and tails, the same once turned and moved`, () => {
      const world = createPhysikWorld();
      const { rig } = addRig(world, { rig: { name: 't', root: seed === 2 ? 'pinned' : 'floating', bones: randomTree(120, seed) } });
      const { Bone, Rig } = world.physik;
      const record = world.physik.rigs[0]!;
      const ends = (): number[][] => Array.from(record.bones).flatMap((b) => [Array.from(Bone.head.slice(b * 3, b * 3 + 3)), Array.from(Bone.tail.slice(b * 3, b * 3 + 3))]);
      const h = Rig.height[rig]!;
      expect(Math.abs(h - bruteDiameter(ends()))).toBeLessThanOrEqual(1e-15 * h);
      const box = boxSide(ends());
      const r = rng(100 + seed);
      let boxChange = 0;
      for (let k = 0; k < 4; k++) {
        moveRig(world, rig, randomRotation(r), [r() * 10 - 5, r() * 10 - 5, r() * 10 - 5]);
        expect(Math.abs(Rig.height[rig]! - h)).toBeLessThan(1e-12 * h);
        boxChange = Math.max(boxChange, Math.abs(boxSide(ends()) - box) / box);
      }
      // the measure it replaces is not invariant on the same rigs
      expect(boxChange).toBeGreaterThan(0.02);
    });
  }

  it('counts a head at its parent\'s tail once: a straight chain measures its length', () => {
    const bones: BoneDescription[] = Array.from({ length: 50 }, (_, i) => ({
      name: `l${i}`, parent: i === 0 ? null : `l${i - 1}`, direction: [1, 2, 2], length: 0.1, ...(i === 0 ? { head: [1, 1, 1] } : {}),
    }));
    const world = createPhysikWorld();
    const { rig } = addRig(world, { rig: { name: 'chain', bones } });
    expect(world.physik.Rig.height[rig]).toBeCloseTo(5, 12);
  });

  it(`a rig of more than ${EXACT_DIAMETER_POINTS} points: between the diameter and twice it`, () => {
    const n = EXACT_DIAMETER_POINTS + 200;
    const world = createPhysikWorld();
    const { rig } = addRig(world, { rig: { name: 'big', bones: randomTree(n, 9) } });
    const { Bone, Rig } = world.physik;
    const record = world.physik.rigs[0]!;
    const tails = Array.from(record.bones, (b) => Array.from(Bone.tail.slice(b * 3, b * 3 + 3)));
    const h = Rig.height[rig]!, exact = bruteDiameter([Array.from(Bone.head.slice(record.bones[0]! * 3, record.bones[0]! * 3 + 3)), ...tails]);
    expect(h).toBeGreaterThanOrEqual(exact);
    expect(h).toBeLessThanOrEqual(2 * exact);
  });
});
