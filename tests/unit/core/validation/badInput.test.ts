/**
 * The bad input catalogue ("every bad input refused"): one table of malformed inputs,
 * each with the fragments its error message must contain. Every row is fed through every path
 * it can take, and each must refuse it with a clear message:
 *
 * - scene files (as an object, or as text): `parseScene`/`parseSceneText` throw a SceneError
 *   naming the file and the JSON path (or line and column); `addRig` on a world that already
 *   holds the humanoid throws the same problems and leaves that world bit-identical (every
 *   typed array of `world.physik`'s stores, the rigs list, the bitecs entities) with no NaN;
 *   `physik validate <file>` (the CLI's `main`, in process) exits 1 naming the file;
 * - files the CLI is handed (missing, a directory, a device, over the size limit): exit 1;
 * - BVH and glTF files: `importBvh`/`importGltf` throw an ImportError naming the file (and the
 *   line, for BVH); `physik import` exits 1;
 * - live edits of the world (`setSettings`, `setTarget`, `addControlPoint`, the panel's path):
 *   a SceneError or Error naming the setting or point, the world bit-identical;
 * - command-line arguments: exit 2 with the option named.
 *
 * Two spawns of bin/physik.mjs check that the process exit codes are the ones `main` returns.
 */
import { describe, expect, it, beforeAll } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { getAllEntities } from 'bitecs';
import { runCli as cli } from '../../../support/cli';
import { addControlPoint, addRig, createPhysikWorld, setSettings, setTarget, step, type PhysikWorld } from '../../../../src/core';
import { parseScene, parseSceneText, SceneError } from '../../../../src/scene/load';
import { loadSceneFile } from '../../../../src/scene/loadFile';
import { importBvh } from '../../../../src/io/bvhImport';
import { importGltf } from '../../../../src/io/gltfImport';
import { ImportError } from '../../../../src/io/skeleton';

const root = join(__dirname, '../../../..');
const fixtures = join(root, 'tests/fixtures/external');
const tmp = mkdtempSync(join(tmpdir(), 'physik-bad-input-'));

// ---------------------------------------------------------------------------------------
// inputs

const bone = (name: string, parent: string | null, extra: Record<string, unknown> = {}) => ({ name, parent, direction: [0, 1, 0], length: 1, ...extra });

/** A small valid scene; each row breaks one thing in a fresh copy. */
function arm(): any {
  return {
    name: 'arm',
    rig: { name: 'arm', bones: [bone('upper', null), bone('lower', 'upper', { direction: [1, 0, 0], length: 0.8, limits: { z: [-90, 0] } })] },
    controlPoints: [{ name: 'hand', bone: 'lower', target: [1, 1, 0] }],
    settings: { dt: 0.02 },
    script: [{ step: 10, point: 'hand', target: [0.5, 1.5, 0] }],
  };
}
const broken = (edit: (s: any) => void) => {
  const s = arm();
  edit(s);
  return s;
};
/** The arm as pretty JSON with `needle` (a quoted placeholder) replaced by raw text. */
const armText = (edit: (s: any) => void, needle: string, raw: string) => JSON.stringify(broken(edit), null, 2).replace(`"${needle}"`, raw);
/** 1-based line and column of the first `needle` in `text`. */
function lineCol(text: string, needle: string): string {
  const before = text.slice(0, text.indexOf(needle));
  return `line ${before.split('\n').length}, column ${before.length - before.lastIndexOf('\n')}`;
}

