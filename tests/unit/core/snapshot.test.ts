/**
 * Rig snapshots (rewind): restoring a snapshot and stepping gives bit-identical results to
 * never having left, for the PhysIK solver; restore refuses (world unchanged) when the
 * control point set changed; snapshotInto reuses its buffers; kinematic rigs resume finite.
 */
import { describe, expect, it } from 'vitest';
import {
  addControlPoint, addRig, createSnapshot, getSettings, readMetrics, removeControlPoint,
  restoreRig, setSettings, setTarget, snapshotInto, snapshotRig, step, type PhysikWorld, type RigHandle,
} from '../../../src/core';
import { humanoidScene, humanoidWithMove } from '../../support/humanoidWorld';
import type { Settings } from '../../../src/scene/types';

const scene = humanoidScene;

/** The humanoid scene, plus a scripted move at step 180 (after the snapshot), so the script cursor matters. */
function humanoid(settings: Partial<Settings> = {}): { world: PhysikWorld; h: RigHandle } {
  return humanoidWithMove({ step: 180, point: 'handR', target: [-0.5, 1.5, 0.3] }, settings);
}

/** 150 steps with an API move at the 20th; every bone's rotation, head, angular velocity and velocity after each step. */
function run150(world: PhysikWorld, h: RigHandle): Float64Array {
  const { Bone } = world.physik;
  const bones = Object.values(h.bones);
  const out = new Float64Array(150 * bones.length * 13);
  let k = 0;
  for (let i = 0; i < 150; i++) {
    if (i === 20) setTarget(world, h.controlPoints.footL!, [0.2, 0.2, 0.3]);
    step(world);
    for (const b of bones) {
      for (const [arr, w] of [[Bone.rot, 4], [Bone.head, 3], [Bone.angVel, 3], [Bone.vel, 3]] as const) {
        for (let c = 0; c < w; c++) out[k++] = arr[b * w + c]!;
      }
    }
  }
  return out;
}

/** Number of entries that differ (Object.is: -0 and 0 differ, NaN equals NaN). */
function differences(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length);
  let n = 0;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) n++;
  return n;
}

