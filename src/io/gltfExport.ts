/**
 * glTF 2.0 binary (.glb) writer for a `Recording`, through three.js's GLTFExporter; runs in
 * Node and in the browser.
 *
 * The file holds:
 * - the skeleton: one node per bone, named as the bone, with its rest local TRS (translation
 *   = where its head sits on the parent, in the parent's frame; the root's = its rest head;
 *   rotation = rest rotation relative to the parent);
 * - a simple skinned mesh, one octahedron per bone from head to tail, every vertex weighted
 *   100% to its bone and bound at rest, so the clip plays in any glTF viewer;
 * - one animation: every bone's LOCAL rotation per frame and the root's head position, with
 *   times = frame / fps, the recording's clock (linear interpolation).
 *
 * How a 10,000-bone chain gets through: three.js walks an Object3D tree by recursion
 * (`updateMatrixWorld`, GLTFExporter's nodes, track binding), which overflows the stack a few
 * thousand levels down. So the bones are handed to GLTFExporter side by side, each with its
 * local rest TRS, under the rig's group (rest world matrices and the skin's inverse bind
 * matrices are computed here, parents first), and the node tree is put back in the written
 * JSON (`nestBones`): each bone's node under its parent's. Nothing recurses deeper than three
 * levels, and the file is the same as if the exporter had walked the tree.
 *
 * Limits: glTF stores floats as float32, so values come back to about 1e-7 relative; only
 * the root translates (other bones keep their rest translation: joints stay connected by
 * construction); the mesh is a stand-in, not the rig's collision shapes. Note that
 * three.js's GLTFLoader sanitises node names on load (drops '.', ':', '/', '[', ']' and turns
 * whitespace into '_'); the names in the file are the bones' own.
 */
import {
  Object3D,
  AnimationClip, Bone, BufferGeometry, Float32BufferAttribute, Group, Matrix4, MeshStandardMaterial,
  QuaternionKeyframeTrack, Skeleton, SkinnedMesh, Uint16BufferAttribute, Vector3, VectorKeyframeTrack,
  type KeyframeTrack,
} from 'three';
import { GLTFExporter } from 'three/examples/jsm/exporters/GLTFExporter.js';
import type { Recording } from './recording';
import { localRotation } from './recording';
import { assertExportable } from './bvhExport';
import { ensureFileReader } from './node-polyfills';

export interface GltfExportOptions {
  /** Name of the animation (default: the rig's name). */
  clipName?: string;
  /** Include the skinned bone-shaped mesh (default true). Without it: skeleton + clip only. */
  mesh?: boolean;
}

/** The recording as a .glb file (skeleton, skinned bone mesh, animation). */
export async function recordingToGlb(rec: Recording, options: GltfExportOptions = {}): Promise<ArrayBuffer> {
  assertExportable(rec);
  const times = keyTimes(rec);
  const group = new Group();
  group.name = rec.rig;
  const bones = buildBones(rec);
  for (const bone of bones) group.add(bone);
  const worlds = restWorldMatrices(bones, rec);
  if (options.mesh ?? true) group.add(buildMesh(rec, bones, worlds));
  const clip = buildClip(rec, bones, times, options.clipName ?? rec.rig);
  // GLTFExporter finds each track's node with PropertyBinding.findNode(group, uuid), which asks
  // `group.skeleton` first and otherwise searches the whole tree: one search per track is
  // quadratic in the bones (seconds at 10,000). A lookup by uuid makes it one step.
  const byUuid = new Map(bones.map((bone) => [bone.uuid, bone]));
  Object.assign(group, { skeleton: { getBoneByName: (name: string) => byUuid.get(name) } });

  // GLTFExporter reads its merged buffer back through FileReader, which Node lacks
  ensureFileReader();
  const result = await new GLTFExporter().parseAsync(group, { binary: true, animations: [clip], onlyVisible: false });
  if (!(result instanceof ArrayBuffer)) throw new Error('GLTFExporter returned JSON where a binary .glb was asked for');
  return nestBones(result, rec);
}

/** Marks a bone's Object3D so its node can be found in the written JSON (as `extras`). */
const BONE_KEY = 'physikBone';

/**
 * Key times: frame / fps, the recording's own clock (as BVH's Frame Time and the clip's).
 * A frame's pose may come from a step up to one dt later (see recorder.ts); with dt > 1/fps
 * consecutive frames hold the same pose, which nominal times still keep strictly increasing.
 */
