/**
 * The sandbox's browser-free logic: the undo history (order, redo cleared by a new edit, the
 * bound) with real control point edits on a world, and deep-link parsing (what is accepted,
 * what is reported).
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { addRig, createPhysikWorld, readPose, setTarget, step } from '../../src/core';
import { findRig } from '../../src/world/world';
import { parseScene } from '../../src/scene/load';
import { createHistory } from '../../src/app/history';
import { activeEdit, addPointEdit, freshName, moveTargetEdit, removePointEdit, type RigRef } from '../../src/app/edits';
import { readDeepLink } from '../../src/app/deepLink';

const humanoid = parseScene(JSON.parse(readFileSync(new URL('../../scenes/humanoid.json', import.meta.url), 'utf8')));
function load(): RigRef {
  const world = createPhysikWorld();
  const { rig } = addRig(world, { rig: humanoid.rig, controlPoints: humanoid.controlPoints, settings: humanoid.settings, script: humanoid.script });
  return { world, rig };
}
const names = (ref: RigRef) => [...findRig(ref.world, ref.rig).controlPointNames];

describe('undo history of control point edits', () => {
  it('undoes and redoes add, disable, move and delete in order, by name across re-creation', () => {
    const ref = load();
    const h = createHistory();
    const pin = freshName(ref, 'pin');
    expect(pin).toBe('pin1');
    h.run(addPointEdit(ref, { name: pin, bone: 'head', target: [0, 1.8, 0] }));
    h.run(activeEdit(ref, pin, false));
    h.run(moveTargetEdit(ref, pin, [0, 1.8, 0], [0.1, 1.7, 0]));
    h.run(removePointEdit(ref, pin));
    expect(names(ref)).toEqual(['footL', 'footR', 'handR']);
    expect(h.undoLabels).toEqual(['add pin1', 'disable pin1', 'move pin1', 'delete pin1']);
    h.undo(); // re-created under a new entity, as it was when deleted
    const cp = findRig(ref.world, ref.rig).controlPointByName.get(pin)!;
    const { ControlPoint } = ref.world.physik;
    expect(ControlPoint.active[cp]).toBe(0);
    expect(Array.from(ControlPoint.target.slice(cp * 3, cp * 3 + 3))).toEqual([0.1, 1.7, 0]);
    h.undo(); // the move, on the re-created point
    const cp2 = findRig(ref.world, ref.rig).controlPointByName.get(pin)!;
    expect(Array.from(ControlPoint.target.slice(cp2 * 3, cp2 * 3 + 3))).toEqual([0, 1.8, 0]);
    h.undo();
    expect(ControlPoint.active[cp2]).toBe(1);
    h.undo();
    expect(names(ref)).toEqual(['footL', 'footR', 'handR']);
    expect(h.canUndo).toBe(false);
    while (h.canRedo) h.redo();
    expect(names(ref)).toEqual(['footL', 'footR', 'handR']);
    expect(h.undoLabels).toHaveLength(4);
  });

  it('a new edit clears the redo side; the stack is bounded', () => {
    const ref = load();
    const h = createHistory(3);
    const hand = findRig(ref.world, ref.rig).controlPointByName.get('handR')!;
    for (let i = 0; i < 5; i++) {
      const from = Array.from(ref.world.physik.ControlPoint.target.slice(hand * 3, hand * 3 + 3)) as [number, number, number];
      const to: [number, number, number] = [from[0] + 0.01, from[1], from[2]];
      setTarget(ref.world, hand, to);
      h.push(moveTargetEdit(ref, 'handR', from, to));
    }
    expect(h.undoLabels).toHaveLength(3);
    h.undo();
    expect(h.canRedo).toBe(true);
    h.run(activeEdit(ref, 'handR', false));
    expect(h.canRedo).toBe(false);
  });

  it('an edit whose point is gone fails with its name and is dropped, the world untouched', () => {
    const ref = load();
    const h = createHistory();
    h.run(addPointEdit(ref, { name: 'pin1', bone: 'head' }));
    h.run(activeEdit(ref, 'pin1', false));
    // removed behind the history's back
    h.undo();
    h.undo();
    step(ref.world, 5);
    const pose = readPose(ref.world, ref.rig);
    expect(() => h.redo()).not.toThrow(); // re-adds pin1
    h.run(removePointEdit(ref, 'pin1'));
    const stale = activeEdit(ref, 'pin1', true);
    expect(() => stale.redo()).toThrow(/no control point named "pin1"/);
    expect(readPose(ref.world, ref.rig)).toEqual(pose);
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
