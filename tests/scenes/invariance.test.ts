/**
 * Moving a whole scene by a rigid motion moves its result the same way: every scene file is
 * built twice (its rig and its crowd, as runScene builds them), one copy is moved by a seeded
 * random rotation R and translation t before the first step (the built world, with moveRig:
 * turning the JSON's bone directions would build a different rig, since a bone's roll frame
 * is defined from its direction relative to the world axes), both are stepped, and every bone's
 * head and tail in the moved run must stay at R·(original) + t within 1e-6 of the rig's height.
 * Each derived scale (spring cap, inertia and limit floors, rest and settle tolerances, the
 * integrator's guard) comes from Rig.height, which moveRig measures again on the moved rig (as
 * addRig would have there), so a scale read off the world axes fails here: the largest side of
 * the axis-aligned bounding box failed every scene, by 6e-6 to 0.26 of the height.
 *
 * Both worlds first get the same small seeded spin on every bone (SPIN rad/s, each axis): the
 * spiral's straight chain, pulled toward a point in its own plane, stays in that plane only by
 * exact symmetry and otherwise buckles out of it to the side rounding picks (moving it by R and
 * back by R⁻¹ alone gives 1e-2 of its height by step 40), so a pointwise comparison needs a
 * trajectory that does not hang on rounding. The spin picks the side in both worlds alike.
 *
 * `gravity` has a fixed world direction: a scene with gravity is turned about the vertical
 * only, the motions that keep gravity as it is.
 */
import { describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadSceneFile } from '../../src/scene/loadFile';
import { sceneCrowd } from '../../src/scene/crowd';
import { addRig, addRigs, createPhysikWorld, moveRig, step, type PhysikWorld } from '../../src/core';
import type { Scene } from '../../src/scene/types';
import { mulberry32 } from '../../src/math/random';

const dir = join(__dirname, '../../scenes');
const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();

const TOLERANCE = 1e-6;
/** The seeded spin (rad/s per axis) both worlds start with (see the header). */
const SPIN = 1e-4;

/** The scene's world as runScene builds it (the rig, then its crowd), every bone given the seeded spin. */
function build(scene: Scene): PhysikWorld {
  const world = createPhysikWorld();
  const { rig } = addRig(world, { rig: scene.rig, controlPoints: scene.controlPoints, settings: scene.settings, script: scene.script });
  if (scene.crowd) addRigs(world, sceneCrowd(scene, world.physik.Rig.height[rig]!));
  const r = mulberry32(7);
  const { angVel } = world.physik.Bone;
  for (const record of world.physik.rigs) for (const b of record.bones) for (let a = 0; a < 3; a++) angVel[b * 3 + a] = angVel[b * 3 + a]! + SPIN * (2 * r() - 1);
  return world;
}

/** A seeded rigid motion: a uniform random rotation (about +Y only when `vertical`) and a translation of a few heights. */
function randomMotion(seed: number, height: number, vertical: boolean) {
  const r = mulberry32(seed);
  let q: [number, number, number, number];
  if (vertical) {
    const a = 2 * Math.PI * r();
    q = [0, Math.sin(a / 2), 0, Math.cos(a / 2)];
  } else {
    // Shoemake's uniform unit quaternion
    const u1 = r(), u2 = 2 * Math.PI * r(), u3 = 2 * Math.PI * r();
    const s1 = Math.sqrt(1 - u1), s2 = Math.sqrt(u1);
    q = [s1 * Math.sin(u2), s1 * Math.cos(u2), s2 * Math.sin(u3), s2 * Math.cos(u3)];
  }
  const t: [number, number, number] = [0, 1, 2].map(() => (2 * r() - 1) * 3 * height) as [number, number, number];
  return { q, t };
}

function rotate(q: readonly number[], v: readonly number[]): [number, number, number] {
  const [x, y, z, w] = q as [number, number, number, number];
  const tx = 2 * (y * v[2]! - z * v[1]!), ty = 2 * (z * v[0]! - x * v[2]!), tz = 2 * (x * v[1]! - y * v[0]!);
  return [v[0]! + w * tx + (y * tz - z * ty), v[1]! + w * ty + (z * tx - x * tz), v[2]! + w * tz + (x * ty - y * tx)];
}

/** Largest distance, over every rig's bone heads and tails, between the moved run and R·original + t, in units of each rig's height. */
function deviation(a: PhysikWorld, b: PhysikWorld, q: readonly number[], t: readonly number[]): number {
  let worst = 0;
  const A = a.physik, B = b.physik;
  A.rigs.forEach((rig, i) => {
    const other = B.rigs[i]!;
    const h = A.Rig.height[rig.eid]!;
    rig.bones.forEach((bone, k) => {
      const moved = other.bones[k]!;
      for (const [pa, pb] of [[A.Bone.head, B.Bone.head], [A.Bone.tail, B.Bone.tail]] as const) {
        const p = rotate(q, [pa[bone * 3]!, pa[bone * 3 + 1]!, pa[bone * 3 + 2]!]);
        const d = Math.hypot(p[0] + t[0]! - pb[moved * 3]!, p[1] + t[1]! - pb[moved * 3 + 1]!, p[2] + t[2]! - pb[moved * 3 + 2]!);
        if (!(d / h <= worst)) worst = d / h; // NaN is kept
      }
    });
  });
  return worst;
}

describe('a scene moved by a rigid motion moves its result the same way', () => {
  files.forEach((file, n) => {
    it(`${file}`, () => {
      const scene = loadSceneFile(join(dir, file));
      const reference = build(scene), moved = build(scene);
      const height = reference.physik.Rig.height[reference.physik.rigs[0]!.eid]!;
      const { q, t } = randomMotion(1000 + n, height, (scene.settings.gravity ?? 0) !== 0);
      // the reference goes through the same call with the identity (an exact no-op on the poses)
      for (const rig of reference.physik.rigs) moveRig(reference, rig.eid, [0, 0, 0, 1], [0, 0, 0]);
      for (const rig of moved.physik.rigs) moveRig(moved, rig.eid, q, t);
      // every rig's scale is the same in the moved world
      moved.physik.rigs.forEach((rig, i) => {
        const h = reference.physik.Rig.height[reference.physik.rigs[i]!.eid]!;
        expect(Math.abs(moved.physik.Rig.height[rig.eid]! - h)).toBeLessThanOrEqual(1e-12 * h);
      });
      expect(deviation(reference, moved, q, t)).toBeLessThan(1e-12);

      // compared after every step: a difference may last only a few steps (a target move)
      let worst = 0, at = 0;
      for (let s = 1; s <= scene.steps; s++) {
        step(reference, 1);
        step(moved, 1);
        const d = deviation(reference, moved, q, t);
        if (!(d <= worst)) { worst = d; at = s; }
      }
      expect(worst, `largest deviation ${worst.toExponential(2)} × height at step ${at}`).toBeLessThanOrEqual(TOLERANCE);
    });
  });
});
