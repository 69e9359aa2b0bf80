/**
 * Pressed limits inside the exact joint solve (systems/jointSolve/coupledCompliance.ts): with implicit limit
 * springs, each pressed joint's torque −K (α_child − α_parent) is solved with the tree.
 * Checked from the stores after one step's systems through the solve: Newton-Euler for every
 * bone (the coupling torques are in Bone.torque), equal accelerations at every joint, and the
 * coupling law itself, on a pinned chain bent hard against tight limits and on a humanoid-like
 * tree pulled far; then what a user sees: the chain pressed on its limits comes to rest within
 * the hard-stop band. The two forms of the solve (systems/jointSolve/coupledArticulated.ts about the heads, checked,
 * and the accurate compliance form it falls back on) give the same step, and a rig where the
 * fast form's check fails is solved accurately. (What the coupling gains over the iterative
 * solve's diagonal stand-in shows on random rigs: see the fuzz numbers in systems/torsionSprings.ts.)
 */
import { describe, expect, it } from 'vitest';
import { readMetrics, step } from '../../../../src/core';
import type { RigInput } from '../../../../src/core/rig';
import { existingLimitCoupling } from '../../../../systems/jointSolve/coupledCompliance';
import { coupledSolveForm, FAST_FORM_TOLERANCE } from '../../../../systems/interJointSolve';
import type { BoneDescription } from '../../../../src/scene/types';
import { build, chainBones, humanoidBones, humanoidControlPoints, runThroughSolve, v3, sub, norm, type V3 } from '../../../support/helpers';
import { checkNewton, jointMismatch } from '../../../support/jointChecks';
import type { Doubles } from '../../../../components/doubles';

const rigs: Record<string, () => RigInput> = {
  'pinned chain bent against tight limits': () => ({
    rig: { name: 'chain', root: 'pinned', bones: chainBones(6, { length: 0.4, limits: { x: [-10, 10], y: [0, 0], z: [-10, 10] } }) },
    controlPoints: [{ name: 'tip', bone: 'b5', target: [2, -0.5, 0.4] }],
  }),
  // (its locked collarbones and hips, and its knees' and elbows' locked axes, as springs here,
  // welds and hinges off: the coupling law is the subject; they have their own tests,
  // tests/unit/systems/welds.test.ts and hinges.test.ts)
  'humanoid-like tree pulled far': () => ({
    rig: { name: 'humanoid', bones: humanoidBones() },
    controlPoints: humanoidControlPoints().map((cp, i) => (i === 0 ? { ...cp, target: [4, 3, 1] as V3 } : cp)),
    settings: { welds: false, hinges: false },
  }),
};

/** Steps until some limit is pressed (the coupling has entries), at most 200; `steps`: how many steps that took. */
function pressLimits(input: RigInput) {
  const built = build(input);
  const record = built.world.physik.rigs[0]!;
  for (let s = 0; s < 200; s++) {
    runThroughSolve(built.world);
    if ((existingLimitCoupling(record)?.active ?? 0) > 0) return { ...built, record, steps: s };
    step(built.world);
  }
  throw new Error('no limit was pressed in 200 steps');
}

