/**
 * getJointLimits / setJointLimits / withJointLimits: a built rig's joint limits changed by bone
 * name act on the next steps, a bad value throws naming the bone and axis with the world left
 * as it was (never NaN), welds are neither made nor undone, and a description brought up to
 * date carries the limits as they stand.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import {
  addRig, createPhysikWorld, createSnapshot, getJointLimits, readMetrics, readPose, restoreRig, setJointLimits, setTarget, step,
  withJointLimits,
} from '../../../src/core';
import { parseScene } from '../../../src/scene/load';

const humanoid = parseScene(JSON.parse(readFileSync(new URL('../../../scenes/humanoid.json', import.meta.url), 'utf8')));
const load = () => {
  const world = createPhysikWorld();
  const { rig, controlPoints } = addRig(world, { rig: humanoid.rig, controlPoints: humanoid.controlPoints, settings: humanoid.settings });
  return { world, rig, controlPoints };
};

describe('joint limits of a built rig', () => {
  it('reads them as the description gave them', () => {
    const { world, rig } = load();
    expect(getJointLimits(world, rig, 'forearm.L')).toEqual({ x: [0, 120], y: [0, 0], z: [0, 0] });
    expect(getJointLimits(world, rig, 'torso')).toEqual({ x: 'free', y: 'free', z: 'free' });
  });

  it('a changed limit acts: an elbow allowed to bend only 30° stops there', () => {
    const run = (limit?: [number, number]) => {
      const { world, rig, controlPoints } = load();
      if (limit) setJointLimits(world, rig, 'forearm.R', { x: limit });
      const pose = readPose(world, rig);
      const s = pose['upperArm.R']!.head;
      // pull the hand back toward the shoulder: the elbow must fold
      setTarget(world, controlPoints.handR!, [s[0], s[1] - 0.05, s[2] + 0.15]);
      step(world, 400);
      const p = readPose(world, rig)['forearm.R']!.local;
      return (2 * Math.acos(Math.min(1, Math.abs(p[3]))) * 180) / Math.PI;
    };
    const free = run(), held = run([0, 30]);
    expect(free).toBeGreaterThan(60);
    expect(held).toBeLessThan(40);
  });

  it('refuses bad values before changing anything, naming bone and axis', () => {
    const { world, rig } = load();
    const before = getJointLimits(world, rig, 'forearm.L');
    const bad: [unknown, RegExp][] = [
      [{ x: [10, 5] }, /forearm\.L.*x: min \(10°\) is above max \(5°\)/],
      [{ x: [Number.NaN, 5] }, /x: expected two finite numbers/],
      [{ y: [0, Infinity] }, /y: expected two finite numbers/],
      [{ z: [-200, 0] }, /z: degrees must lie in −180…180/],
      [{ w: [0, 1] }, /w: not an axis/],
      [{ x: 'loose' }, /x: expected "free" or \[min, max\]/],
    ];
    for (const [limits, message] of bad) {
      expect(() => setJointLimits(world, rig, 'forearm.L', limits as never)).toThrow(message);
      expect(getJointLimits(world, rig, 'forearm.L')).toEqual(before);
    }
    expect(() => setJointLimits(world, rig, 'nope', { x: [0, 1] })).toThrow(/no bone named "nope"/);
    expect(() => setJointLimits(world, rig, 'torso', { x: [0, 1] })).toThrow(/root/);
    const { AngularLimit } = world.physik;
    expect(Array.from(AngularLimit.min).every(Number.isFinite)).toBe(true);
    expect(Array.from(AngularLimit.max).every(Number.isFinite)).toBe(true);
  });

  it('welds are not made or undone: a fully locked joint stays locked, a free one cannot lock on all axes', () => {
    const { world, rig } = load();
    expect(() => setJointLimits(world, rig, 'hip.L', { x: [-10, 10] })).toThrow(/locked on every axis/);
    expect(getJointLimits(world, rig, 'hip.L')).toEqual({ x: [0, 0], y: [0, 0], z: [0, 0] });
    expect(() => setJointLimits(world, rig, 'forearm.L', { x: [5, 5] })).toThrow(/weld/);
    // one axis locked is fine
    setJointLimits(world, rig, 'thigh.L', { y: [0, 0] });
    expect(getJointLimits(world, rig, 'thigh.L').y).toEqual([0, 0]);
  });

  it('a snapshot puts an edited limit back (undo), and a description carries the edit (save)', () => {
    const { world, rig } = load();
    const snap = createSnapshot(world, rig);
    setJointLimits(world, rig, 'shin.L', { x: [-100, 0], z: 'free' });
    const saved = withJointLimits(world, rig, humanoid.rig);
    const shin = saved.bones.find((b) => b.name === 'shin.L')!;
    expect(shin.limits).toEqual({ ...getJointLimits(world, rig, 'shin.L'), x: [-100, 0], z: 'free' });
    expect(saved.bones.find((b) => b.name === 'torso')).toEqual(humanoid.rig.bones.find((b) => b.name === 'torso'));
    // the saved description builds the same limits
    const again = createPhysikWorld();
    const r2 = addRig(again, { rig: saved, controlPoints: [] }).rig;
    expect(getJointLimits(again, r2, 'shin.L')).toEqual(getJointLimits(world, rig, 'shin.L'));
    restoreRig(world, rig, snap);
    expect(getJointLimits(world, rig, 'shin.L')).toEqual(getJointLimits(again, addRig(again, { rig: humanoid.rig, controlPoints: [] }).rig, 'shin.L'));
    step(world, 5);
    expect(readMetrics(world, rig).status).not.toBe('diverged');
  });
});