function keyTimes(rec: Recording): Float32Array {
  const t = new Float32Array(rec.frameCount);
  for (let f = 0; f < rec.frameCount; f++) t[f] = f / rec.fps;
  return t;
}

/**
 * One three.js Bone per recorded bone at its rest local TRS (relative to its parent bone),
 * not yet parented: `nestBones` nests their nodes in the written file.
 */
function buildBones(rec: Recording): Bone[] {
  const bones = rec.bones.map((b, i) => {
    const bone = new Bone();
    bone.name = b.name;
    bone.position.fromArray(b.parent < 0 ? b.restHead : b.offset);
    bone.quaternion.fromArray(b.restLocal).normalize();
    bone.userData = { [BONE_KEY]: i };
    return bone;
  });
  // a leaf bone's tail as a plain child node "<name>_end" (as Blender writes them): glTF joints
  // are points, so without it an importer cannot know how long the last bone of a chain is
  const hasChild = new Uint8Array(rec.bones.length);
  for (const b of rec.bones) if (b.parent >= 0) hasChild[b.parent] = 1;
  rec.bones.forEach((b, i) => {
    if (hasChild[i]) return;
    const tip = new Object3D();
    tip.name = `${b.name}_end`;
    tip.position.set(0, b.length, 0);
    bones[i]!.add(tip);
  });
  return bones;
}

/** Rest world matrix of every bone, parents first (recordings are depth-first), no recursion. */
function restWorldMatrices(bones: Bone[], rec: Recording): Matrix4[] {
  const worlds: Matrix4[] = [];
  bones.forEach((bone, i) => {
    bone.updateMatrix();
    const p = rec.bones[i]!.parent;
    worlds[i] = p < 0 ? bone.matrix.clone() : new Matrix4().multiplyMatrices(worlds[p]!, bone.matrix);
  });
  return worlds;
}

/**
 * The .glb with every bone's node moved under its parent bone's node (GLTFExporter wrote them
 * side by side under the rig's node) and the bone markers removed. The binary chunk is kept
 * as written; the JSON chunk is re-encoded.
 */
function nestBones(glb: ArrayBuffer, rec: Recording): ArrayBuffer {
  const view = new DataView(glb);
  const jsonLength = view.getUint32(12, true);
  const json = JSON.parse(new TextDecoder().decode(new Uint8Array(glb, 20, jsonLength))) as { nodes: { children?: number[]; extras?: Record<string, unknown> }[] };
  const n = rec.bones.length;
  const nodeOf = new Int32Array(n).fill(-1);
  json.nodes.forEach((node, k) => {
    const b = node.extras?.[BONE_KEY];
    if (typeof b !== 'number') return;
    nodeOf[b] = k;
    delete node.extras![BONE_KEY];
    if (Object.keys(node.extras!).length === 0) delete node.extras;
  });
  const missing = nodeOf.indexOf(-1);
  if (missing >= 0) throw new Error(`GLTFExporter wrote no node for bone "${rec.bones[missing]!.name}"`);
  const isChildBone = new Uint8Array(json.nodes.length);
  for (let i = 1; i < n; i++) isChildBone[nodeOf[i]!] = 1;
  for (const node of json.nodes) {
    if (!node.children) continue;
    node.children = node.children.filter((c) => !isChildBone[c]);
    if (node.children.length === 0) delete node.children;
  }
  // children in bone order, before a leaf's "_end" tip (which only leaves have)
  const kids: number[][] = Array.from({ length: n }, () => []);
  for (let i = 1; i < n; i++) kids[rec.bones[i]!.parent]!.push(nodeOf[i]!);
  for (let i = 0; i < n; i++) {
    if (kids[i]!.length === 0) continue;
    const node = json.nodes[nodeOf[i]!]!;
    node.children = [...kids[i]!, ...(node.children ?? [])];
  }

  const text = new TextEncoder().encode(JSON.stringify(json));
  const padded = (text.byteLength + 3) & ~3;
  const rest = new Uint8Array(glb, 20 + jsonLength); // the BIN chunk (header included), if any
  const out = new Uint8Array(12 + 8 + padded + rest.byteLength);
  const o = new DataView(out.buffer);
  o.setUint32(0, 0x46546c67, true); // 'glTF'
  o.setUint32(4, 2, true);
  o.setUint32(8, out.byteLength, true);
  o.setUint32(12, padded, true);
  o.setUint32(16, 0x4e4f534a, true); // 'JSON'
  out.set(text, 20);
  out.fill(0x20, 20 + text.byteLength, 20 + padded); // JSON chunks pad with spaces
  out.set(rest, 20 + padded);
  return out.buffer;
}

