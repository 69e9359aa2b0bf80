/**
 * CCD solver (systems/ik/ccd.ts): reaching on a pinned chain with and without per-axis
 * limits, the colinear cases (bump, half turn, beyond reach), path-(in)dependent modes,
 * two goals on a tree, the non-finite guard, and the humanoid scene.
 */
import { describe, expect, it } from 'vitest';
import { createPhysikWorld, addRig, setTarget, step, readMetrics, readPose } from '../../../../src/core';
import { runScene } from '../../../../src/scene/run';
import { loadSceneFile } from '../../../../src/scene/loadFile';
import type { BoneDescription, Settings } from '../../../../src/scene/types';
import { lengthOf, randomChain, reachablePoint } from '../../../support/reachable';
import { dist, treeWorld, TREE_TARGETS, reachableTarget, chainWorld, type V3 } from '../../../support/helpers';

type Limits = NonNullable<BoneDescription['limits']>;
const LIMITS: Limits = { x: [-60, 60], y: [-15, 15], z: [-45, 45] };

describe('ccd: one goal on a pinned 5-bone chain', () => {
  for (const limits of [undefined, LIMITS]) {
    it(`reaches reachable targets to 1e-4 of the chain length${limits ? ' and keeps every limit' : ''}`, () => {
      for (const seed of [1, 2, 3, 4]) {
        const target = reachableTarget(seed, 5, limits);
        const { world, rig, tip } = chainWorld('ccd', { ikIterations: 2000, ikTolerance: 1e-6 }, limits);
        setTarget(world, tip, target);
        step(world, 1);
        const m = readMetrics(world, rig);
        expect(m.solveStatus).toBe('converged');
        expect(m.maxTargetError).toBeLessThan(1e-4 * 5);
        expect(m.maxLimitViolationDeg).toBeLessThanOrEqual(1e-6);
        expect(m.maxJointGap).toBeLessThan(1e-9);
      }
    });
  }

  it('bends a straight chain toward a target straight ahead within reach (colinear bump)', () => {
    const { world, rig, tip } = chainWorld('ccd', { ikIterations: 500, ikTolerance: 1e-6 });
    setTarget(world, tip, [0, 2.5, 0]);
    step(world, 1);
    const m = readMetrics(world, rig);
    expect(m.solveStatus).toBe('converged');
    expect(m.maxTargetError).toBeLessThan(1e-5);
  });

  it('turns a straight chain round toward a target straight behind the pin (half turn)', () => {
    for (const limits of [undefined, LIMITS]) {
      const { world, rig, tip } = chainWorld('ccd', { ikIterations: 500, ikTolerance: 1e-6 }, limits);
      setTarget(world, tip, [0, -3, 0]);
      step(world, 1);
      const m = readMetrics(world, rig);
      expect(m.maxTargetError).toBeLessThan(1e-4 * 5);
      expect(m.maxLimitViolationDeg).toBeLessThanOrEqual(1e-6);
    }
  });

  it('leaves a straight chain pointing at a target beyond reach, stalled and finite', () => {
    const { world, rig, tip } = chainWorld('ccd', { ikIterations: 50 });
    setTarget(world, tip, [0, 7, 0]);
    step(world, 3);
    const m = readMetrics(world, rig);
    expect(m.solveStatus).toBe('stalled');
    expect(m.maxTargetError).toBeCloseTo(2, 12);
    expect(readPose(world, rig).b4!.tail[1]).toBeCloseTo(5, 12);
  });

  it('stretches toward an unreachable target off the axis and then holds still', () => {
    const { world, rig, tip } = chainWorld('ccd', {}, LIMITS);
    const target: V3 = [4, 5, 1];
    setTarget(world, tip, target);
    step(world, 200);
    const before = readPose(world, rig);
    step(world, 1);
    const after = readPose(world, rig);
    const m = readMetrics(world, rig);
    expect(m.solveStatus).toBe('stalled');
    expect(m.maxTargetError).toBeCloseTo(Math.hypot(...target) - 5, 6);
    for (const k of Object.keys(after)) expect(dist(after[k]!.tail, before[k]!.tail)).toBeLessThan(1e-9);
  });
});

describe('ccd: tight limits', () => {
  it('keeps them exactly and settles (no wandering) when they put the target out of reach', () => {
    const tight: Limits = { x: [-20, 20], y: [-5, 5], z: [-20, 20] };
    for (const ikIterations of [1, 10]) {
      const { world, rig, tip } = chainWorld('ccd', { ikIterations }, tight);
      setTarget(world, tip, [3, 1, 0]);
      step(world, 300);
      const before = readPose(world, rig);
      step(world, 1);
      const after = readPose(world, rig);
      const m = readMetrics(world, rig);
      expect(m.solveStatus).toBe('stalled');
      expect(m.maxLimitViolationDeg).toBeLessThanOrEqual(1e-6);
      for (const k of Object.keys(after)) expect(dist(after[k]!.tail, before[k]!.tail)).toBeLessThan(1e-9);
      // bent as far as the limits allow: the tip is far short of straight
      expect(m.maxTargetError).toBeLessThan(0.75);
    }
  });
});

