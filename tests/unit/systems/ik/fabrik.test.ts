/**
 * FABRIK solver (systems/ik/fabrik.ts): reaching on a pinned chain, straight chain toward an
 * unreachable target, limits held while reaching, two effectors on a Y-shaped tree, a pole
 * choosing the bend side, path independence, goals part-way along a bone, a floating root,
 * no NaN written, and the humanoid scene run with solver 'fabrik'.
 */
import { describe, expect, it } from 'vitest';
import { createPhysikWorld, addRig, setTarget, step, readMetrics, readPose, type PhysikWorld } from '../../../../src/core';
import type { BoneDescription, ControlPointDescription, Settings } from '../../../../src/scene/types';
import { runScene } from '../../../../src/scene/run';
import { loadSceneFile } from '../../../../src/scene/loadFile';
import { chainBones, cross, dist, dot, norm, sub, type V3 } from '../../../support/helpers';

const base: Partial<Settings> = { solver: 'fabrik', interpolation: 'none' };

function rig(bones: BoneDescription[], controlPoints: ControlPointDescription[], settings: Partial<Settings> = {}, root: 'pinned' | 'floating' = 'pinned') {
  const world = createPhysikWorld();
  const handle = addRig(world, { rig: { name: 'r', root, bones }, controlPoints, settings: { ...base, ...settings } });
  return { world, handle, rig: handle.rig };
}

const unit = (a: ArrayLike<number>): V3 => { const n = norm(a); return [a[0]! / n, a[1]! / n, a[2]! / n]; };

/** Every number of the pose is finite. */
function poseFinite(world: PhysikWorld, rigEid: number): boolean {
  for (const b of Object.values(readPose(world, rigEid))) {
    for (const x of [...b.head, ...b.tail, ...b.local, ...b.world]) if (!Number.isFinite(x)) return false;
  }
  return true;
}

describe('fabrik: single chain', () => {
  it('a free chain (no limits, one goal) reaches with the published passes; a side bone keeps its local rotation', () => {
    const bones = chainBones(30, { length: 0.1 });
    bones.push({ name: 'side', parent: 'b10', direction: [1, 0, 0], length: 0.2 });
    const { world, handle, rig: r } = rig(bones, [{ name: 'tip', bone: 'b29' }], { ikIterations: 50, ikTolerance: 1e-6 });
    const before = readPose(world, r).side!.local;
    setTarget(world, handle.controlPoints.tip!, [1.2, 1.9, 0.5]);
    step(world, 1);
    const m = readMetrics(world, r);
    expect(m.solveStatus).toBe('converged');
    expect(m.maxTargetError).toBeLessThanOrEqual(1e-6 * m.height);
    expect(m.passes).toBeLessThanOrEqual(50);
    expect(m.maxJointGap).toBeLessThan(1e-12);
    const after = readPose(world, r).side!.local;
    for (let k = 0; k < 4; k++) expect(after[k]!).toBeCloseTo(before[k]!, 12);
  });

  it('a pinned 4-bone chain reaches a reachable target to 1e-4 of its length', () => {
    const { world, handle, rig: r } = rig(chainBones(4), [{ name: 'tip', bone: 'b3' }]);
    setTarget(world, handle.controlPoints.tip!, [1.5, 2.5, 0.7]);
    step(world, 1);
    const m = readMetrics(world, r);
    expect(m.solveStatus).toBe('converged');
    expect(m.maxTargetError).toBeLessThanOrEqual(1e-4 * 4);
    expect(m.passes).toBeGreaterThan(0);
    expect(m.passes).toBeLessThanOrEqual(10);
    expect(m.maxJointGap).toBeLessThan(1e-12);
    // the pin holds, bone lengths hold (rotations only)
    const p = readPose(world, r);
    expect(norm(p.b0!.head)).toBeLessThan(1e-12);
    for (const b of ['b0', 'b1', 'b2', 'b3']) expect(dist(p[b]!.head, p[b]!.tail)).toBeCloseTo(1, 12);
    // converged: the next steps leave it alone
    step(world, 3);
    expect(readMetrics(world, r).passes).toBe(0);
    expect(readMetrics(world, r).maxTargetError).toBeLessThanOrEqual(1e-4 * 4);
  });

  it('an unreachable target gives a straight chain pointing at it (stalled)', () => {
    const { world, handle, rig: r } = rig(chainBones(4), [{ name: 'tip', bone: 'b3' }]);
    const target: V3 = [3, 4, 2];
    setTarget(world, handle.controlPoints.tip!, target);
    step(world, 1);
    const m = readMetrics(world, r);
    expect(m.solveStatus).toBe('stalled');
    const d = unit(target);
    const p = readPose(world, r);
    for (const b of ['b0', 'b1', 'b2', 'b3']) {
      const axis = unit(sub(p[b]!.tail, p[b]!.head));
      expect(norm(cross(axis, d))).toBeLessThan(1e-12);
      expect(dot(axis, d)).toBeGreaterThan(0);
    }
    expect(m.maxTargetError).toBeCloseTo(norm(target) - 4, 10);
  });

  it('a goal part-way along a bone (at 0.5) is reached with that point', () => {
    const { world, handle, rig: r } = rig(chainBones(4), [{ name: 'mid', bone: 'b3', at: 0.5 }]);
    setTarget(world, handle.controlPoints.mid!, [1.2, 2.8, 0.5]);
    step(world, 2);
    const m = readMetrics(world, r);
    expect(m.solveStatus).toBe('converged');
    expect(m.maxTargetError).toBeLessThanOrEqual(1e-4 * 4);
  });

  it('a floating root stays where it is', () => {
    const { world, handle, rig: r } = rig(chainBones(3, { head: [0.5, 1, -0.2] }), [{ name: 'tip', bone: 'b2' }], {}, 'floating');
    setTarget(world, handle.controlPoints.tip!, [1.5, 2.5, 0.3]);
    step(world, 3);
    const m = readMetrics(world, r);
    expect(m.solveStatus).toBe('converged');
    expect(m.maxTargetError).toBeLessThanOrEqual(1e-4 * 3);
    expect(dist(readPose(world, r).b0!.head, [0.5, 1, -0.2])).toBeLessThan(1e-12);
  });
});

