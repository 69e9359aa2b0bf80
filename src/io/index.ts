/**
 * File formats (`physik-ecs/io`): rigs imported from glTF skins and BVH hierarchies, recordings
 * exported as glTF binary (.glb) and BVH, and three.js AnimationClips made from recordings.
 * glTF and clips need three.js (an optional peer dependency: `npm install three`); BVH does not.
 *
 *   const { scene } = importBvh(text, 'walk.bvh');
 *   const glb = await recordingToGlb(recording);
 *
 * An imported character keeps the file's skeleton one to one, so a recording of it goes back
 * onto the file it came from: `recordingToSourceGlb(sourceBytes, recording)` (the source .glb
 * with a new animation) and `recordingToSourceBvh(sourceText, recording)`.
 */
export { importGltf, readGltfJson, type GltfImport, type GltfImportOptions } from './gltfImport';
export { importBvh, parseBvh, bvhChannelNames, type BvhImport, type BvhImportOptions, type ParsedBvh, type BvhJoint, type BvhMotion, type BvhChannelName } from './bvhImport';
export { recordingToGlb, type GltfExportOptions } from './gltfExport';
export { recordingToBvh, quatToEuler, BVH_CHANNEL_ORDERS, type BvhChannelOrder, type BvhExportOptions } from './bvhExport';
export { recordingToClip, reduceQuaternionKeys, type ClipOptions } from './clip';
export { recordingToSourceGlb, type SourceGlbOptions } from './gltfSource';
export { recordingToSourceBvh, type SourceBvhOptions } from './bvhSource';
export { applyHumanoidTemplate, readBoneName, restPose, type HumanoidMapping, type HumanoidReport, type HumanoidRole, type HumanoidTemplateOptions, type HumanoidTemplateResult } from './humanoid';
export { jointsToRig, defaultControlPoints, ImportError, MAX_IMPORT_DEPTH, type SkeletonJoint, type ImportedRig, type JointsToRigOptions } from './skeleton';
