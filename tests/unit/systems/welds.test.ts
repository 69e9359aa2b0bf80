/**
 * Welded joints (systems/welds.ts): a joint locked on all three axes makes its child one rigid
 * body with its parent. What a user sees: the humanoid's locked collarbones and hips hold their
 * angle at every step of a reach, not only at rest; and a straight welded pair moves exactly as
 * one bone of twice the length (two solid cylinders end to end have the inertia of one).
 */
import { describe, expect, it } from 'vitest';
import { addRig, createPhysikWorld, readPose, step, type PhysikWorld } from '../../../src/core';
import type { BoneDescription, Settings } from '../../../src/scene/types';
import { jointRotationVector } from '../../../src/world/jointRotation';
import { humanoidReach } from '../../support/humanoidWorld';

const DEG = 180 / Math.PI;

/** The humanoid scene's reach, run with `settings`; the largest angle (degrees) any locked joint reached at any step. */
function lockedJointsOnReach(settings: Partial<Settings>): { worst: number; error: number } {
  const locked = (b: BoneDescription) => ['x', 'y', 'z'].every((a) => {
    const l = b.limits?.[a as 'x'];
    return Array.isArray(l) && l[0] === 0 && l[1] === 0;
  });
  const phi = new Float64Array(3);
  const r = humanoidReach(settings, locked, (world, b) => {
    jointRotationVector(world, b, phi);
    return Math.hypot(phi[0]!, phi[1]!, phi[2]!) * DEG;
  });
  expect(r.bones).toBe(4);
  return r;
}

/** Tip of a pinned rig pulled by an explicit spring at its last bone's tail, each step. */
function tipPath(bones: BoneDescription[], tipBone: string, steps: number): number[][] {
  const world: PhysikWorld = createPhysikWorld();
  const h = addRig(world, {
    rig: { name: 'pair', root: 'pinned', bones },
    controlPoints: [{ name: 'tip', bone: tipBone, at: 1, target: [0.3, 0.5, 0.6], spring: 'linear', stiffness: 20 }],
    // no damping and explicit terms that are linear in the inertia, so the two models are the same equations
    settings: { dampingAuto: false, damping: 0, angularDamping: 0, springImplicit: false, gyroscopic: 'explicit', interpolation: 'none', sleepWhenConverged: false },
  });
  const path: number[][] = [];
  for (let i = 0; i < steps; i++) {
    step(world);
    path.push([...readPose(world, h.rig)[tipBone]!.tail]);
  }
  return path;
}

describe('welded joints', () => {
  it('the humanoid reach: the locked collarbones and hips hold 0° at every step (as springs they open)', () => {
    const welded = lockedJointsOnReach({});
    expect(welded.worst).toBeLessThan(1e-9);
    const sprung = lockedJointsOnReach({ welds: false });
    expect(sprung.worst).toBeGreaterThan(0.01);
    // the reach itself is as good either way
    expect(welded.error).toBeLessThan(2 * sprung.error + 1e-4);
  });

  it('a straight welded pair moves as one bone of twice the length', () => {
    const lock = { x: [0, 0] as [number, number], y: [0, 0] as [number, number], z: [0, 0] as [number, number] };
    const pair = tipPath([
      { name: 'a', parent: null, direction: [1, 0.2, 0], length: 0.5, mass: 1, radius: 0.05, head: [0, 0, 0] },
      { name: 'b', parent: 'a', direction: [1, 0.2, 0], length: 0.5, mass: 1, radius: 0.05, limits: lock },
    ], 'b', 150);
    const single = tipPath([{ name: 'a', parent: null, direction: [1, 0.2, 0], length: 1, mass: 2, radius: 0.05, head: [0, 0, 0] }], 'a', 150);
    let worst = 0, travel = 0;
    for (let i = 0; i < single.length; i++) {
      worst = Math.max(worst, Math.hypot(pair[i]![0]! - single[i]![0]!, pair[i]![1]! - single[i]![1]!, pair[i]![2]! - single[i]![2]!));
      travel = Math.max(travel, Math.hypot(single[i]![0]! - single[0]![0]!, single[i]![1]! - single[0]![1]!, single[i]![2]! - single[0]![2]!));
    }
    expect(travel).toBeGreaterThan(0.3); // it swings
    expect(worst).toBeLessThan(1e-9);
  });
});
