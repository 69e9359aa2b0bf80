/**
 * BVH import of files written by the test: a synthetic biped in every axis convention and channel
 * order, and malformed files refused with an error naming the file and the problem.
 */
import { describe, expect, it } from 'vitest';

import { addRig, createPhysikWorld } from '../../../src/core';
import type { Vec3Tuple } from '../../../src/scene/types';
import { importBvh, parseBvh } from '../../../src/io/bvhImport';
import { defaultControlPoints, ImportError } from '../../../src/io/skeleton';
import { rng } from '../../support/helpers';
import { errorOf } from '../../support/errors';
import { text, dist, bvhLoaderJoints, expectHeadsAt, expectPoses } from '../../support/importChecks';

interface Node {
  name?: string;
  offset: Vec3Tuple;
  channels?: string[];
  children?: Node[];
  end?: Vec3Tuple;
}

function writeBvh(root: Node, opts: { frames?: number; values?: (frame: number, width: number) => number[]; eol?: string } = {}): string {
  const lines: string[] = ['HIERARCHY'];
  let width = 0;
  const emit = (n: Node, depth: number, kw: string) => {
    const ind = '\t'.repeat(depth);
    lines.push(`${ind}${kw}${n.name !== undefined ? ` ${n.name}` : ''}`, `${ind}{`);
    lines.push(`${ind}\tOFFSET\t${n.offset.join('\t')}`);
    const ch = n.channels ?? (depth === 0 ? ['Xposition', 'Yposition', 'Zposition', 'Zrotation', 'Xrotation', 'Yrotation'] : ['Zrotation', 'Xrotation', 'Yrotation']);
    width += ch.length;
    lines.push(`${ind}\tCHANNELS ${ch.length} ${ch.join(' ')}`);
    for (const c of n.children ?? []) emit(c, depth + 1, 'JOINT');
    if (n.end) lines.push(`${ind}\tEnd Site`, `${ind}\t{`, `${ind}\t\tOFFSET ${n.end.join(' ')}`, `${ind}\t}`);
    lines.push(`${ind}}`);
  };
  emit(root, 0, 'ROOT');
  const frames = opts.frames ?? 2;
  lines.push('MOTION', `Frames: ${frames}`, 'Frame Time: 0.04');
  for (let f = 0; f < frames; f++) lines.push((opts.values?.(f, width) ?? new Array(width).fill(0)).join(' '));
  return lines.join(opts.eol ?? '\n') + (opts.eol ?? '\n');
}

/** A small biped, Y-up: hips, spine, neck/head, two arms, two legs (units: cm). */
function biped(axes: (v: Vec3Tuple) => Vec3Tuple = (v) => v, channels?: string[]): Node {
  const j = (name: string, offset: Vec3Tuple, children: Node[] = [], end?: Vec3Tuple): Node => ({
    name, offset: axes(offset), children, ...(end ? { end: axes(end) } : {}), ...(channels ? { channels } : {}),
  });
  const arm = (s: 'L' | 'R', x: number) => j(`Shoulder${s}`, [x * 4, 20, 0], [j(`Arm${s}`, [x * 12, 0, 0], [j(`ForeArm${s}`, [x * 26, 0, 0], [j(`Hand${s}`, [x * 24, 0, 0], [], [x * 8, 0, 0])])])]);
  const leg = (s: 'L' | 'R', x: number) => j(`UpLeg${s}`, [x * 9, -4, 0], [j(`Leg${s}`, [0, -42, 0], [j(`Foot${s}`, [0, -40, 0], [], [0, -6, 12])])]);
  return j('Hips', [0, 95, 0], [j('Spine', [0, 12, 0], [j('Chest', [0, 20, 0], [j('Neck', [0, 24, 0], [j('Head', [0, 10, 0], [], [0, 18, 0])]), arm('L', 1), arm('R', -1)])]), leg('L', 1), leg('R', -1)]);
}

