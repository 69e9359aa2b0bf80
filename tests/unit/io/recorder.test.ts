/**
 * Recorder (frames at their own rate, decoupled from dt), playback (applyFrame gives back
 * exactly the live pose), rewind (resume from a frame = the original run), and the recording
 * as a three.js AnimationClip (local rotations that play back to the recorded world
 * rotations, subsets, ranges, keyframe reduction within its stated bound).
 */
import { describe, expect, it } from 'vitest';
import { AnimationMixer, Group, InterpolateLinear, LoopOnce, Object3D, Quaternion, QuaternionLinearInterpolant, Vector3 } from 'three';
import { addRig, createPhysikWorld, readMetrics, setTarget, step, type PhysikWorld, type RigHandle } from '../../../src/core';
import { humanoidScene, humanoidWithMove } from '../../support/humanoidWorld';
import type { Settings } from '../../../src/scene/types';
import { applyFrame, createRecorder, recordSteps, rewindTo } from '../../../src/io/recorder';
import { localRotation, type Recording } from '../../../src/io/recording';
import { recordingToClip, trackNodeName } from '../../../src/io/clip';
import { copyDoubles, type Doubles } from '../../../components/doubles';

const scene = humanoidScene;

function humanoid(settings: Partial<Settings> = {}): { world: PhysikWorld; h: RigHandle } {
  return humanoidWithMove({ step: 70, point: 'footL', target: [0.3, 0.35, 0.4] }, settings);
}

/** Copy of a width-w store field for the rig's bones (depth-first order). */
function bonesOf(world: PhysikWorld, arr: Doubles, w: number): Float64Array {
  const bones = world.physik.rigs[0]!.bones;
  const out = new Float64Array(bones.length * w);
  bones.forEach((b, i) => copyDoubles(out, i * w, arr, b * w, w));
  return out;
}

function differences(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length);
  let n = 0;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) n++;
  return n;
}

/** Angle (radians) between the rotations of two quaternions, sign-blind. */
function angle(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const d = Math.abs(a[0]! * b[0]! + a[1]! * b[1]! + a[2]! * b[2]! + a[3]! * b[3]!);
  const na = Math.hypot(a[0]!, a[1]!, a[2]!, a[3]!), nb = Math.hypot(b[0]!, b[1]!, b[2]!, b[3]!);
  return 2 * Math.acos(Math.min(1, d / (na * nb)));
}

const frameOf = (a: Float64Array, frame: number, size: number) => a.subarray(frame * size, (frame + 1) * size);

describe('recorder timing (decoupled from dt)', () => {
  // frame k is the first step whose time s·dt reaches k / fps: s = ceil(k / (fps·dt))
  for (const [dt, fps, stepsPerFrame] of [[0.05, 30, 2 / 3], [0.05, 10, 2], [1 / 60, 24, 2.5], [0.05, 20, 1]] as const) {
    it(`dt ${dt.toFixed(4)} s at ${fps} fps: frame k is the pose of step ceil(k · ${stepsPerFrame})`, () => {
      const { world, h } = humanoid({ dt });
      const steps = 60;
      const rec = recordSteps(world, h.rig, steps, { fps });
      const expected = Math.floor(steps / stepsPerFrame + 1e-9) + 1;
      expect(rec.frameCount).toBe(expected);
      expect(rec.times.length).toBe(expected); // trimmed by stop()
      for (let k = 0; k < rec.frameCount; k++) {
        expect(rec.steps[k]).toBe(Math.ceil(Math.round(k * stepsPerFrame * 1e6) / 1e6));
        const late = rec.times[k]! - k / fps;
        expect(late).toBeGreaterThanOrEqual(-1e-9);
        expect(late).toBeLessThan(dt);
      }
    });
  }

  it('afterStep(simTime) with explicit times gives the same frames as its own clock', () => {
    const a = humanoid(), b = humanoid();
    const own = recordSteps(a.world, a.h.rig, 45, { fps: 30 });
    const r = createRecorder(b.world, b.h.rig, { fps: 30 });
    for (let i = 1; i <= 45; i++) {
      step(b.world);
      r.afterStep(i * 0.05);
    }
    const explicit = r.stop();
    expect(Array.from(explicit.steps)).toEqual(Array.from(own.steps));
    expect(differences(explicit.rotations, own.rotations)).toBe(0);
    expect(() => r.afterStep()).toThrow(/stopped/);
    r.resume();
    expect(() => r.afterStep(1)).toThrow(/not before 2\.25/);
    expect(() => createRecorder(b.world, b.h.rig, { fps: 0 })).toThrow(/fps must be a number in \(0, 1000\], got 0/);
  });
});

