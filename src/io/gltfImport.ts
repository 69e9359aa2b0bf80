/**
 * glTF / GLB → scene: the first skin's joints (or, in a file without skins, the node
 * hierarchy of its default scene) at their rest positions, converted to a rig with
 * `jointsToRig` (rules in skeleton.ts). The result is a validated `Scene`, pure data, so a bad
 * file never leaves a half-built rig in a world.
 *
 * How: the GLB container and the JSON are checked here first, so a truncated or foreign file
 * gets a message naming the problem ("truncated: header says 49532 bytes, got 20000", "not a
 * glTF file (starts with ...)"), not a loader stack trace. Then three.js's GLTFLoader parses
 * a copy of the JSON that keeps only the node graph (names, children, TRS/matrix) under one
 * synthetic scene holding the joints' top-level ancestors: no meshes, materials, textures,
 * buffers or extensions, so it runs in Node without polyfills, needs no external .bin or image
 * files, and cannot be stopped by a Draco or texture extension. World positions come from the
 * loaded node graph (`updateMatrixWorld`, `getWorldPosition`), so non-joint nodes between
 * joints (an "Armature" node with a rotation or scale) are composed in. A joint's parent is
 * its nearest ancestor node that is also a joint.
 *
 * Names are the file's node names as written (GLTFLoader's object names are sanitised, e.g.
 * "mixamorig:Hips" → "mixamorigHips"; the file's own names are kept instead); an unnamed
 * joint is named `node<i>` after its node index, which the file keeps however its skins are
 * listed, so a recording maps back onto that node. Each joint's rest world rotation is passed
 * on too, so the bones roll with the joints' own frames.
 *
 * Hostile files: every pass over the nodes is linear and none recurses (cycles, two parents,
 * depth beyond MAX_IMPORT_DEPTH are refused first, since GLTFLoader itself recurses per level);
 * more joints than MAX_BONES are refused before the graph is loaded. A transform that places
 * joints (a joint's or an ancestor's) must be invertible: a zero quaternion (which GLTFLoader
 * would read as the identity), a singular or projective matrix and a zero scale are refused,
 * naming the node; a rotation of other than unit length is normalised with a warning.
 *
 * Limits: the rest pose is the node graph's default pose, not the skin's inverse bind
 * matrices (for the usual files they agree); only the first skin (or `options.skin`); joints
 * in several separate hierarchies keep the largest one (the others are dropped with a
 * warning); glTF 2.0 only; glTF is Y-up by specification, so `up` defaults to 'y'.
 */
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { Quaternion, Vector3, type Object3D } from 'three';
import { parseScene } from '../scene/load';
import type { Scene, Vec3Tuple } from '../scene/types';
import { MAX_BONES } from '../core/validation/check';
import { applyHumanoidTemplate, humanoidReport, type HumanoidReport } from './humanoid';
import { baseName, defaultControlPoints, ImportError, jointsToRig, MAX_IMPORT_DEPTH, type JointsToRigOptions, type SkeletonJoint } from './skeleton';

export interface GltfImportOptions extends Omit<JointsToRigOptions, 'file'> {
  /** Which skin's joints to take (default 0). */
  skin?: number;
  /** Scene name (default: the file name without extension). */
  sceneName?: string;
  /**
   * Joint limits (default 'humanoid'): the humanoid template's hinges and ranges for a
   * character it recognises, anti-folding defaults for every other bone (humanoid.ts); 'none'
   * keeps the file's skeleton without limits.
   */
  template?: 'humanoid' | 'none';
  /** Add this many control points at the ends of the longest chains (default 0). */
  controlPoints?: number;
}

export interface GltfImport {
  scene: Scene;
  warnings: string[];
  /** Per joint taken (in skin order): the glTF node index, its rig name and the bone carrying it. */
  joints: { node: number; name: string; bone: string }[];
  /** What the humanoid template recognised (unless `template: 'none'`). */
  humanoid?: HumanoidReport;
}

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const GLB_MAGIC = 0x46546c67; // 'glTF'
const CHUNK_JSON = 0x4e4f534a; // 'JSON'

