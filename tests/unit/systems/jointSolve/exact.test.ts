/**
 * The exact (linear-time, direct) joint solve agrees with the paper's iterative passes driven
 * to a tiny epsilon: same bone accelerations after the solve, on the humanoid, random trees
 * and long chains, pinned and floating, and the whole simulation then follows the same path.
 * The comparisons of one solve use explicit limit springs: with implicit ones a pressed limit
 * couples its two bones inside the exact solve (systems/jointSolve/coupledCompliance.ts, checked in
 * limit-coupling.test.ts), where the iterative solve has a diagonal stand-in, so there the two
 * solve different equations on purpose.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createPhysikWorld, addRig, step, setTarget, readMetrics, setSettings, type RigInput } from '../../../../src/core';
import { runThroughSolve, rng, randVec, type V3 } from '../../../support/helpers';
import type { BoneDescription } from '../../../../src/scene/types';
import { copyDoubles } from '../../../../components/doubles';

/** Accelerations (linear and angular, per bone) after one solve, for the given joint solve. */
function solvedAccelerations(input: RigInput, interJoint: 'iterative' | 'exact', warmSteps: number): Float64Array {
  const world = createPhysikWorld();
  const h = addRig(world, { ...input, settings: { ...input.settings, interJoint: 'iterative', epsilon: 1e-13, maxPasses: 200000 } });
  step(world, warmSteps); // the same moving state for both (iterative to 1e-13 so the paths agree)
  setSettings(world, h.rig, { interJoint, limitImplicit: false }); // the same equations for both (see the header)
  runThroughSolve(world);
  const { Bone } = world.physik;
  const bones = world.physik.rigs[0]!.bones;
  const out = new Float64Array(bones.length * 6);
  bones.forEach((b, i) => {
    copyDoubles(out, i * 6, Bone.acc, b * 3, 3);
    copyDoubles(out, i * 6 + 3, Bone.angAcc, b * 3, 3);
  });
  return out;
}

function relativeDifference(a: Float64Array, b: Float64Array): number {
  let num = 0, den = 0;
  for (let i = 0; i < a.length; i++) { num = Math.max(num, Math.abs(a[i]! - b[i]!)); den = Math.max(den, Math.abs(a[i]!), Math.abs(b[i]!)); }
  return num / den;
}

function randomTree(seed: number, n: number, pinned: boolean): RigInput {
  const r = rng(seed);
  const bones: BoneDescription[] = [];
  for (let i = 0; i < n; i++) {
    const parent = i === 0 ? null : `b${Math.floor(r() * i)}`;
    const d = randVec(r); if (Math.hypot(...d) < 0.1) d[1] = 1;
    bones.push({ name: `b${i}`, parent, direction: d, length: 0.2 + r(), mass: 0.25 + 3 * r(),
      attach: r() < 0.2 ? 0 : 1, limits: r() < 0.5 ? { x: [-20, 20], y: [0, 0], z: [-40, 10] } : undefined });
  }
  const picks = [n - 1, Math.floor(n / 2), 1];
  return {
    rig: { name: 'tree', root: pinned ? 'pinned' : 'floating', bones },
    controlPoints: picks.map((i, k) => ({ name: `c${k}`, bone: `b${i}`, target: randVec(r, 3) as V3 })),
    settings: { interpolation: 'none' },
  };
}

const humanoid = JSON.parse(readFileSync(join(__dirname, '../../../../scenes/humanoid.json'), 'utf8'));

describe('exact joint solve', () => {
  it('matches the iterative solve on the humanoid (accelerations within 1e-6 relative)', () => {
    const input: RigInput = { rig: humanoid.rig, controlPoints: humanoid.controlPoints, script: humanoid.script, settings: humanoid.settings };
    for (const warm of [0, 5, 40]) {
      const d = relativeDifference(solvedAccelerations(input, 'exact', warm), solvedAccelerations(input, 'iterative', warm));
      expect(d, `after ${warm} steps`).toBeLessThan(1e-6);
    }
  });

  for (const [seed, n, pinned] of [[1, 12, false], [2, 25, true], [3, 40, false], [4, 60, true]] as const) {
    it(`matches on a random tree (seed ${seed}, ${n} bones, ${pinned ? 'pinned' : 'floating'})`, () => {
      const input = randomTree(seed, n, pinned);
      const d = relativeDifference(solvedAccelerations(input, 'exact', 3), solvedAccelerations(input, 'iterative', 3));
      expect(d).toBeLessThan(1e-6);
    });
  }

  it('matches on a 60-bone chain and leaves no mismatch at any joint', () => {
    const bones: BoneDescription[] = Array.from({ length: 60 }, (_, i) => ({ name: `b${i}`, parent: i ? `b${i - 1}` : null, direction: [1, 0, 0], length: 0.05 }));
    const input: RigInput = { rig: { name: 'chain', root: 'pinned', bones }, controlPoints: [{ name: 'tip', bone: 'b59', target: [0.5, 2, 0.5] }], settings: { interpolation: 'none' } };
    const d = relativeDifference(solvedAccelerations(input, 'exact', 2), solvedAccelerations(input, 'iterative', 2));
    expect(d).toBeLessThan(1e-6);
    const world = createPhysikWorld();
    const h = addRig(world, { ...input, settings: { ...input.settings, interJoint: 'exact' } });
    step(world, 1);
    expect(readMetrics(world, h.rig).mismatch).toBeLessThan(1e-9);
  });

  it('solves a 300-bone chain in one sweep with no joint mismatch, and the chain follows its tip', () => {
    const n = 300;
    const bones: BoneDescription[] = Array.from({ length: n }, (_, i) => ({ name: `b${i}`, parent: i ? `b${i - 1}` : null, direction: [1, 0, 0], length: 0.1,
      limits: i % 3 === 0 && i ? { x: [-10, 10], y: [0, 0], z: [-10, 10] } : undefined }));
    const world = createPhysikWorld();
    const h = addRig(world, { rig: { name: 'chain', root: 'pinned', bones }, controlPoints: [{ name: 'tip', bone: `b${n - 1}` }], settings: { interJoint: 'exact', cap: 0.05 } });
    const start = readMetrics(world, h.rig).targetErrors.tip!;
    setTarget(world, h.controlPoints.tip!, [25, 10, 5]);
    let worstMismatch = 0;
    for (let s = 0; s < 300; s++) {
      step(world, 1);
      const m = readMetrics(world, h.rig);
      expect(m.passes).toBe(1);
      worstMismatch = Math.max(worstMismatch, m.mismatch);
    }
    const m = readMetrics(world, h.rig);
    expect(start).toBe(0);
    expect(m.divergedSteps).toBe(0);
    expect(worstMismatch).toBeLessThan(1e-6);
    // the tip started at (30, 0, 0), 12.25 from its target, and has moved toward it
    expect(m.maxTargetError).toBeLessThan(Math.hypot(5, 10, 5) - 0.2);
  });
});