describe('playback', () => {
  it('frames hold the live pose, and applyFrame gives back exactly the live rotations, heads and tails', () => {
    const { world, h } = humanoid();
    const { Bone } = world.physik;
    const recorder = createRecorder(world, h.rig, { fps: 30, keepSnapshots: true });
    const live = { rot: [bonesOf(world, Bone.rot, 4)], head: [bonesOf(world, Bone.head, 3)], tail: [bonesOf(world, Bone.tail, 3)], centre: [bonesOf(world, Bone.centre, 3)] };
    for (let s = 1; s <= 90; s++) {
      step(world);
      recorder.afterStep();
      live.rot.push(bonesOf(world, Bone.rot, 4));
      live.head.push(bonesOf(world, Bone.head, 3));
      live.tail.push(bonesOf(world, Bone.tail, 3));
      live.centre.push(bonesOf(world, Bone.centre, 3));
    }
    const rec = recorder.stop();
    expect(rec.frameCount).toBe(136);
    const n = rec.bones.length;

    // play back into another world holding the same rig (at rest)
    const other = humanoid();
    const B = other.world.physik.Bone;
    let moved = 0;
    for (let k = 0; k < rec.frameCount; k++) {
      const s = rec.steps[k]!;
      expect(differences(frameOf(rec.rotations, k, n * 4), live.rot[s]!)).toBe(0);
      applyFrame(other.world, other.h.rig, rec, k);
      expect(differences(bonesOf(other.world, B.rot, 4), live.rot[s]!)).toBe(0);
      expect(differences(bonesOf(other.world, B.head, 3), live.head[s]!)).toBe(0);
      expect(differences(bonesOf(other.world, B.tail, 3), live.tail[s]!)).toBe(0);
      // centres: exact but for the floating root, which the simulation places by its centre
      const centre = bonesOf(other.world, B.centre, 3);
      expect(differences(centre.subarray(3), live.centre[s]!.subarray(3))).toBe(0);
      for (let c = 0; c < 3; c++) expect(Math.abs(centre[c]! - live.centre[s]![c]!)).toBeLessThan(1e-14);
      // and equal to the snapshot the recorder took live at that frame
      const snap = recorder.snapshot(k)!;
      expect(snap.stores.Rig!.step![0]).toBe(s);
      expect(differences(bonesOf(other.world, B.rot, 4), snap.stores.Bone!.rot!)).toBe(0);
      expect(differences(bonesOf(other.world, B.head, 3), snap.stores.Bone!.head!)).toBe(0);
      if (k > 0 && differences(live.rot[s]!, live.rot[rec.steps[k - 1]!]!) > 0) moved++;
    }
    expect(moved).toBeGreaterThan(80); // the recording is not a still
  });

  it('applyFrame refuses a recording of another rig and frames out of range', () => {
    const { world, h } = humanoid();
    const rec = recordSteps(world, h.rig, 3);
    const chain = addRig(world, { rig: { name: 'chain', bones: [{ name: 'a', parent: null, direction: [0, 1, 0], length: 1 }] } });
    expect(() => applyFrame(world, chain.rig, rec, 0)).toThrow(/recording of "humanoid" \(18 bones\) does not match rig "chain" \(1 bones/);
    expect(() => applyFrame(world, h.rig, rec, rec.frameCount)).toThrow(/frame must be a whole number in 0\.\.4, got 5/);
    expect(() => applyFrame(world, h.rig, rec, 1.5)).toThrow(/got 1\.5/);
  });
});

describe('rewind', () => {
  const MOVE_AT = 100;
  function runTo(world: PhysikWorld, h: RigHandle, recorder: ReturnType<typeof createRecorder>, last: number): void {
    while (world.physik.Rig.step[h.rig]! < last) {
      if (world.physik.Rig.step[h.rig] === MOVE_AT) setTarget(world, h.controlPoints.handR!, [-0.6, 1.4, 0.1]);
      step(world);
      recorder.afterStep();
    }
  }

  it('resuming from a recorded frame re-records the original run bit for bit', () => {
    const { world, h } = humanoid();
    const recorder = createRecorder(world, h.rig, { fps: 30, keepSnapshots: true });
    runTo(world, h, recorder, 120);
    const rec = recorder.recording;
    const original = {
      frames: rec.frameCount, steps: rec.steps.slice(0, rec.frameCount), rot: rec.rotations.slice(0, rec.frameCount * 18 * 4),
      heads: rec.heads.slice(0, rec.frameCount * 18 * 3), times: rec.times.slice(0, rec.frameCount),
    };
    expect(original.frames).toBe(181);
    const dropped = new Set(Array.from({ length: 181 - 52 }, (_, i) => recorder.snapshot(52 + i)));

    rewindTo(world, h.rig, recorder, 50);
    // frame 51 was taken at the same step as frame 50 (34): it is captured again at once
    expect(rec.frameCount).toBe(52);
    expect(readMetrics(world, h.rig).step).toBe(34);
    expect(recorder.time).toBe(original.times[50]);

    runTo(world, h, recorder, 120);
    expect(rec.frameCount).toBe(original.frames);
    expect(Array.from(rec.steps.subarray(0, rec.frameCount))).toEqual(Array.from(original.steps));
    expect(differences(rec.rotations.subarray(0, original.rot.length), original.rot)).toBe(0);
    expect(differences(rec.heads.subarray(0, original.heads.length), original.heads)).toBe(0);
    expect(differences(rec.times.subarray(0, rec.frameCount), original.times)).toBe(0);
    // the dropped frames' snapshots were reused, not reallocated
    expect(dropped.has(recorder.snapshot(60))).toBe(true);
  });

  it('rewinding a stopped recorder, then resume() records on from there', () => {
    const { world, h } = humanoid();
    const recorder = createRecorder(world, h.rig, { fps: 20, keepSnapshots: true });
    runTo(world, h, recorder, 40);
    const rec = recorder.stop();
    const rot40 = rec.rotations.slice();
    rewindTo(world, h.rig, recorder, 10);
    expect(rec.frameCount).toBe(11);
    expect(rec.times.length).toBe(11);
    recorder.resume();
    runTo(world, h, recorder, 40);
    expect(differences(recorder.stop().rotations, rot40)).toBe(0);
  });

  it('refuses without snapshots or out of range, and changes nothing', () => {
    const { world, h } = humanoid();
    const plain = createRecorder(world, h.rig);
    step(world, 10);
    plain.afterStep(0.5);
    expect(() => rewindTo(world, h.rig, plain, 2)).toThrow(/keeps no snapshots \(create it with keepSnapshots: true\)/);
    const keeping = createRecorder(world, h.rig, { keepSnapshots: true });
    expect(() => rewindTo(world, h.rig, keeping, 3)).toThrow(/frame must be a whole number in 0\.\.0, got 3/);
    expect(readMetrics(world, h.rig).step).toBe(10);
    expect(plain.recording.frameCount).toBe(16);
    const other = humanoid();
    expect(() => rewindTo(other.world, other.h.rig, keeping, 0)).toThrow(/another world or rig/);
  });
});

describe('recordingToClip', () => {
  const { world, h } = humanoid();
  const rec = recordSteps(world, h.rig, 300, { fps: 30 }); // moves, then settles
  const n = rec.bones.length;

  it('has a local-rotation track per bone and the root position, at frame / fps', () => {
    const clip = recordingToClip(rec);
    expect(clip.name).toBe('humanoid');
    expect(clip.duration).toBeCloseTo((rec.frameCount - 1) / 30, 12);
    expect(clip.tracks.map((t) => t.name)).toEqual([
      'torso.quaternion', 'torso.position',
      ...rec.bones.slice(1).map((b) => `${b.name.replace('.', '')}.quaternion`),
    ]);
    expect(trackNodeName('foot.L')).toBe('footL');
    const local = new Float64Array(4);
    for (const [ti, bi] of [[0, 0], [5, 4], [18, 17]] as const) {
      const track = clip.tracks[ti]!;
      expect(track.times.length).toBe(rec.frameCount);
      for (let k = 0; k < rec.frameCount; k++) {
        expect(track.times[k]).toBe(Math.fround(k / 30));
        localRotation(rec, k, bi, local);
        expect(angle(track.values.subarray(k * 4, k * 4 + 4), local)).toBeLessThan(1e-6);
      }
    }
    const pos = clip.tracks[1]!;
    for (let k = 0; k < rec.frameCount; k++) for (let c = 0; c < 3; c++) expect(pos.values[k * 3 + c]).toBe(Math.fround(rec.heads[k * n * 3 + c]!));
  });

  it('plays back in a three.js AnimationMixer to the recorded world rotations and heads', () => {
    const clip = recordingToClip(rec);
    const scene3 = new Group();
    const objects: Object3D[] = rec.bones.map((b) => {
      const o = new Object3D();
      o.name = trackNodeName(b.name);
      o.quaternion.fromArray(b.restLocal);
      o.position.fromArray(b.parent < 0 ? b.restHead : b.offset);
      return o;
    });
    rec.bones.forEach((b, i) => (b.parent < 0 ? scene3 : objects[b.parent]!).add(objects[i]!));
    const mixer = new AnimationMixer(scene3);
    const action = mixer.clipAction(clip);
    action.setLoop(LoopOnce, 1); // hold the last frame instead of wrapping to the first
    action.clampWhenFinished = true;
    action.play();
    const q = new Quaternion(), p = new Vector3();
    for (const k of [0, 7, 40, 133, rec.frameCount - 1]) {
      mixer.setTime(k / 30);
      scene3.updateMatrixWorld(true);
      objects.forEach((o, i) => {
        o.getWorldQuaternion(q);
        expect(angle(q.toArray(), frameOf(rec.rotations, k * n + i, 4))).toBeLessThan(2e-6);
        o.getWorldPosition(p);
        expect(p.distanceTo(new Vector3().fromArray(rec.heads, (k * n + i) * 3))).toBeLessThan(2e-6);
      });
    }
  });

  it('takes a set of bones and a range of frames', () => {
    const clip = recordingToClip(rec, { bones: ['hand.R', 'forearm.R'], range: [10, 40] });
    expect(clip.tracks.map((t) => t.name)).toEqual(['forearmR.quaternion', 'handR.quaternion']);
    expect(clip.duration).toBeCloseTo(1, 12);
    const track = clip.tracks[1]!;
    expect(track.times.length).toBe(31);
    expect(track.times[0]).toBe(0);
    const local = new Float64Array(4);
    localRotation(rec, 10, rec.bones.findIndex((b) => b.name === 'hand.R'), local);
    expect(angle(track.values.subarray(0, 4), local)).toBeLessThan(1e-6);
    // the root, when chosen, brings its position track
    expect(recordingToClip(rec, { bones: ['torso'] }).tracks.map((t) => t.name)).toEqual(['torso.quaternion', 'torso.position']);
    expect(recordingToClip(rec, { range: [5, 5] }).duration).toBe(0);
  });

  for (const maxAngleDeg of [0.05, 0.5, 2]) {
    it(`keyframe reduction at ${maxAngleDeg}°: every dropped key is within the bound of what three.js plays`, () => {
      const full = recordingToClip(rec);
      const reduced = recordingToClip(rec, { reduce: { maxAngleDeg } });
      const local = new Float64Array(4);
      const keys = (c: typeof full) => c.tracks.filter((t) => t.name.endsWith('.quaternion')).reduce((s, t) => s + t.times.length, 0);
      let worst = 0;
      for (const track of reduced.tracks) {
        if (!track.name.endsWith('.quaternion')) {
          expect(track.times.length).toBe(rec.frameCount); // positions are not reduced
          continue;
        }
        const bi = rec.bones.findIndex((b) => `${trackNodeName(b.name)}.quaternion` === track.name);
        // what an AnimationMixer plays for a quaternion track with linear interpolation
        expect(track.getInterpolation()).toBe(InterpolateLinear);
        const play = new QuaternionLinearInterpolant(track.times, track.values, 4, new Float32Array(4));
        expect(track.times[0]).toBe(0);
        expect(track.times[track.times.length - 1]).toBe(Math.fround((rec.frameCount - 1) / 30));
        for (let k = 0; k < rec.frameCount; k++) {
          localRotation(rec, k, bi, local);
          worst = Math.max(worst, angle(play.evaluate(k / 30), local));
        }
      }
      expect((worst * 180) / Math.PI).toBeLessThanOrEqual(maxAngleDeg + 1e-4); // float32 keys add ~1e-5°
      expect(keys(reduced)).toBeLessThan(0.5 * keys(full));
      // the error is used, not wasted: with a bound this size something comes close to it
      expect((worst * 180) / Math.PI).toBeGreaterThan(0.3 * maxAngleDeg);
    });
  }

  it('reduces a settled recording to a couple of keys per bone', () => {
    // the plain humanoid scene, at rest since step 291
    const world = createPhysikWorld();
    const h = addRig(world, { rig: scene.rig, controlPoints: scene.controlPoints, settings: scene.settings, script: scene.script });
    step(world, 400);
    expect(readMetrics(world, h.rig).atRest).toBe(true);
    const still = recordSteps(world, h.rig, 60, { fps: 30 });
    const clip = recordingToClip(still, { reduce: { maxAngleDeg: 0.05 } });
    for (const t of clip.tracks) {
      if (t.name.endsWith('.quaternion')) expect(t.times.length).toBe(2);
      else expect(t.times.length).toBe(still.frameCount);
    }
    expect(still.frameCount).toBe(91);
  });

  it('validates its options with clear errors', () => {
    expect(() => recordingToClip(rec, { bones: ['hand.R', 'tail'] })).toThrow(/bones: unknown bone "tail" \(known: torso, head, /);
    expect(() => recordingToClip(rec, { bones: ['head', 'head'] })).toThrow(/"head" is listed twice/);
    expect(() => recordingToClip(rec, { bones: [] })).toThrow(/non-empty list/);
    expect(() => recordingToClip(rec, { range: [0, rec.frameCount] })).toThrow(/range: expected \[start, end\] with 0 <= start <= end <= 450 \(whole frames\), got \[0,451\]/);
    expect(() => recordingToClip(rec, { range: [20, 10] })).toThrow(/range: expected/);
    expect(() => recordingToClip(rec, { range: [-1, 10] })).toThrow(/range: expected/);
    expect(() => recordingToClip(rec, { range: [0.5, 10] })).toThrow(/range: expected/);
    expect(() => recordingToClip(rec, { reduce: { maxAngleDeg: -1 } })).toThrow(/reduce\.maxAngleDeg: expected a finite number of degrees >= 0, got -1/);
    expect(() => recordingToClip(rec, { reduce: { maxAngleDeg: NaN } })).toThrow(/got NaN/);
    const empty: Recording = { ...rec, frameCount: 0 };
    expect(() => recordingToClip(empty)).toThrow(/recording of "humanoid" has no frames/);
    const clash: Recording = { ...rec, bones: rec.bones.map((b) => (b.name === 'head' ? { ...b, name: 'foot L' } : b.name === 'hip.L' ? { ...b, name: 'foot_L' } : b)) };
    expect(() => recordingToClip(clash)).toThrow(/bones "foot L" and "foot_L" would address the same node "foot_L"/);
  });
});
