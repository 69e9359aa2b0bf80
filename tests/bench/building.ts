/** Building the benchmark's rigs: a world holding one rig and a snapshot of it as built. */
import { createPhysikWorld, addRig, setSettings, createSnapshot, restoreRig, type PhysikWorld, type RigInput, type RigSnapshot } from '../../src/core';
import { type Solve } from './rigs';

export const log = (s: string) => process.stderr.write(`${s}\n`);

export interface Built { world: PhysikWorld; rig: number; joints: number; snapshot: RigSnapshot }

/** A world holding one rig, and a snapshot of it as built. */
export function build(input: RigInput): Built {
  const world = createPhysikWorld();
  const { rig } = addRig(world, input);
  const record = world.physik.rigs[0]!;
  return { world, rig, joints: record.joints.length, snapshot: createSnapshot(world, rig) };
}

/** Build, or the reason it could not be built (a deep chain overflowing the stack). */
export function tryBuild(input: RigInput): Built | string {
  try {
    return build(input);
  } catch (err) {
    if (err instanceof RangeError) {
      return `the rig builder (src/core/rig.ts) failed on ${input.rig.bones.length} bones: ${err.message}`;
    }
    throw err;
  }
}

/** Switch the built rig's joint solve and take the snapshot repeats start from. */
export function withSolve(b: Built, solve: Solve): Built {
  restoreRig(b.world, b.rig, b.snapshot);
  setSettings(b.world, b.rig, { interJoint: solve });
  return { ...b, snapshot: createSnapshot(b.world, b.rig) };
}
