/**
 * Pressed limits inside the exact joint solve (systems/limitCoupling.ts): with implicit limit
 * springs, each pressed joint's torque −K (α_child − α_parent) is solved with the tree.
 * Checked from the stores after one step's systems through the solve: Newton-Euler for every
 * bone (the coupling torques are in Bone.torque), equal accelerations at every joint, and the
 * coupling law itself, on a pinned chain bent hard against tight limits and on a humanoid-like
 * tree pulled far; then what a user sees: the chain pressed on its limits comes to rest within
 * the hard-stop band. (What the coupling gains over the iterative solve's diagonal stand-in
 * shows on random rigs: see the fuzz numbers in systems/torsionSprings.ts.)
 */
import { describe, expect, it } from 'vitest';
import { readMetrics, step } from '../../src/core';
import type { RigInput } from '../../src/core/rig';
import { existingLimitCoupling } from '../../systems/limitCoupling';
import { build, chainBones, humanoidBones, humanoidControlPoints, runThroughSolve, v3, sub, norm, type V3 } from './helpers';
import { checkNewton, jointMismatch } from './jointChecks';

const rigs: Record<string, () => RigInput> = {
  'pinned chain bent against tight limits': () => ({
    rig: { name: 'chain', root: 'pinned', bones: chainBones(6, { length: 0.4, limits: { x: [-10, 10], y: [0, 0], z: [-10, 10] } }) },
    controlPoints: [{ name: 'tip', bone: 'b5', target: [2, -0.5, 0.4] }],
  }),
  'humanoid-like tree pulled far': () => ({
    rig: { name: 'humanoid', bones: humanoidBones() },
    controlPoints: humanoidControlPoints().map((cp, i) => (i === 0 ? { ...cp, target: [4, 3, 1] as V3 } : cp)),
  }),
};

/** Steps until some limit is pressed (the coupling has entries), at most 200. */
function pressLimits(input: RigInput) {
  const built = build(input);
  const record = built.world.physik.rigs[0]!;
  for (let s = 0; s < 200; s++) {
    runThroughSolve(built.world);
    if ((existingLimitCoupling(record)?.active ?? 0) > 0) return { ...built, record };
    step(built.world);
  }
  throw new Error('no limit was pressed in 200 steps');
}

describe('limit coupling in the exact solve', () => {
  for (const [name, make] of Object.entries(rigs)) {
    it(`${name}: Newton-Euler per bone, joints hold, and τ = −K (α_child − α_parent)`, () => {
      const input = make();
      const { world, rig, record } = pressLimits(input);
      const coupling = existingLimitCoupling(record)!;
      const { Bone, Rig } = world.physik;
      expect(coupling.active).toBeGreaterThan(0);
      checkNewton(world, record.bones, input.rig.root === 'pinned');
      expect(jointMismatch(world, record.bones, input.rig.root === 'pinned')).toBeLessThan(1e-9);
      expect(Rig.mismatch[rig]).toBeLessThan(1e-9);
      let pressed = 0;
      for (let i = 1; i < record.bones.length; i++) {
        const K = coupling.K.subarray(i * 6, i * 6 + 6);
        if (K.every((v) => v === 0)) continue;
        pressed++;
        const c = record.bones[i]!, p = Bone.parent[c]!;
        const d = sub(v3(Bone.angAcc, c), v3(Bone.angAcc, p));
        const expected: V3 = [
          -(K[0]! * d[0] + K[1]! * d[1] + K[2]! * d[2]),
          -(K[1]! * d[0] + K[3]! * d[1] + K[4]! * d[2]),
          -(K[2]! * d[0] + K[4]! * d[1] + K[5]! * d[2]),
        ];
        const tau = Array.from(coupling.tau.subarray(i * 3, i * 3 + 3)) as V3;
        expect(norm(sub(tau, expected))).toBeLessThan(1e-9 * (norm(expected) + 1));
      }
      expect(pressed).toBeGreaterThan(0);
    });
  }

  it('a chain pulled against its limits comes to rest within the hard-stop band', () => {
    const input = rigs['pinned chain bent against tight limits']!();
    input.settings = { sleepWhenConverged: false };
    const { world, rig } = build(input);
    let restFrom = -1;
    for (let s = 0; s < 1500; s++) {
      step(world);
      const m = readMetrics(world, rig);
      if (m.atRest) { if (restFrom < 0) restFrom = s; } else restFrom = -1;
    }
    expect(restFrom).toBeGreaterThanOrEqual(0);
    expect(restFrom).toBeLessThan(400); // measured: 150
    expect(readMetrics(world, rig).maxLimitViolationDeg).toBeLessThan(5); // the band is 5° past the limit; measured 1.58°
  });
});