const bvhExample = readFileSync(join(fixtures, 'bvhio_example.bvh'), 'utf8');
const glbFigure = new Uint8Array(readFileSync(join(fixtures, 'RiggedFigure.glb')));
const gltf = (extra: Record<string, unknown> = {}) => JSON.stringify({
  asset: { version: '2.0' },
  scenes: [{ nodes: [0] }],
  nodes: [{ name: 'hips', children: [1] }, { name: 'spine', translation: [0, 1, 0], children: [2] }, { name: 'head', translation: [0, 1, 0] }],
  skins: [{ joints: [0, 1, 2] }],
  ...extra,
});
/** A BVH whose joints are nested `depth` levels deep (one line each, so the line of joint i is known). */
function deepBvh(depth: number): string {
  let s = 'HIERARCHY\nROOT j0\n{\nOFFSET 0 0 0\nCHANNELS 3 Zrotation Xrotation Yrotation\n';
  for (let i = 1; i < depth; i++) s += `JOINT j${i}\n{\nOFFSET 0 1 0\nCHANNELS 3 Zrotation Xrotation Yrotation\n`;
  return `${s}End Site\n{\nOFFSET 0 1 0\n}\n${'}\n'.repeat(depth)}MOTION\nFrames: 0\nFrame Time: 0.033\n`;
}
const bigChain = (n: number) => [bone('b0', null), ...Array.from({ length: n - 1 }, (_, i) => bone(`b${i + 1}`, `b${i}`))];

// ---------------------------------------------------------------------------------------
// the catalogue

type Input =
  /** A scene object (the CLI gets it as a .json file); `file` marks problems outside rig/controlPoints/settings/script, which addRig cannot take. */
  | { scene: unknown; fileOnly?: boolean }
  /** The text of a scene file. */
  | { text: string }
  /** A path handed to `physik validate` (made by the function, in the test's temporary directory). */
  | { path: (dir: string) => string }
  | { bvh: string }
  | { gltf: string | Uint8Array; ext: '.gltf' | '.glb' }
  /** A live edit of the world's humanoid (the sandbox panel and drags go through these). */
  | { settings: unknown }
  | { target: number[] }
  | { controlPoint: unknown }
  /** Command-line arguments (exit 2); `{tmp}` and `{scene}` are filled in. */
  | { argv: string[] };

interface Case { kind: string; input: Input; expect: (string | RegExp)[] }

