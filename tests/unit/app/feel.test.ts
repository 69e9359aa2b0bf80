/**
 * The sandbox's feel knobs (src/app/feel.ts), without a browser: responsiveness scales every
 * control spring and the stiffness setting (damping re-derived from them), liveliness sets the
 * damping ratio of automatic damping, out-of-range values change nothing; which scenes keep
 * their own stiffness and damping; a drag's move skips interpolation where a jump gets it;
 * the deep link's knobs; and, headless, the humanoid's hand after a quick 0.35 m flick.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { addControlPoint, addRig, createPhysikWorld, getSettings, readPose, setTarget, step, type PhysikWorld } from '../../../src/core';
import { findRig } from '../../../src/world/world';
import { parseScene } from '../../../src/scene/load';
import type { Scene } from '../../../src/scene/types';
import { applyFeel, feelForScene, sceneStatesOwnFeel, SANDBOX_FEEL, setTargetNow } from '../../../src/app/feel';
import { readDeepLink } from '../../../src/app/deepLink';

const scene = (name: string): Scene => parseScene(JSON.parse(readFileSync(new URL(`../../../scenes/${name}.json`, import.meta.url), 'utf8')), `${name}.json`);
const humanoid = scene('humanoid');

function load(s: Scene = humanoid): { world: PhysikWorld; rig: number; hand: number } {
  const world = createPhysikWorld();
  const h = addRig(world, { rig: s.rig, controlPoints: s.controlPoints, settings: s.settings, script: s.script });
  return { world, rig: h.rig, hand: h.controlPoints.handR! };
}
const stiffnesses = (world: PhysikWorld, rig: number) => Array.from(findRig(world, rig).controlPoints, (cp) => world.physik.ControlPoint.stiffness[cp]!);

describe('feel knobs', () => {
  it('responsiveness scales every control spring and the setting; damping follows from them', () => {
    const { world, rig } = load();
    const torso = findRig(world, rig).bones[0]!;
    applyFeel(world, rig, { responsiveness: 2, liveliness: 0.5 });
    expect(stiffnesses(world, rig)).toEqual([60, 60, 60]);
    expect(getSettings(world, rig)).toMatchObject({ stiffness: 60, dampingAuto: true, dampingRatio: 0.5 });
    const mass = world.physik.Bone.mass[torso]!;
    expect(world.physik.Bone.damping[torso]).toBeCloseTo(0.5 * Math.sqrt(60 * mass), 12);
    // a point added now takes the scaled setting, and scales with the rest from here
    const pin = addControlPoint(world, rig, { name: 'pin', bone: 'head' });
    expect(world.physik.ControlPoint.stiffness[pin]).toBe(60);
    applyFeel(world, rig, { responsiveness: 4 }, 2);
    expect(stiffnesses(world, rig)).toEqual([120, 120, 120, 120]);
    expect(getSettings(world, rig)).toMatchObject({ stiffness: 120, dampingRatio: 0.5 }); // liveliness untouched
    expect(world.physik.Bone.damping[torso]).toBeCloseTo(0.5 * Math.sqrt(120 * mass), 12);
  });

  it('a value out of range throws and changes nothing', () => {
    const { world, rig } = load();
    const before = { ...getSettings(world, rig) };
    expect(() => applyFeel(world, rig, { responsiveness: 2, liveliness: 1 })).toThrow(/liveliness must be a number from 0 to 0.9/);
    expect(() => applyFeel(world, rig, { responsiveness: 0 })).toThrow(/responsiveness/);
    expect(() => applyFeel(world, rig, { responsiveness: Number.NaN })).toThrow(/responsiveness/);
    expect(getSettings(world, rig)).toEqual(before);
    expect(stiffnesses(world, rig)).toEqual([30, 30, 30]);
  });

  it('a scene keeps its own feel when it sets a stiffness or damping other than the library defaults', () => {
    expect(sceneStatesOwnFeel(humanoid)).toBe(false); // restates the library's damping 20 (the paper's)
    expect(sceneStatesOwnFeel(scene('spiral'))).toBe(true); // damping 2
    const withSettings = (settings: object, controlPoints = humanoid.controlPoints) =>
      parseScene({ ...JSON.parse(readFileSync(new URL('../../../scenes/humanoid.json', import.meta.url), 'utf8')), settings, controlPoints });
    expect(sceneStatesOwnFeel(withSettings({ stiffness: 30, damping: 20 }))).toBe(false);
    expect(sceneStatesOwnFeel(withSettings({}))).toBe(false);
    expect(sceneStatesOwnFeel(withSettings({ stiffness: 50 }))).toBe(true);
    expect(sceneStatesOwnFeel(withSettings({ dampingRatio: 0.5 }))).toBe(true);
    const points = humanoid.controlPoints.map((cp) => (cp.name === 'handR' ? { ...cp, stiffness: 10 } : cp));
    expect(sceneStatesOwnFeel(withSettings({}, points))).toBe(true);
    expect(feelForScene(scene('spiral'), { ...SANDBOX_FEEL })).toEqual({ responsiveness: null, liveliness: null });
    expect(feelForScene(scene('spiral'), { ...SANDBOX_FEEL }, { liveliness: 0.2 })).toEqual({ responsiveness: null, liveliness: 0.2 });
    expect(feelForScene(humanoid, { responsiveness: 3, liveliness: 0.1 })).toEqual({ responsiveness: 3, liveliness: 0.1 });
  });

  it("a drag's move takes effect at once where the same jump is interpolated; the rig's setting is kept", () => {
    const a = load(), b = load();
    step(a.world, 100); step(b.world, 100);
    const { ControlPoint } = a.world.physik;
    const t = Array.from(ControlPoint.target.slice(a.hand * 3, a.hand * 3 + 3));
    const to = [t[0]!, t[1]! - 0.35, t[2]!];
    setTarget(a.world, a.hand, to);
    expect(ControlPoint.interpSteps[a.hand]).toBe(getSettings(a.world, a.rig).interpolationSteps); // a jump: interpolated
    setTargetNow(b.world, b.hand, to);
    const B = b.world.physik.ControlPoint;
    expect(B.interpSteps[b.hand]).toBe(0);
    expect(Array.from(B.effective.slice(b.hand * 3, b.hand * 3 + 3))).toEqual(to);
    expect(getSettings(b.world, b.rig).interpolation).toBe(getSettings(a.world, a.rig).interpolation);
    expect(() => setTargetNow(b.world, b.hand, [0, Number.NaN, 0])).toThrow(/finite/);
    expect(getSettings(b.world, b.rig).interpolation).toBe('polar-com');
  });

  it('the deep link carries the knobs and reports bad ones', () => {
    expect(readDeepLink('?responsiveness=2&liveliness=0.3')).toEqual({ scene: 'humanoid', options: { responsiveness: 2, liveliness: 0.3 }, problems: [] });
    const bad = readDeepLink('?responsiveness=0&liveliness=x');
    expect(bad.options).toEqual({});
    expect(bad.problems).toEqual([
      '?responsiveness=0: responsiveness must be a number from 0.25 to 10',
      '?liveliness=x: liveliness must be a number from 0 to 0.9',
    ]);
  });

  it("headless: after a quick 0.35 m flick the hand's tip stays within 2 cm from 1.5 s on with the sandbox's knobs, not with the scene's own", () => {
    /** Simulated seconds from the flick's start until the tip stays within 2 cm (6 moves over 0.1 s, a drag's). */
    const reach = (feel: boolean, dir: [number, number, number]) => {
      const r = load();
      if (feel) applyFeel(r.world, r.rig, SANDBOX_FEEL);
      step(r.world, 200);
      const C = r.world.physik.ControlPoint;
      const t = Array.from(C.target.slice(r.hand * 3, r.hand * 3 + 3));
      const dt = getSettings(r.world, r.rig).dt;
      let last = 0;
      for (let s = 1; s <= 100; s++) {
        // the pointer moves that fall in this step (60 a second, 6 of them)
        for (let f = Math.ceil(((s - 1) * dt) * 60); f < Math.min(6, s * dt * 60); f++) {
          const k = (f + 1) / 6;
          setTargetNow(r.world, r.hand, [t[0]! + 0.35 * k * dir[0], t[1]! + 0.35 * k * dir[1], t[2]! + 0.35 * k * dir[2]]);
        }
        step(r.world, 1);
        const tip = readPose(r.world, r.rig)['hand.R']!.tail;
        if (Math.hypot(tip[0] - C.target[r.hand * 3]!, tip[1] - C.target[r.hand * 3 + 1]!, tip[2] - C.target[r.hand * 3 + 2]!) > 0.02) last = s;
      }
      return last * dt;
    };
    for (const dir of [[0, -1, 0], [0, 1, 0], [-1, 0, 0], [0, 0, -1]] as [number, number, number][]) {
      expect(reach(true, dir), `flick toward ${dir}`).toBeLessThanOrEqual(1.5);
    }
    expect(reach(false, [0, 1, 0])).toBeGreaterThan(1.5);
  });
});
