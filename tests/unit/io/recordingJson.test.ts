/**
 * The lossless JSON recording format: every float survives bit for bit (also -0, subnormals
 * and extremes), the file carries a format tag and version, and malformed files give errors
 * that name the file, the path and what was expected.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { addRig, createPhysikWorld } from '../../../src/core';
import { parseSceneText } from '../../../src/scene/load';
import { recordSteps } from '../../../src/io/recorder';
import type { Recording } from '../../../src/io/recording';
import { RECORDING_FORMAT, RECORDING_VERSION, RecordingError, recordingFromJson, recordingToJson } from '../../../src/io/recordingJson';
import { rng } from '../../support/helpers';

const scene = parseSceneText(readFileSync(new URL('../../../scenes/humanoid.json', import.meta.url), 'utf8'), 'humanoid.json');

/** The humanoid scene recorded for 40 steps of 0.05 s at 30 fps: 61 frames of 18 bones. */
function humanoidRecording(): Recording {
  const world = createPhysikWorld();
  const h = addRig(world, { rig: scene.rig, controlPoints: scene.controlPoints, settings: scene.settings, script: scene.script });
  return recordSteps(world, h.rig, 40, { fps: 30 });
}

/** Every number of the recording, in a fixed order. */
function allNumbers(rec: Recording): number[] {
  const out: number[] = [rec.fps, rec.frameCount];
  for (const b of rec.bones) out.push(b.parent, b.length, ...b.offset, ...b.restLocal, ...b.restWorld, ...b.restHead);
  for (const a of [rec.times, rec.steps, rec.heads, rec.rotations]) out.push(...a);
  return out;
}

function expectExact(back: Recording, rec: Recording): void {
  expect(back).toEqual(rec);
  const a = allNumbers(back), b = allNumbers(rec);
  expect(a.length).toBe(b.length);
  let differ = 0;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) differ++;
  expect(differ).toBe(0);
}

const rec = humanoidRecording();
const text = recordingToJson(rec);

/** The file's JSON with one change, as text. */
function edited(change: (d: Record<string, unknown>) => void): string {
  const d = JSON.parse(text) as Record<string, unknown>;
  change(d);
  return JSON.stringify(d);
}

describe('recording JSON: exact round trip', () => {
  it('gives back the humanoid recording bit for bit', () => {
    expect(rec.frameCount).toBe(61);
    expect(rec.bones.length).toBe(18);
    const back = recordingFromJson(text, 'rec.json');
    expect(back.times).toBeInstanceOf(Float64Array);
    expect(back.steps).toBeInstanceOf(Int32Array);
    expectExact(back, rec);
    // and writing it again gives the same text
    expect(recordingToJson(back)).toBe(text);
  });

  it('keeps -0, subnormals, extremes and awkward decimals exact', () => {
    const odd = [-0, 5e-324, -5e-324, 2.2250738585072014e-308, Number.MAX_VALUE, -Number.MAX_VALUE, 0.1 + 0.2, 1 / 3, -1e300, 123456789.12345679, Number.EPSILON, 1e21, 1.7976931348623155e308];
    const heads = rec.heads.slice();
    heads.set(odd, 5);
    const bones = rec.bones.map((b, i) => (i === 3 ? { ...b, offset: [-0, 5e-324, 0.1 + 0.2] as [number, number, number], restHead: [-0, -0, 1 / 3] as [number, number, number] } : b));
    const times = rec.times.slice();
    times[0] = -0; // +0 and -0 are both >= 0
    const r: Recording = { ...rec, heads, bones, times };
    const out = recordingToJson(r);
    expect(out).toContain('-0,5e-324,-5e-324');
    expectExact(recordingFromJson(out), r);
  });

  it('JSON numbers in shortest round-trip form read back exactly (100000 random doubles from random bits)', () => {
    const random = rng(7);
    const bits = new Uint32Array(2);
    const f = new Float64Array(bits.buffer);
    let checked = 0;
    for (let i = 0; i < 100_000; i++) {
      bits[0] = Math.floor(random() * 2 ** 32);
      bits[1] = Math.floor(random() * 2 ** 32);
      const x = f[0]!;
      if (!Number.isFinite(x)) continue;
      checked++;
      const y = JSON.parse(JSON.stringify([x]))[0] as number;
      if (!Object.is(x, y)) throw new Error(`${x} came back as ${y}`);
    }
    expect(checked).toBeGreaterThan(99_000);
  });

  it('carries the format tag and version, one line per frame', () => {
    const d = JSON.parse(text) as Record<string, unknown>;
    expect(d.format).toBe(RECORDING_FORMAT);
    expect(d.format).toBe('physik-recording');
    expect(d.version).toBe(RECORDING_VERSION);
    expect(d.rig).toBe('humanoid');
    expect((d.rotations as number[]).length).toBe(4 * 18 * 61);
    expect(text.split('\n').length).toBeGreaterThan(2 * 61);
  });

  it('writes an empty recording and reads it back', () => {
    const empty: Recording = { ...rec, frameCount: 0, times: new Float64Array(0), steps: new Int32Array(0), heads: new Float64Array(0), rotations: new Float64Array(0) };
    expectExact(recordingFromJson(recordingToJson(empty)), empty);
  });

  it('refuses to write NaN or Infinity', () => {
    const heads = rec.heads.slice();
    heads[7] = NaN;
    expect(() => recordingToJson({ ...rec, heads })).toThrow(/recordingToJson: heads\[7\] is NaN; a recording holds finite numbers only/);
    const bones = rec.bones.map((b, i) => (i === 2 ? { ...b, length: Infinity } : b));
    expect(() => recordingToJson({ ...rec, bones })).toThrow(/bones\[2\]\.length is Infinity/);
  });
});

