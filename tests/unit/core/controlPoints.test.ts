/**
 * Control points added to and removed from a live rig (the sandbox's pins, grabs and
 * deletes): they pull like scene-defined ones, bad edits are refused with the field named
 * and leave the world unchanged, and every kind of solver copes with the changed set.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import {
  addControlPoint, addRig, createPhysikWorld, describeControlPoint, readMetrics, readPose, removeControlPoint,
  resetRig, setTarget, step, type PhysikWorld,
} from '../../../src/core';
import { parseScene, SceneError } from '../../../src/scene/load';
import { kinematicSolvers } from '../../../systems/ik/registry';
import { allFinite, dist, v3 } from '../../support/helpers';

const humanoid = parseScene(JSON.parse(readFileSync(new URL('../../../scenes/humanoid.json', import.meta.url), 'utf8')));

function load(extra: Record<string, unknown> = {}) {
  const world = createPhysikWorld();
  const h = addRig(world, { rig: humanoid.rig, controlPoints: humanoid.controlPoints, settings: { ...humanoid.settings, ...extra }, script: humanoid.script });
  return { world, ...h };
}

const snapshot = (world: PhysikWorld) => {
  const { Bone, ControlPoint } = world.physik;
  return [Float64Array.from(Bone.rot), Float64Array.from(Bone.head), Float64Array.from(ControlPoint.target)];
};

describe('control points added and removed on a live rig', () => {
  it('an added pin pulls its point to a moved target (PhysIK)', () => {
    const { world, rig } = load();
    const cp = addControlPoint(world, rig, { name: 'elbowPin', bone: 'forearm.L', at: 0 });
    const start = v3(world.physik.ControlPoint.attachment, cp);
    const target: [number, number, number] = [start[0], start[1] + 0.15, start[2] + 0.1];
    setTarget(world, cp, target);
    step(world, 600);
    expect(allFinite(world, world.physik.rigs[0]!.bones)).toBe(true);
    expect(dist(v3(world.physik.ControlPoint.attachment, cp), target)).toBeLessThan(0.02);
    expect(readMetrics(world, rig).targetErrors.elbowPin).toBeLessThan(0.02);
  });

  it('adding after loading gives bit-identical results to the same point in the scene', () => {
    const pin = { name: 'kneePin', bone: 'shin.R', at: 0.5, target: [0.2, 0.5, 0.3] as [number, number, number] };
    const a = load();
    addControlPoint(a.world, a.rig, pin);
    const b = createPhysikWorld();
    addRig(b, { rig: humanoid.rig, controlPoints: [...humanoid.controlPoints, pin], settings: humanoid.settings, script: humanoid.script });
    step(a.world, 200);
    step(b, 200);
    expect(readPose(a.world, a.rig)).toEqual(readPose(b, b.physik.rigs[0]!.eid));
  });

  it('a removed point no longer pulls, and its scripted moves are skipped', () => {
    const { world, rig, controlPoints } = load();
    step(world, 5);
    removeControlPoint(world, controlPoints.handR!);
    step(world, 400);
    const m = readMetrics(world, rig);
    expect(Object.keys(m.targetErrors).sort()).toEqual(['footL', 'footR']);
    // the hand hangs free instead of reaching the scripted target
    const hand = readPose(world, rig)['hand.R']!.tail;
    expect(dist(hand, [-0.35, 1.25, 0.45])).toBeGreaterThan(0.1);
    expect(allFinite(world, world.physik.rigs[0]!.bones)).toBe(true);
    // a reset replays the script without the removed point
    resetRig(world, rig);
    step(world, 3);
    expect(allFinite(world, world.physik.rigs[0]!.bones)).toBe(true);
  });

  it('reset keeps an added point at the target it was added with', () => {
    const { world, rig } = load();
    const cp = addControlPoint(world, rig, { name: 'p', bone: 'head', target: [0, 1.9, 0.2] });
    setTarget(world, cp, [0.3, 1.5, 0]);
    step(world, 10);
    resetRig(world, rig);
    expect(v3(world.physik.ControlPoint.target, cp)).toEqual([0, 1.9, 0.2]);
    expect(describeControlPoint(world, cp)).toMatchObject({ name: 'p', bone: 'head', at: 1, target: [0, 1.9, 0.2], active: true, role: 'goal' });
  });

  it.each([
    [{ name: 'x', bone: 'tail' }, 'new control point.bone: unknown bone "tail"'],
    [{ name: 'handR', bone: 'head' }, 'new control point.name: a control point named "handR" already exists'],
    [{ name: 'x', bone: 'head', target: [0, Number.NaN, 0] }, 'new control point.target[1]'],
    [{ name: 'x', bone: 'head', at: 2 }, 'new control point.at: expected a number <= 1'],
    [{ name: 'x', bone: 'head', stiffnes: 3 }, 'unknown key "stiffnes"'],
  ])('refuses %j with the field named, world unchanged', (bad, message) => {
    const { world, rig } = load();
    step(world, 3);
    const before = snapshot(world);
    const n = world.physik.rigs[0]!.controlPoints.length;
    let error: unknown;
    try { addControlPoint(world, rig, bad as never); } catch (e) { error = e; }
    expect(error).toBeInstanceOf(SceneError);
    expect((error as Error).message).toContain(message);
    expect(world.physik.rigs[0]!.controlPoints.length).toBe(n);
    expect(snapshot(world)).toEqual(before);
  });

  it('removing an unknown entity throws and changes nothing', () => {
    const { world } = load();
    expect(() => removeControlPoint(world, 99999)).toThrow(/no control point with entity id 99999/);
    expect(world.physik.rigs[0]!.controlPoints.length).toBe(3);
  });

  it.each(Object.keys(kinematicSolvers))('the %s solver treats an added goal like a scene goal and survives edits mid-run', (solver) => {
    const goal = { name: 'headGoal', bone: 'head', target: [0.05, 1.75, 0.1] as [number, number, number] };
    // added right after loading: bit-identical to the same goal in the scene (caches rebuilt)
    const a = load({ solver });
    addControlPoint(a.world, a.rig, goal);
    const b = createPhysikWorld();
    const hb = addRig(b, { rig: humanoid.rig, controlPoints: [...humanoid.controlPoints, goal], settings: { ...humanoid.settings, solver }, script: humanoid.script });
    step(a.world, 40);
    step(b, 40);
    expect(readPose(a.world, a.rig)).toEqual(readPose(b, hb.rig));
    // added and removed mid-run: no stale per-rig cache, nothing non-finite
    const { world, rig, controlPoints } = load({ solver });
    step(world, 20);
    addControlPoint(world, rig, goal);
    step(world, 20);
    removeControlPoint(world, controlPoints.footL!);
    addControlPoint(world, rig, { name: 'elbow', bone: 'forearm.L', at: 0 });
    step(world, 20);
    expect(allFinite(world, world.physik.rigs[0]!.bones)).toBe(true);
    expect(Object.keys(readMetrics(world, rig).targetErrors).sort()).toEqual(['elbow', 'footR', 'handR', 'headGoal']);
  });
});
