/**
 * Jacobian solvers (systems/ik/jacobian.ts): DLS and the transpose reach targets on a pinned
 * chain within limits; DLS stays finite at the singular straight chain (target beyond reach
 * ahead, target behind); an unreachable target with adaptive damping settles without jitter;
 * two goals on a tree; the pull toward rest; the non-finite guard; the humanoid scene.
 */
import { describe, expect, it } from 'vitest';
import { setTarget, step, readMetrics, readPose } from '../../../../src/core';
import { runScene } from '../../../../src/scene/run';
import { loadSceneFile } from '../../../../src/scene/loadFile';
import type { BoneDescription, Settings } from '../../../../src/scene/types';
import { jointRotationVector } from '../../../../src/world/jointRotation';
import { dist, norm, treeWorld, TREE_TARGETS, reachableTarget, chainWorld, DEG, type V3 } from '../../../support/helpers';

type Limits = NonNullable<BoneDescription['limits']>;
const LIMITS: Limits = { x: [-60, 60], y: [-15, 15], z: [-45, 45] };

function poseChange(a: ReturnType<typeof readPose>, b: ReturnType<typeof readPose>): number {
  let worst = 0;
  for (const k of Object.keys(a)) worst = Math.max(worst, dist(a[k]!.tail, b[k]!.tail), dist(a[k]!.head, b[k]!.head));
  return worst;
}

describe('dls and transpose: one goal on a pinned 5-bone chain', () => {
  for (const solver of ['dls', 'jacobianTranspose']) {
    for (const limits of [undefined, LIMITS]) {
      it(`${solver} reaches reachable targets to 1e-4 of the chain length${limits ? ' and keeps every limit' : ''}`, () => {
        for (const seed of [1, 2, 3, 4]) {
          const { world, rig, tip } = chainWorld(solver, { ikIterations: 2000, ikTolerance: 1e-6 }, limits);
          setTarget(world, tip, reachableTarget(seed, 5, limits));
          step(world, 1);
          const m = readMetrics(world, rig);
          expect(m.solveStatus).toBe('converged');
          expect(m.maxTargetError).toBeLessThan(1e-4 * 5);
          expect(m.maxLimitViolationDeg).toBeLessThanOrEqual(1e-6);
          expect(m.maxJointGap).toBeLessThan(1e-9);
          if (solver === 'dls') expect(m.passes).toBeLessThan(30);
        }
      });
    }
  }

  it('dls keeps tight limits exactly while stretching for a target they put out of reach', () => {
    const tight: Limits = { x: [-20, 20], y: [-5, 5], z: [-20, 20] };
    const { world, rig, tip, bones } = chainWorld('dls', {}, tight);
    setTarget(world, tip, [3, 1, 0]);
    step(world, 50);
    const m = readMetrics(world, rig);
    expect(m.solveStatus).toBe('stalled');
    expect(m.maxLimitViolationDeg).toBeLessThanOrEqual(1e-6);
    // the limits are what stops it: some joint sits on a bound
    const phi = new Float64Array(3);
    let onBound = 0;
    for (let i = 1; i < 5; i++) {
      jointRotationVector(world, bones[`b${i}`]!, phi);
      if (Math.abs(Math.abs(phi[0]!) - 20 * DEG) < 1e-9 || Math.abs(Math.abs(phi[2]!) - 20 * DEG) < 1e-9) onBound++;
    }
    expect(onBound).toBeGreaterThan(0);
  });
});

describe('dls: singular straight chain', () => {
  for (const [what, target, expected] of [['ahead beyond reach', [0, 7, 0], 2], ['straight behind', [0, -3, 0], 0]] as const) {
    it(`stays finite with the target ${what}`, () => {
      for (const settings of [{}, { dlsAdaptive: false }, { dlsLambda: 0 }, { restPull: 0.5 }, { ikMode: 'path-independent' }] as Partial<Settings>[]) {
        const { world, rig, tip } = chainWorld('dls', { ikIterations: 200, ...settings });
        setTarget(world, tip, target as unknown as V3);
        step(world, 20);
        const m = readMetrics(world, rig);
        const pose = readPose(world, rig);
        for (const b of Object.values(pose)) for (const v of [...b.head, ...b.tail, ...b.world]) expect(Number.isFinite(v)).toBe(true);
        expect(m.solveStatus).not.toBe('diverged');
        if (expected > 0) {
          // a straight chain pointing at it is the best there is: it stays straight
          expect(m.maxTargetError).toBeCloseTo(expected, 9);
          expect(pose.b4!.tail[1]).toBeCloseTo(5, 9);
        } else {
          // the colinear bump starts a bend and the chain comes round
          expect(m.maxTargetError).toBeLessThan(1e-3);
        }
      }
    });
  }

  it('the transpose stays finite there too', () => {
    for (const target of [[0, 7, 0], [0, -3, 0], [0, 2.5, 0]] as V3[]) {
      const { world, rig, tip } = chainWorld('jacobianTranspose', { ikIterations: 200 });
      setTarget(world, tip, target);
      step(world, 20);
      const m = readMetrics(world, rig);
      expect(Number.isFinite(m.maxTargetError)).toBe(true);
      expect(m.solveStatus).not.toBe('diverged');
    }
  });
});

