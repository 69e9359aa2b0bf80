/**
 * A saved scene keeps the pose: the sandbox's save (sceneFileText) writes the rig's pose as
 * the scene's starting pose, and loading it (as the sandbox and `physik run` do) starts the
 * rig there, at rest, bit for bit in its rotations; reset returns to it; a bad starting pose
 * is refused naming its path.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { createPhysikWorld, moveRig, resetRig, setTarget, step, type PhysikWorld } from '../../../src/core';
import { findRig } from '../../../src/world/world';
import { parseScene, parseSceneText } from '../../../src/scene/load';
import { runScene } from '../../../src/scene/run';
import { sceneCrowd } from '../../../src/scene/crowd';
import { addSceneRig } from '../../../src/app/simScene';
import { sceneFileText } from '../../../src/app/sceneFile';
import type { Scene } from '../../../src/scene/types';
import { quatMulConjA } from '../../../src/math/quat';

const sceneText = (name: string) => readFileSync(new URL(`../../../scenes/${name}.json`, import.meta.url), 'utf8');
const humanoid = parseSceneText(sceneText('humanoid'), 'humanoid.json');

/** Every bone's rotation, head and velocities, in depth-first order. */
function state(world: PhysikWorld, rig: number) {
  const { Bone } = world.physik;
  const r = findRig(world, rig);
  const pick = (a: ArrayLike<number>, b: number, w: number) => Array.from({ length: w }, (_, k) => a[b * w + k]!);
  return {
    rot: Array.from(r.bones, (b) => pick(Bone.rot, b, 4)),
    head: Array.from(r.bones, (b) => pick(Bone.head, b, 3)),
    tail: Array.from(r.bones, (b) => pick(Bone.tail, b, 3)),
    speed: Array.from(r.bones, (b) => [...pick(Bone.angVel, b, 3), ...pick(Bone.vel, b, 3)]),
  };
}
const maxDiff = (a: number[][], b: number[][]) => Math.max(...a.flatMap((v, i) => v.map((x, k) => Math.abs(x - b[i]![k]!))));

/** The humanoid posed by dragging its hand for 150 steps, still moving. */
function posed(scene: Scene = humanoid) {
  const world = createPhysikWorld();
  const rig = addSceneRig(world, scene);
  const r = findRig(world, rig);
  const hand = r.controlPointByName.get('handR')!;
  const t = world.physik.ControlPoint.target;
  setTarget(world, hand, [t[hand * 3]! + 0.3, t[hand * 3 + 1]! + 0.4, t[hand * 3 + 2]! - 0.2]);
  step(world, 150);
  return { world, rig, record: r };
}

describe('a saved scene keeps the pose it was saved in', () => {
  it('save then load: the same rotations bit for bit, positions within 1e-12, at rest; reset returns there', () => {
    const { world, rig, record } = posed();
    const before = state(world, rig);
    const text = sceneFileText(world, record, humanoid);
    const saved = parseSceneText(text, 'saved.json');
    expect(Object.keys(saved.start!.bones)).toEqual(record.boneNames);

    const w2 = createPhysikWorld();
    const rig2 = addSceneRig(w2, saved);
    const after = state(w2, rig2);
    expect(after.rot).toEqual(before.rot); // bit for bit
    expect(maxDiff(after.head, before.head)).toBeLessThanOrEqual(1e-12);
    expect(maxDiff(after.tail, before.tail)).toBeLessThanOrEqual(1e-12);
    expect(after.speed.flat().every((v) => v === 0)).toBe(true);
    // not the rest pose: the drag moved it
    const rest = createPhysikWorld();
    const restState = state(rest, addSceneRig(rest, humanoid));
    expect(maxDiff(after.head, restState.head)).toBeGreaterThan(0.01);

    // reset goes back to the starting pose, and a second save is the same file
    step(w2, 40);
    resetRig(w2, rig2);
    expect(state(w2, rig2)).toEqual(after);
    expect(JSON.parse(sceneFileText(w2, findRig(w2, rig2), saved)).start).toEqual(JSON.parse(text).start);
  });

  it('a headless run starts from it too, and two runs of the saved scene are bit-identical', () => {
    const { world, record } = posed();
    const saved = parseSceneText(sceneFileText(world, record, humanoid), 'saved.json');
    const at0 = runScene(saved, { steps: 0 });
    const w2 = createPhysikWorld();
    const expected = state(w2, addSceneRig(w2, saved));
    const names = findRig(w2, w2.physik.rigs[0]!.eid).boneNames;
    names.forEach((n, i) => expect(at0.pose[n]!.head).toEqual(expected.head[i]));
    const a = runScene(saved, { steps: 120 }), b = runScene(saved, { steps: 120 });
    expect(a.pose).toEqual(b.pose);
  });

  it('a bone not listed keeps its rest rotation relative to its parent; a crowd copy starts in the pose where it stands', () => {
    const spine = humanoid.rig.bones[1]!.name;
    const turn: [number, number, number, number] = [0, 0, Math.sin(0.2), Math.cos(0.2)]; // 23° about z
    const scene = parseScene({ ...JSON.parse(sceneText('humanoid')) as object, start: { bones: { [humanoid.rig.bones[0]!.name]: turn } } });
    const world = createPhysikWorld();
    const rig = addSceneRig(world, scene);
    const { Bone } = world.physik;
    const r = findRig(world, rig);
    const b = r.boneByName.get(spine)!, p = Bone.parent[b]!;
    // local = parent⁻¹ · world stays the rest local rotation
    const local = new Float64Array(4);
    quatMulConjA(local, 0, Bone.rot, p * 4, Bone.rot, b * 4);
    for (let k = 0; k < 4; k++) expect(local[k]).toBeCloseTo(Bone.restLocal[b * 4 + k]!, 12);

    const copies = sceneCrowd(scene, Bone.length[r.bones[0]!]! * 10, 4);
    expect(copies).toHaveLength(4);
    for (const c of copies) expect(c.start?.bones[humanoid.rig.bones[0]!.name]).toEqual(turn);
  });

  it('moveRig moves the starting pose with the rig, so reset returns to the moved pose', () => {
    const { world, record } = posed();
    const saved = parseSceneText(sceneFileText(world, record, humanoid), 'saved.json');
    const w = createPhysikWorld();
    const rig = addSceneRig(w, saved);
    moveRig(w, rig, [0, 0, 0, 1], [2, 0, 0]);
    const moved = state(w, rig);
    step(w, 30);
    resetRig(w, rig);
    expect(maxDiff(state(w, rig).head, moved.head)).toBeLessThanOrEqual(1e-12);
  });
});

