/**
 * Determinism: the same rig, settings and target moves give bit-identical results, whether
 * the world is alone, stepped interleaved with another world, or shares the world with
 * another rig.
 */
import { describe, expect, it } from 'vitest';
import { addRig, createPhysikWorld, readMetrics, readPose, resetRig, setTarget, step, type PhysikWorld } from '../../../src/core';
import type { RigInput, RigHandle } from '../../../src/core/rig';
import { chainBones, humanoidBones, humanoidControlPoints } from '../../support/helpers';
import { copyDoubles } from '../../../components/doubles';

const STEPS = 300;

const humanoid = (): RigInput => ({
  rig: { name: 'humanoid', bones: humanoidBones() },
  controlPoints: humanoidControlPoints(),
  script: [
    { step: 0, point: 'handL', target: [0.9, 1.6, 0.2] },
    { step: 40, point: 'footR', target: [-0.3, 0.3, 0.4] },
    { step: 120, point: 'head', target: [0.1, 1.9, -0.2] },
  ],
});

const chain = (): RigInput => ({
  rig: { name: 'chain', root: 'pinned', bones: chainBones(6, { length: 0.5, head: [3, 0, 1], limits: { x: [-60, 60], z: [-90, 90] } }) },
  controlPoints: [
    { name: 'tip', bone: 'b5' },
    { name: 'mid', bone: 'b2', spring: 'linear' },
  ],
  settings: { interpolation: 'linear', interpolationSteps: 30 },
});

/** Target moves made through the API during the run (the same for every copy). */
const moves: Record<string, Array<[number, string, [number, number, number]]>> = {
  humanoid: [[200, 'handR', [-0.7, 1.9, 0.5]]],
  chain: [
    [0, 'tip', [4.5, 1.5, 1.2]],
    [90, 'mid', [2.5, 0.8, 0.3]],
    [180, 'tip', [2.0, 2.4, 2.0]],
  ],
};

interface Run {
  world: PhysikWorld;
  handles: Record<string, RigHandle>;
}

function makeWorld(inputs: RigInput[]): Run {
  const world = createPhysikWorld();
  const handles: Record<string, RigHandle> = {};
  for (const input of inputs) handles[input.rig.name] = addRig(world, input);
  return { world, handles };
}

function stepOnce(run: Run, i: number): void {
  for (const [name, h] of Object.entries(run.handles)) {
    for (const [at, cp, target] of moves[name] ?? []) if (at === i) setTarget(run.world, h.controlPoints[cp]!, target);
  }
  step(run.world);
}

/** rot and head of the named rig's bones, in the rig's bone-name order, as one array. */
function state(run: Run, name: string): Float64Array {
  const { Bone } = run.world.physik;
  const h = run.handles[name]!;
  const names = Object.keys(h.bones).sort();
  const out = new Float64Array(names.length * 7);
  names.forEach((n, i) => {
    const b = h.bones[n]!;
    copyDoubles(out, i * 7, Bone.rot, b * 4, 4);
    copyDoubles(out, i * 7 + 4, Bone.head, b * 3, 3);
  });
  return out;
}

/** Index of the first element that differs (Object.is), or -1. */
function firstDifference(a: Float64Array, b: Float64Array): number {
  expect(a.length).toBe(b.length);
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return i;
  return -1;
}

function expectBitIdentical(a: Float64Array, b: Float64Array): void {
  expect(firstDifference(a, b)).toBe(-1);
  expect(Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.byteLength), Buffer.from(b.buffer, b.byteOffset, b.byteLength))).toBe(0);
}

describe('determinism', () => {
  for (const make of [humanoid, chain]) {
    const name = make().rig.name;
    it(`${name}: two fresh worlds, stepped interleaved for ${STEPS} steps, are bit-identical at every step`, () => {
      const a = makeWorld([make()]);
      const b = makeWorld([make()]);
      for (let i = 0; i < STEPS; i++) {
        stepOnce(a, i);
        stepOnce(b, i);
        if (i % 50 === 49) expectBitIdentical(state(a, name), state(b, name));
      }
      expectBitIdentical(state(a, name), state(b, name));
      // and the run did something (not a trivially frozen rig)
      const rest = makeWorld([make()]);
      expect(firstDifference(state(a, name), state(rest, name))).toBeGreaterThanOrEqual(0);
      expect(readMetrics(a.world, a.handles[name]!.rig).divergedSteps).toBe(0);
    });
  }

  it('two rigs in one world each behave exactly as when alone', () => {
    const both = makeWorld([humanoid(), chain()]);
    const humanoidAlone = makeWorld([humanoid()]);
    const chainAlone = makeWorld([chain()]);
    for (let i = 0; i < STEPS; i++) {
      stepOnce(both, i);
      stepOnce(humanoidAlone, i);
      stepOnce(chainAlone, i);
    }
    expectBitIdentical(state(both, 'humanoid'), state(humanoidAlone, 'humanoid'));
    expectBitIdentical(state(both, 'chain'), state(chainAlone, 'chain'));
    // metrics too
    expect(readMetrics(both.world, both.handles.chain!.rig)).toEqual(readMetrics(chainAlone.world, chainAlone.handles.chain!.rig));
  });

  it('the order the rigs were added in does not matter', () => {
    const ab = makeWorld([humanoid(), chain()]);
    const ba = makeWorld([chain(), humanoid()]);
    for (let i = 0; i < STEPS; i++) {
      stepOnce(ab, i);
      stepOnce(ba, i);
    }
    expectBitIdentical(state(ab, 'humanoid'), state(ba, 'humanoid'));
    expectBitIdentical(state(ab, 'chain'), state(ba, 'chain'));
  });

  it('resetRig restores the rest pose, and a re-run then matches a fresh world', () => {
    // floating chain; the same target moves replayed after the reset
    const make = () => makeWorld([{ ...chain(), rig: { ...chain().rig, root: 'floating' } }]);
    const used = make();
    for (let i = 0; i < 100; i++) stepOnce(used, i);
    resetRig(used.world, used.handles.chain!.rig);
    const fresh = make();
    // the pose a user sees right after the reset is the rest pose
    const maxDiff = (a: ArrayLike<number>, b: ArrayLike<number>) => Math.max(...Array.from(a, (x, i) => Math.abs(x - b[i]!)));
    const poseAfterReset = readPose(used.world, used.handles.chain!.rig);
    const restPose = readPose(fresh.world, fresh.handles.chain!.rig);
    for (const [bone, p] of Object.entries(restPose)) {
      expect(maxDiff(poseAfterReset[bone]!.head, p.head), `${bone} head right after resetRig`).toBeLessThan(1e-12);
      expect(maxDiff(poseAfterReset[bone]!.tail, p.tail), `${bone} tail right after resetRig`).toBeLessThan(1e-12);
    }
    for (let i = 0; i < 100; i++) {
      stepOnce(used, i);
      stepOnce(fresh, i);
    }
    expect(maxDiff(state(used, 'chain'), state(fresh, 'chain')), 're-run after resetRig').toBeLessThan(1e-9);
  });
});
