/**
 * Poles for CCD, Jacobian transpose and DLS (systems/ik/poles.ts), with the pole syntax FABRIK
 * and two-bone read: a control point with role 'pole' on bone B puts the joint at B's head in
 * the plane of the chain's base, its effector and the pole, on the pole's side, without moving
 * the effector off its target; a pole the joint above cannot follow within its limits yields.
 */
import { describe, expect, it } from 'vitest';
import { createPhysikWorld, addRig, setTarget, step, readMetrics, readPose } from '../../../../src/core';
import type { BoneDescription, ControlPointDescription, Settings } from '../../../../src/scene/types';
import { chainBones, cross, dot, norm, sub, type V3 } from '../../../support/helpers';

const unit = (a: ArrayLike<number>): V3 => { const n = norm(a); return [a[0]! / n, a[1]! / n, a[2]! / n]; };

function solveWithPole(solver: Settings['solver'], poleZ: number, bones: BoneDescription[] = chainBones(3), poleBone = 'b1') {
  const world = createPhysikWorld();
  const controlPoints: ControlPointDescription[] = [
    { name: 'tip', bone: 'b2' },
    { name: 'pole', bone: poleBone, role: 'pole', target: [0, 1, poleZ] },
  ];
  const h = addRig(world, { rig: { name: 'r', root: 'pinned', bones }, controlPoints, settings: { solver, interpolation: 'none', ikIterations: 100 } });
  const target: V3 = [0.4, 2.2, 0];
  setTarget(world, h.controlPoints.tip!, target);
  step(world, 5);
  return { m: readMetrics(world, h.rig), pose: readPose(world, h.rig), target };
}

describe('poles for ccd, jacobianTranspose and dls', () => {
  for (const solver of ['ccd', 'jacobianTranspose', 'dls', 'fabrik'] as const) {
    it(`${solver}: the pole decides the side the chain bends to, the target still reached`, () => {
      const side = (poleZ: number) => {
        const { m, pose, target } = solveWithPole(solver, poleZ);
        expect(m.maxTargetError).toBeLessThanOrEqual(1e-3 * 3);
        const j = pose.b1!.head as V3;
        const pole: V3 = [0, 1, poleZ];
        // in the plane of base (the origin), effector and pole
        expect(Math.abs(dot(j, unit(cross(target, pole))))).toBeLessThan(1e-3);
        const a = unit(target);
        const off = (p: V3): V3 => sub(p, [a[0] * dot(p, a), a[1] * dot(p, a), a[2] * dot(p, a)]);
        expect(dot(off(j), off(pole))).toBeGreaterThan(0);
        return j[2];
      };
      const plus = side(2), minus = side(-2);
      expect(plus).toBeGreaterThan(0.05);
      expect(minus).toBeLessThan(-0.05);
    });
  }

  it('ccd: a pole the limits above the joint do not allow yields to the limits', () => {
    // the pole on b2 turns b1, whose joint bends about z only: the bend stays in the xy plane
    const bones = chainBones(3);
    bones[1]!.limits = { x: [0, 0], y: [0, 0], z: [-150, 150] };
    bones[2]!.limits = { x: [0, 0], y: [0, 0], z: [-150, 150] };
    const { m, pose } = solveWithPole('ccd', 2, bones, 'b2');
    expect(m.maxTargetError).toBeLessThanOrEqual(1e-3 * 3);
    expect(m.maxLimitViolationDeg).toBeLessThan(1e-9);
    expect(Math.abs(pose.b2!.head[2]!)).toBeLessThan(1e-9);
  });
});