describe('a bad starting pose is refused, naming where', () => {
  const withStart = (start: unknown, rig?: object) => {
    const data = JSON.parse(sceneText('humanoid')) as Record<string, unknown>;
    return { ...data, ...(rig ? { rig: { ...(data.rig as object), ...rig } } : {}), start };
  };
  const root = humanoid.rig.bones[0]!.name;
  const err = (data: unknown) => {
    try { parseScene(data, 'pose.json'); } catch (e) { return (e as Error).message; }
    throw new Error('accepted');
  };

  it('an unknown bone, a quaternion that is not unit length, a NaN, a wrong length', () => {
    expect(err(withStart({ bones: { elbowX: [0, 0, 0, 1] } }))).toMatch(/pose\.json: start\.bones\.elbowX: unknown bone "elbowX" \(known: /);
    expect(err(withStart({ bones: { [root]: [0, 0, 0, 2] } }))).toMatch(new RegExp(`start\\.bones\\.${root}: expected a unit quaternion \\[x, y, z, w\\] \\(length 1 within 0\\.001\\), got \\[0, 0, 0, 2\\]`));
    expect(err(withStart({ bones: { [root]: [0, 0, Number.NaN, 1] } }))).toMatch(new RegExp(`start\\.bones\\.${root}\\[2\\]: expected a finite number, got NaN`));
    expect(err(withStart({ bones: { [root]: [0, 0, 1] } }))).toMatch(new RegExp(`start\\.bones\\.${root}: expected a quaternion \\[x, y, z, w\\] \\(4 numbers\\)`));
    expect(err(withStart({ head: [0, 'up', 0], bones: {} }))).toMatch(/start\.head: expected \[x, y, z\] \(3 numbers\)|start\.head\[1\]: expected a number/);
    expect(err(withStart({ bones: {}, pose: 1 }))).toMatch(/start\.pose: unknown key "pose" \(allowed: head, bones\)/);
    expect(err(withStart({ head: [1e12, 0, 0], bones: {} }))).toMatch(/start\.head\[0\]: expected a number from -1e9 to 1e9/);
  });

  it('a head on a pinned root', () => {
    expect(err(withStart({ head: [0, 1, 0], bones: {} }, { root: 'pinned' }))).toMatch(/start\.head: a pinned root stays on its pin/);
  });

  it('a hand-written quaternion near unit length is normalised (never NaN in the world)', () => {
    const scene = parseScene(withStart({ bones: { [root]: [0, 0, 0.7071, 0.7071] } }));
    const q = scene.start!.bones[root]!;
    expect(Math.hypot(...q)).toBeCloseTo(1, 15);
    const world = createPhysikWorld();
    addSceneRig(world, scene);
    step(world, 20);
    expect(world.physik.rigs[0]!.bones.every((b) => Number.isFinite(world.physik.Bone.head[b * 3]!))).toBe(true);
  });
});
