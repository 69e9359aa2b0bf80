/**
 * Recording (`physik-ecs/recording`): every frame's world rotations and heads exactly as the
 * simulation had them, at a frame rate of its own; playback, rewinding, and the lossless
 * `physik-recording` JSON format. Exports to glTF and BVH are in `physik-ecs/io`.
 *
 *   const recording = recordSteps(world, rig, 300, { fps: 30 });
 *   writeFileSync('reach.json', recordingToJson(recording));
 */
export { createRecorder, recordSteps, applyFrame, rewindTo, type Recorder, type RecorderOptions } from '../io/recorder';
export { createRecording, captureFrame, recordedBones, localRotation, headAt, type Recording, type RecordedBone, type Vec3, type Quat } from '../io/recording';
export { recordingToJson, recordingFromJson, RecordingError, RECORDING_FORMAT, RECORDING_VERSION, type RecordingIssue } from '../io/recordingJson';
