/**
 * Importing rigs from BVH and glTF: the four external fixtures (tests/fixtures/external, see
 * SOURCES.md there), synthetic BVH texts for what those four do not cover (Z-up, other
 * channel orders, position channels everywhere, unnamed and duplicate names, zero offsets, a
 * 70-joint skeleton), malformed and truncated files, and the scene-file round trip.
 *
 * What "imports" means here: the scene passes parseScene, addRig builds it, every bone head
 * sits where the file puts the joint (checked against three.js's own BVHLoader / GLTFLoader),
 * and the rig poses: two control points at chain ends, targets moved by 20% of the figure's
 * height, 300 PhysIK steps, the errors shrink to under a quarter and nothing goes non-finite.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BVHLoader } from 'three/examples/jsm/loaders/BVHLoader.js';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { SkinnedMesh, Vector3, type Object3D } from 'three';
import { addRig, createPhysikWorld, readMetrics, readPose, setTarget, step } from '../../../src/core';
import { parseScene, parseSceneText, SceneError } from '../../../src/scene/load';
import type { Scene, Vec3Tuple } from '../../../src/scene/types';
import { importBvh, parseBvh } from '../../../src/io/bvhImport';
import { importGltf } from '../../../src/io/gltfImport';
import { defaultControlPoints, ImportError, jointsToRig, type SkeletonJoint } from '../../../src/io/skeleton';
import { rng } from '../../support/helpers';
import { errorOf } from '../../support/errors';

const fixtureUrl = (name: string) => new URL(`../../fixtures/external/${name}`, import.meta.url);
const text = (name: string) => readFileSync(fixtureUrl(name), 'utf8');
const bytes = (name: string) => new Uint8Array(readFileSync(fixtureUrl(name)));
const dist = (a: ArrayLike<number>, b: ArrayLike<number>) => Math.hypot(a[0]! - b[0]!, a[1]! - b[1]!, a[2]! - b[2]!);

/** Joint world positions at rest as three.js's BVHLoader reads them (end sites apart). */
function bvhLoaderJoints(src: string): { joints: Vec3Tuple[]; ends: Vec3Tuple[]; loader: ReturnType<BVHLoader['parse']> } {
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
function expectHeadsAt(scene: Scene, joints: { bone: string }[], positions: Vec3Tuple[], tol: number) {
  const world = createPhysikWorld();
  const h = addRig(world, { rig: scene.rig });
  const pose = readPose(world, h.rig);
  let worst = 0;
  joints.forEach((j, i) => (worst = Math.max(worst, dist(pose[j.bone]!.head, positions[i]!))));
  expect(worst).toBeLessThan(tol);
  return worst;
}

interface PoseResult { before: number[]; after: number[]; finite: boolean; diverged: number; height: number }

/**
 * Two control points at the ends of the two longest chains; their targets move by 20% of the
 * figure's height, as the pair turned about its midpoint (about the axis perpendicular to the
 * pair and to the coordinate axis least aligned with it). Turning keeps the ends' distance, so
 * every rig can reach the targets, also one whose two ends are already fully stretched apart
 * (a straight chain, a figure from head to toe), where "lift one end" would be unreachable.
 */
function poseWithTwo(scene: Scene): PoseResult {
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
function turnPair(a: Vec3Tuple, b: Vec3Tuple, move: number): [Vec3Tuple, Vec3Tuple] {
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

function expectPoses(scene: Scene) {
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
function expectSceneFileRoundTrip(scene: Scene) {
  const back = parseSceneText(JSON.stringify(scene, null, 2), 'saved.json');
  expect(back).toEqual(scene);
  const world = createPhysikWorld();
  const h = addRig(world, { rig: back.rig, controlPoints: defaultControlPoints(back.rig, 2) });
  expect(Object.keys(h.bones)).toHaveLength(scene.rig.bones.length);
}

// ---------------------------------------------------------------------------------------

describe('BVH fixtures', () => {
  it('bvhio_example.bvh (18 joints, ZXY, blank lines, tabs): 18 bones, heads where BVHLoader puts the joints', () => {
    const src = text('bvhio_example.bvh');
    const r = importBvh(src, 'bvhio_example.bvh');
    expect(r.scene.name).toBe('bvhio_example');
    expect(r.joints).toHaveLength(18);
    // one bone per joint, in file order with the file's parents; the thighs and collars sit off
    // their parents' axes, attached by offset (no connector bones)
    expect(r.scene.rig.bones.map((b) => b.name)).toEqual(parseBvh(src).joints.map((j) => j.name));
    expect(r.scene.rig.bones.map((b) => b.parent)).toEqual(parseBvh(src).joints.map((j) => (j.parent < 0 ? null : parseBvh(src).joints[j.parent]!.name)));
    expect(r.scene.rig.bones.find((b) => b.name === 'LeftCollar')!.offset![0]).not.toBeCloseTo(0, 3);
    // names kept; the forearm bone runs elbow → wrist
    const lowArm = r.scene.rig.bones.find((b) => b.name === 'LeftLowArm')!;
    expect(lowArm.length).toBeCloseTo(9.93, 9);
    expect(lowArm.direction[1]).toBeCloseTo(-1, 9);
    expect(r.warnings.join('\n')).not.toMatch(/Z-up/);

    const ref = bvhLoaderJoints(src);
    expect(ref.joints).toHaveLength(18);
    expect(ref.ends).toHaveLength(5);
    expectHeadsAt(r.scene, r.joints, ref.joints, 1e-9);
    // the leaf bones end at the end sites
    const world = createPhysikWorld();
    const pose = readPose(world, addRig(world, { rig: r.scene.rig }).rig);
    for (const [bone, k] of [['Head', 0], ['LeftHand', 1], ['RightHand', 2], ['LeftFoot', 3], ['RightFoot', 4]] as const) {
      expect(dist(pose[bone]!.tail, ref.ends[k]!)).toBeLessThan(1e-9);
    }

    // motion: 2 frames at 1/30 s; 6 + 17 × 3 channels, values as BVHLoader's Hips position track
    expect(r.motion!.frames).toHaveLength(2);
    expect(r.motion!.frameTime).toBeCloseTo(0.033333, 9);
    expect(r.motion!.channels).toHaveLength(57);
    expect(r.motion!.channels.slice(0, 6).map((c) => c.channel)).toEqual(['Xposition', 'Yposition', 'Zposition', 'Zrotation', 'Xrotation', 'Yrotation']);
    const hipsPos = ref.loader.clip.tracks.find((t) => t.name === 'Hips.position')!;
    expect(Array.from(hipsPos.values.slice(0, 3))).toEqual(r.motion!.frames[0]!.slice(0, 3).map((x) => Math.fround(x)));
    expect(Array.from(hipsPos.values.slice(3, 6))).toEqual(r.motion!.frames[1]!.slice(0, 3).map((x) => Math.fround(x)));
  });

  it('cmu_subject02_walk_delfem2.bvh (31 joints, coincident joints): 31 bones, none merged, 344 frames', () => {
    const src = text('cmu_subject02_walk_delfem2.bvh');
    const r = importBvh(src, 'cmu_subject02_walk_delfem2.bvh');
    expect(r.joints).toHaveLength(31);
    expect(r.scene.rig.bones).toHaveLength(31);
    expect(r.joints.every((j) => j.bone === j.name)).toBe(true);
    expect(r.scene.rig.bones.map((b) => b.name)).toContain('LowerBack');
    // joints whose first child sits on them get a short bone toward the next joint; their children stay
    expect(r.warnings.join('\n')).toMatch(/^4 joint\(s\) whose first child sits on them .*: Hips, Spine1, LeftHand, RightHand$/m);
    expect(r.scene.rig.bones.find((b) => b.name === 'LowerBack')!.offset).toEqual([0, 0, 0]);
    // no zero-length bones; the smallest is a hand's stub (0.17 units of a 26-unit figure)
    expect(Math.min(...r.scene.rig.bones.map((b) => b.length))).toBeGreaterThan(0.1);
    // the spine continues up through the neck, not off to a shoulder
    expect(r.scene.rig.bones.find((b) => b.name === 'Spine1')!.direction[1]).toBeGreaterThan(0.99);
    expectHeadsAt(r.scene, r.joints, bvhLoaderJoints(src).joints, 1e-9);
    expect(r.motion!.frames).toHaveLength(344);
    expect(r.motion!.frameTime).toBeCloseTo(1 / 120, 6);
    expect(r.motion!.channels).toHaveLength(6 + 30 * 3);
    expect(r.motion!.frames.every((f) => f.length === 96 && f.every(Number.isFinite))).toBe(true);
  });

  for (const file of ['bvhio_example.bvh', 'cmu_subject02_walk_delfem2.bvh']) {
    it(`${file}: poses with two control points; saved as a scene file it loads and builds`, () => {
      const { scene } = importBvh(text(file), file);
      const r = expectPoses(scene);
      expect(r.height).toBeGreaterThan(20); // centimetre-ish units, not rescaled
      expectSceneFileRoundTrip(scene);
    });
  }
});

describe('glTF fixtures', () => {
  /** World positions of the first skinned mesh's joints, from a full GLTFLoader load. */
  async function gltfLoaderJoints(data: Uint8Array): Promise<Vec3Tuple[]> {
    const ab = data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) as ArrayBuffer;
    const gltf = await new GLTFLoader().parseAsync(ab, '');
    gltf.scene.updateMatrixWorld(true);
    let mesh: SkinnedMesh | undefined;
    gltf.scene.traverse((o) => (mesh ??= o instanceof SkinnedMesh ? o : undefined));
    const v = new Vector3();
    return mesh!.skeleton.bones.map((b) => (b.getWorldPosition(v), [v.x, v.y, v.z]));
  }

  it('RiggedSimple.glb (2 unnamed joints): a 2-bone chain named after the nodes, node2 and node3', async () => {
    const data = bytes('RiggedSimple.glb');
    const r = await importGltf(data, 'RiggedSimple.glb');
    expect(r.scene.rig.bones.map((b) => [b.name, b.parent])).toEqual([['node2', null], ['node3', 'node2']]);
    expect(r.joints.map((j) => j.node)).toEqual([2, 3]);
    expect(r.warnings.join('\n')).toMatch(/2 unnamed joint\(s\) named after their node index: node2, node3/);
    // the leaf gets half its incoming segment's length
    expect(r.scene.rig.bones[1]!.length).toBeCloseTo(r.scene.rig.bones[0]!.length / 2, 9);
    expectHeadsAt(r.scene, r.joints, await gltfLoaderJoints(data), 1e-6);
    // one chain: its two ends are the tip and the root's head
    expect(defaultControlPoints(r.scene.rig, 2)).toEqual([
      { name: 'node3', bone: 'node3', at: 1 },
      { name: 'node2', bone: 'node2', at: 0 },
    ]);
  });

  it('RiggedFigure.glb (19 unnamed joints, Z-up armature node): 19 bones at GLTFLoader\'s joint positions', async () => {
    const data = bytes('RiggedFigure.glb');
    const r = await importGltf(data, 'RiggedFigure.glb');
    expect(r.joints).toHaveLength(19);
    const skin = [2, 11, 12, 19, 20, 16, 13, 17, 14, 18, 15, 7, 3, 8, 4, 9, 5, 10, 6];
    expect(r.joints.map((j) => j.node)).toEqual(skin);
    expect(r.joints.map((j) => j.name)).toEqual(skin.map((n) => `node${n}`));
    expect(r.scene.rig.bones.map((b) => b.name)).toEqual(skin.map((n) => `node${n}`)); // one bone per joint, none added
    expectHeadsAt(r.scene, r.joints, await gltfLoaderJoints(data), 1e-6);
    // the armature node's Z-up → Y-up matrix is composed in: the figure stands along +Y
    const world = createPhysikWorld();
    const h = addRig(world, { rig: r.scene.rig });
    const m = readMetrics(world, h.rig);
    expect(m.height).toBeGreaterThan(1);
    const pose = readPose(world, h.rig);
    expect(pose['node20']!.tail[1]).toBeGreaterThan(pose['node2']!.head[1]); // head above hips
  });

  for (const file of ['RiggedSimple.glb', 'RiggedFigure.glb']) {
    it(`${file}: poses with two control points; saved as a scene file it loads and builds`, async () => {
      const { scene } = await importGltf(bytes(file), file);
      expectPoses(scene);
      expectSceneFileRoundTrip(scene);
    });
  }
});

// ---------------------------------------------------------------------------------------
// Synthetic BVH

interface Node {
  name?: string;
  offset: Vec3Tuple;
  channels?: string[];
  children?: Node[];
  end?: Vec3Tuple;
}

/** Write a BVH text (tabs, any channel order, `frames` rows of zeros unless given). */
function writeBvh(root: Node, opts: { frames?: number; values?: (frame: number, width: number) => number[]; eol?: string } = {}): string {
  const lines: string[] = ['HIERARCHY'];
  let width = 0;
  const emit = (n: Node, depth: number, kw: string) => {
    const ind = '\t'.repeat(depth);
    lines.push(`${ind}${kw}${n.name !== undefined ? ` ${n.name}` : ''}`, `${ind}{`);
    lines.push(`${ind}\tOFFSET\t${n.offset.join('\t')}`);
    const ch = n.channels ?? (depth === 0 ? ['Xposition', 'Yposition', 'Zposition', 'Zrotation', 'Xrotation', 'Yrotation'] : ['Zrotation', 'Xrotation', 'Yrotation']);
    width += ch.length;
    lines.push(`${ind}\tCHANNELS ${ch.length} ${ch.join(' ')}`);
    for (const c of n.children ?? []) emit(c, depth + 1, 'JOINT');
    if (n.end) lines.push(`${ind}\tEnd Site`, `${ind}\t{`, `${ind}\t\tOFFSET ${n.end.join(' ')}`, `${ind}\t}`);
    lines.push(`${ind}}`);
  };
  emit(root, 0, 'ROOT');
  const frames = opts.frames ?? 2;
  lines.push('MOTION', `Frames: ${frames}`, 'Frame Time: 0.04');
  for (let f = 0; f < frames; f++) lines.push((opts.values?.(f, width) ?? new Array(width).fill(0)).join(' '));
  return lines.join(opts.eol ?? '\n') + (opts.eol ?? '\n');
}

/** A small biped, Y-up: hips, spine, neck/head, two arms, two legs (units: cm). */
function biped(axes: (v: Vec3Tuple) => Vec3Tuple = (v) => v, channels?: string[]): Node {
  const j = (name: string, offset: Vec3Tuple, children: Node[] = [], end?: Vec3Tuple): Node => ({
    name, offset: axes(offset), children, ...(end ? { end: axes(end) } : {}), ...(channels ? { channels } : {}),
  });
  const arm = (s: 'L' | 'R', x: number) => j(`Shoulder${s}`, [x * 4, 20, 0], [j(`Arm${s}`, [x * 12, 0, 0], [j(`ForeArm${s}`, [x * 26, 0, 0], [j(`Hand${s}`, [x * 24, 0, 0], [], [x * 8, 0, 0])])])]);
  const leg = (s: 'L' | 'R', x: number) => j(`UpLeg${s}`, [x * 9, -4, 0], [j(`Leg${s}`, [0, -42, 0], [j(`Foot${s}`, [0, -40, 0], [], [0, -6, 12])])]);
  return j('Hips', [0, 95, 0], [j('Spine', [0, 12, 0], [j('Chest', [0, 20, 0], [j('Neck', [0, 24, 0], [j('Head', [0, 10, 0], [], [0, 18, 0])]), arm('L', 1), arm('R', -1)])]), leg('L', 1), leg('R', -1)]);
}

describe('synthetic BVH', () => {
  it('Z-up files are detected and rotated to Y-up (the same rig as the Y-up file); up: "y" keeps the axes', () => {
    const zUp = (v: Vec3Tuple): Vec3Tuple => [v[0], -v[2], v[1]]; // Y-up → Z-up (inverse of the import's rotation)
    const a = importBvh(writeBvh(biped()), 'yup.bvh');
    const b = importBvh(writeBvh(biped(zUp)), 'zup.bvh');
    expect(a.warnings.join('\n')).not.toMatch(/Z-up/);
    expect(b.warnings.join('\n')).toMatch(/Z-up detected \(the joints span 176 along Z but 12 along Y\): rotated to Y-up/);
    expect(b.scene.rig.bones.map((x) => x.name)).toEqual(a.scene.rig.bones.map((x) => x.name));
    b.scene.rig.bones.forEach((bone, i) => {
      const ref = a.scene.rig.bones[i]!;
      expect(dist(bone.direction, ref.direction)).toBeLessThan(1e-12);
      expect(bone.length).toBeCloseTo(ref.length, 9);
    });
    expect(dist(b.scene.rig.bones.find((x) => x.name === 'Spine')!.direction, [0, 1, 0])).toBeLessThan(1e-15);
    const kept = importBvh(writeBvh(biped(zUp)), 'zup.bvh', { up: 'y' });
    expect(kept.scene.rig.bones.find((x) => x.name === 'Spine')!.direction).toEqual([0, 0, 1]);
    const forced = importBvh(writeBvh(biped()), 'yup.bvh', { up: 'z' });
    expect(forced.warnings.join('\n')).toMatch(/up: 'z': rotated to Y-up/);
    expectPoses(b.scene);
  });

  it('XYZ channel order with position channels on every joint, CRLF line ends: same joints as BVHLoader', () => {
    const channels = ['Xposition', 'Yposition', 'Zposition', 'Xrotation', 'Yrotation', 'Zrotation'];
    const src = writeBvh(biped(undefined, channels), { frames: 3, values: (f, w) => Array.from({ length: w }, (_, c) => f * 100 + c), eol: '\r\n' });
    const r = importBvh(src, 'xyz.bvh');
    expect(r.joints).toHaveLength(19);
    expect(r.motion!.channels).toHaveLength(19 * 6);
    expect(r.motion!.channels.slice(6, 12)).toEqual(channels.map((channel) => ({ joint: 'Spine', channel })));
    expect(r.motion!.frames[2]![7]).toBe(207);
    const ref = bvhLoaderJoints(src);
    expectHeadsAt(r.scene, r.joints, ref.joints, 1e-9);
    // BVHLoader reads the same per-joint position channel values (and adds the OFFSET, 0 12 0)
    const spinePos = ref.loader.clip.tracks.find((t) => t.name === 'Spine.position')!;
    expect(Array.from(spinePos.values.slice(0, 3))).toEqual([6, 7 + 12, 8]);
  });

  it('unnamed, duplicate and spaced names become unique, usable names (and the motion channels follow)', () => {
    const src = writeBvh({
      name: 'Hips', offset: [0, 0, 0], children: [
        { offset: [0, 10, 0], children: [{ name: 'Arm', offset: [0, 10, 0], end: [0, 5, 0] }] },
        { name: 'Arm', offset: [5, 0, 0], end: [0, -5, 0] },
        { name: 'Left  Fore\tArm', offset: [-5, 0, 0], end: [0, -5, 0] },
      ],
    });
    const r = importBvh(src, 'names.bvh');
    expect(r.joints.map((j) => j.name)).toEqual(['Hips', 'joint1', 'Arm', 'Arm.2', 'Left_Fore_Arm']);
    const w = r.warnings.join('\n');
    expect(w).toMatch(/1 unnamed joint\(s\) named after their index: joint1/);
    expect(w).toMatch(/duplicate joint names made unique: "Arm" \(joint 3\) → "Arm\.2"/);
    // BVH splits on whitespace, so the tab and double space arrive as single spaces
    expect(w).toMatch(/renamed: "Left Fore Arm" → "Left_Fore_Arm"/);
    expect(new Set(r.motion!.channels.map((c) => c.joint))).toEqual(new Set(['Hips', 'joint1', 'Arm', 'Arm.2', 'Left_Fore_Arm']));
    expect(() => addRig(createPhysikWorld(), { rig: r.scene.rig, controlPoints: defaultControlPoints(r.scene.rig, 2) })).not.toThrow();
  });

  it('a generated 70-joint skeleton (a chain with branches, some without end sites) imports and poses', () => {
    const r0 = rng(7);
    let count = 0;
    const chain = (len: number, dir: Vec3Tuple, branchEvery: number): Node => {
      const node: Node = { name: `j${count++}`, offset: dir.map((x) => x * (4 + 2 * r0())) as Vec3Tuple };
      let cur = node;
      for (let k = 1; k < len; k++) {
        const next: Node = { name: `j${count++}`, offset: dir.map((x, a) => x * (4 + 2 * r0()) + (a === 0 ? r0() - 0.5 : 0)) as Vec3Tuple };
        cur.children = [next];
        if (branchEvery && k % branchEvery === 0) cur.children.push(chain(4, [r0() > 0.5 ? 1 : -1, -0.3, 0.2], 0));
        cur = next;
      }
      if (count % 2 === 0) cur.end = dir.map((x) => x * 3) as Vec3Tuple; // half the leaves have end sites
      return node;
    };
    const root: Node = { name: 'root', offset: [0, 0, 0], children: [chain(30, [0, 1, 0], 5), chain(11, [0, -1, 0.1], 5)] };
    const src = writeBvh(root, { frames: 1 });
    const r = importBvh(src, 'generated.bvh');
    expect(r.joints).toHaveLength(70);
    expect(r.scene.rig.bones.length).toBeGreaterThanOrEqual(70);
    expect(r.scene.rig.bones.length).toBeLessThan(90);
    expectHeadsAt(r.scene, r.joints, bvhLoaderJoints(src).joints, 1e-9);
    expectPoses(r.scene);
  });

  it('zero-length offsets (coincident joints, a zero end site): every joint keeps a bone of non-zero length', () => {
    const src = writeBvh({
      name: 'Hips', offset: [0, 0, 0], children: [
        { name: 'LowerBack', offset: [0, 0, 0], children: [{ name: 'Spine', offset: [0, 10, 0], children: [{ name: 'Neck', offset: [0, 0, 0], children: [{ name: 'Head', offset: [0, 4, 0], end: [0, 0, 0] }] }] }] },
        { name: 'LHip', offset: [0, 0, 0], children: [{ name: 'LeftLeg', offset: [3, -10, 0], end: [0, -10, 0] }] },
        { name: 'RHip', offset: [0, 0, 0], children: [{ name: 'RightLeg', offset: [-3, -10, 0], end: [0, -10, 0] }] },
      ],
    });
    const r = importBvh(src, 'zero.bvh');
    expect(r.scene.rig.bones.map((b) => b.name)).toEqual(['Hips', 'LowerBack', 'Spine', 'Neck', 'Head', 'LHip', 'LeftLeg', 'RHip', 'RightLeg']);
    expect(r.warnings.join('\n')).toMatch(/2 joint\(s\) whose first child sits on them .*: Hips, Spine/);
    for (const b of r.scene.rig.bones) expect(b.length).toBeGreaterThan(0);
    // Hips and Spine: a quarter of the way toward the next distinct joint (LowerBack → Spine, 10; Neck → Head, 4)
    expect(r.scene.rig.bones.find((b) => b.name === 'Hips')!.length).toBeCloseTo(2.5, 12);
    expect(r.scene.rig.bones.find((b) => b.name === 'Spine')!.length).toBeCloseTo(1, 12);
    expect(r.scene.rig.bones.find((b) => b.name === 'LowerBack')!.length).toBeCloseTo(10, 12);
    // Head's end site coincides with it: the leaf rule gives half the incoming segment (Spine → Head, 4)
    expect(r.scene.rig.bones.find((b) => b.name === 'Head')!.length).toBeCloseTo(2, 12);
    // LHip hangs from the Hips bone's head (offset 0) and spans to the thigh
    expect(r.scene.rig.bones.find((b) => b.name === 'LHip')).toMatchObject({ parent: 'Hips', offset: [0, 0, 0] });
    expectHeadsAt(r.scene, r.joints, bvhLoaderJoints(src).joints, 1e-9);
    expectPoses(r.scene);
  });
});

describe('malformed BVH gives a clear error naming the file and the problem', () => {
  const example = text('bvhio_example.bvh');
  const walk = text('cmu_subject02_walk_delfem2.bvh');
  const lineOf = (src: string, needle: string) => src.slice(0, src.indexOf(needle)).split('\n').length;

  it('truncated inside HIERARCHY', async () => {
    const cut = example.slice(0, example.indexOf('JOINT LeftUpLeg') + 30);
    const e = await errorOf(() => importBvh(cut, 'walk.bvh'));
    expect(e).toBeInstanceOf(ImportError);
    expect(e.message).toMatch(/^walk\.bvh: file ends inside HIERARCHY \(.*joint "LeftUpLeg" opened at line \d+ is not closed\)$/);
  });

  it('truncated inside MOTION: between frames and in the middle of a frame', async () => {
    const lines = walk.split('\n');
    const motion = lines.findIndex((l) => l.startsWith('MOTION'));
    const e1 = await errorOf(() => importBvh(lines.slice(0, motion + 3 + 120).join('\n'), 'walk.bvh'));
    expect(e1.message).toBe('walk.bvh: MOTION says 344 frames, found 120 (file truncated?)');
    const cut = walk.slice(0, walk.indexOf(lines[motion + 3 + 120]!) + 100);
    const e2 = await errorOf(() => importBvh(cut, 'walk.bvh'));
    expect(e2.message).toMatch(/^walk\.bvh: line \d+: file ends in the middle of frame 121 \(\d+ of 96 values\): MOTION says 344 frames, found 120$/);
  });

  it('a non-number in MOTION names the line, frame and channel', async () => {
    const lines = example.split('\n');
    const first = lines.findIndex((l) => l.startsWith('Frame Time')) + 1;
    const values = lines[first]!.trim().split(/\s+/);
    values[4] = 'abc';
    lines[first] = values.join(' ');
    const e = await errorOf(() => importBvh(lines.join('\n'), 'ex.bvh'));
    expect(e.message).toBe(`ex.bvh: line ${first + 1}: frame 1: 'abc' is not a number (value 5, Hips Xrotation)`);
  });

  it('missing braces', async () => {
    const noOpen = example.replace('JOINT Chest\n\t{', 'JOINT Chest\n');
    const e1 = await errorOf(() => importBvh(noOpen, 'ex.bvh'));
    expect(e1.message).toBe(`ex.bvh: line ${lineOf(noOpen, 'JOINT Chest') + 2}: expected { after JOINT Chest, got 'OFFSET'`);
    const lastClose = example.lastIndexOf('}');
    const noClose = example.slice(0, lastClose) + example.slice(lastClose + 1);
    const e2 = await errorOf(() => importBvh(noClose, 'ex.bvh'));
    expect(e2.message).toBe(`ex.bvh: line ${lineOf(example, 'MOTION')}: MOTION inside HIERARCHY: joint "Hips" opened at line 3 is not closed (a '}' is missing)`);
  });

  it('other mistakes: a missing OFFSET, a bad channel, a bad frame count, not a BVH at all', async () => {
    const noOffset = example.replace('\t\tOFFSET\t 0.00\t 5.21\t 0.00\n', '');
    expect((await errorOf(() => importBvh(noOffset, 'ex.bvh'))).message).toMatch(/^ex\.bvh: line \d+: expected OFFSET in joint "Chest" before 'JOINT'$/);
    const badChannel = example.replace('CHANNELS 3 Zrotation Xrotation Yrotation', 'CHANNELS 3 Zrotation Xrotation');
    expect((await errorOf(() => importBvh(badChannel, 'ex.bvh'))).message).toMatch(/^ex\.bvh: line 12: expected a channel name \(Xposition, .*\) for channel 3 of 3 of joint "Chest", got 'JOINT'$/);
    const badFrames = example.replace('Frames:    2', 'Frames: many');
    expect((await errorOf(() => importBvh(badFrames, 'ex.bvh'))).message).toMatch(/^ex\.bvh: line \d+: expected a whole number of frames, got 'many'$/);
    expect((await errorOf(() => importBvh('', 'e.bvh'))).message).toBe('e.bvh: empty file (expected HIERARCHY)');
    expect((await errorOf(() => importBvh('{"name": "scene"}', 'e.bvh'))).message).toBe(`e.bvh: line 1: expected HIERARCHY at the start of a BVH file, got '{'`);
    const two = example.replace('MOTION', 'ROOT Other\n{\n OFFSET 0 0 0\n CHANNELS 0\n}\nMOTION');
    expect((await errorOf(() => importBvh(two, 'ex.bvh'))).message).toMatch(/^ex\.bvh: line \d+: a second ROOT: only one skeleton per file is supported$/);
  });

  it('parseBvh keeps a file without MOTION usable (skeleton only, with a warning)', () => {
    const p = parseBvh(example.slice(0, example.indexOf('MOTION')), 'ex.bvh');
    expect(p.joints).toHaveLength(18);
    expect(p.motion).toBeUndefined();
    expect(p.warnings).toContain('no MOTION section: the skeleton only');
  });
});

// ---------------------------------------------------------------------------------------
// glTF: synthetic files and malformed input

/** A .gltf (JSON text): named and unnamed joints, bent knees, under a rotated, scaled armature node. */
function gltfText(extra: Record<string, unknown> = {}): string {
  const s = Math.SQRT1_2;
  // file axes are Z-up centimetres; the armature node makes them Y-up metres: (x, y, z) → (x, z, −y) / 100
  return JSON.stringify({
    asset: { version: '2.0' },
    scene: 0,
    scenes: [{ nodes: [0, 14] }],
    nodes: [
      { name: 'Armature', rotation: [-s, 0, 0, s], scale: [0.01, 0.01, 0.01], children: [1] },
      { name: 'mixamorig:Hips', translation: [0, 0, 100], children: [2, 4, 7] },
      { name: 'mixamorig:Spine', translation: [0, 0, 30], children: [3, 10, 12] },
      { translation: [0, 0, 40] },
      { name: 'Leg L', translation: [10, 0, 0], children: [5] },
      { name: 'Leg L', translation: [0, -5, -45], children: [6] },
      { name: 'Foot L', translation: [0, 5, -45] },
      { name: 'Leg R', translation: [-10, 0, 0], children: [8] },
      { name: 'Knee R', translation: [0, -5, -45], children: [9] },
      { name: 'Foot R', translation: [0, 5, -45], extras: { x: 1 } },
      { name: 'Arm L', translation: [18, 0, 25], children: [11] },
      { name: 'Hand L', translation: [0, -5, -50], mesh: 0 },
      { name: 'Arm R', translation: [-18, 0, 25], children: [13] },
      { name: 'Hand R', translation: [0, -5, -50] },
      { name: 'Camera', translation: [0, 1, 5], camera: 0 },
    ],
    meshes: [{ primitives: [{ attributes: { POSITION: 0 } }] }],
    accessors: [{ bufferView: 0, componentType: 5126, count: 1, type: 'VEC3' }],
    bufferViews: [{ buffer: 0, byteLength: 12 }],
    buffers: [{ byteLength: 12, uri: 'missing.bin' }],
    cameras: [{ type: 'perspective', perspective: { yfov: 1, znear: 0.1 } }],
    skins: [{ joints: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13], inverseBindMatrices: 0 }],
    extensionsRequired: ['KHR_draco_mesh_compression'],
    extensionsUsed: ['KHR_draco_mesh_compression'],
    ...extra,
  });
}
const gltfNames = ['mixamorig:Hips', 'mixamorig:Spine', 'node3', 'Leg_L', 'Leg_L.2', 'Foot_L', 'Leg_R', 'Knee_R', 'Foot_R', 'Arm_L', 'Hand_L', 'Arm_R', 'Hand_R'];

describe('synthetic glTF', () => {
  it('a .gltf text: file names kept, unnamed joints by node index, armature composed, meshes/buffers/Draco not needed', async () => {
    const r = await importGltf(gltfText(), 'figure.gltf');
    expect(r.joints.map((j) => j.name)).toEqual(gltfNames);
    expect(r.joints.map((j) => j.node)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
    const world = createPhysikWorld();
    const pose = readPose(world, addRig(world, { rig: r.scene.rig }).rig);
    // Hips at 100 cm up (Z in the file) → 1 m up in Y; the spine points up
    expect(dist(pose['mixamorig:Hips']!.head, [0, 1, 0])).toBeLessThan(1e-12);
    expect(dist(pose['mixamorig:Spine']!.head, [0, 1.3, 0])).toBeLessThan(1e-12);
    expect(dist(pose['Leg_L.2']!.head, [0.1, 0.55, 0.05])).toBeLessThan(1e-12);
    expect(r.scene.rig.bones.find((b) => b.name === 'mixamorig:Spine')!.length).toBeCloseTo(0.4, 12);
    expectPoses(r.scene);
  });

  it('without a skin, the scene\'s node hierarchy is the skeleton; one node alone is an error', async () => {
    const noSkin = JSON.parse(gltfText());
    delete noSkin.skins;
    noSkin.scenes = [{ nodes: [1] }];
    const r = await importGltf(JSON.stringify(noSkin), 'noskin.gltf');
    expect(r.warnings[0]).toBe('no skin: imported the node hierarchy of the scene (13 nodes)');
    // depth first through the node children (the skin listed the legs before the arms)
    expect(r.joints.map((j) => j.name)).toEqual(['mixamorig:Hips', 'mixamorig:Spine', 'node3', 'Arm_L', 'Hand_L', 'Arm_R', 'Hand_R', 'Leg_L', 'Leg_L.2', 'Foot_L', 'Leg_R', 'Knee_R', 'Foot_R']);
    const single = JSON.stringify({ asset: { version: '2.0' }, scenes: [{ nodes: [0] }], nodes: [{ name: 'Cube', mesh: 0 }] });
    expect((await errorOf(() => importGltf(single, 'cube.gltf'))).message).toBe('cube.gltf: no skin or bones found (no skins, and the 1 node(s) of the scene form no hierarchy)');
  });

  it('truncated GLB, random bytes, broken JSON and bad node graphs give clear errors', async () => {
    const glb = bytes('RiggedFigure.glb');
    expect((await errorOf(() => importGltf(glb.slice(0, 20000), 'RiggedFigure.glb'))).message).toBe('RiggedFigure.glb: truncated: header says 49532 bytes, got 20000');
    expect((await errorOf(() => importGltf(glb.slice(0, 10), 'RiggedFigure.glb'))).message).toMatch(/^RiggedFigure\.glb: truncated: 10 bytes/);
    const r = rng(3);
    const noise = Uint8Array.from({ length: 4096 }, () => Math.floor(r() * 256));
    noise[0] = 0x89; // not 'g' nor '{'
    expect((await errorOf(() => importGltf(noise, 'noise.glb'))).message).toMatch(/^noise\.glb: not a glTF file \(starts with 89 [0-9a-f ]+ ".*"; a \.glb starts with "glTF", a \.gltf with "\{"\)$/);
    expect((await errorOf(() => importGltf(new Uint8Array(0), 'empty.glb'))).message).toBe('empty.glb: empty file (expected a .glb or .gltf)');
    const half = gltfText().slice(0, 200);
    expect((await errorOf(() => importGltf(half, 'half.gltf'))).message).toMatch(/^half\.gltf: not valid glTF JSON \(.*\) \(file truncated\?\)$/);
    expect((await errorOf(() => importGltf(JSON.stringify({ asset: { version: '1.0' } }), 'old.gltf'))).message).toBe('old.gltf: glTF 1.0 is not supported (glTF 2.0 only)');
    const cyclic = JSON.parse(gltfText());
    cyclic.nodes[3].children = [1];
    cyclic.nodes[0].children = [];
    expect((await errorOf(() => importGltf(JSON.stringify(cyclic), 'cycle.gltf'))).message).toMatch(/^cycle\.gltf: node \d+( ".*")? is in a cycle of node children$/);
    const badJoint = JSON.parse(gltfText());
    badJoint.skins[0].joints.push(42);
    expect((await errorOf(() => importGltf(JSON.stringify(badJoint), 'bad.gltf'))).message).toBe('bad.gltf: skin 0: joint 42 is not a node index (0..14)');
    const nanNode = JSON.parse(gltfText());
    nanNode.nodes[2].translation = [0, 0, 'x'];
    expect((await errorOf(() => importGltf(JSON.stringify(nanNode), 'nan.gltf'))).message).toBe('nan.gltf: node 2 "mixamorig:Spine": translation must be 3 finite numbers');
  });
});

describe('jointsToRig', () => {
  const joints = (): SkeletonJoint[] => [
    { name: 'a', parent: -1, position: [0, 0, 0] },
    { name: 'b', parent: 0, position: [0, 1, 0] },
    { name: 'c', parent: 1, position: [0, 2, 0] },
  ];

  it('rejects bad skeletons with errors naming the joint', async () => {
    const nan = joints();
    nan[2]!.position = [0, Number.NaN, 0];
    expect((await errorOf(() => jointsToRig(nan, { file: 'x.bvh' }))).message).toBe('x.bvh: joint 2 "c": position [0, NaN, 0] is not 3 finite numbers');
    const twoRoots = joints();
    twoRoots[2]!.parent = -1;
    expect((await errorOf(() => jointsToRig(twoRoots))).message).toBe('expected exactly one root joint, found 2: joint 0 "a", joint 2 "c"');
    const cycle = [...joints(), { name: 'd', parent: 4, position: [1, 0, 0] as Vec3Tuple }, { name: 'e', parent: 3, position: [2, 0, 0] as Vec3Tuple }];
    expect((await errorOf(() => jointsToRig(cycle))).message).toBe('joint 3 "d": parent cycle (d -> e -> d)');
    const outOfRange = joints();
    outOfRange[1]!.parent = 7;
    expect((await errorOf(() => jointsToRig(outOfRange))).message).toBe('joint 1 "b": parent 7 is not a joint index (expected -1 for the root or 0..2, not itself)');
    expect((await errorOf(() => jointsToRig([]))).message).toBe('no joints: the skeleton is empty');
    const same = joints().map((j) => ({ ...j, position: [1, 1, 1] as Vec3Tuple }));
    expect((await errorOf(() => jointsToRig(same))).message).toBe('all 3 joints are at the same position [1, 1, 1]: no bone lengths can be derived');
  });

  it('a child attaches where the file has it: on the parent bone\'s axis or off it, by offset; scale', () => {
    const j = joints();
    j.push({ name: 'side', parent: 1, position: [1, 1.5, 0] }, { name: 'mid', parent: 1, position: [0, 1.5, 0] });
    const r = jointsToRig(j, { scale: 0.5 });
    expect(r.rig.bones.map((b) => b.name)).toEqual(['a', 'b', 'c', 'side', 'mid']);
    expect(r.rig.bones.find((b) => b.name === 'side')).toMatchObject({ parent: 'b', offset: [0.5, 0.25, 0] });
    // a leaf continues its incoming segment (b's head to side, 0.559) for half its length
    expect(r.rig.bones.find((b) => b.name === 'side')!.length).toBeCloseTo(Math.hypot(0.5, 0.25) / 2, 12);
    expect(r.rig.bones.find((b) => b.name === 'mid')).toMatchObject({ parent: 'b', offset: [0, 0.25, 0], length: 0.125 });
    expect(r.rig.bones[0]!.length).toBe(0.5);
    const positions = j.map((x) => x.position.map((c) => c * 0.5) as Vec3Tuple);
    expectHeadsAt({ name: 'x', rig: r.rig } as Scene, r.boneOfJoint.map((bone) => ({ bone })), positions, 1e-12);
  });

  it('a rig that addRig refuses leaves the world empty', () => {
    const r = jointsToRig(joints());
    // pure data: a broken description is refused by addRig before anything is built
    const world = createPhysikWorld();
    const broken = structuredClone(r.rig);
    broken.bones[2]!.length = -1;
    expect(() => addRig(world, { rig: broken })).toThrow(SceneError);
    expect(world.physik.rigs).toHaveLength(0);
    expect(() => parseScene({ name: 'x', rig: r.rig })).not.toThrow();
  });
});
