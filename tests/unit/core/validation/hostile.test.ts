/**
 * Hostile scene input the validation used to hang on or let through (beside the catalogue in
 * bad-input.test.ts, in its style): each input is refused with `file: json.path: expected ...,
 * got ...`, and the live world next to it stays bit-identical.
 *
 * - nesting: 100,000 levels of arrays (a 200 KB file) under `limits` or `settings` took about
 *   two minutes to refuse (every level copied the path so far); they are refused at level 33
 *   now, by the file, the plugin API and the live `setSettings`/`addControlPoint`. A timeout
 *   cannot stop synchronous work in this process, so one case runs `physik validate` in a
 *   process of its own, killed if it runs past its limit.
 * - expectations `validate` passed and the run refused only after all its steps (an unknown
 *   metric, a pole's target error), and crowds whose copies the run then refused as an
 *   internal `rigs[0] (rig "arm#0")` path;
 * - zod's own "Too big: expected int to be <=9007199254740991", and duplicate keys in a scene
 *   file (JSON.parse keeps the last one silently).
 */
import { describe, expect, it, beforeAll } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { getAllEntities } from 'bitecs';
import { addControlPoint, addRig, createPhysikWorld, setSettings, step, type PhysikWorld } from '../../../../src/core';
import { parseScene, parseSceneText, SceneError, validateScene } from '../../../../src/scene/load';
import { loadSceneFile } from '../../../../src/scene/loadFile';
import { checkMagnitudes, MAX_DEPTH, SUMMARY_METRICS, CROWD_METRICS } from '../../../../src/core/validation/check';
import { runScene, summaryMetric } from '../../../../src/scene/run';

const tmp = mkdtempSync(join(tmpdir(), 'physik-bad-validation-'));
const DEEP = 100_000;

const bone = (name: string, parent: string | null, extra: Record<string, unknown> = {}) => ({ name, parent, direction: [0, 1, 0], length: 1, ...extra });
function arm(): any {
  return {
    name: 'arm',
    rig: { name: 'arm', bones: [bone('upper', null), bone('lower', 'upper', { direction: [1, 0, 0], length: 0.8, limits: { z: [-90, 0] } })] },
    controlPoints: [{ name: 'hand', bone: 'lower', target: [1, 1, 0] }, { name: 'pole', bone: 'upper', role: 'pole', target: [0, 1, 1] }],
    settings: { dt: 0.02 },
    script: [{ step: 10, point: 'hand', target: [0.5, 1.5, 0] }],
  };
}
const broken = (edit: (s: any) => void) => {
  const s = arm();
  edit(s);
  return s;
};
/** `depth` arrays, each the only item of the one outside it, around `inner`. */
function nested(depth: number, inner: unknown = 1): unknown {
  let v = inner;
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}
/** The arm's JSON text with the quoted `needle` replaced by raw text. */
const armText = (edit: (s: any) => void, needle: string, raw: string) => JSON.stringify(broken(edit), null, 2).replace(`"${needle}"`, raw);

/** Every store field as bytes, the rigs' records and the entities: what a refusal must not change. */
function stateOf(world: PhysikWorld) {
  const stores: Record<string, string> = {};
  for (const [name, store] of Object.entries(world.physik)) {
    if (!store || typeof store !== 'object' || Array.isArray(store)) continue;
    for (const [field, value] of Object.entries(store as Record<string, unknown>)) {
      const arr = Array.isArray(value) ? Float64Array.from(value as number[]) : value;
      if (ArrayBuffer.isView(arr)) stores[`${name}.${field}`] = Buffer.from(arr.buffer, arr.byteOffset, arr.byteLength).toString('base64');
    }
  }
  const rigs = world.physik.rigs.map((r) => ({
    name: r.name, settings: { ...r.settings }, controlPointNames: [...r.controlPointNames], controlPoints: Array.from(r.controlPoints),
    scriptCursor: r.scriptCursor, limitScaleKey: r.limitScaleKey, defaultCap: r.defaultCap,
  }));
  return { stores, rigs, entities: Array.from(getAllEntities(world)) };
}

function errorOf(fn: () => unknown): Error {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(Error);
    return e as Error;
  }
  throw new Error('expected an error, but the input was accepted');
}

