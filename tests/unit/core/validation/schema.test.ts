import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultSettings } from '../../../../src/core/settings';
import { parseScene, parseSceneText, SceneError, validateScene } from '../../../../src/scene/load';
import { loadSceneFile } from '../../../../src/scene/loadFile';

/** A minimal valid scene; tests clone and break it. */
function scene(): any {
  return {
    name: 'arm',
    rig: {
      name: 'arm',
      bones: [
        { name: 'upper', parent: null, direction: [0, 2, 0], length: 1, head: [0, 0, 0] },
        { name: 'lower', parent: 'upper', direction: [1, 0, 0], length: 0.8, limits: { z: [-90, 0] } },
      ],
    },
    controlPoints: [{ name: 'hand', bone: 'lower', target: [1, 1, 0] }],
    settings: { dt: 0.02 },
  };
}

/** The SceneError thrown by `fn` (fails the test if nothing is thrown). */
function errorOf(fn: () => unknown): SceneError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(SceneError);
    return e as SceneError;
  }
  throw new Error('expected a SceneError');
}

describe('scene validation', () => {
  it('parses a valid scene and fills in defaults', () => {
    const s = parseScene(scene(), 'arm.json');
    expect(s.steps).toBe(400);
    expect(s.script).toEqual([]);
    expect(s.settings).toEqual({ ...defaultSettings, dt: 0.02 });
    expect(s.rig.bones[0]!.direction).toEqual([0, 1, 0]); // normalised
    expect(s.controlPoints[0]!.target).toEqual([1, 1, 0]);

    const bare = parseScene({ name: 'x', rig: { name: 'r', bones: [{ name: 'a', parent: null, direction: [0, 1, 0], length: 1 }] } });
    expect(bare.controlPoints).toEqual([]);
    expect(bare.settings).toEqual(defaultSettings);
    expect(validateScene(scene()).ok).toBe(true);
  });

  it('reports an unknown parent with the known bones', () => {
    const d = scene();
    d.rig.bones[1].parent = 'uper';
    const e = errorOf(() => parseScene(d, 'arm.json'));
    expect(e.file).toBe('arm.json');
    expect(e.message).toContain('arm.json: rig.bones[1].parent: unknown bone "uper" (known: upper, lower)');
  });

  it('reports a 2-cycle with no root', () => {
    const d = scene();
    d.rig.bones[0].parent = 'lower';
    delete d.rig.bones[0].head;
    const e = errorOf(() => parseScene(d));
    expect(e.message).toContain('rig.bones: expected exactly one root bone (parent: null), found none');
    expect(e.message).toContain('rig.bones[0].parent: parent cycle: upper -> lower -> upper');
  });

  it('reports a 2-cycle next to a valid root, and several roots', () => {
    const d = scene();
    d.rig.bones.push(
      { name: 'a', parent: 'b', direction: [0, 1, 0], length: 1 },
      { name: 'b', parent: 'a', direction: [0, 1, 0], length: 1 },
    );
    expect(errorOf(() => parseScene(d)).message).toContain('rig.bones[2].parent: parent cycle: a -> b -> a');

    const two = scene();
    two.rig.bones[1].parent = null;
    expect(errorOf(() => parseScene(two)).message).toMatch(/rig\.bones: expected exactly one root.*found 2/);
  });

  it('reports a negative mass', () => {
    const d = scene();
    d.rig.bones[1].mass = -1;
    expect(errorOf(() => parseScene(d)).message).toContain('rig.bones[1].mass: expected a number > 0, got -1');
  });

  it('rejects a NaN target given programmatically', () => {
    const d = scene();
    d.controlPoints[0].target = [1, NaN, 0];
    expect(errorOf(() => parseScene(d)).message).toContain('controlPoints[0].target[1]: expected a finite number, got NaN');
  });

  it('rejects a NaN token in JSON text with the line and column', () => {
    const d = scene();
    d.controlPoints[0].target = [1, 'NAN_HERE', 0];
    const text = JSON.stringify(d, null, 2).replace('"NAN_HERE"', 'NaN');
    const lines = text.split('\n');
    const line = lines.findIndex((l) => l.includes('NaN')) + 1;
    const column = lines[line - 1]!.indexOf('NaN') + 1;
    const e = errorOf(() => parseSceneText(text, 'arm.json'));
    expect(e.message).toBe(`arm.json: (root): invalid JSON at line ${line}, column ${column}: NaN is not allowed in JSON (use a finite number)`);
  });

  it('reports other JSON syntax errors with a position', () => {
    const e = errorOf(() => parseSceneText('{\n  "name": "x",\n}', 'x.json'));
    expect(e.message).toMatch(/^x\.json: \(root\): invalid JSON at line 3, column 1/);
  });

  it('reports a missing required field', () => {
    const d = scene();
    delete d.rig.bones[1].length;
    expect(errorOf(() => parseScene(d)).message).toContain('rig.bones[1].length: missing required field (expected a number)');
  });

  it('reports an unknown setting key and an out-of-range setting', () => {
    const d = scene();
    d.settings = { dtt: 0.1 };
    expect(errorOf(() => parseScene(d)).message).toMatch(/settings\.dtt: unknown key "dtt" \(allowed: dt, /);

    d.settings = { dt: 0 };
    expect(errorOf(() => parseScene(d)).message).toContain('settings.dt: expected a number > 0, got 0');
  });

  it('reports every problem at once', () => {
    const d = scene();
    d.rig.bones[1].mass = -1;
    d.rig.bones[1].parent = 'nope';
    d.rig.bones[1].limits = { z: [10, -10] };
    d.settings = { dt: 0, spring: 'soft' };
    d.controlPoints[0].bone = 'hand';
    d.script = [{ step: 5, point: 'foot', active: false }];
    d.secondaryBones = ['tail'];
    const r = validateScene(d);
    expect(r.ok).toBe(false);
    const lines = errorOf(() => parseScene(d, 'bad.json')).message.split('\n');
    expect(lines).toEqual(
      expect.arrayContaining([
        'bad.json: rig.bones[1].mass: expected a number > 0, got -1',
        'bad.json: rig.bones[1].limits.z: expected [min, max] with min <= max, got [10, -10]',
        'bad.json: settings.dt: expected a number > 0, got 0',
        'bad.json: settings.spring: expected one of "linear", "capped", got "soft"',
        'bad.json: rig.bones[1].parent: unknown bone "nope" (known: upper, lower)',
        'bad.json: controlPoints[0].bone: unknown bone "hand" (known: upper, lower)',
        'bad.json: script[0].point: unknown control point "foot" (known: hand)',
        'bad.json: secondaryBones[0]: unknown bone "tail" (known: upper, lower)',
      ]),
    );
    expect(lines).toHaveLength(8);
  });

  it('reports duplicates, head on a non-root bone and a script event without effect', () => {
    const d = scene();
    d.rig.bones.push({ name: 'lower', parent: 'upper', direction: [0, 1, 0], length: 1, head: [0, 0, 0] });
    d.controlPoints.push({ name: 'hand', bone: 'upper' });
    d.script = [{ step: 1, point: 'hand' }];
    const msg = errorOf(() => parseScene(d)).message;
    expect(msg).toContain('rig.bones[2].name: duplicate bone name "lower"');
    expect(msg).toContain('rig.bones[2].head: only the root bone may set head');
    expect(msg).toContain('controlPoints[1].name: duplicate control point name "hand"');
    expect(msg).toContain('script[0]: expected a target and/or active');
  });

  it('loads files and reports a missing file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'physik-scene-'));
    const file = join(dir, 'arm.json');
    writeFileSync(file, JSON.stringify(scene()));
    expect(loadSceneFile(file).name).toBe('arm');
    const missing = join(dir, 'missing.json');
    expect(errorOf(() => loadSceneFile(missing)).message).toBe(`${missing}: (root): file not found`);
  });
});
