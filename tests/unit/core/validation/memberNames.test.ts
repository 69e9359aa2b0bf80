/**
 * Names that are members of every JavaScript object (`__proto__`, `constructor`, `toString`,
 * `hasOwnProperty`) are names like any other: a rig whose bones and control points are called
 * that loads, runs and reports exactly as the same rig with plain names. Before, a bone or
 * point named `__proto__` vanished from the pose and the target errors (assigning it to a
 * plain object set the object's prototype), a parent named `toString` or `constructor` made
 * `bendVariation` NaN for every solver (an absent entry read the inherited function), and an
 * `expect` block keyed `__proto__` was dropped by the parser, so its check passed unchecked.
 */
import { describe, expect, it } from 'vitest';
import { addRig, createPhysikWorld, readMetrics, readPose, setTarget, step } from '../../../../src/core';
import { parseSceneText } from '../../../../src/scene/load';
import { checkExpect, runScene, type RunSummary } from '../../../../src/scene/run';
import { settingEnums, settingRanges } from '../../../../src/core/settings';
import type { Scene } from '../../../../src/scene/types';

const MEMBERS = ['__proto__', 'constructor', 'toString', 'hasOwnProperty'];
const PLAIN = ['b0', 'b1', 'b2', 'b3'];

/**
 * A four-bone chain with a goal at its tip and one on its second bone, as scene-file text (an
 * object literal cannot hold an own `__proto__` key: the text can). `names` name the bones
 * root first, and the points too: the tip's point is called as the root, the other as the
 * bone it sits on.
 */
function chainText(names: string[], extra: Record<string, unknown> = {}): string {
  const [a, b, c, d] = names as [string, string, string, string];
  const bone = (name: string, parent: string | null, direction: number[]) => ({ name, parent, direction, length: 0.5 });
  return JSON.stringify({
    name: 'members',
    rig: { name: 'chain', bones: [bone(a, null, [0, 1, 0]), bone(b, a, [0, 1, 0]), bone(c, b, [1, 1, 0]), bone(d, c, [1, 0, 0])] },
    controlPoints: [{ name: a, bone: d, target: [0.6, 1.2, 0.2] }, { name: b, bone: b, target: [0.1, 0.9, 0] }],
    script: [{ step: 20, point: a, target: [0.3, 1.4, 0.3] }],
    steps: 60,
    ...extra,
  });
}
const load = (names: string[], extra: Record<string, unknown> = {}) => parseSceneText(chainText(names, extra), 'members.json');

/** A summary with its name-keyed parts renamed from `from` to `to`, through JSON as the CLI prints it. */
function renamed(summary: RunSummary, from: string[], to: string[]): unknown {
  const json = JSON.parse(JSON.stringify({ ...summary, msPerStep: 0, msPerStepSteady: 0, msPerStepMedian: 0, msPerSolve: 0 })) as Record<string, Record<string, unknown>>;
  const rename = (o: Record<string, unknown>) => {
    const out: [string, unknown][] = Object.entries(o).map(([k, v]) => [to[from.indexOf(k)] ?? k, v]);
    return Object.fromEntries(out);
  };
  return { ...json, pose: rename(json.pose!), targetErrors: rename(json.targetErrors!) };
}

