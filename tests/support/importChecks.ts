/** What the importers' tests share: fixtures by name, BVHLoader's joints, and checks that an imported scene poses and round-trips. */
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { BVHLoader } from 'three/examples/jsm/loaders/BVHLoader.js';
import { Vector3, type Object3D } from 'three';
import { addRig, createPhysikWorld, readMetrics, readPose, setTarget, step } from '../../src/core';
import { parseSceneText } from '../../src/scene/load';
import type { Scene, Vec3Tuple } from '../../src/scene/types';
import { defaultControlPoints } from '../../src/io/skeleton';

export const fixtureUrl = (name: string) => new URL(`../fixtures/external/${name}`, import.meta.url);
export const text = (name: string) => readFileSync(fixtureUrl(name), 'utf8');
export const bytes = (name: string) => new Uint8Array(readFileSync(fixtureUrl(name)));
export const dist = (a: ArrayLike<number>, b: ArrayLike<number>) => Math.hypot(a[0]! - b[0]!, a[1]! - b[1]!, a[2]! - b[2]!);

/** Joint world positions at rest as three.js's BVHLoader reads them (end sites apart). */
export function bvhLoaderJoints(src: string): { joints: Vec3Tuple[]; ends: Vec3Tuple[]; loader: ReturnType<BVHLoader['parse']> } {
  const loaded = new BVHLoader().parse(src);
  loaded.skeleton.bones[0]!.updateMatrixWorld(true);
  const v = new Vector3();
  const at = (b: Object3D): Vec3Tuple => (b.getWorldPosition(v), [v.x, v.y, v.z]);
  return {
    joints: loaded.skeleton.bones.filter((b) => b.name !== 'ENDSITE').map(at),
    ends: loaded.skeleton.bones.filter((b) => b.name === 'ENDSITE').map(at),
    loader: loaded,
  };
}

/** Rest heads of the built rig: every joint sits at its own bone's head. */
export function expectHeadsAt(scene: Scene, joints: { bone: string }[], positions: Vec3Tuple[], tol: number) {
  const world = createPhysikWorld();
  const h = addRig(world, { rig: scene.rig });
  const pose = readPose(world, h.rig);
  let worst = 0;
  joints.forEach((j, i) => (worst = Math.max(worst, dist(pose[j.bone]!.head, positions[i]!))));
  expect(worst).toBeLessThan(tol);
  return worst;
}

export interface PoseResult { before: number[]; after: number[]; finite: boolean; diverged: number; height: number }

/**
 * Two control points at the ends of the two longest chains; their targets move by 20% of the
 * figure's height, as the pair turned about its midpoint (about the axis perpendicular to the
 * pair and to the coordinate axis least aligned with it). Turning keeps the ends' distance, so
 * every rig can reach the targets, also one whose two ends are already fully stretched apart
 * (a straight chain, a figure from head to toe), where "lift one end" would be unreachable.
 */
export function poseWithTwo(scene: Scene): PoseResult {
  const controlPoints = defaultControlPoints(scene.rig, 2);
  expect(controlPoints).toHaveLength(2);
  const world = createPhysikWorld();
  const h = addRig(world, { rig: scene.rig, controlPoints, settings: scene.settings });
  const height = readMetrics(world, h.rig).height;
  const rest = readPose(world, h.rig);
  const ends = controlPoints.map((cp) => (cp.at === 0 ? rest[cp.bone]!.head : rest[cp.bone]!.tail));
  const targets = turnPair(ends[0]!, ends[1]!, 0.2 * height);
  controlPoints.forEach((cp, i) => setTarget(world, h.controlPoints[cp.name]!, targets[i]!));
  const before = ends.map((e, i) => dist(e, targets[i]!));
  step(world, 300);
  const m = readMetrics(world, h.rig);
  const after = controlPoints.map((cp) => m.targetErrors[cp.name]!);
  const finite = Object.values(readPose(world, h.rig)).every((p) => [...p.head, ...p.tail, ...p.world].every(Number.isFinite));
  return { before, after, finite, diverged: m.divergedSteps, height };
}

/** Turn points a and b about their midpoint so each moves by `move`. */
export function turnPair(a: Vec3Tuple, b: Vec3Tuple, move: number): [Vec3Tuple, Vec3Tuple] {
  const mid: Vec3Tuple = [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2, (a[2] + b[2]) / 2];
  const r: Vec3Tuple = [a[0] - mid[0], a[1] - mid[1], a[2] - mid[2]];
  const radius = Math.hypot(...r);
  const least = [0, 1, 2].reduce((k, c) => (Math.abs(r[c]!) < Math.abs(r[k]!) ? c : k), 0);
  const e: Vec3Tuple = [0, 0, 0];
  e[least] = 1;
  // perpendicular to r in the plane of r and e: the direction a moves in
  const along = (r[0] * e[0] + r[1] * e[1] + r[2] * e[2]) / (radius * radius);
  const p0: Vec3Tuple = [e[0] - along * r[0], e[1] - along * r[1], e[2] - along * r[2]];
  const pn = Math.hypot(...p0);
  const perp: Vec3Tuple = [(p0[0] / pn) * radius, (p0[1] / pn) * radius, (p0[2] / pn) * radius];
  const theta = 2 * Math.asin(Math.min(1, move / (2 * radius)));
  const c = Math.cos(theta), s = Math.sin(theta);
  const ra: Vec3Tuple = [r[0] * c + perp[0] * s, r[1] * c + perp[1] * s, r[2] * c + perp[2] * s];
  return [
    [mid[0] + ra[0], mid[1] + ra[1], mid[2] + ra[2]],
    [mid[0] - ra[0], mid[1] - ra[1], mid[2] - ra[2]],
  ];
}

export function expectPoses(scene: Scene) {
  const r = poseWithTwo(scene);
  expect(r.finite).toBe(true);
  expect(r.diverged).toBe(0);
  if (process.env.IMPORT_POSE_LOG) console.log(scene.name, r.height.toFixed(3), r.before.map((b) => b.toFixed(3)), r.after.map((a) => a.toFixed(4)));
  r.before.forEach((b, i) => {
    // 20% of the height, or less when the two ends are closer than that (half a turn)
    expect(b).toBeGreaterThan(0.15 * r.height);
    expect(b).toBeLessThan(0.2 * r.height + 1e-9);
    expect(r.after[i]).toBeLessThan(0.5 * b);
  });
  return r;
}

/** A saved scene file loads back identically and builds. */
export function expectSceneFileRoundTrip(scene: Scene) {
  const back = parseSceneText(JSON.stringify(scene, null, 2), 'saved.json');
  expect(back).toEqual(scene);
  const world = createPhysikWorld();
  const h = addRig(world, { rig: back.rig, controlPoints: defaultControlPoints(back.rig, 2) });
  expect(Object.keys(h.bones)).toHaveLength(scene.rig.bones.length);
}

// ---------------------------------------------------------------------------------------
