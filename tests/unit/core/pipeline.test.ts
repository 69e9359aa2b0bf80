/**
 * A user's own systems in the step's phases (addSystem): they run where their phase says, see
 * the rigs of the phase, and act on the simulation (a 'forces' system's force moves the rig).
 * And `step` runs physikPipeline, which it writes out call by call (src/core/pipeline.ts).
 */
import { describe, expect, it } from 'vitest';
import { addRig, addRigs, addSystem, createPhysikWorld, physikPipeline, readPose, removeSystem, step, steppingRigs, type PhysikWorld } from '../../../src/core';
import { crowdInputs, crowdScene, humanoidInput } from '../../bench/rigs';
import { walkCapture } from '../../bench/capture';

function arm(world: PhysikWorld) {
  return addRig(world, {
    rig: { name: 'arm', root: 'pinned', bones: [
      { name: 'upper', parent: null, direction: [1, 0, 0], length: 0.3 },
      { name: 'fore', parent: 'upper', direction: [1, 0, 0], length: 0.3 },
    ] },
    controlPoints: [{ name: 'hand', bone: 'fore' }],
    settings: { sleepWhenConverged: false },
  });
}

describe('addSystem', () => {
  it('runs each phase once a step, in the order of the step, over the rigs of its phase', () => {
    const world = createPhysikWorld();
    arm(world);
    const calls: string[] = [];
    for (const phase of ['afterStep', 'afterPose', 'forces', 'beforeStep'] as const) {
      addSystem(world, phase, (w) => { calls.push(`${phase}:${steppingRigs(w).length}`); });
    }
    step(world, 2);
    expect(calls).toEqual(['beforeStep:1', 'forces:1', 'afterPose:1', 'afterStep:1', 'beforeStep:1', 'forces:1', 'afterPose:1', 'afterStep:1']);
  });

  it("a 'forces' system moves the rig: a downward force on every bone makes the arm hang, and stops when removed", () => {
    const world = createPhysikWorld();
    const { rig, controlPoints } = arm(world);
    // the hand's spring off: only the user's force acts
    world.physik.ControlPoint.active[controlPoints.hand!] = 0;
    const gravity = (w: PhysikWorld) => {
      const { Bone } = w.physik;
      for (const r of steppingRigs(w)) for (const b of r.bones) Bone.force[b * 3 + 1] = Bone.force[b * 3 + 1]! - 9.81 * Bone.mass[b]!;
    };
    addSystem(world, 'forces', gravity);
    step(world, 200);
    const tip = readPose(world, rig)['fore']!.tail;
    expect(tip[1]).toBeLessThan(-0.3);
    expect(removeSystem(world, 'forces', gravity)).toBe(true);
    expect(removeSystem(world, 'forces', gravity)).toBe(false);
    // without a force the rig keeps still in another world: the same arm stays straight
    const still = createPhysikWorld();
    const other = arm(still);
    still.physik.ControlPoint.active[other.controlPoints.hand!] = 0;
    step(still, 200);
    expect(readPose(still, other.rig)['fore']!.tail[1]).toBeCloseTo(0, 9);
  });

  it('refuses an unknown phase or something that is not a function', () => {
    const world = createPhysikWorld();
    expect(() => addSystem(world, 'later' as never, () => {})).toThrow(/unknown phase "later"/);
    expect(() => addSystem(world, 'forces', 42 as never)).toThrow(/expected a function/);
  });
});

describe('step', () => {
  /** Every bone's rotation, angular velocity and centre, bit for bit. */
  const state = (world: PhysikWorld) => {
    const { rot, angVel, centre } = world.physik.Bone;
    return [...rot, ...angVel, ...centre];
  };
  /** physikPipeline's systems, each called in turn. */
  const byList = (world: PhysikWorld, n: number) => { for (let i = 0; i < n; i++) for (const system of physikPipeline) system(world); };

  it('runs physikPipeline: the same bits as its systems called in turn (a crowd, a kinematic rig, a user force, a clip)', () => {
    const build = () => {
      const world = createPhysikWorld();
      const scene = crowdScene();
      // a crowd of humanoids wandering (groups, sleep), one posed by FABRIK, and a user force
      addRigs(world, [...crowdInputs(3, false, scene), { ...humanoidInput(), settings: { ...humanoidInput().settings, solver: 'fabrik' } }]);
      addSystem(world, 'forces', (w) => { for (const r of steppingRigs(w)) w.physik.Bone.force[r.bones[0]! * 3 + 1] = w.physik.Bone.force[r.bones[0]! * 3 + 1]! - 1; });
      return world;
    };
    const a = build(), b = build();
    step(a, 120);
    byList(b, 120);
    expect(state(b)).toEqual(state(a));
    // a captured walk: clip pose targets, drives and followed bones
    const walkA = walkCapture(200).world, walkB = walkCapture(200).world;
    step(walkA, 150);
    byList(walkB, 150);
    expect(state(walkB)).toEqual(state(walkA));
  });
});