describe('names that are members of every object', () => {
  it('the pose, target errors and handle keep every name, and targets move by them', () => {
    const scene = load(MEMBERS);
    const world = createPhysikWorld();
    const handle = addRig(world, { rig: scene.rig, controlPoints: scene.controlPoints, settings: scene.settings, script: scene.script });
    expect(Object.keys(handle.bones)).toEqual(MEMBERS);
    expect(Object.keys(handle.controlPoints)).toEqual(['__proto__', 'constructor']);
    expect(handle.controlPoints.toString).toBeUndefined(); // no inherited members to mistake for an entity
    step(world, 10);
    const pose = readPose(world, handle.rig);
    expect(Object.keys(pose)).toEqual(MEMBERS);
    const printed = JSON.parse(JSON.stringify(pose)) as Record<string, { head: number[] }>;
    expect(Object.hasOwn(printed, '__proto__')).toBe(true);
    expect(printed['__proto__']!.head).toEqual(pose['__proto__']!.head);
    expect(pose['__proto__']!.head.every(Number.isFinite)).toBe(true);
    // the point on `constructor` moves when its target is set by name
    setTarget(world, handle.controlPoints['constructor']!, [0.4, 0.4, 0.4]);
    step(world, 1);
    const errors = readMetrics(world, handle.rig).targetErrors;
    expect(Object.keys(errors)).toEqual(['__proto__', 'constructor']);
    expect(errors['constructor']).toBeGreaterThan(0.3);
  });

  it('a rig named with them runs exactly as the same rig with plain names, for every solver', () => {
    for (const solver of settingEnums.solver!) {
      const members = runScene({ ...load(MEMBERS), settings: { ...load(MEMBERS).settings, solver } });
      const plain = runScene({ ...load(PLAIN), settings: { ...load(PLAIN).settings, solver } });
      expect(Number.isFinite(members.bendVariation), solver).toBe(true);
      expect(members.bendVariation, solver).toBeGreaterThan(0);
      expect(renamed(members, MEMBERS, PLAIN), solver).toEqual(renamed(plain, PLAIN, PLAIN));
      // parents named toString, constructor and hasOwnProperty (the bone order shifted)
      const shifted = ['toString', 'constructor', 'hasOwnProperty', '__proto__'];
      const other = runScene({ ...load(shifted), settings: { ...load(shifted).settings, solver } });
      expect(renamed(other, shifted, PLAIN), solver).toEqual(renamed(plain, PLAIN, PLAIN));
    }
  });

  it('an expect block keyed by them is kept and checked', () => {
    // a target range no run meets: the check must fail, not vanish
    const text = chainText(MEMBERS).replace(/}$/, ', "expect": {"targets": {"__proto__": {"max": -1}}, "metrics": {"targetErrors.__proto__": {"max": -1}, "targetErrors.constructor": {"min": 0}}}}');
    const impossible = parseSceneText(text, 'members.json');
    expect(Object.keys(impossible.expect!.targets!)).toEqual(['__proto__']);
    expect(Object.keys(impossible.expect!.metrics!)).toEqual(['targetErrors.__proto__', 'targetErrors.constructor']);
    const summary = runScene(impossible);
    const result = checkExpect(impossible, summary);
    expect(result.checks.map((c) => [c.what, c.ok])).toEqual([
      ['metric targetErrors.__proto__', false],
      ['metric targetErrors.constructor', true],
      ['target __proto__', false],
    ]);
    expect(result.ok).toBe(false);
    // and one the run meets passes, with the error the run measured
    const met = parseSceneText(chainText(MEMBERS).replace(/}$/, ', "expect": {"targets": {"__proto__": {"min": 0}}}}'), 'members.json');
    const checks = checkExpect(met, summary).checks;
    expect(checks).toHaveLength(1);
    expect(checks[0]!.ok).toBe(true);
    expect(checks[0]!.detail).toContain(`${summary.targetErrors['__proto__']} in [0, inf]`);
  });

  it('as metric names they are unknown, not the summary\'s inherited members', () => {
    for (const metric of ['constructor', 'toString', 'targetErrors.toString', 'pose.valueOf.head.0']) {
      expect(() => load(PLAIN, { expect: { metrics: { [metric]: { min: 0 } } } }), metric).toThrow(/members\.json: expect\.metrics/);
    }
  });

  it('the settings tables answer only for settings', () => {
    for (const name of MEMBERS) {
      expect(settingEnums[name], name).toBeUndefined();
      expect(settingRanges[name], name).toBeUndefined();
    }
    expect(() => load(PLAIN, { settings: { constructor: 1 } })).toThrow('members.json: settings.constructor: unknown key "constructor"');
  });

  it('crowd copies wander by a point named __proto__', () => {
    const scene: Scene = load(MEMBERS, { crowd: { count: 2, point: '__proto__' } });
    const summary = runScene(scene, { steps: 5 });
    expect(summary.crowd!.rigs).toBe(2);
    expect(summary.crowd!.finite).toBe(true);
  });
});
