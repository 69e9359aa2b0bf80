/**
 * A scene's capture block (Scene.capture) on its rig: the clip read from its text (a BVH, or a
 * physik recording's JSON), bound to the rig, and tied to it by the block's markers, stiffness,
 * damping and script. The clip's `file` is read into `text` by the Node loader
 * (src/scene/loadFile.ts); a scene built in memory gives the text itself.
 */
import type { PhysikWorld } from '../core';
import type { CaptureDescription } from '../world/types';
import { recordingFromJson } from '../io/recordingJson';
import { dropReferenceFrame, motionFromBvh, motionFromRecording } from './source';
import { bindClip } from './bind';
import { attachClip, type CaptureHandle } from './capture';

/** Tie rig `rig` to the capture block's clip; throws naming the clip when it cannot be read or does not fit. */
export function attachSceneCapture(world: PhysikWorld, rig: number, capture: CaptureDescription): CaptureHandle {
  const { clip } = capture;
  const label = clip.file ?? 'the inline clip';
  if (clip.text === undefined) throw new Error(`capture.clip: ${label} was not read (a scene file's clip is read by loadSceneFile; in memory, give its text)`);
  const format = clip.format ?? (clip.file && /\.json$/i.test(clip.file) ? 'recording' : 'bvh');
  const source = format === 'recording' ? motionFromRecording(recordingFromJson(clip.text, clip.file)) : dropReferenceFrame(motionFromBvh(clip.text, clip.file));
  const bound = bindClip(world, rig, source);
  return attachClip(world, rig, bound.track, {
    markers: capture.markers,
    ...(capture.stiffness !== undefined ? { stiffness: capture.stiffness } : {}),
    ...(capture.dampingRatio !== undefined ? { dampingRatio: capture.dampingRatio } : {}),
    ...(capture.start !== undefined ? { start: capture.start } : {}),
    ...(capture.script ? { script: capture.script } : {}),
  });
}
