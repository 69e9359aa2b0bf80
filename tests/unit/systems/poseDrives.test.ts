/**
 * The pose-drive systems on a small arm: a clip sampled between frames by slerp, the elbow
 * driven toward a bend the clip makes, followed exactly when kinematic, free when free, a
 * world marker's control point on the clip's point; nothing when no clip is attached.
 */
import { describe, expect, test } from 'vitest';
import { createPhysikWorld, addRig, step } from '../../../src/core';
import { findRig } from '../../../src/world/world';
import { attachClip, captureClip, captureSettings, detachClip } from '../../../src/capture/capture';
import { sampleTrackPose, poseDriveOf } from '../../../src/world/clipPose';
import type { PoseTrack } from '../../../components/PoseDrive';
import type { RigDescription } from '../../../src/world/types';

const arm: RigDescription = {
  name: 'arm',
  bones: [
    { name: 'upper', parent: null, direction: [1, 0, 0], length: 1 },
    { name: 'fore', parent: 'upper', direction: [1, 0, 0], length: 1 },
    { name: 'hand', parent: 'fore', direction: [1, 0, 0], length: 0.3 },
  ],
};
const fps = 60, frames = 121;

/** The elbow bends to 90° about z and back over two seconds; the root stays at rest. */
function bendTrack(world: ReturnType<typeof createPhysikWorld>, rig: number): PoseTrack {
  const { Bone } = world.physik;
  const record = findRig(world, rig);
  const n = record.bones.length;
  const track: PoseTrack = { fps, frameCount: frames, bones: n, local: new Float64Array(frames * n * 4), rootHead: new Float64Array(frames * 3) };
  for (let f = 0; f < frames; f++) {
    const angle = (Math.PI / 2) * Math.sin((Math.PI * f) / (frames - 1));
    for (let i = 0; i < n; i++) {
      const b = record.bones[i]!, o = (f * n + i) * 4;
      for (let c = 0; c < 4; c++) track.local[o + c] = Bone.restLocal[b * 4 + c]!;
      if (i === 1) {
        // rest local (identity for a straight arm) then the bend about z
        track.local[o] = 0; track.local[o + 1] = 0; track.local[o + 2] = Math.sin(angle / 2); track.local[o + 3] = Math.cos(angle / 2);
      }
    }
  }
  return track;
}

function setup() {
  const world = createPhysikWorld();
  const { rig } = addRig(world, { rig: arm, settings: captureSettings(fps) });
  return { world, rig, track: bendTrack(world, rig) };
}

describe('pose drives', () => {
  test('the clip is sampled between frames by slerp', () => {
    const { world, rig, track } = setup();
    attachClip(world, rig, track, { markers: [] });
    const rec = poseDriveOf(world, rig)!;
    const rot = new Float64Array(12), head = new Float64Array(9);
    const angleAt = (t: number) => {
      sampleTrackPose(world, findRig(world, rig), rec, t, rot, head);
      return 2 * Math.atan2(rot[4 + 2]!, rot[4 + 3]!); // the forearm's world rotation about z
    };
    const a = angleAt(10 / fps), b = angleAt(11 / fps), mid = angleAt(10.5 / fps);
    expect(mid).toBeCloseTo((a + b) / 2, 12);
    expect(angleAt(100)).toBeCloseTo(angleAt((frames - 1) / fps), 15); // holds its last frame
  });

  test('a driven elbow follows the bend; followed, it is exact; free, it does not bend', () => {
    const bones = ['upper', 'fore', 'hand'];
    const drive = setup();
    const driven = captureClip(drive.world, attachClip(drive.world, drive.rig, drive.track, { markers: [{ name: 'all', kind: 'pose', bones }], stiffness: 40000 }));
    expect(driven.stats.maxPoseError).toBeLessThan(0.01);
    const follow = setup();
    const followed = captureClip(follow.world, attachClip(follow.world, follow.rig, follow.track, { markers: [{ name: 'all', kind: 'pose', mode: 'follow', bones }] }));
    expect(followed.stats.maxPoseError).toBeLessThan(1e-12);
    const free = setup();
    const loose = captureClip(free.world, attachClip(free.world, free.rig, free.track, { markers: [] }));
    expect(loose.stats.maxPoseError).toBeGreaterThan(0.2); // the clip bends the arm by 90°; nothing makes the rig
  });

  test("a world marker's control point sits on the clip's point at the end of each step", () => {
    const { world, rig, track } = setup();
    const handle = attachClip(world, rig, track, { markers: [{ name: 'tip', kind: 'world', bones: ['hand'], at: 1 }] });
    const cp = handle.markerPoints.get('tip')![0]!;
    const rec = poseDriveOf(world, rig)!;
    step(world, 30);
    const { ControlPoint } = world.physik;
    for (let c = 0; c < 3; c++) expect(ControlPoint.effective[cp * 3 + c]).toBe(rec.pointB[c]);
    expect(ControlPoint.active[cp]).toBe(1);
    detachClip(world, rig);
    expect(poseDriveOf(world, rig)).toBeUndefined();
    expect(world.physik.userSystems.forces).toEqual([]);
    expect(world.physik.userSystems.afterStep).toEqual([]);
  });
});

