/**
 * The inter-joint solve (PhysIK section 3.2, eqs. 6-11), checked from the stores after the
 * systems of one step up to and including `interJointSolve`:
 *  - Newton-Euler holds for every bone with its external force/torque plus the joint forces
 *    (the force at its head, `Bone.jointForce`, and minus its children's at their heads), so
 *    the joint forces at every joint sum to zero;
 *  - every bone at a joint has the same acceleration at the joint point, to `epsilon`
 *    (and a pinned root's head does not accelerate);
 *  - the reported mismatch and status; the pass cap; the warm start.
 */
import { describe, expect, it } from 'vitest';
import { addRig, createPhysikWorld, readMetrics, setSettings, setTarget, step, type PhysikWorld } from '../../../src/core';
import type { RigInput } from '../../../src/core/rig';
import { STATUS_CONVERGED } from '../../../components';
import { build, chainBones, humanoidBones, humanoidControlPoints, matVec, norm, runThroughSolve, scale, symFull, v3 } from '../../support/helpers';
import { checkNewton, jointMismatch, pointAcc } from '../../support/jointChecks';
import { copyDoubles } from '../../../components/doubles';

const EPS = 1e-9;

const rigs: Record<string, () => RigInput> = {
  'floating 2-bone chain': () => ({
    rig: { name: 'chain2', bones: chainBones(2) },
    controlPoints: [
      { name: 'tip', bone: 'b1', target: [1.2, 1.5, 0.3] },
      { name: 'base', bone: 'b0', at: 0, target: [-0.4, 0.1, -0.5] },
    ],
  }),
  'Y tree (3 children at one joint)': () => ({
    rig: {
      name: 'Y',
      bones: [
        { name: 'trunk', parent: null, direction: [0, 1, 0], length: 1, head: [0, 0, 0] },
        { name: 'left', parent: 'trunk', direction: [-1, 1, 0], length: 0.8 },
        { name: 'right', parent: 'trunk', direction: [1, 1, 0], length: 0.6, mass: 2 },
        { name: 'front', parent: 'trunk', direction: [0, 1, 1], length: 0.7, radius: 0.2 },
        { name: 'twig', parent: 'right', direction: [1, 0, 0], length: 0.4 },
      ],
    },
    controlPoints: [
      { name: 'l', bone: 'left', target: [-1.5, 1.2, 0.2] },
      { name: 'r', bone: 'twig', target: [1.2, 2.0, -0.4] },
      { name: 'f', bone: 'front', target: [0.1, 0.9, 1.3] },
      { name: 'base', bone: 'trunk', at: 0, target: [0, -0.3, 0] },
    ],
  }),
  'humanoid-like tree (4 bones at the chest joint)': () => ({
    rig: { name: 'humanoid', bones: humanoidBones() },
    controlPoints: humanoidControlPoints().map((cp, i) =>
      i === 0 ? { ...cp, target: [0.9, 1.6, 0.2] } : i === 3 ? { ...cp, target: [-0.3, 0.2, 0.4] } : cp,
    ),
  }),
  'pinned 3-bone chain': () => ({
    rig: { name: 'pinned3', root: 'pinned', bones: chainBones(3, { head: [0.5, 0, -0.2] }) },
    controlPoints: [
      { name: 'tip', bone: 'b2', target: [1.5, 1.5, 0.5] },
      { name: 'mid', bone: 'b1', at: 0.5, target: [-0.8, 1.2, 0] },
    ],
  }),
};

/** The joint forces are not trivially zero (the test would be vacuous otherwise). */
function totalJointForce(world: PhysikWorld, bones: Int32Array): number {
  let s = 0;
  for (const b of bones) s += norm(v3(world.physik.Bone.jointForce, b));
  return s;
}