const catalogue: Case[] = [
  // --- scene files: JSON syntax
  { kind: 'not JSON at all', input: { text: 'hello, this is not a scene' }, expect: ['(root): invalid JSON at line 1, column 1', "Unexpected token 'h'"] },
  { kind: 'truncated scene file', input: { text: JSON.stringify(arm(), null, 2).slice(0, 150) }, expect: [/invalid JSON at line \d+, column \d+: the text ends before the JSON is complete \(file truncated\?\)/] },
  { kind: 'a stray token inside the JSON', input: { text: armText((s) => (s.rig.bones[1].length = 'X'), 'X', 'eight') }, expect: [lineCol(armText((s) => (s.rig.bones[1].length = 'X'), 'X', 'eight'), 'eight'), "Unexpected token 'e'"] },
  { kind: 'NaN in a target', input: { text: armText((s) => (s.controlPoints[0].target[1] = 'X'), 'X', 'NaN') }, expect: [lineCol(armText((s) => (s.controlPoints[0].target[1] = 'X'), 'X', 'NaN'), 'NaN'), 'NaN is not allowed in JSON'] },
  { kind: 'Infinity as a length', input: { text: armText((s) => (s.rig.bones[0].length = 'X'), 'X', 'Infinity') }, expect: [lineCol(armText((s) => (s.rig.bones[0].length = 'X'), 'X', 'Infinity'), 'Infinity'), 'Infinity is not allowed in JSON'] },
  { kind: 'binary bytes instead of text', input: { text: '\u0000\u0001\u0002glTF\u00ff' }, expect: ['invalid JSON at line 1, column 1'] },
  { kind: 'empty file', input: { text: '' }, expect: ['(root): empty file'] },
  // --- scene files: shape and types
  { kind: 'a list where a scene object belongs', input: { scene: [arm()], fileOnly: true }, expect: ['(root): expected an object, got an array of 1 items'] },
  { kind: 'wrong type: a length as a string', input: { scene: broken((s) => (s.rig.bones[1].length = '0.8')) }, expect: ['rig.bones[1].length: expected a number, got "0.8"'] },
  { kind: 'missing required field', input: { scene: broken((s) => delete s.rig.bones[1].direction) }, expect: ['rig.bones[1].direction: missing required field'] },
  { kind: 'misspelt key', input: { scene: broken((s) => (s.rig.bones[0].lenght = 1)) }, expect: ['rig.bones[0].lenght: unknown key "lenght" (allowed: name, parent, direction,'] },
  { kind: 'direction with two components', input: { scene: broken((s) => (s.rig.bones[0].direction = [0, 1])) }, expect: ['rig.bones[0].direction: expected [x, y, z] (3 numbers), got [0, 1]'] },
  // --- scene files: the rig
  { kind: 'unknown parent bone', input: { scene: broken((s) => (s.rig.bones[1].parent = 'uper')) }, expect: ['rig.bones[1].parent: unknown bone "uper" (known: upper, lower)'] },
  { kind: 'parent cycle', input: { scene: broken((s) => s.rig.bones.push(bone('a', 'b'), bone('b', 'a'))) }, expect: ['rig.bones[2].parent: parent cycle: a -> b -> a'] },
  { kind: 'two roots', input: { scene: broken((s) => (s.rig.bones[1].parent = null)) }, expect: ['rig.bones: expected exactly one root bone (parent: null), found 2'] },
  { kind: 'duplicate bone names', input: { scene: broken((s) => s.rig.bones.push(bone('lower', 'upper'))) }, expect: ['rig.bones[2].name: duplicate bone name "lower" (first used by rig.bones[1])'] },
  { kind: 'zero length', input: { scene: broken((s) => (s.rig.bones[0].length = 0)) }, expect: ['rig.bones[0].length: expected a number > 0, got 0'] },
  { kind: 'negative mass', input: { scene: broken((s) => (s.rig.bones[1].mass = -2)) }, expect: ['rig.bones[1].mass: expected a number > 0, got -2'] },
  { kind: 'zero direction', input: { scene: broken((s) => (s.rig.bones[1].direction = [0, 0, 0])) }, expect: ['rig.bones[1].direction: expected a non-zero direction, got [0, 0, 0]'] },
  { kind: 'limit with min > max', input: { scene: broken((s) => (s.rig.bones[1].limits = { x: [30, -30] })) }, expect: ['rig.bones[1].limits.x: expected [min, max] with min <= max, got [30, -30]'] },
  { kind: 'limit beyond ±180 degrees', input: { scene: broken((s) => (s.rig.bones[1].limits = { z: [-500, 0] })) }, expect: ['rig.bones[1].limits.z[0]: expected a number >= -180, got -500'] },
  { kind: 'empty rig', input: { scene: broken((s) => { s.rig.bones = []; s.controlPoints = []; s.script = []; }) }, expect: ['rig.bones: expected at least 1 item(s), got 0'] },
  { kind: 'finite but huge length (1e308 overflows inertia)', input: { scene: broken((s) => (s.rig.bones[0].length = 1e308)) }, expect: ['rig.bones[0].length: expected a number from -1e9 to 1e9 (larger ones overflow the simulation), got 1e+308'] },
  { kind: '100,000 bones', input: { scene: { name: 'big', rig: { name: 'big', bones: bigChain(100_000) } } }, expect: ['rig.bones: expected at most 10000 bones, got 100000'] },
  // --- scene files: control points, script, settings, steps
  { kind: 'control point on an unknown bone', input: { scene: broken((s) => (s.controlPoints[0].bone = 'hand')) }, expect: ['controlPoints[0].bone: unknown bone "hand" (known: upper, lower)'] },
  { kind: 'control point beyond its bone (at: 2)', input: { scene: broken((s) => (s.controlPoints[0].at = 2)) }, expect: ['controlPoints[0].at: expected a number <= 1, got 2'] },
  { kind: 'script event for an unknown control point', input: { scene: broken((s) => (s.script[0].point = 'foot')) }, expect: ['script[0].point: unknown control point "foot" (known: hand)'] },
  { kind: 'script event at a fractional step', input: { scene: broken((s) => (s.script[0].step = 2.5)) }, expect: ['script[0].step: expected an integer, got 2.5'] },
  { kind: 'script event that does nothing', input: { scene: broken((s) => delete s.script[0].target) }, expect: ['script[0]: expected a target and/or active'] },
  { kind: 'script target far beyond any rig (1e300)', input: { scene: broken((s) => (s.script[0].target = [1e300, 0, 0])) }, expect: ['script[0].target[0]: expected a number from -1e9 to 1e9'] },
  { kind: 'unknown solver in settings', input: { scene: broken((s) => (s.settings.solver = 'magic')) }, expect: ['settings.solver: expected one of "physik", "fabrik", "ccd"', 'got "magic"'] },
  { kind: 'dt of zero', input: { scene: broken((s) => (s.settings.dt = 0)) }, expect: ['settings.dt: expected a number > 0, got 0'] },
  { kind: 'a pass cap that would run for hours per step', input: { scene: broken((s) => (s.settings.maxPasses = 1e9)) }, expect: ['settings.maxPasses: expected at most 1000000 passes per step'] },
  { kind: 'half a billion steps', input: { scene: broken((s) => (s.steps = 5e8)), fileOnly: true }, expect: ['steps: expected at most 10000000 steps, got 500000000'] },
  // --- files the CLI is handed
  { kind: 'scene file not found', input: { path: (d) => join(d, 'absent.json') }, expect: ['(root): file not found'] },
  { kind: 'a directory instead of a scene file', input: { path: (d) => { mkdirSync(join(d, 'folder.json'), { recursive: true }); return join(d, 'folder.json'); } }, expect: ['(root): is a directory, not a file'] },
  { kind: 'a 50 MB scene file', input: { path: (d) => { const f = join(d, 'huge.json'); writeFileSync(f, JSON.stringify({ name: 'x'.repeat(50 * 1024 * 1024), rig: arm().rig })); return f; } }, expect: ['(root): 50.0 MB is over the 16.0 MB limit'] },
  { kind: 'an endless device (/dev/zero)', input: { path: () => '/dev/zero' }, expect: ['(root): more than 16.0 MB, over the limit'] },
  // --- BVH
  { kind: 'BVH truncated in its hierarchy', input: { bvh: bvhExample.slice(0, bvhExample.indexOf('JOINT LeftUpLeg') + 30) }, expect: [/file ends inside HIERARCHY .*joint "LeftUpLeg" opened at line \d+ is not closed/] },
  { kind: 'BVH with a word among the motion numbers', input: { bvh: bvhExample.replace(/(Frame Time:[^\n]*\n\s*\S+\s+\S+\s+\S+\s+\S+\s+)\S+/, '$1abc') }, expect: [/line \d+: frame 1: 'abc' is not a number \(value 5, Hips Xrotation\)/] },
  { kind: 'a scene file given as .bvh', input: { bvh: JSON.stringify(arm()) }, expect: ["line 1: expected HIERARCHY at the start of a BVH file, got '{'"] },
  { kind: 'BVH nested 5000 joints deep', input: { bvh: deepBvh(5000) }, expect: ['line 4002: joints nested more than 1000 levels deep (JOINT inside joint "j999")'] },
  // --- glTF
  { kind: 'truncated .glb', input: { gltf: glbFigure.slice(0, 20000), ext: '.glb' }, expect: ['truncated: header says 49532 bytes, got 20000'] },
  { kind: 'random bytes as .glb', input: { gltf: Uint8Array.from({ length: 256 }, (_, i) => (i * 37 + 11) % 256), ext: '.glb' }, expect: ['not a glTF file (starts with 0b 30 55 7a'] },
  { kind: 'glTF 1.0', input: { gltf: JSON.stringify({ asset: { version: '1.0' } }), ext: '.gltf' }, expect: ['glTF 1.0 is not supported (glTF 2.0 only)'] },
  { kind: 'glTF skin joint that is no node', input: { gltf: gltf({ skins: [{ joints: [0, 1, 42] }] }), ext: '.gltf' }, expect: ['skin 0: joint 42 is not a node index (0..2)'] },
  { kind: 'glTF node translation not numbers', input: { gltf: gltf().replace('"translation":[0,1,0]', '"translation":[0,"up",0]'), ext: '.gltf' }, expect: ['node 1 "spine": translation must be 3 finite numbers'] },
  {
    kind: 'glTF nodes nested 3000 deep',
    input: { gltf: JSON.stringify({ asset: { version: '2.0' }, nodes: Array.from({ length: 3000 }, (_, i) => ({ name: `n${i}`, translation: [0, 1, 0], ...(i < 2999 ? { children: [i + 1] } : {}) })) }), ext: '.gltf' },
    expect: ['node 1000 "n1000" is nested more than 1000 levels deep in the node hierarchy'],
  },
  // --- live edits (setSettings is what the sandbox panel calls)
  { kind: 'setting out of range (dt = -1)', input: { settings: { dt: -1 } }, expect: ['rig "humanoid": settings.dt: expected a number > 0, got -1'] },
  { kind: 'unknown setting', input: { settings: { dtt: 0.1 } }, expect: ['settings.dtt: unknown key "dtt" (allowed: dt,'] },
  { kind: 'setting of the wrong type', input: { settings: { stiffness: '30' } }, expect: ['settings.stiffness: expected a number, got "30"'] },
  { kind: 'NaN setting', input: { settings: { damping: Number.NaN } }, expect: ['settings.damping: expected a finite number, got NaN'] },
  { kind: 'finite but huge setting (damping 1e308)', input: { settings: { damping: 1e308 } }, expect: ['settings.damping: expected a number from -1e9 to 1e9'] },
  { kind: 'a pass cap of a billion', input: { settings: { maxPasses: 1e9 } }, expect: ['settings.maxPasses: expected at most 1000000 passes per step'] },
  { kind: 'unknown solver', input: { settings: { solver: 'magic' } }, expect: ['settings.solver: expected one of "physik"', 'got "magic"'] },
  { kind: 'NaN target', input: { target: [0.2, Number.NaN, 0.3] }, expect: ['target of control point "handR" must be three finite numbers, got [0.2, NaN, 0.3]'] },
  { kind: 'target far beyond any rig (1e300)', input: { target: [1e300, 1, 0] }, expect: ['target of control point "handR" must be three numbers from -1e9 to 1e9'] },
  { kind: 'target with two components', input: { target: [0.2, 1] }, expect: ['target must have 3 components, got 2'] },
  { kind: 'new control point on an unknown bone', input: { controlPoint: { name: 'pin1', bone: 'tail' } }, expect: ['rig "humanoid": new control point.bone: unknown bone "tail" (known: '] },
  { kind: 'new control point with a taken name', input: { controlPoint: { name: 'handR', bone: 'head' } }, expect: ['new control point.name: a control point named "handR" already exists'] },
  { kind: 'new control point with a huge offset', input: { controlPoint: { name: 'pin1', bone: 'head', offset: [0, 1e200, 0] } }, expect: ['new control point.offset[1]: expected a number from -1e9 to 1e9'] },
  // --- command-line arguments (exit 2)
  { kind: 'no command', input: { argv: [] }, expect: ['usage:', 'physik run <scene.json>'] },
  { kind: 'unknown command', input: { argv: ['fly', '{scene}'] }, expect: ['unknown command "fly"'] },
  { kind: 'unknown option', input: { argv: ['run', '{scene}', '--fast'] }, expect: ['unknown option "--fast" for run'] },
  { kind: '--steps not a count', input: { argv: ['run', '{scene}', '--steps', 'ten'] }, expect: ['--steps expects a non-negative integer, got "ten"'] },
  { kind: '--steps too large', input: { argv: ['run', '{scene}', '--steps', '99999999999'] }, expect: ['--steps 99999999999 is too large (at most 10000000)'] },
  { kind: '--solver unknown', input: { argv: ['run', '{scene}', '--solver', 'magic'] }, expect: ['--solver expects one of physik, fabrik, ccd', 'got "magic"'] },
  { kind: 'two scene files', input: { argv: ['validate', '{scene}', '{scene}'] }, expect: ['unexpected argument', '(one scene file per call)'] },
  { kind: 'record without --out', input: { argv: ['record', '{scene}'] }, expect: ['record: missing --out <file>'] },
  { kind: 'import to a non-JSON file', input: { argv: ['import', '{tmp}/rig.bvh', '--out', '{tmp}/rig.txt'] }, expect: ['--out {tmp}/rig.txt: import writes .json files'] },
  { kind: 'import with a negative scale', input: { argv: ['import', '{tmp}/rig.bvh', '--out', '{tmp}/rig.json', '--scale', '-1'] }, expect: ['--scale expects a number in (0, 1000000], got "-1"'] },
  { kind: 'import of an unknown kind of file', input: { argv: ['import', '{tmp}/rig.fbx', '--out', '{tmp}/rig.json'] }, expect: ['import reads .glb, .gltf, .bvh files (by extension), got {tmp}/rig.fbx'] },
];

