/**
 * The sandbox's browser-free logic: undo by state (each action restores the pose and
 * velocities before it, redo the ones after; order, redo cleared by a new step, the bound) on
 * a world that steps between actions, and deep-link parsing (what is accepted,
 * what is reported).
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import {
  addControlPoint, addRig, createPhysikWorld, readPose, removeControlPoint, setControlPointActive, setTarget, step,
} from '../../../src/core';
import { findRig } from '../../../src/world/world';
import { parseScene } from '../../../src/scene/load';
import { createHistory } from '../../../src/app/history';
import { createUndoable, freshName, pointNamed, type RigRef } from '../../../src/app/edits';
import { readDeepLink } from '../../../src/app/deepLink';

const humanoid = parseScene(JSON.parse(readFileSync(new URL('../../../scenes/humanoid.json', import.meta.url), 'utf8')));
function load(): RigRef {
  const world = createPhysikWorld();
  const { rig } = addRig(world, { rig: humanoid.rig, controlPoints: humanoid.controlPoints, settings: humanoid.settings, script: humanoid.script });
  return { world, rig };
}
const names = (ref: RigRef) => [...findRig(ref.world, ref.rig).controlPointNames];

describe('undo by state: every action one step restoring pose and velocities', () => {
  const undoable = (ref: RigRef, h = createHistory()) => {
    let feel = 'start';
    const u = createUndoable(ref, h, { extra: () => feel, restoreExtra: (f) => { feel = f; } });
    return { u, h, feel: () => feel, setFeel: (f: string) => { feel = f; } };
  };
  const state = (ref: RigRef) => ({ pose: readPose(ref.world, ref.rig), names: names(ref) });
  const velocities = (ref: RigRef) => Array.from(ref.world.physik.Bone.angVel.slice(0, 3 * 40));

  it('undoes a pin, a disable, a move and a delete in order, each back to the pose before it, and redoes them', () => {
    const ref = load();
    const { u, h } = undoable(ref);
    step(ref.world, 10);
    const seen: ReturnType<typeof state>[] = [state(ref)];
    const pin = freshName(ref, 'pin');
    expect(pin).toBe('pin1');
    u.run(`pin ${pin}`, () => addControlPoint(ref.world, ref.rig, { name: pin, bone: 'head', target: [0.1, 1.8, 0] }));
    step(ref.world, 20);
    seen.push(state(ref));
    u.run(`disable ${pin}`, () => setControlPointActive(ref.world, pointNamed(ref, pin), false));
    step(ref.world, 20);
    seen.push(state(ref));
    u.run(`move ${pin}`, () => setTarget(ref.world, pointNamed(ref, pin), [0.2, 1.7, 0]));
    step(ref.world, 20);
    seen.push(state(ref));
    const vel = velocities(ref);
    u.run(`delete ${pin}`, () => removeControlPoint(ref.world, pointNamed(ref, pin)));
    step(ref.world, 20);
    expect(names(ref)).toEqual(['footL', 'footR', 'handR']);
    expect(h.undoLabels).toEqual(['pin pin1', 'disable pin1', 'move pin1', 'delete pin1']);
    h.undo(); // the point re-created under a new entity, the pose and velocities as they were
    expect(state(ref)).toEqual(seen[3]);
    expect(velocities(ref)).toEqual(vel);
    for (let i = 2; i >= 0; i--) {
      h.undo();
      expect(state(ref)).toEqual(seen[i]);
    }
    expect(h.canUndo).toBe(false);
    h.redo();
    expect(names(ref)).toEqual(['footL', 'footR', 'handR', 'pin1']);
    while (h.canRedo) h.redo();
    expect(names(ref)).toEqual(['footL', 'footR', 'handR']);
    expect(h.undoLabels).toHaveLength(4);
  });

  it('a step in progress (a drag) takes the state when it begins; the host keeps its own part', () => {
    const ref = load();
    const { u, h, feel, setFeel } = undoable(ref);
    const before = state(ref);
    const drag = u.begin('move handR');
    const hand = pointNamed(ref, 'handR');
    for (let i = 0; i < 10; i++) { setTarget(ref.world, hand, [0.3 + 0.01 * i, 1.4, 0.2]); step(ref.world, 2); }
    setFeel('lively');
    drag.commit();
    const after = state(ref);
    step(ref.world, 30);
    h.undo();
    expect(state(ref)).toEqual(before);
    expect(feel()).toBe('start');
    h.redo();
    expect(state(ref)).toEqual(after);
    expect(feel()).toBe('lively');
  });

  it('a new step clears the redo side; the stack is bounded; a refused action records nothing', () => {
    const ref = load();
    const { u, h } = undoable(ref, createHistory(3));
    const hand = pointNamed(ref, 'handR');
    for (let i = 0; i < 5; i++) u.run('move handR', () => setTarget(ref.world, hand, [0.1 * i, 1.2, 0.3]));
    expect(h.undoLabels).toHaveLength(3);
    h.undo();
    expect(h.canRedo).toBe(true);
    expect(() => u.run('move handR', () => setTarget(ref.world, hand, [NaN, 0, 0]))).toThrow();
    expect(h.undoLabels).toHaveLength(2);
    expect(h.canRedo).toBe(true);
    u.run('disable handR', () => setControlPointActive(ref.world, hand, false));
    expect(h.canRedo).toBe(false);
  });
});

describe('deep links', () => {
  it('reads scene, solver, compare and onion', () => {
    expect(readDeepLink('?scene=elbow&solver=ccd&compare=fabrik&onion=4')).toEqual({
      scene: 'elbow', options: { solver: 'ccd', compare: 'fabrik', onion: 4 }, problems: [],
    });
    expect(readDeepLink('')).toEqual({ scene: 'humanoid', options: {}, problems: [] });
    expect(readDeepLink('?compare=none').options).toEqual({});
  });

  it('reports unknown values and applies none of them', () => {
    const r = readDeepLink('?solver=nope&compare=ccd&onion=2.5');
    expect(r.options).toEqual({ compare: 'ccd' });
    expect(r.problems).toEqual([
      expect.stringMatching(/^\?solver=nope: unknown solver \(have: physik, fabrik, ccd/),
      '?onion=2.5: expected a whole number from 0 to 8',
    ]);
  });
});