describe('fabrik: limits', () => {
  const limits = { x: [-20, 20] as [number, number], z: [-20, 20] as [number, number] };

  it('a target the limits allow (10° per joint) is reached with every limit held', () => {
    // tip of the chain with each joint bent 10° about z
    let a = 0; let tip: V3 = [0, 0, 0];
    for (let k = 0; k < 4; k++) { if (k > 0) a += (10 * Math.PI) / 180; tip = [tip[0] - Math.sin(a), tip[1] + Math.cos(a), 0]; }
    const { world, handle, rig: r } = rig(chainBones(4, { limits }), [{ name: 'tip', bone: 'b3' }]);
    setTarget(world, handle.controlPoints.tip!, tip);
    let worst = 0;
    for (let s = 0; s < 20; s++) { step(world, 1); worst = Math.max(worst, readMetrics(world, r).maxLimitViolationDeg); }
    const m = readMetrics(world, r);
    expect(worst).toBeLessThan(1e-9);
    expect(m.solveStatus).toBe('converged');
    expect(m.maxTargetError).toBeLessThanOrEqual(1e-4 * 4);
  });

  it('a target beyond what ±20° per joint allows: limits hold, closer than the straight chain', () => {
    const target: V3 = [2, 2.5, 1];
    const { world, handle, rig: r } = rig(chainBones(4, { limits }), [{ name: 'tip', bone: 'b3' }]);
    setTarget(world, handle.controlPoints.tip!, target);
    let worst = 0;
    for (let s = 0; s < 30; s++) { step(world, 1); worst = Math.max(worst, readMetrics(world, r).maxLimitViolationDeg); }
    const m = readMetrics(world, r);
    expect(worst).toBeLessThan(1e-9);
    expect(m.solveStatus).toBe('stalled');
    expect(poseFinite(world, r)).toBe(true);
    // pointing straight at it misses by |4 − distance| (0.646); the best limited pose, by random
    // search, gets 0.062 (curled as far as the limits go, turned toward it); limits inside the
    // passes and the turn about the base get 0.0616 (clamping after placement got 0.496)
    expect(m.maxTargetError).toBeLessThan(Math.abs(4 - norm(target)));
    expect(m.maxTargetError).toBeLessThan(0.065);
  });
});

describe('fabrik: trees and poles', () => {
  const yTree = (): BoneDescription[] => [
    { name: 'trunk', parent: null, direction: [0, 1, 0], length: 1, head: [0, 0, 0] },
    { name: 'trunk2', parent: 'trunk', direction: [0, 1, 0], length: 1 },
    { name: 'l1', parent: 'trunk2', direction: [-1, 1, 0], length: 1 },
    { name: 'l2', parent: 'l1', direction: [-1, 1, 0], length: 1 },
    { name: 'r1', parent: 'trunk2', direction: [1, 1, 0], length: 1 },
    { name: 'r2', parent: 'r1', direction: [1, 1, 0], length: 1 },
  ];

  it('a Y-shaped tree reaches both effectors when both are reachable', () => {
    for (const ikMode of ['path-dependent', 'path-independent'] as const) {
      const { world, handle, rig: r } = rig(yTree(), [{ name: 'L', bone: 'l2' }, { name: 'R', bone: 'r2' }], { ikMode });
      setTarget(world, handle.controlPoints.L!, [-1.2, 2.8, 0.6]);
      setTarget(world, handle.controlPoints.R!, [1.0, 3.0, -0.8]);
      step(world, 1);
      const m = readMetrics(world, r);
      expect(m.solveStatus).toBe('converged');
      expect(m.targetErrors.L!).toBeLessThanOrEqual(1e-4 * m.height);
      expect(m.targetErrors.R!).toBeLessThanOrEqual(1e-4 * m.height);
      expect(m.maxJointGap).toBeLessThan(1e-12);
    }
  });

  it('a pole flips the side the chain bends to', () => {
    const side = (poleZ: number) => {
      const { world, handle, rig: r } = rig(chainBones(3), [
        { name: 'tip', bone: 'b2' },
        { name: 'pole', bone: 'b1', role: 'pole', target: [0, 1, poleZ] },
      ]);
      const target: V3 = [0.4, 2.2, 0];
      setTarget(world, handle.controlPoints.tip!, target);
      step(world, 5);
      const m = readMetrics(world, r);
      expect(m.maxTargetError).toBeLessThanOrEqual(1e-4 * 3);
      // the joint at b1's head lies in the plane of base, effector and pole, on the pole's side
      const j = readPose(world, r).b1!.head;
      const pole: V3 = [0, 1, poleZ];
      expect(Math.abs(dot(j, unit(cross(target, pole))))).toBeLessThan(1e-3);
      const a = unit(target);
      const off = (p: V3): V3 => sub(p, [a[0] * dot(p, a), a[1] * dot(p, a), a[2] * dot(p, a)]);
      expect(dot(off(j), off(pole))).toBeGreaterThan(0);
      return j[2];
    };
    const plus = side(2), minus = side(-2);
    expect(plus).toBeGreaterThan(0.05);
    expect(minus).toBeLessThan(-0.05);
    expect(plus).toBeCloseTo(-minus, 9);
  });
});

