/**
 * Hostile but small inputs to the importers and exporters: work that must stay linear (a
 * hundred thousand nodes of one name), limits checked before the work they bound (the
 * 10,000-bone cap), no recursion that a deep but legal chain can overflow (10,000-bone
 * exports, 1000-level imports), degenerate transforms refused instead of read as identity,
 * and messages in the house style (the file, the node or line, what was expected, what was
 * found). Every input is generated here, a few MB at most.
 *
 * three.js's own loaders recurse over the hierarchy: on Node's default stack (about 1 MB)
 * GLTFLoader overflows a few thousand levels down (under 3,000 in a test process) and BVHLoader
 * between 5,000 and 10,000.
 * The 10,000-bone files are therefore loaded back in a worker thread with a 64 MB stack; our
 * writers themselves run here, on the test's own stack.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Worker } from 'node:worker_threads';
import { importBvh, parseBvh } from '../../../src/io/bvhImport';
import { importGltf } from '../../../src/io/gltfImport';
import { ImportError, jointsToRig, type SkeletonJoint } from '../../../src/io/skeleton';
import { bvhJointNames, recordingToBvh } from '../../../src/io/bvhExport';
import { recordingToGlb } from '../../../src/io/gltfExport';
import type { Quat, Recording, Vec3 } from '../../../src/io/recording';
import { errorOf } from '../../support/errors';

const root = join(__dirname, '../../..');
const loaders = join(root, 'node_modules/three/examples/jsm/loaders');

/** A .gltf text of the given nodes (and skins), default scene holding node 0. */
const gltfOf = (nodes: unknown[], extra: Record<string, unknown> = {}) => JSON.stringify({ asset: { version: '2.0' }, scenes: [{ nodes: [0] }], nodes, ...extra });

/** A small skinned glTF: hips → spine → head, each 1 up. */
const threeJoints = () => [
  { name: 'hips', children: [1] } as Record<string, unknown>,
  { name: 'spine', translation: [0, 1, 0], children: [2] } as Record<string, unknown>,
  { name: 'head', translation: [0, 1, 0] } as Record<string, unknown>,
];

/** BVH text: joints given as [name, parent index, offset], parents first; one frame of zeros. */
function bvhOf(joints: [string, number, Vec3][], end: Vec3 = [0, 1, 0]): string {
  const kids: number[][] = joints.map(() => []);
  joints.forEach(([, p], i) => p >= 0 && kids[p]!.push(i));
  const out: string[] = ['HIERARCHY'];
  const stack: number[] = [0];
  const closing = new Set<number>();
  while (stack.length) {
    const i = stack.pop()!;
    if (closing.has(i)) {
      if (kids[i]!.length === 0) out.push('End Site', '{', `OFFSET ${end.join(' ')}`, '}');
      out.push('}');
      continue;
    }
    closing.add(i);
    const [name, p, off] = joints[i]!;
    out.push(`${p < 0 ? 'ROOT' : 'JOINT'} ${name}`, '{', `OFFSET ${off.join(' ')}`, 'CHANNELS 3 Zrotation Xrotation Yrotation');
    stack.push(i);
    for (let k = kids[i]!.length - 1; k >= 0; k--) stack.push(kids[i]![k]!);
  }
  out.push('MOTION', 'Frames: 1', 'Frame Time: 0.033333', Array.from({ length: joints.length * 3 }, () => '0').join(' '));
  return `${out.join('\n')}\n`;
}

/**
 * A chain of `n` bones, 0.1 long, straight up +Y at rest; its one frame turns every joint by
 * `deg` about Z (one frame: three.js's BVHLoader reads a frame in time quadratic in its values).
 */
function chainRecording(n: number, deg = 0.5): Recording {
  const frames = 1;
  const q = (a: number): Quat => [0, 0, Math.sin(a / 2), Math.cos(a / 2)];
  const bones = Array.from({ length: n }, (_, i) => ({
    name: `b${i}`, parent: i - 1, length: 0.1,
    offset: (i === 0 ? [0, 0, 0] : [0, 0.1, 0]) as Vec3,
    restLocal: [0, 0, 0, 1] as Quat, restWorld: [0, 0, 0, 1] as Quat, restHead: [0, 0.1 * i, 0] as Vec3,
  }));
  const rotations = new Float64Array(frames * n * 4), heads = new Float64Array(frames * n * 3);
  const rad = (deg * Math.PI) / 180;
  for (let i = 0; i < n; i++) {
    // bone i turned by (i + 1) steps, so each joint's rotation relative to its parent is one step
    rotations.set(q((i + 1) * rad), i * 4);
    heads[i * 3 + 1] = 0.1 * i; // only the root's is written
  }
  return { rig: 'chain', fps: 30, bones, frameCount: frames, times: Float64Array.from([0]), steps: new Int32Array(frames), heads, rotations };
}

