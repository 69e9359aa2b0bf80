/**
 * How a rig's pose turns an imported glTF character's own joint nodes (used by the export onto
 * the source file, gltfSource.ts, and by the view's skinned character): for bone i with world
 * rotation R and rest world rotation R₀, D = R·R₀⁻¹ is how far it turned from rest, and its
 * joint node turns the same: world rotation D·Q₀ (Q₀ the node's rest world rotation). A node's
 * local rotation is that relative to its parent node, whose world rotation is D_a·Q₀ₚ (a the
 * nearest joint above, Q₀ₚ the parent's rest world rotation: nodes between two joints turn
 * with the joint above), so
 *
 *     local = Q₀ₚ⁻¹ · D_a⁻¹ · D · Q₀
 *
 * The root joint's translation is the rig's root head brought into its parent node's frame
 * (through the import's scale and up axis); other joints keep their rest translation, as the
 * import keeps every joint where the file has it.
 *
 * No allocation per pose: `pose` writes into the caller's arrays.
 */
import { Matrix4, Quaternion, Vector3 } from 'three';
import { quatMul as mul } from '../math/quat';

type Json = Record<string, unknown>;
type Q = [number, number, number, number];

export interface SourcePoser {
  /** Per bone (in the order given): its joint's glTF node index. */
  readonly nodes: Int32Array;
  /** Index of the root bone (its node takes the translation). */
  readonly rootBone: number;
  /**
   * Local rotations (x, y, z, w per bone, into `out`) and the root node's translation (into
   * `translation`) for bones at world rotations `rot` (4 per bone) with the root's head at
   * `head` (rig axes and units).
   */
  pose(rot: ArrayLike<number>, head: ArrayLike<number>, out: Float32Array | Float64Array, translation: Float32Array | Float64Array): void;
}

export interface SourcePoserOptions {
  /** The import's scale (default 1) and up axis ('z' when the import turned Z-up to Y-up). */
  scale?: number;
  up?: 'y' | 'z';
  /** Names the recording or rig in messages. */
  what?: string;
  file?: string;
}

/** The import's Z-up to Y-up rotation, (x, y, z) → (x, z, −y). */
const UP: Q = [-Math.SQRT1_2, 0, 0, Math.SQRT1_2];

/** A node's local matrix from its `matrix` or TRS. */
export function nodeMatrix(node: Json, out: Matrix4): Matrix4 {
  if (Array.isArray(node.matrix)) return out.fromArray(node.matrix as number[]);
  const t = (node.translation as number[] | undefined) ?? [0, 0, 0];
  const r = (node.rotation as number[] | undefined) ?? [0, 0, 0, 1];
  const s = (node.scale as number[] | undefined) ?? [1, 1, 1];
  return out.compose(new Vector3().fromArray(t), new Quaternion().fromArray(r).normalize(), new Vector3().fromArray(s));
}

/**
 * The poser of a glTF document's joints (`joints`: the import's name → node) for bones named
 * as the import named them, with their rest world rotations (the rig's, as built).
 */