describe('fabrik: modes and robustness', () => {
  it('path-independent gives the same pose whatever the previous pose', () => {
    const settings = { ikMode: 'path-independent' as const, ikIterations: 50 };
    const a = rig(chainBones(4), [{ name: 'tip', bone: 'b3' }], settings);
    const b = rig(chainBones(4), [{ name: 'tip', bone: 'b3' }], settings);
    const final: V3 = [-1.1, 2.6, 1.3];
    setTarget(a.world, a.handle.controlPoints.tip!, [2, 1, -1]);
    step(a.world, 5);
    setTarget(a.world, a.handle.controlPoints.tip!, [0.5, -1.5, 1]);
    step(a.world, 5);
    setTarget(a.world, a.handle.controlPoints.tip!, final);
    setTarget(b.world, b.handle.controlPoints.tip!, final);
    step(a.world, 1);
    step(b.world, 1);
    const pa = readPose(a.world, a.rig), pb = readPose(b.world, b.rig);
    for (const name of Object.keys(pa)) {
      expect(pa[name]!.world).toEqual(pb[name]!.world);
      expect(pa[name]!.tail).toEqual(pb[name]!.tail);
    }
    expect(readMetrics(a.world, a.rig).maxTargetError).toBeLessThanOrEqual(1e-4 * 4);
    // path-dependent from the same history ends elsewhere (it starts from the last pose)
    const c = rig(chainBones(4), [{ name: 'tip', bone: 'b3' }]);
    setTarget(c.world, c.handle.controlPoints.tip!, [0.5, -1.5, 1]);
    step(c.world, 5);
    setTarget(c.world, c.handle.controlPoints.tip!, final);
    step(c.world, 1);
    const pc = readPose(c.world, c.rig);
    expect(dist(pc.b1!.tail, pb.b1!.tail)).toBeGreaterThan(1e-3);
  });

  it('a non-finite target reports diverged and writes no NaN', () => {
    const { world, handle, rig: r } = rig(chainBones(3), [{ name: 'tip', bone: 'b2' }]);
    setTarget(world, handle.controlPoints.tip!, [1, 2, 0.5]);
    step(world, 2);
    const before = readPose(world, r);
    const cp = handle.controlPoints.tip!;
    world.physik.ControlPoint.target[cp * 3] = NaN; // bypassing setTarget's check on purpose
    world.physik.ControlPoint.effective[cp * 3] = NaN;
    step(world, 1);
    expect(readMetrics(world, r).solveStatus).toBe('diverged');
    expect(poseFinite(world, r)).toBe(true);
    const after = readPose(world, r);
    for (const name of Object.keys(before)) expect(after[name]!.world).toEqual(before[name]!.world);
  });

  it('the humanoid scene with solver fabrik stays finite, joints closed, limits held', () => {
    const scene = loadSceneFile('scenes/humanoid.json');
    for (const ikMode of ['path-dependent', 'path-independent'] as const) {
      const s = runScene(scene, { settings: { solver: 'fabrik', ikMode } });
      expect(s.finite).toBe(true);
      expect(s.divergedSteps).toBe(0);
      expect(s.maxJointGap).toBeLessThan(1e-9);
      expect(s.peakLimitViolationDeg).toBeLessThan(1e-9);
      expect(s.rootTravel).toBeLessThan(1e-9); // the floating torso stays where it is
      for (const e of Object.values(s.targetErrors)) expect(Number.isFinite(e)).toBe(true);
      // the hand reaches while the feet stay pinned (the torso turns for the hand): within a
      // millimetre from step to step; from rest each step, 10 iterations leave the feet 1.7 mm off
      const near = ikMode === 'path-dependent' ? 1e-3 : 3e-3;
      for (const e of Object.values(s.targetErrors)) expect(e).toBeLessThan(near);
    }
  });
});
