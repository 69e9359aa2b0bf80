/**
 * The workloads tests/bench/ab.mjs times for each version of the code: a world of `rigs` humanoids
 * (the crowd scene's, every rig awake) or one humanoid, built once; or (`--capture`) the CMU walk
 * looped to `frames` frames and captured as the capture benchmark does (markers on the hips, hands
 * and feet). `steps(n)` steps it n times.
 */
import { createPhysikWorld, addRigs, step, type PhysikWorld } from '../../src/core';
import { crowdInputs, humanoidInput } from './rigs';
import { walkCapture } from './capture';

export { detachOneBuffer, DETACHED_FLAG } from './detached';

export function makeWorkload(rigs: number): Workload {
  const world = createPhysikWorld();
  addRigs(world, rigs === 1 ? [humanoidInput()] : crowdInputs(rigs, true));
  return workload(world);
}

export function makeCaptureWorkload(frames: number): Workload {
  return workload(walkCapture(frames).world);
}

interface Workload { steps: (n: number) => void; checksum: () => number }

function workload(world: PhysikWorld): Workload {
  const rot = world.physik.Bone.rot;
  return {
    steps: (n) => step(world, n),
    // a digest of every bone's rotation: both versions should agree when a change keeps the bits
    checksum: () => { let s = 0; for (let i = 0; i < rot.length; i++) s += rot[i]! * ((i % 7) + 1); return s; },
  };
}
