/**
 * Capture on the CMU walk (120 Hz, 31 joints): faithful when every joint is driven stiffly,
 * markers hold where they are put while the free bones move on their own, finite and
 * deterministic; the result exports onto the source BVH (three.js's BVHLoader reads the
 * source's hierarchy and channel order) and to a .glb the Khronos validator accepts; a glTF's
 * own animation plays too.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BVHLoader } from 'three/examples/jsm/loaders/BVHLoader.js';
import { createPhysikWorld, addRig, readPose, removeRig, step } from '../../../src/core';
import { importBvh } from '../../../src/io/bvhImport';
import { importGltf } from '../../../src/io/gltfImport';
import { recordingToSourceBvh } from '../../../src/io/bvhSource';
import { recordingToGlb } from '../../../src/io/gltfExport';
import { recordingToSourceGlb } from '../../../src/io/gltfSource';
import { dropReferenceFrame, motionFromBvh, type SourceMotion } from '../../../src/capture/source';
import { motionFromGltf } from '../../../src/capture/gltfMotion';
import { bindClip } from '../../../src/capture/bind';
import { attachClip, captureClip, captureSettings, detachClip, type CaptureHandle, type CaptureOptions, type CaptureResult } from '../../../src/capture/capture';
import { poseDriveOf, sampleTrackPose } from '../../../src/world/clipPose';
import { clipJointRanges } from '../../../src/capture/limits';
import { getJointLimits } from '../../../src/core';
import { coupledSolveForm } from '../../../systems/interJointSolve';
import type { RigDescription } from '../../../src/world/types';

const fixtures = join(__dirname, '../../fixtures/external');
const walkFile = join(fixtures, 'cmu_subject02_walk_delfem2.bvh');
const walkText = readFileSync(walkFile, 'utf8');
const MARKED = ['Hips', 'LeftHand', 'RightHand', 'LeftFoot', 'RightFoot'];

let clip: SourceMotion;
beforeAll(() => {
  clip = dropReferenceFrame(motionFromBvh(walkText, walkFile));
});

interface Captured { result: CaptureResult; height: number; world: ReturnType<typeof createPhysikWorld>; rig: number; handle: CaptureHandle }

function capture(rig: RigDescription, options: CaptureOptions, source = clip): Captured {
  const world = createPhysikWorld();
  const { rig: r } = addRig(world, { rig, settings: captureSettings(source.fps) });
  const bound = bindClip(world, r, source);
  const handle = attachClip(world, r, bound.track, options);
  return { result: captureClip(world, handle), height: world.physik.Rig.height[r]!, world, rig: r, handle };
}

const walkRig = (template: 'humanoid' | 'none') => importBvh(walkText, walkFile, { motion: false, template }).scene.rig;
const worldMarkers: CaptureOptions['markers'] = [
  { name: 'hips', kind: 'world', bones: ['Hips'] },
  { name: 'hands', kind: 'world', bones: ['LeftHand', 'RightHand'] },
  { name: 'feet', kind: 'world', bones: ['LeftFoot', 'RightFoot'] },
];

describe('capture of the CMU walk', () => {
  test('the clip starts at frame 1: frame 0 is the file\'s reference pose', () => {
    expect(clip.frameCount).toBe(343);
    expect(clip.notes.join()).toMatch(/frame 0 is a reference pose/);
  });

  test('followed kinematically, every bone is exactly where the clip has it', () => {
    const rig = walkRig('humanoid');
    const { result } = capture(rig, { markers: [{ name: 'all', kind: 'pose', mode: 'follow', bones: rig.bones.map((b) => b.name) }] });
    expect(result.stats.maxPoseError).toBeLessThan(1e-9);
    expect(result.recording.frameCount).toBe(clip.frameCount);
  });

  test('every joint on a stiff pose drive, no other forces: within 1% of the height at every frame', () => {
    const rig = walkRig('none'); // no limits: the drives are the only forces
    const { result } = capture(rig, { markers: [{ name: 'all', kind: 'pose', bones: rig.bones.map((b) => b.name) }], stiffness: 80000 });
    expect(result.stats.finite).toBe(true);
    expect(result.stats.steps).toBe(clip.frameCount - 1);
    // measured: 0.92% (RightFoot)
    expect(result.stats.maxPoseError).toBeLessThan(0.01);
  });

  describe('world markers on hips, hands and feet, the rest free', () => {
    let run: ReturnType<typeof capture>;
    beforeAll(() => {
      run = capture(walkRig('humanoid'), { markers: worldMarkers });
    });

    test('the marked points stay within 2 cm × (height / 1.7 m) of the clip', () => {
      const { stats } = run.result;
      expect(stats.markers.map((m) => m.bone)).toEqual(MARKED);
      // measured: 0.83%, 0.22%, 0.39%, 0.61%, 0.76% of the height (the bound is 1.18%)
      for (const m of stats.markers) {
        expect(m.max, m.bone).toBeLessThan(0.02 / 1.7);
        expect(m.mean, m.bone).toBeLessThanOrEqual(m.max);
      }
    });

    test('the other bones move on their own: the largest difference from the clip is reported and not zero', () => {
      const { free } = run.result.stats;
      expect(MARKED).not.toContain(free.bone);
      expect(free.max).toBeGreaterThan(0.01); // measured: 0.136 × height (a toe)
      expect(free.max).toBeLessThan(1);
    });

    test('the limits the clip itself passes are widened to its range and listed', () => {
      // the template's elbows allow ±5° out of the hinge plane; the walk's go to 36° and 27°
      const widened = Object.fromEntries(run.handle.widenedLimits.map((w) => [`${w.bone} ${w.axis}`, w]));
      expect(widened['LeftForeArm z']).toMatchObject({ from: [-5, 5], to: [-5, 36] });
      expect(widened['RightForeArm z']).toMatchObject({ from: [-5, 5], to: [-28, 5] });
      expect(widened['LeftHand y']).toMatchObject({ from: [-20, 20], to: [-30, 20] });
      // every limited axis now holds the clip's every frame; the ones the clip keeps to are the template's
      const { world, rig } = run;
      const record = world.physik.rigs.find((r) => r.eid === rig)!;
      const { lo, hi } = clipJointRanges(world, rig, poseDriveOf(world, rig)!.track);
      const template = walkRig('humanoid');
      record.boneNames.forEach((name, i) => {
        if (i === 0) return;
        const now = getJointLimits(world, rig, name);
        const was = template.bones.find((b) => b.name === name)!.limits ?? {};
        (['x', 'y', 'z'] as const).forEach((axis, a) => {
          const l = now[axis];
          if (l === 'free') return;
          if (!widened[`${name} ${axis}`]) expect(l, `${name} ${axis}`).toEqual(was[axis]);
          if (l[0] === l[1]) return; // locked axes (the hip joints' welds) are not widened
          expect(lo[i * 3 + a]! * 180 / Math.PI, `${name} ${axis}`).toBeGreaterThanOrEqual(l[0]);
          expect(hi[i * 3 + a]! * 180 / Math.PI, `${name} ${axis}`).toBeLessThanOrEqual(l[1]);
        });
      });
    });

    test('finite, and every limit holds within 2°', () => {
      const { stats } = run.result;
      expect(stats.finite).toBe(true);
      expect(Number.isFinite(stats.maxLimitViolationDeg)).toBe(true);
      // measured: 0.72° (a toe); 3.97° before the step caught the limits its solve would pass
      // with no spring holding them (a free toe flung past its limit by the marked foot in one
      // step), 7.7° before the limits took the clip's range
      expect(stats.maxLimitViolationDeg).toBeLessThanOrEqual(2);
      const rotations = run.result.recording.rotations;
      for (let k = 0; k < run.result.recording.frameCount * 31 * 4; k++) expect(Number.isFinite(rotations[k]!)).toBe(true);
    });

    test('detaching puts the limits back; with limits "keep" they are left as they are', () => {
      const world = createPhysikWorld();
      const { rig } = addRig(world, { rig: walkRig('humanoid'), settings: captureSettings(clip.fps) });
      const names = world.physik.rigs[0]!.boneNames.slice(1);
      const before = names.map((b) => getJointLimits(world, rig, b));
      const track = bindClip(world, rig, clip).track;
      const fitted = attachClip(world, rig, track, { markers: worldMarkers });
      expect(fitted.widenedLimits.length).toBeGreaterThan(0);
      expect(getJointLimits(world, rig, 'LeftForeArm').z).toEqual([-5, 36]);
      detachClip(world, rig);
      expect(names.map((b) => getJointLimits(world, rig, b))).toEqual(before);
      const kept = attachClip(world, rig, track, { markers: worldMarkers, limits: 'keep' });
      expect(kept.widenedLimits).toEqual([]);
      expect(names.map((b) => getJointLimits(world, rig, b))).toEqual(before);
    });

    test('a removed rig takes its clip with it: a rig added after it plays none', () => {
      const world = createPhysikWorld();
      const { rig } = addRig(world, { rig: walkRig('humanoid'), settings: captureSettings(clip.fps) });
      attachClip(world, rig, bindClip(world, rig, clip).track, { markers: worldMarkers });
      removeRig(world, rig);
      expect(poseDriveOf(world, rig)).toBeUndefined();
      // the next rig (its entity id may be the removed one's) stands as it would in a world of its own
      const next = addRig(world, { rig: walkRig('humanoid'), settings: captureSettings(clip.fps) });
      const alone = createPhysikWorld();
      const own = addRig(alone, { rig: walkRig('humanoid'), settings: captureSettings(clip.fps) });
      step(world, 20); step(alone, 20);
      expect(readPose(world, next.rig)).toEqual(readPose(alone, own.rig));
    });

    test('a locked axis is not widened: the clip passing it is noted', () => {
      // the elbow made a hinge (locked at 0° on y and z): the walk bends it 36° on z
      const hinged = walkRig('humanoid');
      for (const b of hinged.bones) if (b.name === 'LeftForeArm') b.limits = { x: [0, 150], y: [0, 0], z: [0, 0] };
      const world = createPhysikWorld();
      const { rig } = addRig(world, { rig: hinged, settings: captureSettings(clip.fps) });
      const handle = attachClip(world, rig, bindClip(world, rig, clip).track, { markers: worldMarkers });
      expect(handle.widenedLimits.filter((w) => w.bone === 'LeftForeArm')).toEqual([]);
      expect(getJointLimits(world, rig, 'LeftForeArm')).toEqual({ x: [0, 150], y: [0, 0], z: [0, 0] });
      expect(handle.notes.join('\n')).toMatch(/the clip turns "LeftForeArm" 35\.8° on its locked z axis/);
    });

    test('deterministic: a second run records the same bits', () => {
      const again = capture(walkRig('humanoid'), { markers: worldMarkers });
      const a = run.result.recording, b = again.result.recording;
      expect(b.frameCount).toBe(a.frameCount);
      expect(Buffer.from(b.rotations.buffer, 0, b.frameCount * 31 * 32).equals(Buffer.from(a.rotations.buffer, 0, a.frameCount * 31 * 32))).toBe(true);
      expect(Buffer.from(b.heads.buffer, 0, b.frameCount * 31 * 24).equals(Buffer.from(a.heads.buffer, 0, a.frameCount * 31 * 24))).toBe(true);
    });

    test('exported onto the source BVH, three.js reads the source hierarchy and channel order', () => {
      const text = recordingToSourceBvh(walkText, run.result.recording, { file: walkFile });
      const loader = new BVHLoader();
      const source = loader.parse(walkText), ours = loader.parse(text);
      const shape = (r: ReturnType<BVHLoader['parse']>) => r.skeleton.bones.map((b) => `${b.name}<${b.parent && 'isBone' in b.parent ? b.parent.name : ''}`);
      expect(shape(ours)).toEqual(shape(source));
      const channels = (t: string) => t.split(/\r?\n/).filter((l) => /^\s*CHANNELS/.test(l)).map((l) => l.trim());
      expect(channels(text)).toEqual(channels(walkText));
      expect(ours.clip.duration).toBeCloseTo(run.result.recording.times[run.result.recording.frameCount - 1]!, 2);
    });

    test('exported as .glb, the Khronos validator finds no error', async () => {
      const glb = await recordingToGlb(run.result.recording);
      const { validateBytes } = (await import('gltf-validator' as string)) as { validateBytes(b: Uint8Array): Promise<{ issues: { numErrors: number; messages: { severity: number; message: string }[] } }> };
      const report = await validateBytes(new Uint8Array(glb));
      expect(report.issues.messages.filter((m) => m.severity === 0).map((m) => m.message)).toEqual([]);
      expect(report.issues.numErrors).toBe(0);
    });
  });

  test('sampling at a frame copies the pose baked at attach time: the same bits as placing it', () => {
    const world = createPhysikWorld();
    const { rig } = addRig(world, { rig: walkRig('humanoid'), settings: captureSettings(clip.fps) });
    attachClip(world, rig, bindClip(world, rig, clip).track, { markers: worldMarkers });
    const rec = poseDriveOf(world, rig)!;
    const record = world.physik.rigs[0]!;
    const unbaked = { ...rec, track: { ...rec.track } }; // a track of its own: no baked poses
    const n = record.bones.length;
    const a = { rot: new Float64Array(n * 4), head: new Float64Array(n * 3) }, b = { rot: new Float64Array(n * 4), head: new Float64Array(n * 3) };
    for (const f of [0, 1, 57, 341, 342]) {
      // (f / fps) × fps lands a few ulps off f: within FRAME_SNAP it is frame f
      sampleTrackPose(world, record, rec, f / clip.fps, a.rot, a.head);
      sampleTrackPose(world, record, unbaked, f / clip.fps, b.rot, b.head);
      expect(Array.from(a.rot), `frame ${f}`).toEqual(Array.from(b.rot));
      expect(Array.from(a.head), `frame ${f}`).toEqual(Array.from(b.head));
    }
    // between frames: slerped, the root's head halfway
    sampleTrackPose(world, record, rec, 57.5 / clip.fps, a.rot, a.head);
    sampleTrackPose(world, record, unbaked, 57 / clip.fps, b.rot, b.head);
    const head58 = new Float64Array(n * 3), rot58 = new Float64Array(n * 4);
    sampleTrackPose(world, record, unbaked, 58 / clip.fps, rot58, head58);
    for (let c = 0; c < 3; c++) expect(a.head[c]!).toBeCloseTo(0.5 * (b.head[c]! + head58[c]!), 9);
    expect(Array.from(a.rot)).not.toEqual(Array.from(b.rot));
  });

  test("a driven world marker's bone gets the clip's angular acceleration (its feed-forward), with every other bone free", () => {
    const world = createPhysikWorld();
    const { rig } = addRig(world, { rig: walkRig('humanoid'), settings: captureSettings(clip.fps) });
    attachClip(world, rig, bindClip(world, rig, clip).track, { markers: worldMarkers });
    step(world, 40);
    const rec = poseDriveOf(world, rig)!, dt = 1 / clip.fps;
    // the clip's world angular velocity of bone i from rotation set P to Q over one step
    const omega = (P: Float64Array, Q: Float64Array, i: number) => {
      const [ax, ay, az, aw] = [-P[i * 4]!, -P[i * 4 + 1]!, -P[i * 4 + 2]!, P[i * 4 + 3]!];
      const [bx, by, bz, bw] = [Q[i * 4]!, Q[i * 4 + 1]!, Q[i * 4 + 2]!, Q[i * 4 + 3]!];
      let x = bw * ax + bx * aw + by * az - bz * ay, y = bw * ay - bx * az + by * aw + bz * ax, z = bw * az + bx * ay - by * ax + bz * aw, w = bw * aw - bx * ax - by * ay - bz * az;
      if (w < 0) { x = -x; y = -y; z = -z; w = -w; }
      const s = Math.hypot(x, y, z), f = (2 * Math.atan2(s, w)) / s / dt;
      return [x * f, y * f, z * f];
    };
    for (let m = 0; m < rec.markerBone.length; m++) {
      const i = rec.markerBone[m]!, w1 = omega(rec.rotA, rec.rotB, i), w2 = omega(rec.rotB, rec.rotC, i);
      const expected = [0, 1, 2].map((c) => (w2[c]! - w1[c]!) / dt);
      const scale = Math.max(1, ...expected.map(Math.abs));
      for (let c = 0; c < 3; c++) expect(Math.abs(rec.alpha[i * 3 + c]! - expected[c]!)).toBeLessThan(1e-9 * scale);
    }
  });

  test('a step solved again after a limit change refolds only the changed joints: the same bits as refolding every bone', () => {
    const run = (refold: 'changed' | 'all') => {
      coupledSolveForm.refold = refold;
      try {
        const world = createPhysikWorld();
        const { rig } = addRig(world, { rig: walkRig('humanoid'), settings: captureSettings(clip.fps) });
        attachClip(world, rig, bindClip(world, rig, clip).track, { markers: worldMarkers });
        const before = coupledSolveForm.refolds;
        step(world, 200);
        return { rot: Array.from(world.physik.Bone.rot), refolds: coupledSolveForm.refolds - before };
      } finally {
        coupledSolveForm.refold = 'changed';
      }
    };
    const changed = run('changed'), all = run('all');
    expect(changed.refolds).toBeGreaterThan(20); // (limits caught or released on those steps)
    expect(all.refolds).toBe(0);
    expect(changed.rot).toEqual(all.rot);
  });

  test('a script changes a marker\'s mode: the feet go free at step 100', () => {
    const world = createPhysikWorld();
    const { rig } = addRig(world, { rig: walkRig('humanoid'), settings: captureSettings(clip.fps) });
    const handle = attachClip(world, rig, bindClip(world, rig, clip).track, { markers: worldMarkers, script: [{ step: 100, marker: 'feet', mode: 'free' }] });
    const feet = handle.markerPoints.get('feet')!;
    step(world, 100);
    expect(feet.map((cp) => world.physik.ControlPoint.active[cp])).toEqual([1, 1]);
    step(world, 1);
    expect(feet.map((cp) => world.physik.ControlPoint.active[cp])).toEqual([0, 0]);
    expect(world.physik.ControlPoint.active[handle.markerPoints.get('hips')![0]!]).toBe(1);
    expect(poseDriveOf(world, rig)!.markerMode[3]).toBe(0);
  });

  test('bad markers are refused naming the marker and the bone', () => {
    const world = createPhysikWorld();
    const { rig } = addRig(world, { rig: walkRig('humanoid'), settings: captureSettings(clip.fps) });
    const track = bindClip(world, rig, clip).track;
    expect(() => attachClip(world, rig, track, { markers: [{ name: 'm', kind: 'world', bones: ['Tail'] }] })).toThrow(/markers\[0\] "m"\.bones: unknown bone "Tail"/);
    expect(() => attachClip(world, rig, track, { markers: [{ name: 'm', kind: 'pose', bones: ['Hips'], stiffness: -1 }] })).toThrow(/markers\[0\] "m"\.stiffness: expected a finite number >= 0/);
    expect(() => attachClip(world, rig, track, { markers: [], script: [{ step: 1, marker: 'nope', mode: 'free' }] })).toThrow(/script\[0\]\.marker: unknown marker "nope"/);
  });

  test('a clip of another skeleton is refused', async () => {
    const figure = readFileSync(join(fixtures, 'RiggedFigure.glb'));
    const other = await motionFromGltf(new Uint8Array(figure), 'RiggedFigure.glb');
    const world = createPhysikWorld();
    const { rig } = addRig(world, { rig: walkRig('humanoid') });
    expect(() => bindClip(world, rig, other)).toThrow(/does not fit rig/);
  });
});

describe('capture of a glTF animation', () => {
  test("RiggedFigure's own animation plays on its rig: followed exactly, markers close", async () => {
    const bytes = new Uint8Array(readFileSync(join(fixtures, 'RiggedFigure.glb')));
    const source = await motionFromGltf(bytes, 'RiggedFigure.glb');
    expect(source.frameCount).toBeGreaterThan(10);
    const { scene } = await importGltf(bytes, 'RiggedFigure.glb');
    const names = scene.rig.bones.map((b) => b.name);
    const followed = capture(scene.rig, { markers: [{ name: 'all', kind: 'pose', mode: 'follow', bones: names }] }, source);
    expect(followed.result.stats.maxPoseError).toBeLessThan(1e-9);
    const leaves = names.filter((n) => !scene.rig.bones.some((b) => b.parent === n));
    const marked = capture(scene.rig, { markers: [{ name: 'ends', kind: 'world', bones: [names[0]!, ...leaves] }] }, source);
    expect(marked.result.stats.finite).toBe(true);
    for (const m of marked.result.stats.markers) expect(m.max, m.bone).toBeLessThan(0.02);
    // onto the source file: the character with one more animation, valid glTF
    const glb = await recordingToSourceGlb(bytes, marked.result.recording, { file: 'RiggedFigure.glb' });
    const { validateBytes } = (await import('gltf-validator' as string)) as { validateBytes(b: Uint8Array): Promise<{ issues: { numErrors: number; messages: { severity: number; message: string }[] } }> };
    const report = await validateBytes(new Uint8Array(glb));
    expect(report.issues.messages.filter((m) => m.severity === 0).map((m) => m.message)).toEqual([]);
  });
});