describe('recording JSON: malformed files', () => {
  const read = (t: string) => () => recordingFromJson(t, 'rec.json');

  it('a truncated file', () => {
    expect(read(text.slice(0, Math.floor(text.length / 2)))).toThrow(/^rec\.json: \(root\): invalid JSON: the text ends early \(truncated file\?\)/);
    expect(read(text.slice(0, 20))).toThrow(/truncated/);
    expect(read('')).toThrow(/rec\.json: \(root\): invalid JSON/);
  });

  it('wrong counts name the array and the expected shape', () => {
    expect(read(edited((d) => { d.rotations = (d.rotations as number[]).slice(0, 100); }))).toThrow(
      /^rec\.json: rotations: expected 4 × 18 × 61 numbers, got 100$/,
    );
    expect(read(edited((d) => { d.heads = (d.heads as number[]).slice(1); }))).toThrow(/rec\.json: heads: expected 3 × 18 × 61 numbers, got 3293/);
    expect(read(edited((d) => { d.frameCount = 62; }))).toThrow(/times: expected 62 numbers, got 61/);
  });

  it('NaN, null and non-numbers', () => {
    expect(read(text.replace(/"fps": 30/, '"fps": NaN'))).toThrow(/rec\.json: \(root\): invalid JSON at line 5, column 10: NaN is not allowed in JSON/);
    expect(read(edited((d) => { (d.heads as unknown[])[5] = null; }))).toThrow(/rec\.json: heads\[5\]: expected a number, got null/);
    expect(read(edited((d) => { (d.rotations as unknown[])[9] = '0.5'; }))).toThrow(/rotations\[9\]: expected a number, got "0\.5"/);
    expect(read(edited((d) => { (d.steps as unknown[])[2] = 1.5; }))).toThrow(/steps\[2\]: expected an integer, got 1\.5/);
  });

  it('missing fields, unknown keys, wrong tag or version', () => {
    expect(read(edited((d) => { delete d.fps; }))).toThrow(/rec\.json: fps: missing required field \(expected number\)/);
    expect(read(edited((d) => { delete (d.bones as Record<string, unknown>[])[4]!.restWorld; }))).toThrow(/bones\[4\]\.restWorld: missing required field/);
    expect(read(edited((d) => { d.colour = 'red'; }))).toThrow(/rec\.json: \(root\): unknown key\(s\) "colour"/);
    expect(read(edited((d) => { d.format = 'gltf'; }))).toThrow(/rec\.json: format: expected "physik-recording" \(a physik recording\), got "gltf"/);
    expect(read('[1, 2]')).toThrow(/rec\.json: \(root\): expected "physik-recording" \(a physik recording\), got an array of 2 items/);
    expect(read(edited((d) => { d.version = 2; }))).toThrow(/rec\.json: version: this reader knows version 1; the file has version 2/);
    expect(read(edited((d) => { d.version = 0; }))).toThrow(/rec\.json: version: expected 1, got 0/);
    expect(read(edited((d) => { d.fps = -5; }))).toThrow(/fps: expected a number > 0, got -5/);
  });

  it('bones out of order, duplicate names, non-unit rotations', () => {
    expect(read(edited((d) => { (d.bones as Record<string, unknown>[])[3]!.parent = 7; }))).toThrow(/bones\[3\]\.parent: expected the index of an earlier bone \(0\.\.2\), got 7/);
    expect(read(edited((d) => { (d.bones as Record<string, unknown>[])[5]!.name = 'torso'; }))).toThrow(/bones\[5\]\.name: duplicate bone name "torso" \(first used by bones\[0\]\)/);
    expect(read(edited((d) => { (d.rotations as number[])[4 * 18 * 2 + 4 * 3] = 2; }))).toThrow(/rotations\[156\.\.159\]: expected a unit quaternion \(frame 2, bone "upperArm\.L"\), got length/);
    expect(read(edited((d) => { (d.times as number[])[10] = 0.1; }))).toThrow(/times\[10\]: expected times in order/);
  });

  it('is a RecordingError with the issues listed, at most ten', () => {
    try {
      recordingFromJson(edited((d) => { d.heads = (d.heads as number[]).map(() => null); }), 'rec.json');
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(RecordingError);
      const err = e as RecordingError;
      expect(err.file).toBe('rec.json');
      expect(err.issues.length).toBe(11);
      expect(err.issues[10]!.message).toMatch(/\.\.\. and 3284 more issue\(s\)/);
    }
  });
});