interface Loaded { bones: number; depth: number; tip: number[]; tracks: number; skinJoints?: number; turn: number[] }

/**
 * Load a .bvh text or .glb with three.js's loader in a worker thread with a 64 MB stack (the
 * loaders recurse once per level). Reports the bone count, the deepest bone chain, the world
 * position of the deepest bone at rest, the number of tracks and, for each bone named in
 * `probe`, its last key's rotation angle about Z in degrees.
 */
function loadInWorker(kind: 'bvh' | 'glb', data: string | ArrayBuffer, probe: string[]): Promise<Loaded> {
  const code = `
const { parentPort, workerData: w } = require('node:worker_threads');
(async () => {
  try {
    const { Vector3 } = await import(w.three);
    let bones, tracks, skinJoints, root;
    if (w.kind === 'bvh') {
      const { BVHLoader } = await import(w.bvh);
      const r = new BVHLoader().parse(w.data);
      bones = r.skeleton.bones.filter((b) => b.name !== 'ENDSITE');
      tracks = r.clip.tracks;
      root = r.skeleton.bones[0];
    } else {
      const { GLTFLoader } = await import(w.gltf);
      const g = await new Promise((res, rej) => new GLTFLoader().parse(w.data, '', res, rej));
      bones = [];
      g.scene.traverse((o) => { if (o.isBone) bones.push(o); if (o.isSkinnedMesh) skinJoints = o.skeleton.bones.length; });
      tracks = g.animations[0].tracks;
      root = g.scene;
    }
    root.updateMatrixWorld(true);
    let depth = 0, deepest = bones[0];
    const level = new Map();
    for (const b of bones) {
      const d = b.parent && level.has(b.parent) ? level.get(b.parent) + 1 : 0;
      level.set(b, d);
      if (d > depth) { depth = d; deepest = b; }
    }
    const tip = deepest.getWorldPosition(new Vector3()).toArray();
    const turn = w.probe.map((name) => {
      const t = tracks.find((x) => x.name === name + '.quaternion');
      const v = t ? t.values : [];
      return t ? 2 * Math.atan2(v[v.length - 2], v[v.length - 1]) * 180 / Math.PI : NaN;
    });
    parentPort.postMessage({ bones: bones.length, depth, tip, tracks: tracks.length, skinJoints, turn });
  } catch (e) {
    parentPort.postMessage({ error: String(e && e.stack || e) });
  }
})();`;
  const url = (f: string) => pathToFileURL(join(loaders, f)).href;
  const worker = new Worker(code, {
    eval: true,
    workerData: { kind, data, probe, bvh: url('BVHLoader.js'), gltf: url('GLTFLoader.js'), three: pathToFileURL(join(root, 'node_modules/three/build/three.module.js')).href },
    resourceLimits: { stackSizeMb: 64 },
  });
  return new Promise<Loaded>((resolve, reject) => {
    worker.once('message', (m: Loaded & { error?: string }) => (m.error ? reject(new Error(m.error)) : resolve(m)));
    worker.once('error', reject);
  }).finally(() => worker.terminate());
}

