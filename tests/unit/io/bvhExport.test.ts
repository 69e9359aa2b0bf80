/**
 * BVH export: record the humanoid's scripted scene, write BVH in every channel order, parse
 * it back with three.js's BVHLoader, rebuild each bone's world rotation from the loaded
 * joint rotations and compare with the recording (within 1e-3 degrees), as well as root
 * positions, joint positions, frame count and frame time. Also: names are sanitised and
 * unique, angles stay continuous through full turns and gimbal lock, bad input is refused.
 */
import { describe, expect, test } from 'vitest';

import { Quaternion, Vector3, type Bone } from 'three';
import { BVHLoader } from 'three/examples/jsm/loaders/BVHLoader.js';

import { headAt, type Quat, type Recording } from '../../../src/io/recording';
import { BVH_CHANNEL_ORDERS, recordingToBvh, type BvhChannelOrder } from '../../../src/io/bvhExport';
import { recordHumanoid as recordHumanoidSteps } from '../../support/recordHumanoid';

const STEPS = 60;
const DEG = 180 / Math.PI;

const recordHumanoid = (): Recording => recordHumanoidSteps(STEPS);

/** Angle (degrees) between two rotations, precise near zero (atan2, not acos). */
function angleDeg(a: Quaternion, b: ArrayLike<number>): number {
  const d = a.clone().invert().multiply(new Quaternion(b[0], b[1], b[2], b[3]));
  return 2 * Math.atan2(Math.hypot(d.x, d.y, d.z), Math.abs(d.w)) * DEG;
}

interface Comparison { frames: number; rotDeg: number; rootPos: number; heads: number; tips: number; frameTime: number }

/**
 * Parse `text` with BVHLoader and compare with `rec`, matching joints to bones in order
 * (`names[i]` is bone i's joint name in the file): rebuild each world rotation as
 * D · restWorld, where D is the product of the loaded joint rotations down the chain, and
 * each head by posing the loaded skeleton.
 */
function compare(rec: Recording, text: string, names = rec.bones.map((b) => b.name), scale = 1): Comparison {
  const { skeleton, clip } = new BVHLoader().parse(text);
  const joints = skeleton.bones.filter((b) => b.name !== 'ENDSITE');
  expect(joints.map((b) => b.name).sort()).toEqual([...names].sort());
  const byName = new Map(joints.map((b) => [b.name, b]));
  const track = (name: string, prop: string) => {
    const t = clip.tracks.find((x) => x.name === `${name}.${prop}`);
    if (!t) throw new Error(`no track ${name}.${prop}`);
    return t;
  };
  const n = rec.bones.length;
  const frames = track(names[0]!, 'quaternion').times.length;
  let rotDeg = 0, rootPos = 0, heads = 0, tips = 0;
  const D: Quaternion[] = [];
  const world = new Vector3(), tip = new Vector3();
  for (let f = 0; f < Math.min(frames, rec.frameCount); f++) {
    for (let i = 0; i < n; i++) {
      const b = rec.bones[i]!;
      const v = track(names[i]!, 'quaternion').values;
      const local = new Quaternion(v[f * 4], v[f * 4 + 1], v[f * 4 + 2], v[f * 4 + 3]);
      D[i] = b.parent < 0 ? local : D[b.parent]!.clone().multiply(local);
      const r = D[i]!.clone().multiply(new Quaternion(...(b.restWorld as Quat)));
      rotDeg = Math.max(rotDeg, angleDeg(r, rec.rotations.subarray((f * n + i) * 4, (f * n + i) * 4 + 4)));
      // pose the loaded skeleton as BVHLoader's clip would
      const bone = byName.get(names[i]!)!;
      bone.quaternion.copy(local);
      const p = track(names[i]!, 'position').values;
      bone.position.set(p[f * 3]!, p[f * 3 + 1]!, p[f * 3 + 2]!);
    }
    const h0 = headAt(rec, f, 0);
    const root = byName.get(names[0]!)!;
    rootPos = Math.max(rootPos, root.position.distanceTo(new Vector3(...h0).multiplyScalar(scale)) / Math.max(1, Math.hypot(...h0) * scale));
    root.updateMatrixWorld(true);
    for (let i = 0; i < n; i++) {
      const bone = byName.get(names[i]!)!;
      bone.getWorldPosition(world);
      heads = Math.max(heads, world.distanceTo(new Vector3(...headAt(rec, f, i)).multiplyScalar(scale)));
      const end = bone.children.find((c) => (c as Bone).name === 'ENDSITE');
      if (end) {
        // an End Site sits on the bone's tail: head + R·(0, length, 0)
        end.getWorldPosition(tip);
        const c = (f * n + i) * 4, r = rec.rotations;
        const expected = new Vector3(0, rec.bones[i]!.length, 0).applyQuaternion(new Quaternion(r[c], r[c + 1], r[c + 2], r[c + 3]))
          .add(new Vector3(...headAt(rec, f, i))).multiplyScalar(scale);
        tips = Math.max(tips, tip.distanceTo(expected));
      }
    }
  }
  const times = track(names[0]!, 'quaternion').times;
  return { frames, rotDeg, rootPos, heads, tips, frameTime: times.length > 1 ? times[1]! - times[0]! : 0 };
}