/** Hex of the first bytes, for "not a glTF file" messages. */
function firstBytes(bytes: Uint8Array): string {
  const shown = Array.from(bytes.subarray(0, 8), (b) => b.toString(16).padStart(2, '0')).join(' ');
  const ascii = Array.from(bytes.subarray(0, 8), (b) => (b >= 32 && b < 127 ? String.fromCharCode(b) : '.')).join('');
  return `${shown} "${ascii}"`;
}

/** The glTF JSON of a .glb (ArrayBuffer) or .gltf (text or bytes); throws ImportError. */
export function readGltfJson(data: ArrayBuffer | Uint8Array | string, file?: string): Json {
  const fail = (msg: string): never => {
    throw new ImportError(file, msg);
  };
  let text: string;
  if (typeof data === 'string') {
    if (data.startsWith('glTF')) fail('binary glTF (.glb) passed as text: pass its bytes (ArrayBuffer)');
    text = data;
  } else if (data instanceof ArrayBuffer || data instanceof Uint8Array) {
    const bytes = data instanceof Uint8Array ? data : new Uint8Array(data);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const head = new TextDecoder().decode(bytes.subarray(0, 64)).replace(/^\uFEFF/, '').trimStart();
    if (bytes.byteLength >= 4 && view.getUint32(0, true) === GLB_MAGIC) {
      if (bytes.byteLength < 20) fail(`truncated: ${bytes.byteLength} bytes, a GLB needs a 12-byte header and a JSON chunk`);
      const version = view.getUint32(4, true);
      if (version !== 2) fail(`GLB version ${version} is not supported (glTF 2.0 only)`);
      const length = view.getUint32(8, true);
      if (length < 20) fail(`the GLB header gives the file's length as ${length} bytes, less than the 20 bytes of the GLB and JSON chunk headers (the header is damaged)`);
      if (bytes.byteLength < length) fail(`truncated: header says ${length} bytes, got ${bytes.byteLength}`);
      const chunkLength = view.getUint32(12, true);
      const chunkType = view.getUint32(16, true);
      if (chunkType !== CHUNK_JSON) fail(`the first GLB chunk is not JSON (type 0x${chunkType.toString(16)})`);
      if (chunkLength === 0) fail('the JSON chunk is empty (its header gives its length as 0 bytes); a GLB holds its glTF JSON there');
      if (20 + chunkLength > length) fail(`truncated: the JSON chunk says ${chunkLength} bytes but the file has ${length - 20} after the headers`);
      text = new TextDecoder().decode(bytes.subarray(20, 20 + chunkLength));
    } else if (head.startsWith('{')) {
      text = new TextDecoder().decode(bytes);
    } else if (bytes.byteLength === 0) {
      return fail('empty file (expected a .glb or .gltf)');
    } else {
      return fail(`not a glTF file (starts with ${firstBytes(bytes)}; a .glb starts with "glTF", a .gltf with "{")`);
    }
  } else {
    return fail('expected the bytes of a .glb or the text of a .gltf');
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    fail(`not valid glTF JSON (${e instanceof Error ? e.message : String(e)})${text.trimEnd().endsWith('}') ? '' : ' (file truncated?)'}`);
  }
  if (!isObj(json)) return fail('the glTF JSON is not an object');
  const version = isObj(json.asset) ? json.asset.version : undefined;
  if (typeof version !== 'string') fail('missing asset.version (not a glTF 2.0 file?)');
  if (!String(version).startsWith('2')) fail(`glTF ${String(version)} is not supported (glTF 2.0 only)`);
  return json;
}

/** `node 3 "Hips"` (the name when the node has one). */
function nodeLabel(nodes: unknown[], i: number): string {
  const n = nodes[i];
  return `node ${i}${isObj(n) && typeof n.name === 'string' && n.name ? ` "${n.name}"` : ''}`;
}

const list = (v: readonly number[]) => `[${v.join(', ')}]`;

/**
 * A transform that places joints (a joint's own, or an ancestor's) must be invertible:
 * GLTFLoader takes a zero quaternion as the identity and a singular matrix or a zero scale
 * flattens every node under it, so either would silently move joints. Refuse them, naming the
 * node. A non-zero rotation of other than unit length is normalised (reported in `renormed`).
 */