describe('repeated names and the bone cap: linear work, limits first', () => {
  it('a glTF of 100,000 nodes of one name is refused at the bone cap, before any per-joint work', async () => {
    // a four-way tree (depth 8), so only the node count is hostile
    const nodes = Array.from({ length: 100_000 }, (_, i) => {
      const kids = [4 * i + 1, 4 * i + 2, 4 * i + 3, 4 * i + 4].filter((c) => c < 100_000);
      return { name: 'bone', ...(i ? { translation: [0, 1, 0] } : {}), ...(kids.length ? { children: kids } : {}) };
    });
    const text = gltfOf(nodes);
    expect(text.length).toBeLessThan(8e6);
    const e = await errorOf(() => importGltf(text, 'same.gltf'));
    expect(e).toBeInstanceOf(ImportError);
    expect(e.message).toBe("same.gltf: the scene's node hierarchy has 100000 joints: more than the 10000 bones a rig may have (one bone per joint)");
    // the same through a skin
    const skinned = gltfOf(nodes, { skins: [{ joints: nodes.map((_, i) => i) }] });
    expect((await errorOf(() => importGltf(skinned, 'same.gltf'))).message).toBe('same.gltf: skin 0 has 100000 joints: more than the 10000 bones a rig may have (one bone per joint)');
  }, 15_000);

  it('10,000 joints of one name (the cap) get unique names in linear time, the warning kept short', () => {
    const joints: SkeletonJoint[] = Array.from({ length: 10_000 }, (_, i) => ({ name: 'bone', parent: i - 1, position: [0, i, 0] }));
    // a joint already called "bone.3" takes that name out of the sequence, which goes round it
    joints[1]!.name = 'bone.3';
    const r = jointsToRig(joints, { file: 'same.bvh' });
    expect(new Set(r.jointNames).size).toBe(10_000);
    expect(r.jointNames.slice(0, 5)).toEqual(['bone', 'bone.3', 'bone.2', 'bone.4', 'bone.5']);
    expect(r.rig.bones).toHaveLength(10_000);
    const dupes = r.warnings.find((w) => w.startsWith('duplicate joint names made unique'))!;
    expect(dupes).toMatch(/, \.\.\. \(9998 in all\)$/);
    expect(dupes.length).toBeLessThan(400);
  }, 15_000);

  it('more joints than the cap are refused by jointsToRig and by the BVH parser at the joint\'s line', async () => {
    const many: SkeletonJoint[] = Array.from({ length: 10_001 }, (_, i) => ({ name: `j${i}`, parent: i - 1, position: [0, i, 0] }));
    expect((await errorOf(() => jointsToRig(many, { file: 'big.bvh' }))).message).toBe('big.bvh: 10001 joints: more than the 10000 bones a rig may have (one bone per joint)');
    // a BVH root with 10,000 children: 10,001 joints, one level deep
    const joints: [string, number, Vec3][] = [['root', -1, [0, 0, 0]], ...Array.from({ length: 10_000 }, (_, i): [string, number, Vec3] => [`j${i}`, 0, [Math.cos(i), 1, Math.sin(i)]])];
    const text = bvhOf(joints);
    const line = text.split('\n').findIndex((l) => l === 'JOINT j9999') + 1;
    const e = await errorOf(() => importBvh(text, 'wide.bvh'));
    expect(e).toBeInstanceOf(ImportError);
    expect(e.message).toBe(`wide.bvh: line ${line}: more than 10000 joints: a rig holds at most 10000 bones, one per joint`);
  }, 15_000);

  it('BVH export names stay unique and are made in linear time', () => {
    const names = bvhJointNames([...Array.from({ length: 20_000 }, () => 'a b'), 'a_b_2', 'a_b']);
    expect(new Set(names).size).toBe(20_002);
    expect(names.slice(0, 3)).toEqual(['a_b', 'a_b_2', 'a_b_3']);
    expect(names.slice(-2)).toEqual(['a_b_2_2', 'a_b_20001']);
  }, 15_000);
});

