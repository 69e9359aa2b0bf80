/**
 * setScript / getScript: a rig's script replaced while it runs. Keys at steps already taken
 * wait for a reset; later ones fire on time; a bad event changes nothing; a key of a point
 * that is gone is skipped when it comes.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { addRig, createPhysikWorld, getScript, resetRig, setScript, step } from '../../../src/core';
import { parseScene } from '../../../src/scene/load';

const humanoid = parseScene(JSON.parse(readFileSync(new URL('../../../scenes/humanoid.json', import.meta.url), 'utf8')));
const load = () => {
  const world = createPhysikWorld();
  const { rig, controlPoints } = addRig(world, { rig: humanoid.rig, controlPoints: humanoid.controlPoints, settings: humanoid.settings });
  return { world, rig, hand: controlPoints.handR! };
};
const targetOf = (w: ReturnType<typeof load>) => Array.from(w.world.physik.ControlPoint.target.slice(w.hand * 3, w.hand * 3 + 3));

describe('setScript', () => {
  it('keys later than now fire on their step; keys already passed fire after a reset', () => {
    const w = load();
    step(w.world, 10);
    setScript(w.world, w.rig, [
      { step: 20, point: 'handR', target: [0.4, 1.3, 0.2] },
      { step: 5, point: 'handR', target: [0.1, 1.0, 0.3] },
    ]);
    expect(getScript(w.world, w.rig).map((e) => e.step)).toEqual([5, 20]);
    const before = targetOf(w);
    step(w.world, 5);
    expect(targetOf(w)).toEqual(before); // the step-5 key has passed: not now
    step(w.world, 10);
    expect(targetOf(w)).toEqual([0.4, 1.3, 0.2]);
    resetRig(w.world, w.rig);
    step(w.world, 6);
    expect(targetOf(w)).toEqual([0.1, 1.0, 0.3]);
  });

  it('a key of a point the rig does not have is skipped', () => {
    const w = load();
    setScript(w.world, w.rig, [{ step: 2, point: 'gone', target: [0, 1, 0] }, { step: 3, point: 'handR', target: [0.2, 1.1, 0] }]);
    step(w.world, 5);
    expect(targetOf(w)).toEqual([0.2, 1.1, 0]);
  });

  it('refuses a bad event and keeps the script it had', () => {
    const w = load();
    setScript(w.world, w.rig, [{ step: 3, point: 'handR', target: [0, 1, 0] }]);
    expect(() => setScript(w.world, w.rig, [{ step: 1.5, point: 'handR' }])).toThrow(/whole number/);
    expect(() => setScript(w.world, w.rig, [{ step: 1, point: '' }])).toThrow(/control point's name/);
    expect(() => setScript(w.world, w.rig, [{ step: 1, point: 'handR', target: [0, NaN, 0] }])).toThrow(/finite/);
    expect(getScript(w.world, w.rig)).toEqual([{ step: 3, point: 'handR', target: [0, 1, 0] }]);
  });
});
