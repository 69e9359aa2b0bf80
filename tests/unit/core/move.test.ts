/**
 * moveRig (src/core/move.ts): a built rig moved by R, t is the rig it was with every position
 * p at R p + t and every direction turned by R, its reset pose included; a refused move
 * changes nothing. (That stepping a moved rig moves its result the same way is
 * tests/scenes/invariance.test.ts, on every scene.)
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { addRig, createPhysikWorld, moveRig, readPose, resetRig, snapshotRig, step, type PhysikWorld } from '../../../src/core';
import { loadSceneFile } from '../../../src/scene/loadFile';
import { matVec, quatMatrix, type Q } from '../../support/helpers';

const scene = loadSceneFile(join(__dirname, '../../../scenes/humanoid.json'));
const R: Q = [0.3, -0.5, 0.1, 0.8].map((x) => x / Math.hypot(0.3, 0.5, 0.1, 0.8)) as Q;
const t = [1.5, -0.25, 4];
const M = quatMatrix(R);
const moved = (p: ArrayLike<number>) => matVec(M, p).map((x, a) => x + t[a]!);

function humanoid(): { world: PhysikWorld; rig: number } {
  const world = createPhysikWorld();
  const { rig } = addRig(world, { rig: scene.rig, controlPoints: scene.controlPoints, settings: scene.settings, script: scene.script });
  return { world, rig };
}

const close = (a: ArrayLike<number>, b: ArrayLike<number>, tol = 1e-12) => {
  for (let i = 0; i < a.length; i++) expect(Math.abs(a[i]! - b[i]!)).toBeLessThan(tol);
};

describe('moveRig', () => {
  it('moves the pose, the motion, the targets and the reset pose', () => {
    const { world, rig } = humanoid();
    step(world, 30); // moving, targets interpolating
    const { Bone, ControlPoint } = world.physik;
    const record = world.physik.rigs[0]!;
    const before = readPose(world, rig);
    const angVel = Array.from(record.bones, (b) => Array.from(Bone.angVel.slice(b * 3, b * 3 + 3)));
    const targets = Array.from(record.controlPoints, (c) => [Array.from(ControlPoint.target.slice(c * 3, c * 3 + 3)), Array.from(ControlPoint.effective.slice(c * 3, c * 3 + 3))]);
    const rest = (() => { const w = humanoid(); return readPose(w.world, w.rig); })();
    moveRig(world, rig, R, t);
    const after = readPose(world, rig);
    Object.entries(before).forEach(([name, p], i) => {
      close(after[name]!.head, moved(p.head));
      close(after[name]!.tail, moved(p.tail));
      if (i > 0) close(after[name]!.local, p.local); // rotations relative to the parent unchanged (the root's is its world one)
    });
    record.bones.forEach((b, i) => close(Bone.angVel.slice(b * 3, b * 3 + 3), matVec(M, angVel[i]!)));
    Array.from(record.controlPoints).forEach((c, i) => {
      close(ControlPoint.target.slice(c * 3, c * 3 + 3), moved(targets[i]![0]!));
      close(ControlPoint.effective.slice(c * 3, c * 3 + 3), moved(targets[i]![1]!));
    });
    resetRig(world, rig);
    const reset = readPose(world, rig);
    for (const [name, p] of Object.entries(rest)) {
      close(reset[name]!.head, moved(p.head));
      close(reset[name]!.tail, moved(p.tail));
    }
  });

  it('by the identity changes no pose, target or scale', () => {
    const a = humanoid(), b = humanoid();
    step(a.world, 20); step(b.world, 20);
    moveRig(b.world, b.rig, [0, 0, 0, 1], [0, 0, 0]);
    expect(readPose(b.world, b.rig)).toEqual(readPose(a.world, a.rig));
    expect(b.world.physik.Rig.height[b.rig]).toBe(a.world.physik.Rig.height[a.rig]);
    step(a.world, 50); step(b.world, 50);
    expect(readPose(b.world, b.rig)).toEqual(readPose(a.world, a.rig));
  });

  it('refuses a bad move and leaves the rig as it was', () => {
    const { world, rig } = humanoid();
    step(world, 10);
    const snap = JSON.stringify(snapshotRig(world, rig).stores);
    const script = JSON.stringify(world.physik.rigs[0]!.script);
    expect(() => moveRig(world, rig, [0, 0, 0, 0], [0, 0, 0])).toThrow(/non-zero quaternion/);
    expect(() => moveRig(world, rig, [0, 0, 0, NaN], [0, 0, 0])).toThrow(/finite/);
    expect(() => moveRig(world, rig, [0, 0, 0, 1], [0, Infinity, 0])).toThrow(/finite/);
    expect(() => moveRig(world, rig, [0, 0, 0, 1], [0, 0])).toThrow(/translation/);
    expect(() => moveRig(world, rig, R, [2e9, 0, 0])).toThrow(/beyond/);
    expect(() => moveRig(world, 12345, R, t)).toThrow();
    expect(JSON.stringify(snapshotRig(world, rig).stores)).toBe(snap);
    expect(JSON.stringify(world.physik.rigs[0]!.script)).toBe(script);
  });

  it('moves the script\'s targets without changing the scene it came from', () => {
    const world = createPhysikWorld();
    const script = [{ step: 5, point: 'handR', target: [-0.35, 1.25, 0.45] as [number, number, number] }];
    const { rig } = addRig(world, { rig: scene.rig, controlPoints: scene.controlPoints, settings: scene.settings, script });
    moveRig(world, rig, R, t);
    close(world.physik.rigs[0]!.script[0]!.target!, moved([-0.35, 1.25, 0.45]));
    expect(script[0]!.target).toEqual([-0.35, 1.25, 0.45]);
  });
});