describe('deep chains: no recursion deeper than a constant', () => {
  const n = 10_000;
  const rec = chainRecording(n);

  it('a 10,000-bone chain exports as BVH, and three.js\'s BVHLoader reads it back', async () => {
    const text = recordingToBvh(rec);
    // indentation stops growing, so the text stays linear in the bones
    expect(text.length).toBeLessThan(8e6);
    expect(text.split('\n').filter((l) => /^\s*JOINT /.test(l))).toHaveLength(n - 1);
    // our own parser reads the hierarchy too, up to its 1000-level limit: the file is well formed
    expect((await errorOf(() => parseBvh(text, 'chain.bvh'))).message).toMatch(/^chain\.bvh: line \d+: joints nested more than 1000 levels deep \(JOINT inside joint "b999"\)/);
    const loaded = await loadInWorker('bvh', text, ['b0', 'b5000', `b${n - 1}`]);
    expect(loaded.bones).toBe(n);
    expect(loaded.depth).toBe(n - 1);
    expect(loaded.tip[1]).toBeCloseTo(0.1 * (n - 1), 6);
    for (const a of loaded.turn) expect(a).toBeCloseTo(0.5, 4);
  }, 60_000);

  it('a 10,000-bone chain exports as .glb, and three.js\'s GLTFLoader reads it back', async () => {
    const glb = await recordingToGlb(rec);
    const json = JSON.parse(new TextDecoder().decode(new Uint8Array(glb, 20, new DataView(glb).getUint32(12, true)))) as { nodes: { name?: string; children?: number[]; extras?: unknown }[] };
    // the written tree is the chain: each bone's node is its parent's child; no helper marks remain
    const byName = new Map(json.nodes.map((node, k) => [node.name, k]));
    for (const i of [1, 2, 5000, n - 1]) expect(json.nodes[byName.get(`b${i - 1}`)!]!.children).toEqual([byName.get(`b${i}`)]);
    expect(json.nodes[byName.get(`b${n - 1}`)!]!.children).toEqual([byName.get(`b${n - 1}_end`)]);
    expect(json.nodes.some((node) => node.extras !== undefined)).toBe(false);
    const loaded = await loadInWorker('glb', glb, ['b0', 'b5000', `b${n - 1}`]);
    expect(loaded.bones).toBe(n);
    expect(loaded.skinJoints).toBe(n);
    expect(loaded.depth).toBe(n - 1);
    expect(loaded.tracks).toBe(n + 1);
    expect(loaded.tip[1]).toBeCloseTo(0.1 * (n - 1), 2); // float32 translations
    for (const a of loaded.turn) expect(a).toBeCloseTo(0.5, 4);
  }, 60_000);

  it('imports read hierarchies 1000 levels deep (the limit) and refuse the 1001st level', async () => {
    const chain = (d: number) => Array.from({ length: d }, (_, i): [string, number, Vec3] => [`j${i}`, i - 1, [0, i ? 1 : 0, 0]]);
    const r = importBvh(bvhOf(chain(1000)), 'deep.bvh');
    expect(r.scene.rig.bones).toHaveLength(1000);
    const text = bvhOf(chain(1001));
    const line = text.split('\n').findIndex((l) => l === 'JOINT j1000') + 1;
    expect((await errorOf(() => importBvh(text, 'deep.bvh'))).message).toBe(`deep.bvh: line ${line}: joints nested more than 1000 levels deep (JOINT inside joint "j999"); at most 1000 are supported`);
    const nodes = (d: number) => Array.from({ length: d }, (_, i) => ({ name: `n${i}`, translation: [0, 1, 0], ...(i < d - 1 ? { children: [i + 1] } : {}) }));
    const g = await importGltf(gltfOf(nodes(1000)), 'deep.gltf');
    expect(g.scene.rig.bones).toHaveLength(1000);
    expect((await errorOf(() => importGltf(gltfOf(nodes(1001)), 'deep.gltf'))).message).toBe('deep.gltf: node 1000 "n1000" is nested more than 1000 levels deep in the node hierarchy; at most 1000 are supported');
  }, 60_000);
});