function checkTransform(nodes: unknown[], i: number, fail: (m: string) => never, renormed: string[]): void {
  const n = nodes[i] as Json;
  if (Array.isArray(n.rotation)) {
    const q = n.rotation as number[];
    const length = Math.hypot(q[0]!, q[1]!, q[2]!, q[3]!);
    if (!(length > 1e-6)) fail(`${nodeLabel(nodes, i)}: rotation ${list(q)} is not a unit quaternion (its length is ${length}), so it is no rotation at all`);
    if (Math.abs(length - 1) > 1e-3) renormed.push(nodeLabel(nodes, i));
  }
  if (Array.isArray(n.scale) && (n.scale as number[]).some((x) => x === 0)) {
    fail(`${nodeLabel(nodes, i)}: scale ${list(n.scale as number[])} has a zero component, which flattens every node under it (expected non-zero scales)`);
  }
  if (Array.isArray(n.matrix)) {
    const m = n.matrix as number[]; // column-major
    if (m[3] !== 0 || m[7] !== 0 || m[11] !== 0 || m[15] !== 1) {
      fail(`${nodeLabel(nodes, i)}: matrix is not an affine transform (its last row is ${list([m[3]!, m[7]!, m[11]!, m[15]!])}, expected [0, 0, 0, 1])`);
    }
    const det = m[0]! * (m[5]! * m[10]! - m[6]! * m[9]!) - m[4]! * (m[1]! * m[10]! - m[2]! * m[9]!) + m[8]! * (m[1]! * m[6]! - m[2]! * m[5]!);
    const size = Math.hypot(m[0]!, m[1]!, m[2]!) * Math.hypot(m[4]!, m[5]!, m[6]!) * Math.hypot(m[8]!, m[9]!, m[10]!);
    if (!(Math.abs(det) > 1e-9 * size)) {
      fail(`${nodeLabel(nodes, i)}: matrix is singular (determinant ${det}), which flattens every node under it (expected an invertible translation, rotation and scale)`);
    }
  }
}

/** Node graph checks GLTFLoader would trip over (or loop forever on). Returns parent per node. */
function nodeParents(nodes: unknown[], fail: (m: string) => never): number[] {
  const parent = new Array<number>(nodes.length).fill(-1);
  const label = (i: number) => nodeLabel(nodes, i);
  const nums = (v: unknown, n: number) => Array.isArray(v) && v.length === n && v.every((x) => typeof x === 'number' && Number.isFinite(x));
  nodes.forEach((node, i) => {
    if (!isObj(node)) fail(`${label(i)} is not an object`);
    const n = node as Json;
    if (n.matrix !== undefined && !nums(n.matrix, 16)) fail(`${label(i)}: matrix must be 16 finite numbers`);
    if (n.translation !== undefined && !nums(n.translation, 3)) fail(`${label(i)}: translation must be 3 finite numbers`);
    if (n.rotation !== undefined && !nums(n.rotation, 4)) fail(`${label(i)}: rotation must be 4 finite numbers`);
    if (n.scale !== undefined && !nums(n.scale, 3)) fail(`${label(i)}: scale must be 3 finite numbers`);
    if (n.children !== undefined && !Array.isArray(n.children)) fail(`${label(i)}: children must be an array of node indices`);
    for (const c of (n.children as unknown[] | undefined) ?? []) {
      if (!Number.isInteger(c) || (c as number) < 0 || (c as number) >= nodes.length) fail(`${label(i)}: child ${String(c)} is not a node index (0..${nodes.length - 1})`);
      if (c === i) fail(`${label(i)} lists itself among its children; glTF nodes form a tree`);
      if (parent[c as number] === i) fail(`${label(i)} lists child ${String(c)} twice`);
      if (parent[c as number] !== -1) fail(`${label(c as number)} has two parents (${label(parent[c as number]!)} and ${label(i)}); glTF nodes form a tree`);
      parent[c as number] = i;
    }
  });
  // Cycles and depths in one pass (linear: each node's depth is memoised once its chain is known).
  const depth = new Int32Array(nodes.length).fill(-1); // -1 not yet known, -2 on the current walk
  const walk: number[] = [];
  for (let i = 0; i < nodes.length; i++) {
    walk.length = 0;
    let c = i;
    while (c >= 0 && depth[c] === -1) {
      depth[c] = -2;
      walk.push(c);
      c = parent[c]!;
    }
    if (c >= 0 && depth[c] === -2) fail(`${label(c)} is in a cycle of node children`);
    let d = c >= 0 ? depth[c]! : -1;
    for (let k = walk.length - 1; k >= 0; k--) {
      depth[walk[k]!] = ++d;
      if (d >= MAX_IMPORT_DEPTH) fail(`${label(walk[k]!)} is nested more than ${MAX_IMPORT_DEPTH} levels deep in the node hierarchy; at most ${MAX_IMPORT_DEPTH} are supported`);
    }
  }
  return parent;
}

