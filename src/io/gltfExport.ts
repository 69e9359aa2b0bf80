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
  group.add(bones[0]!);
  group.updateMatrixWorld(true);
  if (options.mesh ?? true) group.add(buildMesh(rec, bones));
  const clip = buildClip(rec, bones, times, options.clipName ?? rec.rig);

  // GLTFExporter reads its merged buffer back through FileReader, which Node lacks
  ensureFileReader();
  const result = await new GLTFExporter().parseAsync(group, { binary: true, animations: [clip], onlyVisible: false });
  if (!(result instanceof ArrayBuffer)) throw new Error('GLTFExporter returned JSON where a binary .glb was asked for');
  return result;
}

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

/** One three.js Bone per recorded bone, parented as recorded, at the rest pose. */
function buildBones(rec: Recording): Bone[] {
  const bones = rec.bones.map((b) => {
    const bone = new Bone();
    bone.name = b.name;
    bone.position.fromArray(b.parent < 0 ? b.restHead : b.offset);
    bone.quaternion.fromArray(b.restLocal).normalize();
    return bone;
  });
  rec.bones.forEach((b, i) => { if (b.parent >= 0) bones[b.parent]!.add(bones[i]!); });
  // a leaf bone's tail as a plain child node "<name>_end" (as Blender writes them): glTF joints
  // are points, so without it an importer cannot know how long the last bone of a chain is
  rec.bones.forEach((b, i) => {
    if (rec.bones.some((c) => c.parent === i)) return;
    const tip = new Object3D();
    tip.name = `${b.name}_end`;
    tip.position.set(0, b.length, 0);
    bones[i]!.add(tip);
  });
  return bones;
}

/**
 * An octahedron per bone (head, tail and a ring of four at 15% of the length, width 10%),
 * flat shaded, placed at the bone's rest world transform and skinned only to that bone.
 */
function buildMesh(rec: Recording, bones: Bone[]): SkinnedMesh {
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
        v.fromArray(p).applyMatrix4(bone.matrixWorld);
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
  // bind at rest: the bones' current world matrices become the inverse bind matrices
  mesh.bind(new Skeleton(bones), new Matrix4());
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