describe('inter-joint solve', () => {
  for (const [name, make] of Object.entries(rigs)) {
    for (const warmSteps of [0, 7]) {
      it(`${name}, after ${warmSteps} full steps: Newton-Euler per bone, equal accelerations at joints, converged`, () => {
        const input = make();
        input.settings = { epsilon: EPS, maxPasses: 100000 };
        const { world, rig } = build(input);
        const record = world.physik.rigs[0]!;
        const pinned = input.rig.root === 'pinned';
        step(world, warmSteps);
        runThroughSolve(world);
        const { Bone, Rig } = world.physik;
        expect(totalJointForce(world, record.bones)).toBeGreaterThan(1e-3);
        // something is actually moving the bones
        let accSize = 0;
        for (const b of record.bones) accSize += norm(v3(Bone.acc, b)) + norm(v3(Bone.angAcc, b));
        expect(accSize).toBeGreaterThan(1e-2);

        checkNewton(world, record.bones, pinned);
        expect(jointMismatch(world, record.bones, pinned)).toBeLessThan(EPS);
        expect(Rig.mismatch[rig]).toBeLessThan(EPS);
        expect(Rig.solveStatus[rig]).toBe(STATUS_CONVERGED);
        expect(Rig.passes[rig]).toBeGreaterThan(0);
        expect(readMetrics(world, rig).solveStatus).toBe('converged');
      });
    }
  }

  it('without the joint solve the bones would come apart (the check above is not vacuous)', () => {
    const input = rigs['pinned 3-bone chain']!();
    const { world } = build(input);
    const record = world.physik.rigs[0]!;
    runThroughSolve(world);
    const { Bone } = world.physik;
    const before = jointMismatch(world, record.bones, true);
    expect(before).toBeLessThan(1e-3); // solved: joints agree
    // replace accelerations by the free ones: F/m and J τ
    for (const b of record.bones) {
      const J = symFull(Bone.invInertiaWorld, b * 6);
      copyDoubles(Bone.acc, b * 3, scale(v3(Bone.force, b), 1 / Bone.effMass[b]!));
      copyDoubles(Bone.angAcc, b * 3, matVec(J, v3(Bone.torque, b)));
    }
    expect(jointMismatch(world, record.bones, true)).toBeGreaterThan(0.1);
  });

  it("the pinned root's head does not accelerate, and its joint force holds the chain", () => {
    const input = rigs['pinned 3-bone chain']!();
    input.settings = { epsilon: EPS, maxPasses: 100000 };
    const { world } = build(input);
    step(world, 3);
    runThroughSolve(world);
    const { Bone } = world.physik;
    const root = world.physik.rigs[0]!.bones[0]!;
    expect(norm(pointAcc(world, root, v3(Bone.head, root)))).toBeLessThan(EPS);
    expect(norm(v3(Bone.jointForce, root))).toBeGreaterThan(1e-3);
  });

  it("with a pass cap of 1 and a loose start the status is 'stalled'; the default cap converges", () => {
    const make = () => {
      const input = rigs['pinned 3-bone chain']!();
      input.settings = { interpolation: 'none', interJoint: 'iterative' };
      return build(input);
    };
    const capped = make();
    const free = make();
    setSettings(capped.world, capped.rig, { maxPasses: 1 });
    step(capped.world);
    step(free.world);
    const m = readMetrics(capped.world, capped.rig);
    expect(m.solveStatus).toBe('stalled');
    expect(m.status).toBe('settling'); // the rig's settling status: still moving
    expect(m.passes).toBe(1);
    expect(m.mismatch).toBeGreaterThan(getEpsilon(capped.world));
    const f = readMetrics(free.world, free.rig);
    expect(f.solveStatus).toBe('converged');
    expect(f.passes).toBeGreaterThan(1);
    expect(f.mismatch).toBeLessThan(getEpsilon(free.world));
  });

  it('a step of the iterative solve visits at most a million joints, whatever the pass cap allows', () => {
    // a 500-bone chain whose solve cannot meet its epsilon: the count cap (5 × joints², or a
    // maxPasses of a million) alone would let this one step run for minutes
    for (const maxPasses of [0, 1_000_000]) {
      const { world, rig } = build({
        rig: { name: 'long', root: 'pinned', bones: chainBones(500) },
        controlPoints: [{ name: 'tip', bone: 'b499', target: [3, 40, 2] }],
        settings: { interpolation: 'none', interJoint: 'iterative', epsilon: 1e-300, maxPasses },
      });
      step(world);
      const m = readMetrics(world, rig);
      // (500 joints: the pinned root's head is one too)
      expect(m.passes).toBe(Math.floor(1_000_000 / 500));
      expect(m.solveStatus).toBe('stalled');
    }
  });

  it('warm start: on a humanoid-like tree the passes fall once the joint forces carry over', () => {
    const world = createPhysikWorld();
    const h = addRig(world, {
      rig: { name: 'humanoid', bones: humanoidBones() },
      controlPoints: humanoidControlPoints(),
      settings: { interpolation: 'none', interJoint: 'iterative' },
    });
    setTarget(world, h.controlPoints.handL!, [0.9, 1.6, 0.2]);
    step(world);
    const first = readMetrics(world, h.rig).passes;
    step(world, 4);
    const second = readMetrics(world, h.rig).passes;
    expect(readMetrics(world, h.rig).solveStatus).toBe('converged');
    expect(first).toBeGreaterThan(1);
    expect(second).toBeLessThan(first);
  });

  it('warm start: from the same state, starting from the last joint forces needs fewer passes than starting cold', () => {
    const make = () => {
      const world = createPhysikWorld();
      const h = addRig(world, { rig: { name: 'humanoid', bones: humanoidBones() }, controlPoints: humanoidControlPoints(), settings: { interJoint: 'iterative' } });
      setTarget(world, h.controlPoints.handL!, [0.9, 1.6, 0.2]);
      setTarget(world, h.controlPoints.footR!, [-0.3, 0.2, 0.4]);
      return { world, rig: h.rig };
    };
    for (const n of [10, 60]) {
      const warm = make(), cold = make();
      step(warm.world, n);
      step(cold.world, n);
      cold.world.physik.Bone.jointForce.fill(0);
      step(warm.world);
      step(cold.world);
      const pw = readMetrics(warm.world, warm.rig), pc = readMetrics(cold.world, cold.rig);
      expect(pw.solveStatus).toBe('converged');
      expect(pc.solveStatus).toBe('converged');
      expect(pw.passes).toBeLessThan(pc.passes);
    }
  });

  it('a single floating bone has no joints: zero passes, converged', () => {
    const { world, rig } = build({
      rig: { name: 'one', bones: chainBones(1) },
      controlPoints: [{ name: 'tip', bone: 'b0', target: [1, 1, 0] }],
    });
    step(world);
    expect(readMetrics(world, rig).passes).toBe(0);
    expect(readMetrics(world, rig).solveStatus).toBe('converged');
  });
});

function getEpsilon(world: PhysikWorld): number {
  return world.physik.rigs[0]!.settings.epsilon;
}