/** Load only the node graph with GLTFLoader and return each node index's Object3D. */
async function loadNodeGraph(nodes: Json[], tops: number[], file: string | undefined): Promise<Map<number, Object3D>> {
  const graph = {
    asset: { version: '2.0', generator: 'physik-ecs importer (node graph only)' },
    scene: 0,
    scenes: [{ nodes: tops }],
    nodes: nodes.map((n) => {
      const out: Json = {};
      for (const k of ['name', 'children', 'matrix', 'translation', 'rotation', 'scale']) if (n[k] !== undefined) out[k] = n[k];
      // GLTFLoader uses the rotation as given; a quaternion off unit length is no rotation
      const q = out.rotation as number[] | undefined;
      const length = q ? Math.hypot(q[0]!, q[1]!, q[2]!, q[3]!) : 1;
      if (q && length > 0 && length !== 1) out.rotation = q.map((x) => x / length);
      return out;
    }),
  };
  const gltf = await new Promise<{ scene: Object3D; parser: { associations: Map<Object3D, { nodes?: number }> } }>((resolve, reject) => {
    try {
      new GLTFLoader().parse(JSON.stringify(graph), '', resolve as never, (e: unknown) => reject(e));
    } catch (e) {
      reject(e);
    }
  }).catch((e: unknown) => {
    throw new ImportError(file, `GLTFLoader could not read the node graph: ${e instanceof Error ? e.message : String(e)}`);
  });
  gltf.scene.updateMatrixWorld(true);
  const byNode = new Map<number, Object3D>();
  gltf.scene.traverse((o) => {
    const idx = gltf.parser.associations.get(o)?.nodes;
    if (idx !== undefined && !byNode.has(idx)) byNode.set(idx, o);
  });
  return byNode;
}