describe('hostile scene input is refused early and clearly', () => {
  let world: PhysikWorld;
  let rig: number;
  let before: ReturnType<typeof stateOf>;

  beforeAll(() => {
    const scene = parseScene(arm());
    world = createPhysikWorld();
    rig = addRig(world, { rig: scene.rig, controlPoints: scene.controlPoints, settings: scene.settings, script: scene.script }).rig;
    step(world, 20);
    before = stateOf(world);
  });

  /**
   * The scene refused by the object API, the text API, a file and addRig (a scene too deep for
   * JSON.stringify by the object API and addRig only); the world untouched.
   */
  function refused(scene: unknown, text: string | undefined, fragments: string[], viaAddRig = true) {
    const file = join(tmp, 'scene.json');
    let content = text;
    try {
      content ??= JSON.stringify(scene);
    } catch {
      // nested past the JavaScript stack: its text form is tested on its own
    }
    const errors: Error[] = [];
    if (content !== undefined) {
      writeFileSync(file, content);
      errors.push(errorOf(() => loadSceneFile(file)), errorOf(() => parseSceneText(content, file)));
    }
    if (text === undefined) errors.push(errorOf(() => parseScene(scene, file)));
    for (const e of errors) {
      expect(e).toBeInstanceOf(SceneError);
      // the first fragment follows the file's name; the others anywhere
      expect(e.message).toContain(`${file}: ${fragments[0]}`);
      for (const f of fragments.slice(1)) expect(e.message).toContain(f);
      expect(e.message).not.toMatch(/\n\s+at /);
    }
    if (viaAddRig && text === undefined) {
      const s = scene as Record<string, unknown>;
      const e = errorOf(() => addRig(world, { rig: s.rig, controlPoints: s.controlPoints, settings: s.settings, script: s.script } as never));
      expect(e).toBeInstanceOf(SceneError);
      for (const f of fragments) expect(e.message).toContain(f);
    }
    expect(stateOf(world)).toEqual(before);
    return errors[0]!.message;
  }

  describe('nesting deeper than any scene', () => {
    const levels = `nested at most ${MAX_DEPTH} levels deep`;
    /** The path from a container at `level` (the scene is 1) down to the array at level 33. */
    const zeros = (level: number) => '[0]'.repeat(MAX_DEPTH + 1 - level);

    it('100,000 levels of arrays under limits, as a 200 KB file', { timeout: 10_000 }, () => {
      const text = armText((s) => (s.rig.bones[1].limits = 'DEEP'), 'DEEP', `${'['.repeat(DEEP)}${']'.repeat(DEEP)}`);
      expect(text.length).toBeGreaterThan(200_000);
      const message = refused(undefined, text, [`rig.bones[1].limits${zeros(5)}: expected arrays and objects ${levels}, got an array at level 33 (line `]);
      expect(message.split('\n')).toHaveLength(1);
    });

    it('physik validate refuses the 200 KB file within its time limit (a process that can be stopped)', { timeout: 20_000 }, () => {
      // the checks above run in this process, where a timeout cannot stop synchronous work;
      // here the old two minutes would end in the kill, not in a slow pass
      const file = join(tmp, 'deep.json');
      writeFileSync(file, armText((s) => (s.settings = 'DEEP'), 'DEEP', `${'['.repeat(DEEP)}${']'.repeat(DEEP)}`));
      const r = spawnSync(process.execPath, [join(__dirname, '../../../../bin/physik.mjs'), 'validate', file], { encoding: 'utf8', timeout: 15_000 });
      expect(r.signal).toBeNull();
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(`${file}: settings${zeros(2)}: expected arrays and objects ${levels}, got an array at level 33 (line `);
    });

    it('100,000 levels of arrays under limits, as an object', { timeout: 10_000 }, () => {
      refused(broken((s) => (s.rig.bones[1].limits = nested(DEEP))), undefined, [`rig.bones[1].limits${zeros(5)}: expected arrays and objects ${levels}, got an array at level 33`]);
    });

    it('100,000 levels of arrays as the settings, and as one setting', { timeout: 10_000 }, () => {
      refused(broken((s) => (s.settings = nested(DEEP))), undefined, [`settings${zeros(2)}: expected arrays and objects ${levels}`]);
      refused(broken((s) => (s.settings = { dt: nested(DEEP) })), undefined, [`settings.dt${zeros(3)}: expected arrays and objects ${levels}`]);
      const text = armText((s) => (s.settings.dt = 'DEEP'), 'DEEP', `${'['.repeat(DEEP)}${']'.repeat(DEEP)}`);
      refused(undefined, text, [`settings.dt${zeros(3)}: expected arrays and objects ${levels}, got an array at level 33 (line `]);
    });

    it('objects nested 100,000 deep in an expect block', { timeout: 10_000 }, () => {
      let v: unknown = { min: 0 };
      for (let i = 0; i < DEEP; i++) v = { max: v };
      refused(broken((s) => (s.expect = { metrics: { kineticEnergy: v } })), undefined, ['expect.metrics.kineticEnergy.max.max', `got an object at level 33`], false);
    });

    it('the live API: setSettings and addControlPoint refuse it and change nothing', { timeout: 10_000 }, () => {
      const e = errorOf(() => setSettings(world, rig, { damping: nested(DEEP) } as never));
      expect(e).toBeInstanceOf(SceneError);
      expect(e.message).toContain(`rig "arm": settings.damping${zeros(3)}: expected arrays and objects ${levels}, got an array at level 33`);
      const e2 = errorOf(() => setSettings(world, rig, nested(DEEP) as never));
      expect(e2.message).toContain(`rig "arm": settings${zeros(2)}: expected arrays`);
      const e3 = errorOf(() => addControlPoint(world, rig, { name: 'pin', bone: 'upper', offset: nested(DEEP) } as never));
      expect(e3).toBeInstanceOf(SceneError);
      expect(e3.message).toContain(`rig "arm": new control point.offset${zeros(4)}: expected arrays and objects ${levels}`);
      expect(stateOf(world)).toEqual(before);
    });

    it('the deepest legal scene still loads (limits at level 6, far from the bound)', () => {
      expect(parseScene(arm()).rig.bones[1]!.limits).toEqual({ z: [-90, 0] });
      // a value 32 levels deep is read (the schema refuses its type, not its depth)
      const e = errorOf(() => parseScene(broken((s) => (s.rig.bones[1].limits = { z: nested(MAX_DEPTH - 6) }))));
      expect(e.message).not.toContain('levels deep');
      expect(e.message).toContain('rig.bones[1].limits.z: expected "free" or [minDeg, maxDeg]');
    });

    it('a value that contains itself, or shares parts many times, through the API', { timeout: 10_000 }, () => {
      // a cycle: the old walk went round it forever
      const cyclic: any = { dt: 0.02 };
      cyclic.self = cyclic;
      const e = errorOf(() => setSettings(world, rig, cyclic));
      expect(e.message).toContain('rig "arm": settings.self: expected plain data, got an object that contains itself');
      // 2^30 paths through 31 shared arrays (2^28 in a control point): each array walked once
      let shared: unknown = [1];
      for (let i = 0; i < 30; i++) shared = [shared, shared];
      expect(checkMagnitudes({ offset: shared })).toEqual([]);
      shared = [1];
      for (let i = 0; i < 28; i++) shared = [shared, shared];
      const e2 = errorOf(() => addControlPoint(world, rig, { name: 'pin', bone: 'upper', offset: shared } as never));
      expect(e2.message).toContain('new control point.offset: expected [x, y, z] (3 numbers), got an array of 2 items');
      expect(stateOf(world)).toEqual(before);
    });
  });

  describe('expectations validate refuses before any run', () => {
    it('an unknown metric name', () => {
      const message = refused(broken((s) => (s.expect = { metrics: { kineticEnergie: { max: 1 } } })), undefined, [
        'expect.metrics.kineticEnergie: expected a metric of the run\'s summary (steps, converged,', 'got "kineticEnergie"',
      ], false);
      expect(message).toContain('targetErrors.<goal control point>');
    });

    it('an unknown metric to compare, a non-numeric one, and built-in member names', () => {
      const compare = (metric: string) => broken((s) => (s.expect = { compare: [{ name: 'c', metric, variant: { settings: { dt: 0.01 } }, relation: 'less' }] }));
      refused(compare('speed'), undefined, ['expect.compare[0].metric: expected a metric of the run\'s summary', 'got "speed"'], false);
      refused(compare('status'), undefined, ['expect.compare[0].metric: expected a metric', 'got "status"'], false);
      refused(compare('constructor'), undefined, ['expect.compare[0].metric: expected a metric', 'got "constructor"'], false);
      refused(compare('passesPerStep.toString'), undefined, ['expect.compare[0].metric: expected a metric', 'got "passesPerStep.toString"'], false);
      const text = JSON.stringify(broken((s) => (s.expect = { metrics: { PROTO: { max: 1 } } }))).replace('"PROTO"', '"__proto__"');
      refused(undefined, text, ['expect.metrics.__proto__: expected a metric of the run\'s summary', 'got "__proto__"']);
    });

    it('target errors of unknown points and of poles, crowd metrics without a crowd', () => {
      refused(broken((s) => (s.expect = { metrics: { 'targetErrors.foot': { max: 1 } } })), undefined, ['expect.metrics["targetErrors.foot"]: unknown control point "foot" (known: hand, pole)'], false);
      refused(broken((s) => (s.expect = { targets: { pole: { max: 1 } } })), undefined, ['expect.targets.pole: expected a goal control point, got pole "pole"'], false);
      refused(broken((s) => (s.expect = { metrics: { 'crowd.rigs': { min: 1 } } })), undefined, ['expect.metrics["crowd.rigs"]: expected a crowd block for the crowd metric "crowd.rigs", got none'], false);
      refused(broken((s) => (s.expect = { metrics: { 'pose.lower.local.4': { min: 1 } } })), undefined, ['expect.metrics["pose.lower.local.4"]: expected pose.<bone>.local.<0-3>'], false);
      refused(broken((s) => (s.expect = { metrics: { 'pose.hand.head.0': { min: 1 } } })), undefined, ['expect.metrics["pose.hand.head.0"]: unknown bone "hand"'], false);
    });

    it('every metric it accepts is one the run reports, and the other way round', () => {
      const scene = parseScene(broken((s) => (s.crowd = { count: 2 })));
      const summary = runScene(scene, { steps: 3 });
      const leaves: string[] = [];
      const walk = (v: unknown, at: string) => {
        if (typeof v === 'number' || typeof v === 'boolean' || v === null) leaves.push(at);
        else if (v && typeof v === 'object' && !Array.isArray(v)) for (const [k, x] of Object.entries(v)) walk(x, at ? `${at}.${k}` : k);
      };
      const { pose, targetErrors, crowd, ...rest } = summary;
      walk(rest, '');
      expect(leaves.sort()).toEqual([...SUMMARY_METRICS].sort());
      expect(Object.keys(crowd!).sort()).toEqual([...CROWD_METRICS].sort());
      expect(Object.keys(pose)).toEqual(['upper', 'lower']);
      expect(Object.keys(targetErrors)).toEqual(['hand']);
      const named = [...SUMMARY_METRICS, ...CROWD_METRICS.map((m) => `crowd.${m}`), 'targetErrors.hand', 'pose.lower.tail.2', 'pose.upper.local.3'];
      const metrics = Object.fromEntries(named.map((m) => [m, {}]));
      const checked = parseScene(broken((s) => { s.crowd = { count: 2 }; s.expect = { metrics }; }));
      for (const m of named) expect(Number.isNaN(summaryMetric(summary, m)) || Number.isFinite(summaryMetric(summary, m)), m).toBe(true);
      expect(summaryMetric(summary, 'pose.lower.tail.2')).toBe(summary.pose.lower!.tail[2]);
      expect(Object.keys(checked.expect!.metrics!)).toEqual(named);
    });
  });

  describe('crowds whose copies the run would refuse', () => {
    it('spacing and radius of 1e300 are refused at their own path', () => {
      refused(broken((s) => (s.crowd = { count: 4, spacing: 1e300 })), undefined, ['crowd.spacing: expected a number from -1e9 to 1e9 (larger ones overflow the simulation), got 1e+300'], false);
      refused(broken((s) => (s.crowd = { count: 4, radius: 1e300 })), undefined, ['crowd.radius: expected a number from -1e9 to 1e9 (larger ones overflow the simulation), got 1e+300'], false);
    });

    it('a spacing or radius within ±1e9 that puts copies beyond it names the field and the bound, and the bound runs', () => {
      const spacing = refused(broken((s) => (s.crowd = { count: 100, spacing: 2e8 })), undefined, ['crowd.spacing: expected at most 99900000 for 100 copies', 'got 200000000'], false);
      expect(spacing).not.toContain('rigs[');
      const radius = refused(broken((s) => (s.crowd = { count: 4, radius: 9e8 })), undefined, ['crowd.radius: expected a wander radius of at most ', 'got 900000000'], false);
      const most = Number(/at most (\S+) /.exec(radius)![1]);
      // the bounds stated are accepted, and a run of those crowds builds every copy
      for (const crowd of [{ count: 100, spacing: 9.99e7 }, { count: 4, radius: most }]) {
        const scene = parseScene(broken((s) => (s.crowd = crowd)));
        expect(runScene(scene, { steps: 1 }).crowd!.rigs).toBe(crowd.count);
      }
    });
  });

  describe('messages in the house style', () => {
    it('integers beyond the safe range: no raw zod text', () => {
      for (const [edit, path] of [
        [(s: any) => (s.steps = 1e300), 'steps'],
        [(s: any) => (s.script[0].step = 1e300), 'script[0].step'],
        [(s: any) => (s.crowd = { count: 2, seed: -1e300 }), 'crowd.seed'],
        [(s: any) => (s.settings.maxPasses = 1e300), 'settings.maxPasses'],
      ] as const) {
        const e = errorOf(() => parseScene(broken(edit), 'f.json'));
        expect(e.message).not.toMatch(/Too (big|small)|expected int to be/);
        expect(e.message).toMatch(new RegExp(`f\\.json: ${path.replace(/[.[\]]/g, '\\$&')}: expected a whole number [<>]= -?9007199254740991, got -?1e\\+300`));
      }
    });

    it('a key given twice in one object names both lines', () => {
      const text = JSON.stringify(arm(), null, 2).replace('"length": 0.8', '"length": 0.8,\n          "length": 8');
      const lines = text.split('\n');
      const first = lines.findIndex((l) => l.includes('"length": 0.8')) + 1;
      const column = (line: number) => lines[line - 1]!.indexOf('"length"') + 1;
      const message = refused(undefined, text, [
        `rig.bones[1].length: expected each key once in an object, got "length" again at line ${first + 1}, column ${column(first + 1)} (first at line ${first}, column ${column(first)}; JSON would keep only the last)`,
      ]);
      expect(message.split('\n')).toHaveLength(1);
      // at the top level, with an escaped spelling of the same key, and beside other problems
      const top = `{"name": "a", "rig": ${JSON.stringify(arm().rig)}, "n\\u0061me": "b", "steps": -1}`;
      const e = errorOf(() => parseSceneText(top, 'top.json'));
      expect(e.message).toContain('top.json: name: expected each key once in an object, got "name" again at line 1, column ');
      expect(e.message).toContain('top.json: steps: expected a number >= 0, got -1');
      // the same key in two objects is no duplicate
      expect(parseSceneText(JSON.stringify(arm()), 'ok.json').controlPoints).toHaveLength(2);
    });

    it('many duplicate keys are listed up to 20 and counted beyond; text that is not JSON gets its syntax error', () => {
      const many = `{"name": "a", ${'"x": 1, '.repeat(1000)}"rig": ${JSON.stringify(arm().rig)}}`;
      const e = errorOf(() => parseSceneText(many, 'many.json')) as SceneError;
      const duplicates = e.issues.filter((i) => i.message.startsWith('expected each key once'));
      expect(duplicates).toHaveLength(21);
      expect(duplicates[20]).toEqual({ path: '(root)', message: 'expected each key once in an object, got 979 more keys given twice (not listed)' });
      for (const text of ['{"a": 1, "a": 2', ']]],,,{"a":', '{"a\\q": 1, "a\\q": 2}']) {
        const syntax = errorOf(() => parseSceneText(text, 'bad.json'));
        expect(syntax.message).toMatch(/^bad\.json: \(root\): invalid JSON at line 1, column \d+/);
        expect(syntax.message).not.toContain('each key once');
      }
    });

    it('a huge object in a message is cut short', () => {
      const many = Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`k${i}`, { x: i }]));
      const e = errorOf(() => parseScene(broken((s) => (s.rig.bones[0].direction = many)), 'f.json'));
      expect(e.message).toContain('rig.bones[0].direction: expected [x, y, z] (3 numbers), got an object with keys k0, k1,');
      expect(e.message).toContain('... (50000 keys)');
      expect(e.message.length).toBeLessThan(500);
    });

    it('an object of 100,000 unknown keys, and 100,000 bad control points, give a message of a few lines', () => {
      // each unknown key's line lists the allowed keys: a million of them made a message too long for V8
      const settings = Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`k${i}`, 1]));
      const e = errorOf(() => parseScene(broken((s) => (s.settings = settings)), 'f.json')) as SceneError;
      expect(e.issues).toHaveLength(21);
      expect(e.issues[0]!.path).toBe('settings.k0');
      expect(e.issues[20]).toEqual({ path: 'settings', message: expect.stringMatching(/^99980 more unknown keys \(not listed; allowed: dt, damping,/) });
      const points = Array.from({ length: 100_000 }, (_, i) => ({ name: `p${i}`, bone: 'nope' }));
      const e2 = errorOf(() => parseScene(broken((s) => (s.controlPoints = points)), 'f.json')) as SceneError;
      expect(e2.issues).toHaveLength(201);
      expect(e2.issues[0]!.message).toBe('unknown bone "nope" (known: upper, lower)');
      expect(e2.issues[200]).toEqual({ path: '(root)', message: '99801 more problems (not listed)' }); // and the script's point, gone
    });

    it('every issue of a valid-but-bad scene is reported at once (validateScene)', () => {
      const r = validateScene(broken((s) => { s.steps = 1e300; s.expect = { metrics: { nope: {} } }; }));
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.issues.map((i) => i.path).sort()).toEqual(['expect.metrics.nope', 'steps', 'steps']);
    });
  });
});