// ---------------------------------------------------------------------------------------
// the world every refusal must leave alone

/**
 * Every array field of the world's stores, by "Store.field", as a typed array (double fields
 * are plain arrays: taken as Float64Arrays, so their bytes are compared and their NaNs found).
 */
function storeFields(world: PhysikWorld): [string, ArrayBufferView][] {
  const out: [string, ArrayBufferView][] = [];
  for (const [name, store] of Object.entries(world.physik)) {
    if (!store || typeof store !== 'object' || Array.isArray(store)) continue;
    for (const [field, value] of Object.entries(store as Record<string, unknown>)) {
      const arr = Array.isArray(value) ? Float64Array.from(value as number[]) : value;
      if (ArrayBuffer.isView(arr)) out.push([`${name}.${field}`, arr]);
    }
  }
  return out;
}

/** Everything of the world a refused input must not touch, as bytes and plain data. */
function stateOf(world: PhysikWorld) {
  const stores: Record<string, Uint8Array> = {};
  for (const [key, arr] of storeFields(world)) stores[key] = new Uint8Array(arr.buffer.slice(arr.byteOffset, arr.byteOffset + arr.byteLength));
  const rigs = world.physik.rigs.map((r) => ({
    eid: r.eid, name: r.name, settings: { ...r.settings }, bones: Array.from(r.bones), boneNames: [...r.boneNames],
    joints: Array.from(r.joints), controlPoints: Array.from(r.controlPoints), controlPointNames: [...r.controlPointNames],
    controlPointByName: [...r.controlPointByName], initialTargets: Array.from(r.initialTargets), initialActive: Array.from(r.initialActive),
    controlPointsVersion: r.controlPointsVersion, scriptCursor: r.scriptCursor, script: structuredClone(r.script),
    defaultCap: r.defaultCap, limitScaleKey: r.limitScaleKey,
  }));
  return { stores, rigs, entities: Array.from(getAllEntities(world)) };
}