describe('snapshotRig / restoreRig', () => {
  for (const interJoint of ['iterative', 'exact'] as const) {
    it(`resumes the humanoid bit-identically (PhysIK, ${interJoint} joint solve)`, () => {
      const { world, h } = humanoid({ interJoint });
      step(world, 100);
      const snap = snapshotRig(world, h.rig);
      const first = run150(world, h);
      const metricsFirst = readMetrics(world, h.rig);
      // the run after the snapshot really moves (so a bad restore would show)
      const moved = differences(first.subarray(0, first.length / 150), first.subarray(first.length - first.length / 150));
      expect(moved).toBeGreaterThan(100);

      restoreRig(world, h.rig, snap);
      expect(readMetrics(world, h.rig).step).toBe(100);
      const second = run150(world, h);
      expect(differences(first, second)).toBe(0);
      expect(readMetrics(world, h.rig)).toEqual(metricsFirst);
      expect(world.physik.rigs[0]!.scriptCursor).toBe(2);
    });
  }

  it('restores settings changed after the snapshot (same settings object)', () => {
    const { world, h } = humanoid();
    step(world, 100);
    const snap = snapshotRig(world, h.rig);
    const settings = getSettings(world, h.rig);
    const first = run150(world, h);
    restoreRig(world, h.rig, snap);
    setSettings(world, h.rig, { damping: 5, stiffness: 80, capFraction: 0.5 });
    const changed = run150(world, h);
    expect(differences(first, changed)).toBeGreaterThan(1000); // the settings matter
    restoreRig(world, h.rig, snap);
    expect(getSettings(world, h.rig)).toBe(settings);
    expect(settings.damping).toBe(scene.settings.damping);
    expect(differences(first, run150(world, h))).toBe(0);
  });

  it('refuses a snapshot taken before control points were added or removed, changing nothing', () => {
    const { world, h } = humanoid();
    step(world, 50);
    const snap = snapshotRig(world, h.rig);
    step(world, 30);
    const cp = addControlPoint(world, h.rig, { name: 'grab', bone: 'head' });
    const before = snapshotRig(world, h.rig);
    expect(() => restoreRig(world, h.rig, snap)).toThrow(
      /control points changed since the snapshot \(then: "footL", "footR", "handR"; now: "footL", "footR", "handR", "grab"\)/,
    );
    const after = snapshotRig(world, h.rig);
    expect(after).toEqual(before);
    expect(readMetrics(world, h.rig).step).toBe(80);

    removeControlPoint(world, cp);
    removeControlPoint(world, h.controlPoints.footR!);
    expect(() => restoreRig(world, h.rig, snap)).toThrow(/now: "footL", "handR"\)/);
  });

  it('restores once a point added after the snapshot is removed again (the same set)', () => {
    const { world, h } = humanoid();
    step(world, 100);
    const snap = snapshotRig(world, h.rig);
    const first = run150(world, h);
    removeControlPoint(world, addControlPoint(world, h.rig, { name: 'grab', bone: 'head' }));
    expect(world.physik.rigs[0]!.controlPointsVersion).toBe(2);
    restoreRig(world, h.rig, snap);
    expect(differences(first, run150(world, h))).toBe(0);
  });

  it('refuses a snapshot of another rig', () => {
    const { world, h } = humanoid();
    const other = addRig(world, { rig: { ...scene.rig, name: 'second' } });
    const snap = snapshotRig(world, other.rig);
    expect(() => restoreRig(world, h.rig, snap)).toThrow(/the snapshot is of rig \d+ \("second"\), not of this rig/);
    expect(() => snapshotInto(world, h.rig, snap)).toThrow(/holds rig \d+ \("second"\)/);
  });

  it('leaves other rigs of the world alone', () => {
    const { world, h } = humanoid();
    const other = addRig(world, { rig: { ...scene.rig, name: 'second' }, controlPoints: scene.controlPoints, script: scene.script });
    step(world, 40);
    const snap = snapshotRig(world, h.rig);
    step(world, 40);
    const otherBefore = snapshotRig(world, other.rig);
    restoreRig(world, h.rig, snap);
    expect(snapshotRig(world, other.rig)).toEqual(otherBefore);
    expect(readMetrics(world, other.rig).step).toBe(80);
    expect(readMetrics(world, h.rig).step).toBe(40);
  });

  it('snapshotInto reuses the buffers, and restoring from them is as good as a fresh snapshot', () => {
    const { world, h } = humanoid();
    step(world, 20);
    const snap = createSnapshot(world, h.rig);
    const rot = snap.stores.Bone!.rot!;
    const settings = snap.settings;
    step(world, 80);
    expect(snapshotInto(world, h.rig, snap)).toBe(snap);
    expect(snap.stores.Bone!.rot).toBe(rot);
    expect(snap.settings).toBe(settings);
    expect(snap).toEqual(snapshotRig(world, h.rig));
    const first = run150(world, h);
    restoreRig(world, h.rig, snap);
    expect(differences(first, run150(world, h))).toBe(0);

    // a changed control point set re-sizes the ControlPoint buffers (and only those)
    addControlPoint(world, h.rig, { name: 'grab', bone: 'head' });
    snapshotInto(world, h.rig, snap);
    expect(snap.stores.Bone!.rot).toBe(rot);
    expect(snap.stores.ControlPoint!.target!.length).toBe(4 * 3);
    expect(snap.controlPointNames).toEqual(['footL', 'footR', 'handR', 'grab']);
    expect(snap).toEqual(snapshotRig(world, h.rig));
  });

  // Kinematic solvers keep warm-start caches outside the world: resume must work (finite,
  // continues toward the targets), bit-identity is not promised (massSpring and triangle differ).
  for (const solver of ['fabrik', 'ccd', 'dls', 'massSpring', 'triangle']) {
    it(`resumes a kinematic rig (${solver}): finite, and it keeps solving`, () => {
      const { world, h } = humanoid({ solver });
      step(world, 60);
      const snap = snapshotRig(world, h.rig);
      run150(world, h);
      const errFirst = readMetrics(world, h.rig).maxTargetError;
      restoreRig(world, h.rig, snap);
      const second = run150(world, h);
      expect(second.every(Number.isFinite)).toBe(true);
      const m = readMetrics(world, h.rig);
      expect(m.step).toBe(210);
      expect(m.maxTargetError).toBeLessThan(Math.max(2 * errFirst, 0.05 * m.height));
    });
  }
});