/**
 * An octahedron per bone (head, tail and a ring of four at 15% of the length, width 10%),
 * flat shaded, placed at the bone's rest world transform and skinned only to that bone.
 */
function buildMesh(rec: Recording, bones: Bone[], worlds: Matrix4[]): SkinnedMesh {
  const positions: number[] = [];
  const skinIndex: number[] = [];
  const skinWeight: number[] = [];
  const v = new Vector3();
  bones.forEach((bone, i) => {
    // a zero-length bone still gets a (tiny) visible shape
    const len = rec.bones[i]!.length > 0 ? rec.bones[i]!.length : 1e-3;
    const w = 0.1 * len, y = 0.15 * len;
    const head = [0, 0, 0], tail = [0, len, 0];
    const ring = [[w, y, 0], [0, y, -w], [-w, y, 0], [0, y, w]];
    const tris: number[][][] = [];
    for (let k = 0; k < 4; k++) {
      const a = ring[k]!, b = ring[(k + 1) % 4]!;
      tris.push([head, b, a], [tail, a, b]);
    }
    for (const tri of tris) {
      for (const p of tri) {
        v.fromArray(p).applyMatrix4(worlds[i]!);
        positions.push(v.x, v.y, v.z);
        skinIndex.push(i, 0, 0, 0);
        skinWeight.push(1, 0, 0, 0);
      }
    }
  });
  if (bones.length > 0xffff) throw new Error(`${bones.length} bones: more than the 65535 a skin index can address`);
  const geometry = new BufferGeometry();
  geometry.setAttribute('position', new Float32BufferAttribute(positions, 3));
  geometry.setAttribute('skinIndex', new Uint16BufferAttribute(skinIndex, 4));
  geometry.setAttribute('skinWeight', new Float32BufferAttribute(skinWeight, 4));
  geometry.computeVertexNormals();
  const mesh = new SkinnedMesh(geometry, new MeshStandardMaterial({ color: 0xd9b48f, roughness: 0.8, metalness: 0, flatShading: true }));
  mesh.name = `${rec.rig}_bones`;
  // bind at rest: the inverses of the bones' rest world matrices are the inverse bind matrices
  mesh.bind(new Skeleton(bones, worlds.map((m) => m.clone().invert())), new Matrix4());
  return mesh;
}

/**
 * Local rotation per bone and frame, plus the root's head. Tracks bind to bones by uuid,
 * not name: names like "hand.L" contain the '.' that three.js track names reserve.
 * Consecutive keys are kept in the same hemisphere so a viewer's slerp takes the short way.
 */
function buildClip(rec: Recording, bones: Bone[], times: Float32Array, name: string): AnimationClip {
  const n = rec.bones.length, frames = rec.frameCount;
  const tracks: KeyframeTrack[] = [];
  const q = new Float64Array(4);
  for (let i = 0; i < n; i++) {
    const values = new Float32Array(frames * 4);
    let px = 0, py = 0, pz = 0, pw = 1;
    for (let f = 0; f < frames; f++) {
      localRotation(rec, f, i, q);
      const len = Math.hypot(q[0]!, q[1]!, q[2]!, q[3]!);
      const sign = (f > 0 && q[0]! * px + q[1]! * py + q[2]! * pz + q[3]! * pw < 0 ? -1 : 1) / len;
      px = q[0]! * sign; py = q[1]! * sign; pz = q[2]! * sign; pw = q[3]! * sign;
      values.set([px, py, pz, pw], f * 4);
    }
    tracks.push(new QuaternionKeyframeTrack(`${bones[i]!.uuid}.quaternion`, times, values));
  }
  const root = new Float32Array(frames * 3);
  for (let f = 0; f < frames; f++) root.set(rec.heads.subarray(f * n * 3, f * n * 3 + 3), f * 3);
  tracks.push(new VectorKeyframeTrack(`${bones[0]!.uuid}.position`, times, root));
  return new AnimationClip(name, -1, tracks);
}