/** Store fields holding a NaN (an empty list when there is none). */
function nanFields(world: PhysikWorld): string[] {
  return storeFields(world)
    .filter(([, arr]) => (arr instanceof Float64Array || arr instanceof Float32Array) && arr.some((x) => Number.isNaN(x)))
    .map(([key]) => key);
}

function expectSameWorld(before: ReturnType<typeof stateOf>, world: PhysikWorld): void {
  const after = stateOf(world);
  const changed = Object.keys(before.stores).filter((k) => !after.stores[k] || Buffer.compare(before.stores[k]!, after.stores[k]!) !== 0);
  expect(Object.keys(after.stores).sort(), 'store fields').toEqual(Object.keys(before.stores).sort());
  expect(changed, 'store fields changed by a refused input').toEqual([]);
  expect(after.rigs, 'rigs list').toEqual(before.rigs);
  expect(after.entities, 'bitecs entities').toEqual(before.entities);
  expect(nanFields(world), 'NaN in the world').toEqual([]);
}

/** The thrown error (fails the test when nothing is thrown). */
async function errorOf(fn: () => unknown): Promise<Error> {
  try {
    await fn();
  } catch (e) {
    expect(e).toBeInstanceOf(Error);
    return e as Error;
  }
  throw new Error('expected an error, but the input was accepted');
}

