/**
 * The sandbox's current scene as a scene file (`Sandbox.sceneFile`, the panel's save): the
 * scene as loaded, with the rig's control points, settings and script (the keyed targets) as
 * they are now (the joint limits as edited too), and the pose it stands in as its starting
 * pose (`start`: every bone's world rotation and, for a floating root, where its head is), so
 * the file opens in that pose, at rest. The `expect` block is left out: its expectations were about the scene as shipped.
 * Shared by the main-thread and the worker-mode sandbox.
 */
import { describeControlPoint, getScript, getSettings, withJointLimits, type PhysikWorld } from '../core';
import type { RigRecord } from '../world/world';
import type { QuatTuple, Scene, StartPose } from '../scene/types';

/** The rig's pose now as a starting pose (rotations as the world keeps them: they load bit for bit). */
export function startPoseOf(world: PhysikWorld, record: RigRecord): StartPose {
  const { Bone, Rig } = world.physik;
  const bones: Record<string, QuatTuple> = {};
  record.bones.forEach((b, i) => {
    bones[record.boneNames[i]!] = [Bone.rot[b * 4]!, Bone.rot[b * 4 + 1]!, Bone.rot[b * 4 + 2]!, Bone.rot[b * 4 + 3]!];
  });
  if (Rig.pinned[record.eid] === 1) return { bones };
  const root = record.bones[0]! * 3;
  return { head: [Bone.head[root]!, Bone.head[root + 1]!, Bone.head[root + 2]!], bones };
}

export function sceneFileText(world: PhysikWorld, record: RigRecord, scene: Scene): string {
  const { expect: _expect, ...rest } = scene;
  void _expect;
  const out = {
    ...rest,
    rig: withJointLimits(world, record.eid, rest.rig), // the joint limits as edited
    controlPoints: Array.from(record.controlPoints, (cp) => describeControlPoint(world, cp)),
    settings: { ...getSettings(world, record.eid) },
    script: getScript(world, record.eid),
    start: startPoseOf(world, record),
  };
  return `${JSON.stringify(out, null, 2)}\n`;
}
