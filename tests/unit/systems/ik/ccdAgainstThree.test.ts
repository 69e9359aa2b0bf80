/**
 * CCD (systems/ik/ccd.ts) against three.js's CCDIKSolver on the peer bench's problem
 * (tests/bench/peers.ts: a straight chain along +X, pinned root, target (0.4, 0.5, 0.3) · L):
 * the same algorithm, so after N iterations both tips are at the same distance from the target
 * (ours a little nearer once three.js starts skipping joints that turn less than 1e-5 rad).
 * This keeps the bench's "equal error" honest: the solver's fast paths (the trigonometry-free
 * arc, the composed deltas) must not change what an iteration does.
 */
import { describe, expect, it } from 'vitest';
import { threeChain } from '../../../support/threeChain';
import { createPhysikWorld, addRig, setTarget, step, readPose } from '../../../../src/core';
import type { BoneDescription } from '../../../../src/scene/types';

const TARGET: [number, number, number] = [0.4, 0.5, 0.3];

function oursError(n: number, N: number): number {
  const bones: BoneDescription[] = [];
  for (let i = 0; i < n; i++) {
    const b: BoneDescription = { name: `b${i}`, parent: i === 0 ? null : `b${i - 1}`, direction: [1, 0, 0], length: 1 / n };
    if (i === 0) b.head = [0, 0, 0];
    bones.push(b);
  }
  const world = createPhysikWorld();
  const handle = addRig(world, {
    rig: { name: 'chain', root: 'pinned', bones },
    controlPoints: [{ name: 'tip', bone: `b${n - 1}` }],
    settings: { solver: 'ccd', ikMode: 'path-independent', ikIterations: N, ikTolerance: 1e-12, interpolation: 'none', sleepWhenConverged: false },
  });
  setTarget(world, handle.controlPoints.tip!, TARGET);
  step(world, 1);
  const t = readPose(world, handle.rig)[`b${n - 1}`]!.tail;
  return Math.hypot(t[0] - TARGET[0], t[1] - TARGET[1], t[2] - TARGET[2]);
}

function threeError(n: number, N: number): number {
  const { bones, ik, solver } = threeChain(n, 1, TARGET);
  ik.iteration = N;
  solver.update();
  const e = bones[n]!.matrixWorld.elements;
  return Math.hypot(e[12]! - TARGET[0], e[13]! - TARGET[1], e[14]! - TARGET[2]);
}

describe('ccd: the same iterations as three.js CCDIKSolver', () => {
  for (const n of [10, 40]) {
    it(`${n} bones: the tip's error after N iterations matches three.js's (N = 1, 2, 3, 5, 8)`, () => {
      for (const N of [1, 2, 3, 5, 8]) {
        const ours = oursError(n, N), theirs = threeError(n, N);
        // the same to rounding while every joint turns; closer in, three.js skips joints that
        // would turn less than 1e-5 rad, so ours may end a little nearer (never farther)
        expect(ours).toBeLessThanOrEqual(theirs + 1e-12);
        if (theirs > 1e-2) expect(Math.abs(ours - theirs)).toBeLessThan(1e-12);
      }
    });
  }
});