function expectMessage(message: string, fragments: (string | RegExp)[]): void {
  for (const f of fragments) {
    if (typeof f === 'string') expect(message).toContain(f);
    else expect(message).toMatch(f);
  }
  expect(message, 'a message, not a stack trace').not.toMatch(/\n\s+at /);
}

const slug = (kind: string) => kind.replace(/[^\w]+/g, '-').replace(/^-|-$/g, '').slice(0, 60);
const fill = (s: string, scene: string) => s.replaceAll('{tmp}', tmp).replaceAll('{scene}', scene);

// ---------------------------------------------------------------------------------------

describe('bad input catalogue', () => {
  let world: PhysikWorld;
  let rig: number;
  const sceneFile = join(root, 'scenes/humanoid.json');

  beforeAll(() => {
    // a world that already holds a rig in motion: the humanoid, 30 steps into its script
    const scene = loadSceneFile(sceneFile);
    world = createPhysikWorld();
    rig = addRig(world, { rig: scene.rig, controlPoints: scene.controlPoints, settings: scene.settings, script: scene.script }).rig;
    step(world, 30);
    expect(nanFields(world)).toEqual([]);
    // the comparison sees every store field (Bone.rot, ControlPoint.target, Rig.step, ...)
    const fields = Object.keys(stateOf(world).stores);
    for (const f of ['Bone.rot', 'Bone.head', 'ControlPoint.target', 'AngularLimit.min', 'Joint.point', 'Rig.step']) expect(fields).toContain(f);
    writeFileSync(join(tmp, 'rig.bvh'), bvhExample);
  });

  it('covers at least 30 kinds of bad input, each named once', () => {
    expect(catalogue.length).toBeGreaterThanOrEqual(30);
    expect(new Set(catalogue.map((c) => c.kind)).size).toBe(catalogue.length);
  });

  for (const c of catalogue) {
    const { input } = c;
    it(`refuses ${c.kind}`, async () => {
      const before = stateOf(world);
      const t0 = performance.now();
      if ('scene' in input || 'text' in input) {
        const file = join(tmp, `${slug(c.kind)}.json`);
        const text = 'text' in input ? input.text : JSON.stringify(input.scene);
        // the library: a SceneError naming the file and the path or line
        const e = await errorOf(() => ('text' in input ? parseSceneText(input.text, file) : parseScene(input.scene, file)));
        expect(e).toBeInstanceOf(SceneError);
        expect(e.message.startsWith(`${file}: `)).toBe(true);
        expectMessage(e.message, c.expect);
        // the plugin: addRig refuses the same rig, and the world that holds the humanoid is untouched
        if ('scene' in input && !input.fileOnly) {
          const s = input.scene as Record<string, unknown>;
          const e2 = await errorOf(() => addRig(world, { rig: s.rig, controlPoints: s.controlPoints, settings: s.settings, script: s.script } as never));
          expect(e2).toBeInstanceOf(SceneError);
          expectMessage(e2.message, c.expect);
        }
        // the command line: exit 1, the file and the problem named
        writeFileSync(file, text);
        const r = await cli(['validate', file]);
        expect(r.code).toBe(1);
        expect(r.err.startsWith(`${file}: `)).toBe(true);
        expectMessage(r.err, c.expect);
      } else if ('path' in input) {
        const file = input.path(tmp);
        const e = await errorOf(() => loadSceneFile(file));
        expect(e).toBeInstanceOf(SceneError);
        expectMessage(e.message, [`${file}: `, ...c.expect]);
        const r = await cli(['validate', file]);
        expect(r.code).toBe(1);
        expectMessage(r.err, [`${file}: `, ...c.expect]);
      } else if ('bvh' in input || 'gltf' in input) {
        const file = join(tmp, `${slug(c.kind)}${'bvh' in input ? '.bvh' : input.ext}`);
        const e = await errorOf(() => ('bvh' in input ? importBvh(input.bvh, file, { controlPoints: 2 }) : importGltf(input.gltf, file, { controlPoints: 2 })));
        expect(e).toBeInstanceOf(ImportError);
        expect(e.message.startsWith(`${file}: `)).toBe(true);
        expectMessage(e.message, c.expect);
        writeFileSync(file, 'bvh' in input ? input.bvh : input.gltf);
        const r = await cli(['import', file, '--out', join(tmp, `${slug(c.kind)}.scene.json`)]);
        expect(r.code).toBe(1);
        expect(r.err.startsWith(`${file}: `)).toBe(true);
        expectMessage(r.err, c.expect);
      } else if ('settings' in input) {
        const e = await errorOf(() => setSettings(world, rig, input.settings as never));
        expect(e).toBeInstanceOf(SceneError);
        expectMessage(e.message, c.expect);
      } else if ('target' in input) {
        const handR = world.physik.rigs[0]!.controlPointByName.get('handR')!;
        expectMessage((await errorOf(() => setTarget(world, handR, input.target))).message, c.expect);
      } else if ('controlPoint' in input) {
        const e = await errorOf(() => addControlPoint(world, rig, input.controlPoint as never));
        expect(e).toBeInstanceOf(SceneError);
        expectMessage(e.message, c.expect);
      } else {
        const r = await cli(input.argv.map((a) => fill(a, sceneFile)));
        expect(r.code).toBe(2);
        expectMessage(r.err, c.expect.map((f) => (typeof f === 'string' ? fill(f, sceneFile) : f)));
      }
      expectSameWorld(before, world);
      // never a hang: even the 100,000-bone and 50 MB inputs are refused quickly
      expect(performance.now() - t0).toBeLessThan(15_000);
    });
  }

  it('the world still steps as before after every refusal', () => {
    // the same humanoid, built and stepped without any bad input in between, matches bit for bit
    const scene = loadSceneFile(sceneFile);
    const fresh = createPhysikWorld();
    const r = addRig(fresh, { rig: scene.rig, controlPoints: scene.controlPoints, settings: scene.settings, script: scene.script }).rig;
    step(fresh, 30);
    step(fresh, 20);
    step(world, 20);
    const a = fresh.physik.Bone, b = world.physik.Bone;
    const bonesA = fresh.physik.rigs.find((x) => x.eid === r)!.bones, bonesB = world.physik.rigs[0]!.bones;
    for (let i = 0; i < bonesA.length; i++) {
      for (let k = 0; k < 4; k++) expect(Object.is(a.rot[bonesA[i]! * 4 + k], b.rot[bonesB[i]! * 4 + k])).toBe(true);
    }
  });
});

