/**
 * The sandbox's joint editing without a browser: the humanoid scene's mapping found by names,
 * a joint's limits changed as one undoable step (undo and redo put them back and forth), a bad
 * value refused with nothing changed, a role changed (the template's limits applied, the
 * mapping following, both undone together), the scene file saving the limits as edited, and a
 * mapping kept from before taken back.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { addRig, createPhysikWorld, getJointLimits, step } from '../../../src/core';
import { findRig } from '../../../src/world/world';
import { parseScene, parseSceneText } from '../../../src/scene/load';
import { createHistory } from '../../../src/app/history';
import { createJointEditing, limitsText } from '../../../src/app/joints';
import { sceneFileText } from '../../../src/app/sceneFile';
import type { HumanoidMapping } from '../../../src/io/humanoid';

const humanoid = parseScene(JSON.parse(readFileSync(new URL('../../../scenes/humanoid.json', import.meta.url), 'utf8')));
function load() {
  const world = createPhysikWorld();
  const { rig } = addRig(world, { rig: humanoid.rig, controlPoints: humanoid.controlPoints, settings: humanoid.settings });
  const history = createHistory();
  const save = () => sceneFileText(world, findRig(world, rig), humanoid);
  const told: HumanoidMapping[] = [];
  const changed: string[][] = [];
  const joints = createJointEditing({
    world, rig, history, rigDescription: () => JSON.parse(save()).rig, mappingChanged: (m) => told.push(m), limitsChanged: (b) => changed.push([...b]),
  });
  return { world, rig, history, joints, save, told, changed };
}

describe('joint editing in the sandbox', () => {
  it('finds the humanoid scene\'s mapping by names', () => {
    const { joints } = load();
    expect(joints.method).toBe('names');
    expect(joints.roleOf('shin.L')).toBe('leftLowerLeg');
    expect(joints.roleOf('forearm.R')).toBe('rightLowerArm');
    expect(joints.hasJoint('torso')).toBe(false);
    expect(joints.hasJoint('shin.L')).toBe(true);
    expect(joints.bones()).toContain('hand.L');
  });

  it('a limit edit is one undoable step; a bad value is refused with nothing changed', () => {
    const { world, rig, history, joints, save, changed } = load();
    step(world, 5);
    const before = joints.limits('forearm.L');
    joints.setLimits('forearm.L', { x: [10, 90] });
    expect(changed).toEqual([['forearm.L']]); // told, for the compare ghost
    expect(joints.limits('forearm.L')).toEqual({ ...before, x: [10, 90] });
    expect(history.undoLabels).toEqual(['limits of forearm.L: x 10…90']);
    // saved with the scene, and the saved file opens with it
    const reopened = parseSceneText(save(), 'saved.json');
    expect(reopened.rig.bones.find((b) => b.name === 'forearm.L')!.limits).toEqual({ ...before, x: [10, 90] });
    history.undo();
    expect(joints.limits('forearm.L')).toEqual(before);
    expect(changed[1]).toHaveLength(joints.bones().length - 1); // every joint put back: all told
    history.redo();
    expect(getJointLimits(world, rig, 'forearm.L').x).toEqual([10, 90]);
    for (const bad of [{ x: [90, 10] }, { y: [Number.NaN, 0] }, { z: [0, 500] }]) {
      expect(() => joints.setLimits('forearm.L', bad as never)).toThrow(/forearm\.L/);
    }
    expect(joints.limits('forearm.L').x).toEqual([10, 90]);
    expect(history.undoLabels).toHaveLength(1);
    expect(limitsText(joints.limits('forearm.L'))).toBe('x 10…90, y 0…0, z 0…0');
  });

  it('a role changed applies the template\'s limits and moves the mapping; undo puts both back', () => {
    const { history, joints } = load();
    const shin = joints.limits('shin.L');
    expect(shin.x).toEqual([0, 120]); // the scene's own knee
    joints.setRole('shin.L', 'leftLowerArm');
    expect(joints.roleOf('shin.L')).toBe('leftLowerArm');
    expect(joints.roleOf('forearm.L')).toBeNull(); // the elbow's role moved
    const asElbow = joints.limits('shin.L');
    expect(asElbow.y).toEqual([-80, 80]); // an elbow's forearm twist
    joints.setRole('shin.L', null);
    expect(joints.roleOf('shin.L')).toBeNull();
    expect(joints.limits('shin.L')).toEqual({ x: [-135, 135], y: [-90, 90], z: [-135, 135] });
    expect(history.undoLabels).toEqual(['shin.L as leftLowerArm', 'shin.L as no role']);
    history.undo();
    expect(joints.roleOf('shin.L')).toBe('leftLowerArm');
    expect(joints.limits('shin.L')).toEqual(asElbow);
    history.undo();
    expect(joints.roleOf('shin.L')).toBe('leftLowerLeg');
    expect(joints.roleOf('forearm.L')).toBe('leftLowerArm');
    expect(joints.limits('shin.L')).toEqual(shin);
    expect(() => joints.setRole('nope', 'head')).toThrow(/no bone named "nope"/);
    // the root has no joint: its role changes, nothing else
    joints.setRole('torso', 'hips');
    expect(joints.roleOf('torso')).toBe('hips');
    expect(joints.limits('torso')).toEqual({ x: 'free', y: 'free', z: 'free' });
  });

  it('tells every mapping change (to keep it) and takes a kept mapping back, leaving out bones the rig lacks', () => {
    const { history, joints, told } = load();
    joints.setRole('hand.L', null);
    history.undo();
    history.redo();
    expect(told.map((m) => m.leftHand ?? null)).toEqual([null, 'hand.L', null]);
    const kept = { ...told[0]!, head: 'no such bone', spine: ['torso', 'gone'] };
    const fresh = load();
    expect(fresh.joints.roleOf('hand.L')).toBe('leftHand');
    const before = fresh.joints.limits('hand.L');
    fresh.joints.adoptMapping(kept);
    expect(fresh.joints.roleOf('hand.L')).toBeNull();
    expect(fresh.joints.mapping.head).toBeUndefined();
    expect(fresh.joints.mapping.spine).toEqual(['torso']);
    expect(fresh.joints.limits('hand.L')).toEqual(before); // the limits stay as the scene has them
    expect(fresh.history.undoLabels).toEqual([]);
  });
});
