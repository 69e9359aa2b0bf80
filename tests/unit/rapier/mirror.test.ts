/**
 * The Rapier mirror of a rig: it integrates the same discrete model as PhysIK (a free bone on
 * a spring follows PhysIK's trajectory to float32 precision), Rapier holds a revolute limit
 * and the emulated limits hold a spherical joint, Rapier loads once, and misuse gives clear
 * errors.
 */
import { describe, expect, it } from 'vitest';
import { createPhysikWorld, addRig, step, setTarget } from '../../../src/core';
import { createRapierMirror, loadRapier } from '../../../src/rapier';
import { chainBones, DEG } from '../../support/helpers';
import { quatMulConjA, quatToRotationVector } from '../../../src/math/quat';

describe('Rapier mirror', () => {
  it('loads Rapier once: every call shares one initialised module', async () => {
    const p1 = loadRapier(), p2 = loadRapier();
    expect(p1).toBe(p2);
    expect(typeof (await p1).World).toBe('function');
  });

  it('follows PhysIK step by step for a free bone on a spring (the same implicit damping and springs)', async () => {
    const world = createPhysikWorld();
    const { rig, controlPoints } = addRig(world, {
      rig: { name: 'rod', bones: [{ name: 'rod', parent: null, direction: [0, 1, 0], length: 1, mass: 1, head: [0, 0, 0] }] },
      controlPoints: [{ name: 'tip', bone: 'rod', spring: 'linear' }],
      settings: { interpolation: 'none', damping: 20 },
    });
    const mirror = await createRapierMirror(world, rig);
    setTarget(world, controlPoints.tip!, [0.5, 1, 0.2]);
    const tip = new Float64Array(3);
    const { Bone } = world.physik;
    const b = world.physik.rigs[0]!.bones[0]!;
    let worst = 0, moved = 0;
    for (let s = 0; s < 100; s++) {
      step(world, 1);
      mirror.step();
      mirror.tipPositions(tip);
      worst = Math.max(worst, Math.hypot(tip[0]! - Bone.tail[b * 3]!, tip[1]! - Bone.tail[b * 3 + 1]!, tip[2]! - Bone.tail[b * 3 + 2]!));
      moved = Math.max(moved, Math.hypot(Bone.tail[b * 3]!, Bone.tail[b * 3 + 1]! - 1, Bone.tail[b * 3 + 2]!));
    }
    expect(moved).toBeGreaterThan(0.3);
    expect(worst).toBeLessThan(1e-4); // Rapier works in float32
    mirror.dispose();
  });

  it('holds an elbow at its limit with Rapier\'s revolute limit, and a wrist with emulated ones', async () => {
    const world = createPhysikWorld();
    const { rig, controlPoints } = addRig(world, {
      rig: {
        name: 'arm', root: 'pinned', bones: [
          { name: 'upper', parent: null, direction: [1, 0, 0], length: 0.3, mass: 2, head: [0, 0, 0] },
          { name: 'fore', parent: 'upper', direction: [1, 0, 0], length: 0.3, mass: 1, limits: { x: [0, 0], y: [0, 0], z: [0, 90] } },
          { name: 'hand', parent: 'fore', direction: [1, 0, 0], length: 0.1, mass: 0.2, limits: { x: [-20, 20], y: [-10, 10], z: [-30, 30] } },
        ],
      },
      controlPoints: [{ name: 'shoulder', bone: 'upper', at: 1 }, { name: 'hand', bone: 'hand' }],
      settings: { interpolation: 'none' },
    });
    const mirror = await createRapierMirror(world, rig);
    expect(mirror.plan.map((e) => e.kind)).toEqual(['pinned root', 'revolute', 'spherical']);
    // the hand's target is behind the shoulder: the elbow must bend past 90 degrees to reach it
    setTarget(world, controlPoints.hand!, [0.05, 0.05, 0]);
    for (let s = 0; s < 400; s++) { step(world, 1); mirror.step(); }
    const rot = mirror.rotations(new Float64Array(12));
    // joint angles (rotation vector of parent⁻¹ · bone; every rest rotation here is the same)
    const jointDeg = (i: number) => {
      const q = new Float64Array(4), v = new Float64Array(3);
      quatMulConjA(q, 0, rot, (i - 1) * 4, rot, i * 4);
      quatToRotationVector(v, 0, q, 0);
      return Array.from(v, (x) => x / DEG);
    };
    const [, , elbow] = jointDeg(1);
    // pressed (PhysIK's soft limit gives way to its hard-stop band, 5° past), held by Rapier
    expect(Math.abs(elbow! - 90)).toBeLessThan(2);
    // the wrist is pressed too: the emulated springs hold each axis a few degrees past its
    // limit, into PhysIK's hard-stop band (5°), and z where PhysIK's own springs hold it
    const wrist = jointDeg(2);
    const { Bone } = world.physik;
    const [, fore, hand] = world.physik.rigs[0]!.bones;
    const q = new Float64Array(4), v = new Float64Array(3);
    quatMulConjA(q, 0, Bone.rot, fore! * 4, Bone.rot, hand! * 4);
    quatToRotationVector(v, 0, q, 0);
    expect(Math.abs(wrist[2]!)).toBeGreaterThan(30);
    expect(Math.abs(wrist[2]! - v[2]! / DEG)).toBeLessThan(3);
    const limit = [20, 10, 30];
    wrist.forEach((angle, a) => expect(Math.abs(angle), `wrist axis ${'xyz'[a]}`).toBeLessThan(limit[a]! + 9));
    expect(mirror.finite()).toBe(true);
    mirror.dispose();
  });

  it('refuses misuse with messages naming what is wrong', async () => {
    const world = createPhysikWorld();
    const { rig } = addRig(world, { rig: { name: 'c', root: 'pinned', bones: chainBones(3) } });
    await expect(createRapierMirror(world, rig, { jointModel: 'ragdoll' as 'impulse' })).rejects.toThrow(/jointModel must be one of impulse, multibody, got "ragdoll"/);
    await expect(createRapierMirror(world, rig, { solverIterations: 0 })).rejects.toThrow(/solverIterations/);
    await expect(createRapierMirror(world, 999)).rejects.toThrow(/no rig with entity id 999/);
    const mirror = await createRapierMirror(world, rig);
    expect(() => mirror.tipPositions(new Float64Array(6))).toThrow(/holds 6 numbers, needs 9 \(3 per bone, 3 bones\)/);
    mirror.dispose();
    expect(() => mirror.step()).toThrow(/after dispose/);
  });
});