describe('huge but legal input loads within limits', () => {
  it('a scene with a 50 MB description string parses in seconds', () => {
    const t0 = performance.now();
    const scene = parseScene({ ...arm(), description: 'x'.repeat(50 * 1024 * 1024) }, 'long.json');
    expect(scene.description).toHaveLength(50 * 1024 * 1024);
    expect(performance.now() - t0).toBeLessThan(10_000);
  });

  it('a scene file with a UTF-8 byte order mark loads', () => {
    const file = join(tmp, 'bom.json');
    writeFileSync(file, `\uFEFF${JSON.stringify(arm())}`);
    expect(loadSceneFile(file).rig.bones).toHaveLength(2);
  });

  it('the largest rig allowed (10,000 bones, a shallow tree) is accepted by validation', () => {
    const bones = [bone('b0', null), ...Array.from({ length: 9_999 }, (_, i) => bone(`b${i + 1}`, `b${Math.floor(i / 4)}`))];
    expect(parseScene({ name: 'big', rig: { name: 'big', bones } }).rig.bones).toHaveLength(10_000);
  });
});

describe('the physik process', () => {
  it('exits 1 for a bad file and 2 for bad arguments', () => {
    const bad = join(tmp, 'cycle.json');
    writeFileSync(bad, JSON.stringify(broken((s) => s.rig.bones.push(bone('a', 'b'), bone('b', 'a')))));
    const run = (args: string[]) => spawnSync(process.execPath, [join(root, 'bin/physik.mjs'), ...args], { encoding: 'utf8', timeout: 60_000 });
    const file = run(['validate', bad]);
    expect(file.status).toBe(1);
    expect(file.stderr).toContain(`${bad}: rig.bones[2].parent: parent cycle: a -> b -> a`);
    const args = run(['run', bad, '--steps', 'ten']);
    expect(args.status).toBe(2);
    expect(args.stderr).toContain('--steps expects a non-negative integer, got "ten"');
  });
});