describe('dls: unreachable target with adaptive damping', () => {
  for (const limits of [undefined, LIMITS]) {
    it(`settles without jitter${limits ? ' (limited chain)' : ''}`, () => {
      const { world, rig, tip } = chainWorld('dls', { dlsAdaptive: true }, limits);
      const target: V3 = [4, 5, 1];
      setTarget(world, tip, target);
      step(world, 300);
      const before = readPose(world, rig);
      step(world, 1);
      const after = readPose(world, rig);
      const m = readMetrics(world, rig);
      expect(m.solveStatus).toBe('stalled');
      expect(poseChange(before, after)).toBeLessThan(1e-9);
      // fully stretched toward it
      expect(m.maxTargetError).toBeCloseTo(norm(target) - 5, 6);
    });
  }

  it('settles just behind the pin (beyond reach), where fixed small damping hops about', () => {
    const run = (dlsAdaptive: boolean) => {
      const { world, rig, tip } = chainWorld('dls', { dlsAdaptive, dlsLambda: 0.01 });
      setTarget(world, tip, [0.5, -5, 0]);
      let worst = 0;
      let last = readPose(world, rig);
      for (let i = 0; i < 300; i++) {
        step(world, 1);
        const pose = readPose(world, rig);
        if (i >= 200) worst = Math.max(worst, poseChange(last, pose));
        last = pose;
      }
      return { worst, m: readMetrics(world, rig) };
    };
    const adaptive = run(true);
    expect(adaptive.worst).toBeLessThan(1e-9); // over the last 100 steps
    expect(adaptive.m.maxTargetError).toBeLessThan(0.03);
    expect(run(false).worst).toBeGreaterThan(1e-2); // the case is a hard one: without adaptation it jitters
  });

  it('the transpose settles too (backtracking step)', () => {
    const { world, rig, tip } = chainWorld('jacobianTranspose', {}, { x: [-20, 20], y: [-5, 5], z: [-20, 20] });
    setTarget(world, tip, [3, 1, 0]);
    step(world, 300);
    const before = readPose(world, rig);
    step(world, 1);
    expect(poseChange(before, readPose(world, rig))).toBeLessThan(1e-9);
    expect(readMetrics(world, rig).maxLimitViolationDeg).toBeLessThanOrEqual(1e-6);
  });
});

describe('two goals on a tree', () => {
  for (const solver of ['dls', 'jacobianTranspose']) {
    for (const limits of [undefined, { x: [-45, 45], y: [-20, 20], z: [-45, 45] } as Limits]) {
      it(`${solver} reaches both goals${limits ? ' within limits' : ''}`, () => {
        for (const [l, r] of TREE_TARGETS) {
          const { world, rig, L, R } = treeWorld(solver, { ikIterations: 1000, ikTolerance: 1e-6 }, limits);
          setTarget(world, L, l);
          setTarget(world, R, r);
          step(world, 1);
          const m = readMetrics(world, rig);
          expect(m.solveStatus).toBe('converged');
          expect(m.targetErrors.L).toBeLessThan(1e-5);
          expect(m.targetErrors.R).toBeLessThan(1e-5);
          expect(m.maxLimitViolationDeg).toBeLessThanOrEqual(1e-6);
        }
      });
    }
  }
});

describe('restPull', () => {
  /** Angle (deg) of bone `name`'s rotation relative to its parent: its distance from rest (rest is straight). */
  const localAngle = (pose: ReturnType<typeof readPose>, name: string) => (2 * Math.acos(Math.min(1, Math.abs(pose[name]!.local[3]))) * 180) / Math.PI;

  for (const solver of ['dls', 'jacobianTranspose']) {
    it(`${solver}: keeps the unconstrained root bone nearer rest, goal still reached`, () => {
      const angles: number[] = [];
      for (const restPull of [0, 0.5]) {
        const { world, rig, tip } = chainWorld(solver, { restPull, ikIterations: 300, ikTolerance: 1e-6 });
        setTarget(world, tip, [3, 1, 2]); // somewhere else first: path dependence
        step(world, 5);
        setTarget(world, tip, [1.5, 3.2, 1.0]);
        step(world, 20);
        const m = readMetrics(world, rig);
        expect(m.solveStatus).toBe('converged');
        expect(m.maxTargetError).toBeLessThan(1e-4 * 5);
        const pose = readPose(world, rig);
        angles.push(localAngle(pose, 'b0'));
        if (restPull > 0) {
          // overall nearer rest as well
          let rms0 = 0;
          for (const k of Object.keys(pose)) rms0 += localAngle(pose, k) ** 2;
          expect(Math.sqrt(rms0 / 5)).toBeLessThan(29);
        }
      }
      expect(angles[1]!).toBeLessThan(angles[0]! - 1); // degrees
    });
  }
});

describe('guards and scenes', () => {
  for (const solver of ['dls', 'jacobianTranspose']) {
    it(`${solver}: a non-finite goal is reported as diverged and the pose is left as it was`, () => {
      const { world, rig, tip } = chainWorld(solver);
      setTarget(world, tip, [1, 4, 0]);
      step(world, 2);
      const before = readPose(world, rig);
      world.physik.ControlPoint.effective[tip * 3 + 1] = Number.POSITIVE_INFINITY; // bypassing setTarget's check
      step(world, 1);
      expect(readMetrics(world, rig).solveStatus).toBe('diverged');
      expect(readPose(world, rig)).toEqual(before);
    });
  }

  it('humanoid scene stays finite and keeps its limits with each solver and mode', () => {
    const scene = loadSceneFile('scenes/humanoid.json');
    for (const solver of ['dls', 'jacobianTranspose']) {
      for (const ikMode of ['path-dependent', 'path-independent'] as const) {
        const s = runScene(scene, { settings: { solver, ikMode }, steps: 200 });
        expect(s.finite).toBe(true);
        expect(s.divergedSteps).toBe(0);
        expect(s.peakLimitViolationDeg).toBeLessThan(1e-6);
        expect(s.maxJointGap).toBeLessThan(1e-9);
      }
    }
    const s = runScene(scene, { settings: { solver: 'dls' } });
    expect(s.status).not.toBe('diverged');
    expect(s.maxTargetError).toBeLessThan(1e-3);
  });
});