describe('degenerate or malformed files: refused naming the node or line, in plain words', () => {
  it('a glTF node that is its own child is named', async () => {
    const nodes = threeJoints();
    nodes[1]!.children = [1, 2];
    const e = await errorOf(() => importGltf(gltfOf(nodes), 'self.gltf'));
    expect(e.message).toBe('self.gltf: node 1 "spine" lists itself among its children; glTF nodes form a tree');
    nodes[1]!.children = [2, 2];
    expect((await errorOf(() => importGltf(gltfOf(nodes), 'twice.gltf'))).message).toBe('twice.gltf: node 1 "spine" lists child 2 twice');
  });

  it('a GLB whose header gives a length of 0, or whose JSON chunk is empty, says so', async () => {
    const json = new TextEncoder().encode(gltfOf(threeJoints(), { skins: [{ joints: [0, 1, 2] }] }).padEnd(200, ' '));
    const glb = (length: number, chunkLength: number) => {
      const b = new Uint8Array(20 + json.byteLength);
      const v = new DataView(b.buffer);
      v.setUint32(0, 0x46546c67, true);
      v.setUint32(4, 2, true);
      v.setUint32(8, length, true);
      v.setUint32(12, chunkLength, true);
      v.setUint32(16, 0x4e4f534a, true);
      b.set(json, 20);
      return b;
    };
    expect((await importGltf(glb(20 + json.byteLength, json.byteLength), 'ok.glb')).scene.rig.bones).toHaveLength(3);
    const e0 = await errorOf(() => importGltf(glb(0, json.byteLength), 'zero.glb'));
    expect(e0.message).toBe("zero.glb: the GLB header gives the file's length as 0 bytes, less than the 20 bytes of the GLB and JSON chunk headers (the header is damaged)");
    expect(e0.message).not.toMatch(/-20/);
    const e1 = await errorOf(() => importGltf(glb(20 + json.byteLength, 0), 'empty.glb'));
    expect(e1.message).toBe('empty.glb: the JSON chunk is empty (its header gives its length as 0 bytes); a GLB holds its glTF JSON there');
  });

  it('a BVH OFFSET of 1e200 is refused at its joint\'s line, not as a path into the generated scene', async () => {
    const text = bvhOf([['hips', -1, [0, 0, 0]], ['spine', 0, [0, 10, 0]], ['far', 1, [0, 1e200, 0]]]);
    const line = text.split('\n').findIndex((l) => l === 'JOINT far') + 1;
    const e = await errorOf(() => importBvh(text, 'far.bvh'));
    expect(e).toBeInstanceOf(ImportError);
    expect(e.message).toBe(`far.bvh: line ${line}: joint 2 "far": position [0, 1e+200, 0] is out of range: coordinates must lie within ±1e9 (larger ones overflow the simulation)`);
    // within range in the file but not after scale
    const big = bvhOf([['hips', -1, [0, 0, 0]], ['spine', 0, [0, 1e8, 0]]]);
    expect((await errorOf(() => importBvh(big, 'big.bvh', { scale: 100 }))).message).toMatch(/^big\.bvh: line 6: joint 1 "spine": position \[0, 10000000000, 0\] \(after scale 100\) is out of range/);
    // a glTF translation likewise names the node
    const nodes = threeJoints();
    nodes[2]!.translation = [1e200, 0, 0];
    expect((await errorOf(() => importGltf(gltfOf(nodes, { skins: [{ joints: [0, 1, 2] }] }), 'far.gltf'))).message).toBe('far.gltf: node 2: joint 2 "head": position [1e+200, 1, 0] is out of range: coordinates must lie within ±1e9 (larger ones overflow the simulation)');
  });

  it('a singular glTF matrix, a zero scale and a zero quaternion are refused naming the node; a non-unit rotation is normalised', async () => {
    const skins = { skins: [{ joints: [0, 1, 2] }] };
    const withNode = (edit: Record<string, unknown>) => {
      const nodes = threeJoints();
      Object.assign(nodes[1]!, edit);
      return gltfOf(nodes, skins);
    };
    const singular = withNode({ translation: undefined, matrix: [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1] });
    expect((await errorOf(() => importGltf(singular, 's.gltf'))).message).toBe('s.gltf: node 1 "spine": matrix is singular (determinant 0), which flattens every node under it (expected an invertible translation, rotation and scale)');
    const projective = withNode({ translation: undefined, matrix: [1, 0, 0, 0.5, 0, 1, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1] });
    expect((await errorOf(() => importGltf(projective, 'p.gltf'))).message).toBe('p.gltf: node 1 "spine": matrix is not an affine transform (its last row is [0.5, 0, 0, 1], expected [0, 0, 0, 1])');
    const zeroQ = withNode({ rotation: [0, 0, 0, 0] });
    expect((await errorOf(() => importGltf(zeroQ, 'q.gltf'))).message).toBe('q.gltf: node 1 "spine": rotation [0, 0, 0, 0] is not a unit quaternion (its length is 0), so it is no rotation at all');
    const flat = withNode({ scale: [1, 0, 1] });
    expect((await errorOf(() => importGltf(flat, 'z.gltf'))).message).toBe('z.gltf: node 1 "spine": scale [1, 0, 1] has a zero component, which flattens every node under it (expected non-zero scales)');
    // twice a quarter turn about Z: the head sits one to the side of the spine, not in between
    const s = Math.SQRT1_2;
    const long = await importGltf(withNode({ rotation: [0, 0, 2 * s, 2 * s] }), 'long.gltf');
    expect(long.warnings).toContain('rotation not of unit length, normalised: node 1 "spine"');
    const spine = long.scene.rig.bones.find((b) => b.name === 'spine')!;
    expect(spine.direction[0]).toBeCloseTo(-1, 12);
    expect(spine.length).toBeCloseTo(1, 12);
    // a degenerate node that places no joint (a mesh beside the skeleton) is not the rig's business
    const nodes = [...threeJoints(), { name: 'prop', rotation: [0, 0, 0, 0], mesh: 0 }];
    nodes[0]!.children = [1, 3];
    expect((await importGltf(gltfOf(nodes, skins), 'prop.gltf')).scene.rig.bones).toHaveLength(3);
  });

  it('an evenly spaced 1000-joint BVH chain keeps every joint; coincident joints keep theirs too', () => {
    const chain = Array.from({ length: 1000 }, (_, i): [string, number, Vec3] => [`j${i}`, i - 1, [0, i ? 1 : 0, 0]]);
    const r = importBvh(bvhOf(chain), 'tail.bvh');
    expect(r.scene.rig.bones).toHaveLength(1000);
    expect(new Set(r.joints.map((j) => j.bone)).size).toBe(1000);
    expect(r.warnings.filter((w) => /sits on them/.test(w))).toEqual([]);
    // coincident joints (one exactly at its parent, one 0.001 from it) keep their bones; the
    // joints they sit on get short ones
    const near = importBvh(bvhOf([['hips', -1, [0, 0, 0]], ['low', 0, [0, 0, 0]], ['spine', 1, [0, 10, 0]], ['neck', 2, [0, 0.001, 0]], ['head', 3, [0, 5, 0]]]), 'near.bvh');
    expect(near.joints.map((j) => j.bone)).toEqual(['hips', 'low', 'spine', 'neck', 'head']);
    expect(near.warnings.find((w) => /sits on them/.test(w))).toMatch(/^2 joint\(s\) whose first child sits on them \(within 0\.\d+\) .*: hips, spine$/);
  });
});