describe('synthetic BVH', () => {
  it('Z-up files are detected and rotated to Y-up (the same rig as the Y-up file); up: "y" keeps the axes', () => {
    const zUp = (v: Vec3Tuple): Vec3Tuple => [v[0], -v[2], v[1]]; // Y-up → Z-up (inverse of the import's rotation)
    const a = importBvh(writeBvh(biped()), 'yup.bvh');
    const b = importBvh(writeBvh(biped(zUp)), 'zup.bvh');
    expect(a.warnings.join('\n')).not.toMatch(/Z-up/);
    expect(b.warnings.join('\n')).toMatch(/Z-up detected \(the joints span 176 along Z but 12 along Y\): rotated to Y-up/);
    expect(b.scene.rig.bones.map((x) => x.name)).toEqual(a.scene.rig.bones.map((x) => x.name));
    b.scene.rig.bones.forEach((bone, i) => {
      const ref = a.scene.rig.bones[i]!;
      expect(dist(bone.direction, ref.direction)).toBeLessThan(1e-12);
      expect(bone.length).toBeCloseTo(ref.length, 9);
    });
    expect(dist(b.scene.rig.bones.find((x) => x.name === 'Spine')!.direction, [0, 1, 0])).toBeLessThan(1e-15);
    const kept = importBvh(writeBvh(biped(zUp)), 'zup.bvh', { up: 'y' });
    expect(kept.scene.rig.bones.find((x) => x.name === 'Spine')!.direction).toEqual([0, 0, 1]);
    const forced = importBvh(writeBvh(biped()), 'yup.bvh', { up: 'z' });
    expect(forced.warnings.join('\n')).toMatch(/up: 'z': rotated to Y-up/);
    expectPoses(b.scene);
  });

  it('XYZ channel order with position channels on every joint, CRLF line ends: same joints as BVHLoader', () => {
    const channels = ['Xposition', 'Yposition', 'Zposition', 'Xrotation', 'Yrotation', 'Zrotation'];
    const src = writeBvh(biped(undefined, channels), { frames: 3, values: (f, w) => Array.from({ length: w }, (_, c) => f * 100 + c), eol: '\r\n' });
    const r = importBvh(src, 'xyz.bvh');
    expect(r.joints).toHaveLength(19);
    expect(r.motion!.channels).toHaveLength(19 * 6);
    expect(r.motion!.channels.slice(6, 12)).toEqual(channels.map((channel) => ({ joint: 'Spine', channel })));
    expect(r.motion!.frames[2]![7]).toBe(207);
    const ref = bvhLoaderJoints(src);
    expectHeadsAt(r.scene, r.joints, ref.joints, 1e-9);
    // BVHLoader reads the same per-joint position channel values (and adds the OFFSET, 0 12 0)
    const spinePos = ref.loader.clip.tracks.find((t) => t.name === 'Spine.position')!;
    expect(Array.from(spinePos.values.slice(0, 3))).toEqual([6, 7 + 12, 8]);
  });

  it('unnamed, duplicate and spaced names become unique, usable names (and the motion channels follow)', () => {
    const src = writeBvh({
      name: 'Hips', offset: [0, 0, 0], children: [
        { offset: [0, 10, 0], children: [{ name: 'Arm', offset: [0, 10, 0], end: [0, 5, 0] }] },
        { name: 'Arm', offset: [5, 0, 0], end: [0, -5, 0] },
        { name: 'Left  Fore\tArm', offset: [-5, 0, 0], end: [0, -5, 0] },
      ],
    });
    const r = importBvh(src, 'names.bvh');
    expect(r.joints.map((j) => j.name)).toEqual(['Hips', 'joint1', 'Arm', 'Arm.2', 'Left_Fore_Arm']);
    const w = r.warnings.join('\n');
    expect(w).toMatch(/1 unnamed joint\(s\) named after their index: joint1/);
    expect(w).toMatch(/duplicate joint names made unique: "Arm" \(joint 3\) → "Arm\.2"/);
    // BVH splits on whitespace, so the tab and double space arrive as single spaces
    expect(w).toMatch(/renamed: "Left Fore Arm" → "Left_Fore_Arm"/);
    expect(new Set(r.motion!.channels.map((c) => c.joint))).toEqual(new Set(['Hips', 'joint1', 'Arm', 'Arm.2', 'Left_Fore_Arm']));
    expect(() => addRig(createPhysikWorld(), { rig: r.scene.rig, controlPoints: defaultControlPoints(r.scene.rig, 2) })).not.toThrow();
  });

  it('a generated 70-joint skeleton (a chain with branches, some without end sites) imports and poses', () => {
    const r0 = rng(7);
    let count = 0;
    const chain = (len: number, dir: Vec3Tuple, branchEvery: number): Node => {
      const node: Node = { name: `j${count++}`, offset: dir.map((x) => x * (4 + 2 * r0())) as Vec3Tuple };
      let cur = node;
      for (let k = 1; k < len; k++) {
        const next: Node = { name: `j${count++}`, offset: dir.map((x, a) => x * (4 + 2 * r0()) + (a === 0 ? r0() - 0.5 : 0)) as Vec3Tuple };
        cur.children = [next];
        if (branchEvery && k % branchEvery === 0) cur.children.push(chain(4, [r0() > 0.5 ? 1 : -1, -0.3, 0.2], 0));
        cur = next;
      }
      if (count % 2 === 0) cur.end = dir.map((x) => x * 3) as Vec3Tuple; // half the leaves have end sites
      return node;
    };
    const root: Node = { name: 'root', offset: [0, 0, 0], children: [chain(30, [0, 1, 0], 5), chain(11, [0, -1, 0.1], 5)] };
    const src = writeBvh(root, { frames: 1 });
    const r = importBvh(src, 'generated.bvh');
    expect(r.joints).toHaveLength(70);
    expect(r.scene.rig.bones.length).toBeGreaterThanOrEqual(70);
    expect(r.scene.rig.bones.length).toBeLessThan(90);
    expectHeadsAt(r.scene, r.joints, bvhLoaderJoints(src).joints, 1e-9);
    expectPoses(r.scene);
  });

  it('zero-length offsets (coincident joints, a zero end site): every joint keeps a bone of non-zero length', () => {
    const src = writeBvh({
      name: 'Hips', offset: [0, 0, 0], children: [
        { name: 'LowerBack', offset: [0, 0, 0], children: [{ name: 'Spine', offset: [0, 10, 0], children: [{ name: 'Neck', offset: [0, 0, 0], children: [{ name: 'Head', offset: [0, 4, 0], end: [0, 0, 0] }] }] }] },
        { name: 'LHip', offset: [0, 0, 0], children: [{ name: 'LeftLeg', offset: [3, -10, 0], end: [0, -10, 0] }] },
        { name: 'RHip', offset: [0, 0, 0], children: [{ name: 'RightLeg', offset: [-3, -10, 0], end: [0, -10, 0] }] },
      ],
    });
    const r = importBvh(src, 'zero.bvh');
    expect(r.scene.rig.bones.map((b) => b.name)).toEqual(['Hips', 'LowerBack', 'Spine', 'Neck', 'Head', 'LHip', 'LeftLeg', 'RHip', 'RightLeg']);
    expect(r.warnings.join('\n')).toMatch(/2 joint\(s\) whose first child sits on them .*: Hips, Spine/);
    for (const b of r.scene.rig.bones) expect(b.length).toBeGreaterThan(0);
    // Hips and Spine: a quarter of the way toward the next distinct joint (LowerBack → Spine, 10; Neck → Head, 4)
    expect(r.scene.rig.bones.find((b) => b.name === 'Hips')!.length).toBeCloseTo(2.5, 12);
    expect(r.scene.rig.bones.find((b) => b.name === 'Spine')!.length).toBeCloseTo(1, 12);
    expect(r.scene.rig.bones.find((b) => b.name === 'LowerBack')!.length).toBeCloseTo(10, 12);
    // Head's end site coincides with it: the leaf rule gives half the incoming segment (Spine → Head, 4)
    expect(r.scene.rig.bones.find((b) => b.name === 'Head')!.length).toBeCloseTo(2, 12);
    // LHip hangs from the Hips bone's head (offset 0) and spans to the thigh
    expect(r.scene.rig.bones.find((b) => b.name === 'LHip')).toMatchObject({ parent: 'Hips', offset: [0, 0, 0] });
    expectHeadsAt(r.scene, r.joints, bvhLoaderJoints(src).joints, 1e-9);
    expectPoses(r.scene);
  });
});

