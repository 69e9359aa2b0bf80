/**
 * The sandbox's current scene as a scene file (`Sandbox.sceneFile`, the panel's save): the
 * scene as loaded, with the rig's control points, settings and script (the keyed targets) as
 * they are now. The `expect`
 * block is left out: its expectations were about the scene as shipped. Shared by the
 * main-thread and the worker-mode sandbox.
 */
import { describeControlPoint, getScript, getSettings, withJointLimits, type PhysikWorld } from '../core';
import type { RigRecord } from '../world/world';
import type { Scene } from '../scene/types';

export function sceneFileText(world: PhysikWorld, record: RigRecord, scene: Scene): string {
  const { expect: _expect, ...rest } = scene;
  void _expect;
  const out = {
    ...rest,
    rig: withJointLimits(world, record.eid, rest.rig), // the joint limits as edited
    controlPoints: Array.from(record.controlPoints, (cp) => describeControlPoint(world, cp)),
    settings: { ...getSettings(world, record.eid) },
    script: getScript(world, record.eid),
  };
  return `${JSON.stringify(out, null, 2)}\n`;
}