/** .glb bytes or .gltf text → a validated scene. Throws ImportError / SceneError. */
export async function importGltf(
  data: ArrayBuffer | Uint8Array | string,
  file?: string,
  options: GltfImportOptions = {},
): Promise<GltfImport> {
  const fail = (msg: string): never => {
    throw new ImportError(file, msg);
  };
  const json = readGltfJson(data, file);
  const nodes = (json.nodes ?? []) as unknown[];
  if (!Array.isArray(nodes)) fail('nodes must be an array');
  const parent = nodeParents(nodes, fail);
  const nodeName = (i: number) => (isObj(nodes[i]) && typeof nodes[i].name === 'string' ? nodes[i].name : '');
  const warnings: string[] = [];

  // Which nodes are joints, and what an unnamed one is called.
  let jointNodes: number[];
  let fallback: (k: number, node: number) => string;
  const skins = Array.isArray(json.skins) ? json.skins : [];
  const skinIndex = options.skin ?? 0;
  if (skins.length > 0) {
    const skin = skins[skinIndex];
    if (!isObj(skin)) return fail(`no skin ${skinIndex} (the file has ${skins.length})`);
    const joints = skin.joints;
    if (!Array.isArray(joints) || joints.length === 0) fail(`skin ${skinIndex} has no joints`);
    for (const j of joints as unknown[]) {
      if (!Number.isInteger(j) || (j as number) < 0 || (j as number) >= nodes.length) fail(`skin ${skinIndex}: joint ${String(j)} is not a node index (0..${nodes.length - 1})`);
    }
    jointNodes = [...new Set(joints as number[])];
    fallback = (_k, node) => `node${node}`;
    if (skins.length > 1) warnings.push(`the file has ${skins.length} skins; imported skin ${skinIndex} only`);
  } else {
    // No skin: the node hierarchy of the default scene (or every top-level node).
    const scenes = Array.isArray(json.scenes) ? json.scenes : [];
    const sceneIdx = typeof json.scene === 'number' ? json.scene : 0;
    const sceneDef = scenes[sceneIdx];
    let tops: number[] = isObj(sceneDef) && Array.isArray(sceneDef.nodes) ? (sceneDef.nodes as number[]) : nodes.map((_, i) => i).filter((i) => parent[i] === -1);
    tops = tops.filter((t) => Number.isInteger(t) && t >= 0 && t < nodes.length);
    jointNodes = [];
    // each node once, however often the scene lists it (or an ancestor of it)
    const seen = new Uint8Array(nodes.length);
    const stack = [...tops].reverse();
    while (stack.length) {
      const n = stack.pop()!;
      if (seen[n]) continue;
      seen[n] = 1;
      jointNodes.push(n);
      const kids = ((nodes[n] as Json).children as number[] | undefined) ?? [];
      for (let k = kids.length - 1; k >= 0; k--) stack.push(kids[k]!);
    }
    if (jointNodes.length < 2 || jointNodes.every((n) => !((nodes[n] as Json).children as unknown[] | undefined)?.length)) {
      fail(`no skin or bones found (no skins, and the ${jointNodes.length} node(s) of the scene form no hierarchy)`);
    }
    fallback = (_k, node) => `node${node}`;
    warnings.push(`no skin: imported the node hierarchy of the scene (${jointNodes.length} nodes)`);
  }

  // Joint parents: nearest ancestor node that is a joint; separate hierarchies keep the largest.
  // Linear: each node's nearest joint ancestor is memoised once its chain up is known.
  const jointIndex = new Map(jointNodes.map((n, k) => [n, k]));
  const UNKNOWN = -2;
  const nearest = new Int32Array(nodes.length).fill(UNKNOWN); // joint index of the nearest joint at or above
  const chain: number[] = [];
  const jointAtOrAbove = (n: number): number => {
    chain.length = 0;
    let a = n;
    while (a >= 0 && nearest[a] === UNKNOWN) {
      chain.push(a);
      a = parent[a]!;
    }
    let found = a >= 0 ? nearest[a]! : -1;
    for (let k = chain.length - 1; k >= 0; k--) {
      const c = chain[k]!;
      const j = jointIndex.get(c);
      if (j !== undefined) found = j;
      nearest[c] = found;
    }
    return n >= 0 ? nearest[n]! : -1;
  };
  const jointParent = jointNodes.map((n) => (parent[n]! >= 0 ? jointAtOrAbove(parent[n]!) : -1));
  // the root joint of each joint, memoised along each walk up
  const rootJoint = new Int32Array(jointNodes.length).fill(-1);
  const rootOf = (k: number): number => {
    chain.length = 0;
    let c = k;
    while (rootJoint[c] === -1 && jointParent[c] !== -1) {
      chain.push(c);
      c = jointParent[c]!;
    }
    const r = rootJoint[c] !== -1 ? rootJoint[c]! : c;
    rootJoint[c] = r;
    for (const x of chain) rootJoint[x] = r;
    return r;
  };
  let keep = jointNodes.map((_, k) => k);
  const roots = keep.filter((k) => jointParent[k] === -1);
  if (roots.length > 1) {
    const size = new Map<number, number>();
    for (const k of keep) size.set(rootOf(k), (size.get(rootOf(k)) ?? 0) + 1);
    let best = roots[0]!;
    for (const r of roots) if (size.get(r)! > size.get(best)!) best = r;
    keep = keep.filter((k) => rootOf(k) === best);
    const dropped = roots.filter((r) => r !== best).map((r) => `"${nodeName(jointNodes[r]!) || fallback(r, jointNodes[r]!)}" (${size.get(r)} joint(s))`);
    const shownDropped = dropped.length > 8 ? `${dropped.slice(0, 8).join(', ')}, ... (${dropped.length} in all)` : dropped.join(', ');
    warnings.push(`the joints form ${roots.length} separate hierarchies; kept the largest, rooted at "${nodeName(jointNodes[best]!) || fallback(best, jointNodes[best]!)}" (${size.get(best)} joints), dropped ${shownDropped}`);
  }
  // The bone cap before any work that grows with the joints (loading the graph, naming, the rig).
  if (keep.length > MAX_BONES) {
    fail(`${skins.length > 0 ? `skin ${skinIndex} has` : "the scene's node hierarchy has"} ${keep.length} joints${keep.length < jointNodes.length ? ' in its largest hierarchy' : ''}: more than the ${MAX_BONES} bones a rig may have (one bone per joint)`);
  }

  // Top-level ancestors of the kept joints (the synthetic scene GLTFLoader builds), and every
  // node on the way up: their transforms place the joints, so a degenerate one is an error.
  const placing = new Uint8Array(nodes.length);
  const renormed: string[] = [];
  const tops: number[] = [];
  for (const k of keep) {
    let a = jointNodes[k]!;
    while (!placing[a]) {
      placing[a] = 1;
      checkTransform(nodes, a, fail, renormed);
      if (parent[a]! < 0) {
        tops.push(a);
        break;
      }
      a = parent[a]!;
    }
  }
  if (renormed.length) {
    warnings.push(`rotation not of unit length, normalised: ${renormed.length > 8 ? `${renormed.slice(0, 8).join(', ')}, ... (${renormed.length} in all)` : renormed.join(', ')}`);
  }
  const objects = await loadNodeGraph(nodes as Json[], tops, file);
  const newIndex = new Map(keep.map((k, i) => [k, i]));
  const unnamed: string[] = [];
  const v = new Vector3();
  const hasJointChild = new Set(keep.map((k) => jointParent[k]!).filter((p) => p >= 0));
  const end = new Vector3();
  const wq = new Quaternion();
  const skeleton: SkeletonJoint[] = keep.map((k) => {
    const node = jointNodes[k]!;
    const obj = objects.get(node);
    if (!obj) fail(`joint node ${node} is missing from the loaded node graph`);
    obj!.getWorldPosition(v);
    let name = nodeName(node).trim();
    if (!name) {
      name = fallback(k, node);
      unnamed.push(name);
    }
    const p = jointParent[k]!;
    obj!.getWorldQuaternion(wq);
    const joint: SkeletonJoint = { name, parent: p === -1 ? -1 : newIndex.get(p)!, position: [v.x, v.y, v.z] as Vec3Tuple, rest: [wq.x, wq.y, wq.z, wq.w], where: `node ${node}` };
    // a leaf joint's first plain child node (no mesh, skin or camera) marks where it ends, like
    // a BVH End Site (Blender's leaf "_end" nodes, and our own exporter's)
    if (!hasJointChild.has(k)) {
      const kids = ((nodes[node] as Json).children as number[] | undefined) ?? [];
      const tip = kids.find((c) => !jointIndex.has(c) && isObj(nodes[c]) && !('mesh' in nodes[c]) && !('skin' in nodes[c]) && !('camera' in nodes[c]));
      const o = tip === undefined ? undefined : objects.get(tip);
      if (o) {
        o.getWorldPosition(end);
        joint.endSite = [end.x, end.y, end.z];
      }
    }
    return joint;
  });
  if (unnamed.length) {
    const shown = unnamed.length > 4 ? `${unnamed.slice(0, 3).join(', ')} ... ${unnamed.at(-1)}` : unnamed.join(', ');
    warnings.push(`${unnamed.length} unnamed joint(s) named after their node index: ${shown}`);
  }

  const base = baseName(file);
  const { template, ...rigOptions } = options;
  const conv = jointsToRig(skeleton, { up: 'y', ...rigOptions, name: options.name ?? base, file });
  const templ = (template ?? 'humanoid') === 'humanoid' ? applyHumanoidTemplate(conv.rig) : undefined;
  const rig = templ?.rig ?? conv.rig;
  const scene = parseScene(
    {
      name: options.sceneName ?? base,
      description: `Imported from ${file ?? 'a glTF file'}: ${skeleton.length} joints, ${conv.rig.bones.length} bones.`,
      rig,
      controlPoints: defaultControlPoints(rig, options.controlPoints ?? 0),
    },
    file,
  );
  return {
    scene,
    warnings: [...warnings, ...conv.warnings, ...(templ?.notes ?? [])],
    joints: keep.map((k, i) => ({ node: jointNodes[k]!, name: conv.jointNames[i]!, bone: conv.boneOfJoint[i]! })),
    ...(templ ? { humanoid: humanoidReport(templ) } : {}),
  };
}