describe('BVH motion: read only when used', () => {
  /** A skeleton of 20 joints and `frames` frames of 63 values (about 4 bytes each). */
  function longMotion(frames: number, tail = ''): string {
    const joints = Array.from({ length: 21 }, (_, i): [string, number, Vec3] => [`j${i}`, i - 1, [0, i ? 1 : 0, 0]]);
    const head = bvhOf(joints).replace(/MOTION[\s\S]*$/, '');
    const row = Array.from({ length: 63 }, (_, k) => (k % 10) / 10).join(' ');
    return `${head}MOTION\nFrames: ${frames}\nFrame Time: 0.008333\n${`${row}\n`.repeat(frames)}${tail}`;
  }

  it('a rig import with motion: false stops at MOTION (whatever follows is not read)', () => {
    const text = longMotion(3).replace(/Frames: 3/, 'Frames: lots') + 'not a frame at all\n';
    expect(() => importBvh(text, 'rig.bvh')).toThrow(/line \d+: expected a whole number of frames, got 'lots'/);
    const r = importBvh(text, 'rig.bvh', { motion: false });
    expect(r.scene.rig.bones).toHaveLength(21);
    expect(r.motion).toBeUndefined();
    expect(r.warnings.some((w) => /MOTION/.test(w))).toBe(false);
  });

  it('frames are checked during the import but kept only once motion is read', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const frames = 15_000;
    const text = longMotion(frames, '\n1 2 3\n'); // ~3.5 MB of frames, and a stray line after them
    expect(text.length).toBeLessThan(4e6);
    importBvh(text, 'long.bvh'); // once first, so compiled code and caches are not counted below
    gc();
    const before = process.memoryUsage().heapUsed;
    const r = importBvh(text, 'long.bvh');
    gc();
    const held = process.memoryUsage().heapUsed - before;
    // 945,000 values kept as numbers would take over 7.5 MB; the import keeps the hierarchy only
    expect(held).toBeLessThan(3e6);
    expect(r.warnings).toContain('MOTION has 1 line(s) after its 15000 frames; ignored');
    expect(r.motion!.frames).toHaveLength(frames);
    expect(r.motion!.frames[frames - 1]!.slice(0, 4)).toEqual([0, 0.1, 0.2, 0.3]);
    expect(r.motion!.channels[3]).toEqual({ joint: 'j1', channel: 'Zrotation' });
    // a broken frame deep in the section is still an error of the import, with its line
    const lines = text.split('\n');
    const at = lines.findIndex((l) => l.startsWith('Frame Time')) + 12_000;
    lines[at] = lines[at]!.replace(/^0 /, 'zero ');
    expect(() => importBvh(lines.join('\n'), 'long.bvh')).toThrow(`long.bvh: line ${at + 1}: frame 12000: 'zero' is not a number (value 1, j0 Zrotation)`);
  }, 15_000);
});
