/**
 * Goals a rig can reach: the scene with each goal control point's target moved to where its
 * attachment lies in a pose made within the joints' limits. Every joint turns by a seeded
 * random rotation vector, each limited axis uniform within its range and each free axis within
 * ±FREE_SWING; the root stays where it is. `physik compare` uses it on an imported character,
 * whose own scene holds its control points at rest, so that every solver is judged on goals
 * its limits allow (a solver that misses them misses by its own nature, not the goal's).
 *
 * Limits: the goals are set at the start; a scene whose script moves targets later moves them
 * as written. Welded joints (locked on every axis) stay at rest: their ranges are [0, 0].
 */
import { addRig, createPhysikWorld } from '../core';
import { forwardKinematicsOf } from '../world/forwardKinematics';
import { attachmentPoint } from '../world/attachment';
import { quatFromRotationVector, quatMul } from '../math/quat';
import { mulberry32 } from '../math/random';
import type { Scene, Vec3Tuple } from './types';

/** How far a free axis turns at most, in radians (a pose a character could take, not a contortion). */
const FREE_SWING = Math.PI / 6;

export function reachableGoals(scene: Scene, seed: number): Scene {
  const world = createPhysikWorld();
  const handle = addRig(world, { rig: scene.rig, controlPoints: scene.controlPoints, settings: scene.settings });
  const record = world.physik.rigs.find((r) => r.eid === handle.rig);
  if (!record) throw new Error(`reachableGoals: rig "${scene.rig.name}" was not built`);
  const { Bone, AngularLimit: L } = world.physik;
  const random = mulberry32(seed);
  const phi = new Float64Array(3), turn = new Float64Array(4), local = new Float64Array(4);
  // parents before children (depth-first order): each bone's world rotation from its parent's
  for (let bi = 0; bi < record.bones.length; bi++) {
    const b = record.bones[bi]!, p = Bone.parent[b]!;
    if (p < 0) continue;
    for (let a = 0; a < 3; a++) {
      const i = b * 3 + a;
      phi[a] = L.enabled[i] ? L.min[i]! + (L.max[i]! - L.min[i]!) * random() : FREE_SWING * (2 * random() - 1);
    }
    quatFromRotationVector(turn, 0, phi, 0);
    quatMul(local, 0, Bone.restLocal, b * 4, turn, 0); // the rest pose, then the turn (as jointRotationVector measures it)
    quatMul(Bone.rot, b * 4, Bone.rot, p * 4, local, 0);
  }
  forwardKinematicsOf(world, record);
  const at = new Float64Array(3);
  const controlPoints = scene.controlPoints.map((cp) => {
    if (cp.role === 'pole') return cp;
    attachmentPoint(world, handle.controlPoints[cp.name]!, at, 0);
    const target: Vec3Tuple = [at[0]!, at[1]!, at[2]!];
    return { ...cp, target };
  });
  return { ...scene, controlPoints };
}