/** The largest |a − b| over the bones' values of width w, relative to the largest |b| (and 1e-300). */
function relDiff(a: Doubles, b: Doubles, bones: Int32Array, w: number): number {
  let diff = 0, scale = 1e-300;
  for (const bone of bones) {
    for (let k = 0; k < w; k++) {
      diff = Math.max(diff, Math.abs(a[bone * w + k]! - b[bone * w + k]!));
      scale = Math.max(scale, Math.abs(b[bone * w + k]!));
    }
  }
  return diff / scale;
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
        const K = coupling.K.slice(i * 6, i * 6 + 6);
        if (K.every((v) => v === 0)) continue;
        pressed++;
        const c = record.bones[i]!, p = Bone.parent[c]!;
        const d = sub(v3(Bone.angAcc, c), v3(Bone.angAcc, p));
        const expected: V3 = [
          -(K[0]! * d[0] + K[1]! * d[1] + K[2]! * d[2]),
          -(K[1]! * d[0] + K[3]! * d[1] + K[4]! * d[2]),
          -(K[2]! * d[0] + K[4]! * d[1] + K[5]! * d[2]),
        ];
        const tau = coupling.tau.slice(i * 3, i * 3 + 3) as V3;
        expect(norm(sub(tau, expected))).toBeLessThan(1e-9 * (norm(expected) + 1));
      }
      expect(pressed).toBeGreaterThan(0);
    });
  }

  for (const [name, make] of Object.entries(rigs)) {
    it(`${name}: the fast form (about the heads) and the accurate form (compliance) give the same step`, () => {
      const input = make();
      const fast = pressLimits(input);
      // the same history in a second world, then the pressed step's solve in the accurate form
      const accurate = build(make());
      for (let s = 0; s < fast.steps; s++) { runThroughSolve(accurate.world); step(accurate.world); }
      coupledSolveForm.form = 'accurate';
      try { runThroughSolve(accurate.world); } finally { coupledSolveForm.form = 'auto'; }
      const A = fast.world.physik.Bone, B = accurate.world.physik.Bone, bones = fast.record.bones;
      expect(relDiff(A.acc, B.acc, bones, 3)).toBeLessThan(1e-9);
      expect(relDiff(A.angAcc, B.angAcc, bones, 3)).toBeLessThan(1e-9);
      expect(relDiff(A.jointForce, B.jointForce, bones, 3)).toBeLessThan(1e-9);
      expect(relDiff(A.torque, B.torque, bones, 3)).toBeLessThan(1e-9); // with the coupling torques
    });
  }

  it('a rig mixing 2 µm, 0.1 µg bones with metre bones: steps the fast form gets wrong are solved accurately, and the joints hold on every step', () => {
    // (the fast form's point inertias are differences of large numbers here: measured 38 of 300
    // steps fail its check; with 1 µm, 1 µg bones none does)
    const bones: BoneDescription[] = [];
    for (let i = 0; i < 8; i++) {
      bones.push({
        name: `b${i}`, parent: i ? `b${i - 1}` : null, direction: [0, 1, 0], length: i % 2 ? 2e-6 : 1,
        ...(i % 2 ? { mass: 1e-10 } : {}), ...(i ? { limits: { x: [-10, 10], y: [0, 0], z: [-10, 10] } } : { head: [0, 0, 0] as V3 }),
      });
    }
    const { world, rig } = build({ rig: { name: 'mixed', root: 'pinned', bones }, controlPoints: [{ name: 'tip', bone: 'b7', target: [3, 0, 1] }], settings: { sleepWhenConverged: false } });
    const before = coupledSolveForm.accurateSteps;
    const { Bone } = world.physik, record = world.physik.rigs[0]!;
    // the joints' mismatch against the rig's accelerations (|a| + |α| L, largest over the bones):
    // within the fast form's tolerance where it was kept; where the accurate form solved, within
    // what doubles allow a rig whose bones' inertias differ by 1e21 (2e-7 to 2e-3 measured, a
    // median of 3e-6; the fast form's check had failed by about as much on those steps), far
    // from joints coming apart (mismatches of the order of the accelerations themselves)
    let worstFast = 0, worstAccurate = 0;
    for (let s = 0; s < 300; s++) {
      const accurate = coupledSolveForm.accurateSteps;
      step(world);
      let scale = 0;
      for (const b of record.bones) {
        let sum = 0;
        for (let k = 0; k < 3; k++) sum += Math.abs(Bone.acc[b * 3 + k]!) + Math.abs(Bone.angAcc[b * 3 + k]!) * Bone.length[b]!;
        scale = Math.max(scale, sum);
      }
      const m = readMetrics(world, rig).mismatch / (1 + scale);
      if (coupledSolveForm.accurateSteps === accurate) worstFast = Math.max(worstFast, m);
      else worstAccurate = Math.max(worstAccurate, m);
    }
    expect(worstFast).toBeLessThanOrEqual(FAST_FORM_TOLERANCE);
    expect(worstAccurate).toBeLessThanOrEqual(1e-2);
    expect(coupledSolveForm.accurateSteps - before).toBeGreaterThan(0);
    expect(readMetrics(world, rig).solveStatus).toBe('converged');
  });

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
