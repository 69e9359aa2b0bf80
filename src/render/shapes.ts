/**
 * What the view's layers share: the bone shape (Blender's octahedron), the sphere and disc
 * geometries built once per view, the neutral bone colour, joint-sphere sizes, and small
 * builders of instanced meshes and line sets with per-frame (dynamic) buffers.
 */
import {
  BufferAttribute, BufferGeometry, CircleGeometry, Color, DynamicDrawUsage, EdgesGeometry, InstancedMesh,
  LineBasicMaterial, LineSegments, Matrix4, Quaternion, SphereGeometry, Vector3, type Material, type Object3D,
} from 'three';
import type { PhysikWorld } from '../core';

/** Where the octahedron is widest, as a fraction of the bone's length from the head. */
export const OCTAHEDRON_WAIST = 0.1;
/** A bone at rest, neither past nor short of its limits. */
export const NEUTRAL = new Color(0xc9d1dc);
/** Overlays (selection outline, limit gizmo, labels) draw after everything else, through it. */
export const OVERLAY_ORDER = 10;

/** Blender's bone shape: head at the origin, tail at (0, 1, 0), a square waist at y = 0.1. */
export function createOctahedronGeometry(width = 0.1, waist = OCTAHEDRON_WAIST): BufferGeometry {
  const v = [
    0, 0, 0, // 0 head
    0, 1, 0, // 1 tail
    width, waist, 0, // 2
    0, waist, width, // 3
    -width, waist, 0, // 4
    0, waist, -width, // 5
  ];
  // counter-clockwise seen from outside
  const idx = [0, 3, 2, 0, 4, 3, 0, 5, 4, 0, 2, 5, 1, 2, 3, 1, 3, 4, 1, 4, 5, 1, 5, 2];
  const g = new BufferGeometry();
  g.setAttribute('position', new BufferAttribute(new Float32Array(v), 3));
  g.setIndex(idx);
  const flat = g.toNonIndexed();
  flat.computeVertexNormals();
  g.dispose();
  return flat;
}

/** Joint-sphere radius of a rig `height` tall (main rig and ghosts alike). */
export const jointRadiusOf = (height: number) => Math.max(0.006, height * 0.008);

/** Geometries every layer draws with, built once per view. */
export interface Shapes {
  bone: BufferGeometry;
  boneEdges: BufferGeometry;
  /** Handles, centre-of-mass markers, gizmo tips. */
  sphere: BufferGeometry;
  /** Joints are many and small: a coarser sphere. */
  joint: BufferGeometry;
  /** A unit disc lying on the floor (y up). */
  disc: BufferGeometry;
  dispose(): void;
}

export function createShapes(): Shapes {
  const bone = createOctahedronGeometry();
  const boneEdges = new EdgesGeometry(bone);
  const sphere = new SphereGeometry(1, 12, 8);
  // 48 triangles a joint keeps a crowd of 100 humanoids (3600 joints) cheap even on a software
  // renderer (16 × 12 made it 1.4M triangles, 0.7 s a frame on SwiftShader)
  const joint = new SphereGeometry(1, 8, 4);
  const disc = new CircleGeometry(1, 24).rotateX(-Math.PI / 2);
  return {
    bone, boneEdges, sphere, joint, disc,
    dispose() { for (const g of [bone, boneEdges, sphere, joint, disc]) g.dispose(); },
  };
}

/** An instanced mesh of `n` instances (at least one allocated) under `parent`, its matrices rewritten every frame. */
export function instanced(geo: BufferGeometry, mat: Material, n: number, parent: Object3D, colour?: Color): InstancedMesh {
  const mesh = new InstancedMesh(geo, mat, Math.max(1, n));
  mesh.count = n;
  mesh.instanceMatrix.setUsage(DynamicDrawUsage);
  mesh.frustumCulled = false; // bounds move every frame
  if (colour) for (let i = 0; i < Math.max(1, n); i++) mesh.setColorAt(i, colour);
  parent.add(mesh);
  return mesh;
}

/** `n` line segments under `parent` (6 floats each, rewritten every frame). */
export function lines(n: number, mat: LineBasicMaterial, parent: Object3D): LineSegments {
  const g = new BufferGeometry();
  const attr = new BufferAttribute(new Float32Array(Math.max(1, n) * 6), 3);
  attr.setUsage(DynamicDrawUsage);
  g.setAttribute('position', attr);
  g.setDrawRange(0, n * 2);
  const l = new LineSegments(g, mat);
  l.frustumCulled = false;
  parent.add(l);
  return l;
}

/** Remove meshes from their parent and free their instance buffers (or geometry, for lines). */
export function disposeMeshes(objects: readonly (InstancedMesh | LineSegments | null)[]): void {
  for (const o of objects) {
    if (!o) continue;
    o.removeFromParent();
    if (o instanceof InstancedMesh) o.dispose();
    else o.geometry.dispose();
  }
}

const p = new Vector3(), q = new Quaternion(), s = new Vector3();

/**
 * The instance matrix of a bone drawn as the octahedron: translate(head) · rotate(rot) ·
 * scale(length), from arrays of 3 and 4 numbers per bone at index `i`.
 */
export function boneMatrix(out: Matrix4, head: ArrayLike<number>, rot: ArrayLike<number>, len: number, i: number): Matrix4 {
  const i3 = i * 3, i4 = i * 4;
  p.set(head[i3]!, head[i3 + 1]!, head[i3 + 2]!);
  q.set(rot[i4]!, rot[i4 + 1]!, rot[i4 + 2]!, rot[i4 + 3]!);
  s.set(len, len, len);
  return out.compose(p, q, s);
}

/** A sphere (or any unrotated shape) of radius `r` at (x, y, z). */
export function ballMatrix(out: Matrix4, x: number, y: number, z: number, r: number): Matrix4 {
  p.set(x, y, z);
  q.identity();
  s.set(r, r, r);
  return out.compose(p, q, s);
}

/** Bone entities of every rig of the world, in drawing order. */
export function boneEidsOf(world: PhysikWorld): Int32Array {
  let n = 0;
  for (const r of world.physik.rigs) n += r.bones.length;
  const out = new Int32Array(n);
  let k = 0;
  for (const r of world.physik.rigs) for (let i = 0; i < r.bones.length; i++) out[k++] = r.bones[i]!;
  return out;
}

/** Whether the world's bones are still `eids`, in order (no allocation). */
export function sameBones(world: PhysikWorld, eids: Int32Array): boolean {
  let k = 0;
  for (const r of world.physik.rigs) {
    if (k + r.bones.length > eids.length) return false;
    for (let i = 0; i < r.bones.length; i++) if (eids[k++] !== r.bones[i]) return false;
  }
  return k === eids.length;
}

/** A box growing to take in points (the view's framing). */
export interface Bounds { min: Vector3; max: Vector3 }

/** Grow `b` to take in a sphere of radius r at (x, y, z) (non-finite points are passed over). */
export function growBounds(b: Bounds, x: number, y: number, z: number, r = 0): void {
  if (!Number.isFinite(x + y + z)) return;
  b.min.set(Math.min(b.min.x, x - r), Math.min(b.min.y, y - r), Math.min(b.min.z, z - r));
  b.max.set(Math.max(b.max.x, x + r), Math.max(b.max.y, y + r), Math.max(b.max.z, z + r));
}