const rec = recordHumanoid();

describe('recordingToBvh', () => {
  test('the recording is non-trivial (the reaching arm turns well away from rest)', () => {
    const n = rec.bones.length, i = rec.bones.findIndex((b) => b.name === 'upperArm.R');
    const last = rec.rotations.subarray(((rec.frameCount - 1) * n + i) * 4, ((rec.frameCount - 1) * n + i) * 4 + 4);
    expect(angleDeg(new Quaternion(...(rec.bones[i]!.restWorld as Quat)), last)).toBeGreaterThan(10);
  });

  test.each(BVH_CHANNEL_ORDERS)('round trip through BVHLoader in channel order %s within 1e-3 degrees', (order) => {
    const text = recordingToBvh(rec, { channelOrder: order });
    const axes = order.split('').map((a) => `${a}rotation`).join(' ');
    // the order is stated where BVH states it: in every joint's CHANNELS line
    const channelLines = text.split('\n').filter((l) => l.trim().startsWith('CHANNELS'));
    expect(channelLines).toHaveLength(rec.bones.length);
    expect(channelLines[0]!.trim()).toBe(`CHANNELS 6 Xposition Yposition Zposition ${axes}`);
    for (const l of channelLines.slice(1)) expect(l.trim()).toBe(`CHANNELS 3 ${axes}`);
    const c = compare(rec, text);
    console.log(`bvh ${order}: ${c.frames} frames, rotation ${c.rotDeg.toExponential(2)}°, root ${c.rootPos.toExponential(2)}, heads ${c.heads.toExponential(2)}, tips ${c.tips.toExponential(2)}`);
    expect(c.frames).toBe(rec.frameCount);
    expect(c.rotDeg).toBeLessThan(1e-3);
    expect(c.rootPos).toBeLessThan(1e-5);
    expect(c.heads).toBeLessThan(1e-5);
    expect(c.tips).toBeLessThan(1e-5);
    expect(c.frameTime).toBeCloseTo(1 / rec.fps, 6); // BVHLoader keeps times as float32
  });

  test('the default order is ZXY, and the root OFFSET is zero with absolute root positions', () => {
    const text = recordingToBvh(rec);
    const lines = text.split('\n').map((l) => l.trim());
    expect(lines[0]).toBe('HIERARCHY');
    expect(lines[1]).toBe(`ROOT ${rec.bones[0]!.name}`);
    expect(lines[3]).toBe('OFFSET 0.000000 0.000000 0.000000');
    expect(lines[4]).toBe('CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation');
    expect(lines).toContain(`Frames: ${rec.frameCount}`);
    expect(text).not.toMatch(/e[+-]\d/); // no exponent notation anywhere
  });

  test('scale multiplies lengths and positions, not angles', () => {
    const c = compare(rec, recordingToBvh(rec, { scale: 100, channelOrder: 'XYZ' }), undefined, 100);
    expect(c.rotDeg).toBeLessThan(1e-3);
    expect(c.heads).toBeLessThan(1e-3); // 1e-5 of a unit at scale 100
    expect(c.rootPos).toBeLessThan(1e-5);
  });

  test('joint names lose whitespace and stay unique', () => {
    const renamed: Recording = {
      ...rec,
      bones: rec.bones.map((b, i) => ({ ...b, name: i === 0 ? 'upper body' : i === 1 ? 'upper_body' : i === 2 ? 'left\tcollar bone' : i === 3 ? '' : b.name })),
    };
    const text = recordingToBvh(renamed);
    const names = ['upper_body', 'upper_body_2', 'left_collar_bone', 'joint', ...rec.bones.slice(4).map((b) => b.name)];
    const c = compare(renamed, text, names);
    expect(c.rotDeg).toBeLessThan(1e-3);
    expect(text).toMatch(/^ROOT upper_body$/m);
    expect(text).toMatch(/^\s*JOINT upper_body_2$/m);
  });

  test.each(BVH_CHANNEL_ORDERS)('angles stay continuous through full turns and gimbal lock (%s)', (order: BvhChannelOrder) => {
    // a two-bone rig: the root spins twice about Y; the child swings through ±90° about the
    // order's middle axis (gimbal lock) with a little twist
    const frames = 73;
    const axis = (a: string) => new Vector3(a === 'X' ? 1 : 0, a === 'Y' ? 1 : 0, a === 'Z' ? 1 : 0);
    const restWorld = new Quaternion().setFromAxisAngle(new Vector3(1, 1, 0).normalize(), 0.4);
    const rotations = new Float64Array(frames * 2 * 4), heads = new Float64Array(frames * 2 * 3);
    for (let f = 0; f < frames; f++) {
      const rootD = new Quaternion().setFromAxisAngle(new Vector3(0, 1, 0), (f * 10 * Math.PI) / 180);
      const swing = new Quaternion().setFromAxisAngle(axis(order[1]!), ((f * 5 - 180) * Math.PI) / 180)
        .multiply(new Quaternion().setFromAxisAngle(axis(order[2]!), 0.1));
      const childD = rootD.clone().multiply(swing);
      rotations.set(rootD.toArray(), f * 8);
      rotations.set(childD.clone().multiply(restWorld).toArray(), f * 8 + 4);
      heads.set([0.01 * f, 1, 0], f * 6);
      heads.set(new Vector3(0, 0.5, 0).applyQuaternion(rootD).add(new Vector3(0.01 * f, 1, 0)).toArray(), f * 6 + 3);
    }
    const synthetic: Recording = {
      rig: 'spinner', fps: 24, frameCount: frames,
      bones: [
        { name: 'base', parent: -1, length: 0.5, offset: [0, 0, 0], restLocal: [0, 0, 0, 1], restWorld: [0, 0, 0, 1], restHead: [0, 1, 0] },
        { name: 'arm', parent: 0, length: 0.3, offset: [0, 0.5, 0], restLocal: restWorld.toArray() as Quat, restWorld: restWorld.toArray() as Quat, restHead: [0, 1.5, 0] },
      ],
      times: Float64Array.from({ length: frames }, (_, f) => f / 24),
      steps: new Int32Array(frames), heads, rotations,
    };
    const text = recordingToBvh(synthetic, { channelOrder: order });
    const c = compare(synthetic, text);
    expect(c.rotDeg).toBeLessThan(1e-3);
    expect(c.heads).toBeLessThan(1e-5);
    // every channel moves by less than 45° between frames (true motion ≤ 10° per frame)
    const rows = text.split('\n').slice(text.split('\n').findIndex((l) => l.startsWith('Frame Time')) + 1).filter(Boolean)
      .map((l) => l.split(' ').map(Number));
    let maxJump = 0;
    for (let f = 1; f < rows.length; f++) for (let k = 3; k < rows[f]!.length; k++) maxJump = Math.max(maxJump, Math.abs(rows[f]![k]! - rows[f - 1]![k]!));
    expect(maxJump).toBeLessThan(45);
    // the root's two turns about Y show as a channel running past 360°, not wrapping
    const yChannel = 3 + order.indexOf('Y');
    expect(rows[frames - 1]![yChannel]!).toBeCloseTo(720, 6);
  });

  test('refuses an empty recording, a NaN (naming frame and bone), and bad options', () => {
    expect(() => recordingToBvh({ ...rec, frameCount: 0 })).toThrow(/nothing recorded/);
    const bad: Recording = { ...rec, rotations: rec.rotations.slice() };
    const i = rec.bones.findIndex((b) => b.name === 'hand.R');
    bad.rotations[(3 * rec.bones.length + i) * 4] = NaN;
    expect(() => recordingToBvh(bad)).toThrow(/frame 3, bone "hand\.R"/);
    expect(() => recordingToBvh(rec, { channelOrder: 'XXY' as BvhChannelOrder })).toThrow(/channelOrder/);
    expect(() => recordingToBvh(rec, { scale: 0 })).toThrow(/scale/);
    expect(() => recordingToBvh(rec, { precision: 2.5 })).toThrow(/precision/);
  });
});