describe('ccd: modes', () => {
  it('path-independent: the pose depends only on the target, not on the way there', () => {
    const settings: Partial<Settings> = { ikMode: 'path-independent', ikIterations: 300, ikTolerance: 1e-7 };
    const a = chainWorld('ccd', settings, LIMITS);
    const b = chainWorld('ccd', settings, LIMITS);
    setTarget(a.world, a.tip, [2, 2, 1]);
    step(a.world, 3);
    const target = reachableTarget(7, 5, LIMITS);
    setTarget(a.world, a.tip, target);
    setTarget(b.world, b.tip, target);
    step(a.world, 1);
    step(b.world, 1);
    expect(readPose(a.world, a.rig)).toEqual(readPose(b.world, b.rig));
    expect(readMetrics(a.world, a.rig).maxTargetError).toBeLessThan(1e-4 * 5);
  });

  it('path-dependent: at most ikIterations iterations per step, continuing from the last pose', () => {
    const { world, rig, tip } = chainWorld('ccd', { ikIterations: 2, ikTolerance: 1e-7 }, LIMITS);
    setTarget(world, tip, reachableTarget(5, 5, LIMITS));
    step(world, 1);
    const first = readMetrics(world, rig);
    expect(first.passes).toBeLessThanOrEqual(2);
    step(world, 300);
    const later = readMetrics(world, rig);
    expect(later.passesPerStep.max).toBeLessThanOrEqual(2);
    expect(later.maxTargetError).toBeLessThan(first.maxTargetError);
    expect(later.maxTargetError).toBeLessThan(1e-4 * 5);
  });
});

describe('ccd: two goals on a tree', () => {
  for (const limits of [undefined, { x: [-45, 45], y: [-20, 20], z: [-45, 45] } as Limits]) {
    it(`reaches both goals${limits ? ' within limits' : ''}`, () => {
      for (const [l, r] of TREE_TARGETS) {
        const { world, rig, L, R } = treeWorld('ccd', { ikIterations: 1000, ikTolerance: 1e-6 }, limits);
        setTarget(world, L, l);
        setTarget(world, R, r);
        step(world, 1);
        const m = readMetrics(world, rig);
        expect(m.solveStatus).toBe('converged');
        expect(m.targetErrors.L).toBeLessThan(1e-5);
        expect(m.targetErrors.R).toBeLessThan(1e-5);
        expect(m.maxLimitViolationDeg).toBeLessThanOrEqual(1e-6);
        expect(m.maxJointGap).toBeLessThan(1e-9);
      }
    });
  }
});

describe('ccd: guards and scenes', () => {
  it('reports a non-finite goal as diverged and leaves the pose as it was', () => {
    const { world, rig, tip } = chainWorld('ccd');
    setTarget(world, tip, [1, 4, 0]);
    step(world, 2);
    const before = readPose(world, rig);
    world.physik.ControlPoint.effective[tip * 3] = Number.NaN; // bypassing setTarget's check
    step(world, 1);
    expect(readMetrics(world, rig).solveStatus).toBe('diverged');
    expect(readPose(world, rig)).toEqual(before);
  });

  it('humanoid scene stays finite and keeps its limits (both modes)', () => {
    const scene = loadSceneFile('scenes/humanoid.json');
    for (const ikMode of ['path-dependent', 'path-independent'] as const) {
      const s = runScene(scene, { settings: { solver: 'ccd', ikMode }, steps: 200 });
      expect(s.finite).toBe(true);
      expect(s.divergedSteps).toBe(0);
      expect(s.peakLimitViolationDeg).toBeLessThan(1e-6);
      expect(s.maxJointGap).toBeLessThan(1e-9);
    }
    const s = runScene(scene, { settings: { solver: 'ccd' } });
    expect(s.targetErrors.handR).toBeLessThan(1e-3);
    expect(s.maxTargetError).toBeLessThan(2e-3);
  });
});

describe('ccd: random limited chains', () => {
  it('reaches at least 99% of reachable targets within 1e-3 of the chain\'s length, no limit exceeded by 0.1°', () => {
    // the chains and targets of FABRIK's test (rotors, one- and two-sided hinges, twist limits;
    // targets from a random pose inside the limits), one step of up to 300 sweeps each
    const N = 200;
    let reached = 0, worstViolation = 0;
    const missed: string[] = [];
    for (let seed = 1; seed <= N; seed++) {
      const { bones, r } = randomChain(seed);
      const world = createPhysikWorld();
      const h = addRig(world, {
        rig: { name: 'chain', root: 'pinned', bones }, controlPoints: [{ name: 'tip', bone: `b${bones.length - 1}` }],
        settings: { solver: 'ccd', interpolation: 'none', ikIterations: 300, ikTolerance: 1e-6 },
      });
      const chain = bones.map((b) => h.bones[b.name]!);
      const L = lengthOf(world, chain);
      setTarget(world, h.controlPoints.tip!, reachablePoint(world, chain, h.controlPoints.tip!, r, false));
      step(world, 1);
      const m = readMetrics(world, h.rig);
      if (m.maxTargetError / L <= 1e-3) reached++;
      else missed.push(`seed ${seed}: ${(m.maxTargetError / L).toExponential(2)} (${m.solveStatus})`);
      worstViolation = Math.max(worstViolation, m.maxLimitViolationDeg);
    }
    console.log(`ccd, random chains: ${reached}/${N} reached, worst limit violation ${worstViolation.toExponential(2)}°${missed.length ? `; missed ${missed.join(', ')}` : ''}`);
    expect(reached / N).toBeGreaterThanOrEqual(0.99);
    expect(worstViolation).toBeLessThan(0.1);
  });
});