describe('malformed BVH gives a clear error naming the file and the problem', () => {
  const example = text('bvhio_example.bvh');
  const walk = text('cmu_subject02_walk_delfem2.bvh');
  const lineOf = (src: string, needle: string) => src.slice(0, src.indexOf(needle)).split('\n').length;

  it('truncated inside HIERARCHY', async () => {
    const cut = example.slice(0, example.indexOf('JOINT LeftUpLeg') + 30);
    const e = await errorOf(() => importBvh(cut, 'walk.bvh'));
    expect(e).toBeInstanceOf(ImportError);
    expect(e.message).toMatch(/^walk\.bvh: file ends inside HIERARCHY \(.*joint "LeftUpLeg" opened at line \d+ is not closed\)$/);
  });

  it('truncated inside MOTION: between frames and in the middle of a frame', async () => {
    const lines = walk.split('\n');
    const motion = lines.findIndex((l) => l.startsWith('MOTION'));
    const e1 = await errorOf(() => importBvh(lines.slice(0, motion + 3 + 120).join('\n'), 'walk.bvh'));
    expect(e1.message).toBe('walk.bvh: MOTION says 344 frames, found 120 (file truncated?)');
    const cut = walk.slice(0, walk.indexOf(lines[motion + 3 + 120]!) + 100);
    const e2 = await errorOf(() => importBvh(cut, 'walk.bvh'));
    expect(e2.message).toMatch(/^walk\.bvh: line \d+: file ends in the middle of frame 121 \(\d+ of 96 values\): MOTION says 344 frames, found 120$/);
  });

  it('a non-number in MOTION names the line, frame and channel', async () => {
    const lines = example.split('\n');
    const first = lines.findIndex((l) => l.startsWith('Frame Time')) + 1;
    const values = lines[first]!.trim().split(/\s+/);
    values[4] = 'abc';
    lines[first] = values.join(' ');
    const e = await errorOf(() => importBvh(lines.join('\n'), 'ex.bvh'));
    expect(e.message).toBe(`ex.bvh: line ${first + 1}: frame 1: 'abc' is not a number (value 5, Hips Xrotation)`);
  });

  it('missing braces', async () => {
    const noOpen = example.replace('JOINT Chest\n\t{', 'JOINT Chest\n');
    const e1 = await errorOf(() => importBvh(noOpen, 'ex.bvh'));
    expect(e1.message).toBe(`ex.bvh: line ${lineOf(noOpen, 'JOINT Chest') + 2}: expected { after JOINT Chest, got 'OFFSET'`);
    const lastClose = example.lastIndexOf('}');
    const noClose = example.slice(0, lastClose) + example.slice(lastClose + 1);
    const e2 = await errorOf(() => importBvh(noClose, 'ex.bvh'));
    expect(e2.message).toBe(`ex.bvh: line ${lineOf(example, 'MOTION')}: MOTION inside HIERARCHY: joint "Hips" opened at line 3 is not closed (a '}' is missing)`);
  });

  it('other mistakes: a missing OFFSET, a bad channel, a bad frame count, not a BVH at all', async () => {
    const noOffset = example.replace('\t\tOFFSET\t 0.00\t 5.21\t 0.00\n', '');
    expect((await errorOf(() => importBvh(noOffset, 'ex.bvh'))).message).toMatch(/^ex\.bvh: line \d+: expected OFFSET in joint "Chest" before 'JOINT'$/);
    const badChannel = example.replace('CHANNELS 3 Zrotation Xrotation Yrotation', 'CHANNELS 3 Zrotation Xrotation');
    expect((await errorOf(() => importBvh(badChannel, 'ex.bvh'))).message).toMatch(/^ex\.bvh: line 12: expected a channel name \(Xposition, .*\) for channel 3 of 3 of joint "Chest", got 'JOINT'$/);
    const badFrames = example.replace('Frames:    2', 'Frames: many');
    expect((await errorOf(() => importBvh(badFrames, 'ex.bvh'))).message).toMatch(/^ex\.bvh: line \d+: expected a whole number of frames, got 'many'$/);
    expect((await errorOf(() => importBvh('', 'e.bvh'))).message).toBe('e.bvh: empty file (expected HIERARCHY)');
    expect((await errorOf(() => importBvh('{"name": "scene"}', 'e.bvh'))).message).toBe(`e.bvh: line 1: expected HIERARCHY at the start of a BVH file, got '{'`);
    const two = example.replace('MOTION', 'ROOT Other\n{\n OFFSET 0 0 0\n CHANNELS 0\n}\nMOTION');
    expect((await errorOf(() => importBvh(two, 'ex.bvh'))).message).toMatch(/^ex\.bvh: line \d+: a second ROOT: only one skeleton per file is supported$/);
  });

  it('parseBvh keeps a file without MOTION usable (skeleton only, with a warning)', () => {
    const p = parseBvh(example.slice(0, example.indexOf('MOTION')), 'ex.bvh');
    expect(p.joints).toHaveLength(18);
    expect(p.motion).toBeUndefined();
    expect(p.warnings).toContain('no MOTION section: the skeleton only');
  });
});

// ---------------------------------------------------------------------------------------
// glTF: synthetic files and malformed input

/** A .gltf (JSON text): named and unnamed joints, bent knees, under a rotated, scaled armature node. */