export function createSourcePoser(
  json: Json,
  joints: readonly { name: string; node: number }[],
  bones: readonly { name: string; parent: number; restWorld: ArrayLike<number> }[],
  options: SourcePoserOptions = {},
): SourcePoser {
  const nodes = (json.nodes ?? []) as Json[];
  const nodeOf = new Map(joints.map((j) => [j.name, j.node]));
  const boneNode = Int32Array.from(bones, (b) => {
    const node = nodeOf.get(b.name);
    if (node === undefined || node < 0 || node >= nodes.length) {
      throw new Error(`${options.what ?? 'the rig'}: bone "${b.name}" is not a joint of the source file${options.file ? ` ${options.file}` : ''} (its joints: ${joints.slice(0, 8).map((j) => j.name).join(', ')}${joints.length > 8 ? ', ...' : ''})`);
    }
    return node;
  });
  const scale = options.scale ?? 1;
  const zUp = options.up === 'z';

  // rest world matrices of the nodes needed, parents first (no recursion)
  const parent = new Int32Array(nodes.length).fill(-1);
  nodes.forEach((n, i) => { for (const c of (n.children as number[] | undefined) ?? []) parent[c] = i; });
  const world: (Matrix4 | undefined)[] = new Array(nodes.length);
  const worldOf = (i: number): Matrix4 => {
    const chain: number[] = [];
    for (let c = i; c >= 0 && !world[c]; c = parent[c]!) chain.push(c);
    for (let k = chain.length - 1; k >= 0; k--) {
      const c = chain[k]!;
      const m = nodeMatrix(nodes[c]!, new Matrix4());
      world[c] = parent[c]! >= 0 ? new Matrix4().multiplyMatrices(world[parent[c]!]!, m) : m;
    }
    return world[i]!;
  };
  const rotOf = (m: Matrix4): Q => {
    const t = new Vector3(), q = new Quaternion(), s = new Vector3();
    m.decompose(t, q, s);
    return [q.x, q.y, q.z, q.w];
  };
  const n = bones.length;
  const isJoint = new Map(Array.from(boneNode, (node, i) => [node, i]));
  const q0 = Array.from(boneNode, (node) => rotOf(worldOf(node)));
  const q0p = Array.from(boneNode, (node) => (parent[node]! >= 0 ? rotOf(worldOf(parent[node]!)) : ([0, 0, 0, 1] as Q)));
  const above = Int32Array.from(boneNode, (node) => {
    for (let a = parent[node]!; a >= 0; a = parent[a]!) { const i = isJoint.get(a); if (i !== undefined) return i; }
    return -1;
  });
  // the inverses the pose needs, once: R₀⁻¹ per bone, Q₀ₚ⁻¹ per bone, Q₀ per bone
  const restInv = new Float64Array(n * 4), parentInv = new Float64Array(n * 4), nodeRest = new Float64Array(n * 4);
  bones.forEach((b, i) => {
    const l = Math.hypot(b.restWorld[0]!, b.restWorld[1]!, b.restWorld[2]!, b.restWorld[3]!);
    restInv.set([-b.restWorld[0]! / l, -b.restWorld[1]! / l, -b.restWorld[2]! / l, b.restWorld[3]! / l], i * 4);
    const p = q0p[i]!;
    parentInv.set([-p[0], -p[1], -p[2], p[3]], i * 4);
    nodeRest.set(q0[i]!, i * 4);
  });
  const UPinv: Q = [-UP[0], -UP[1], -UP[2], UP[3]];
  const rootBone = bones.findIndex((b) => b.parent < 0);
  if (rootBone < 0) throw new Error(`${options.what ?? 'the rig'}: no root bone`);
  const rootParent = parent[boneNode[rootBone]!]!;
  const rootParentInv = rootParent >= 0 ? worldOf(rootParent).clone().invert() : new Matrix4();

  const delta = new Float64Array(n * 4);
  const t1 = new Float64Array(4), t2 = new Float64Array(4), t3 = new Float64Array(4);
  const v = new Vector3();
  return {
    nodes: boneNode,
    rootBone,
    pose(rot, head, out, translation) {
      for (let i = 0; i < n; i++) {
        // D = R · R₀⁻¹, in the file's axes
        mul(t1, 0, rot, i * 4, restInv, i * 4);
        if (zUp) {
          mul(t2, 0, t1, 0, UP, 0);
          mul(delta, i * 4, UPinv, 0, t2, 0);
        } else delta.set(t1, i * 4);
      }
      for (let i = 0; i < n; i++) {
        const a = above[i]!;
        // turn = D_a⁻¹ · D; local = Q₀ₚ⁻¹ · turn · Q₀
        if (a >= 0) {
          t3[0] = -delta[a * 4]!; t3[1] = -delta[a * 4 + 1]!; t3[2] = -delta[a * 4 + 2]!; t3[3] = delta[a * 4 + 3]!;
          mul(t1, 0, t3, 0, delta, i * 4);
        } else {
          t1[0] = delta[i * 4]!; t1[1] = delta[i * 4 + 1]!; t1[2] = delta[i * 4 + 2]!; t1[3] = delta[i * 4 + 3]!;
        }
        mul(t2, 0, t1, 0, nodeRest, i * 4);
        mul(t1, 0, parentInv, i * 4, t2, 0);
        const l = Math.hypot(t1[0]!, t1[1]!, t1[2]!, t1[3]!);
        for (let k = 0; k < 4; k++) out[i * 4 + k] = t1[k]! / l;
      }
      // the root's head back in the file's axes and units, then in its parent node's frame
      const x = head[0]! / scale, y = head[1]! / scale, z = head[2]! / scale;
      if (zUp) v.set(x, -z, y); else v.set(x, y, z);
      v.applyMatrix4(rootParentInv);
      translation[0] = v.x; translation[1] = v.y; translation[2] = v.z;
    },
  };
}

