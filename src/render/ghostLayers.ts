/**
 * Ghost layers: translucent bones and joints of another simulation, no handles, no centre of
 * mass (browser only). 'compare' draws every rig of a second world (another solver run side
 * by side; cyan); 'rapier' the Rapier cross-check's rig (magenta, its bones a wider shell than
 * the main rig's, so drawn over it the two show where they part). A layer draws whatever its
 * `GhostSource` hands it each frame (head, rotation, length per bone; `worldGhostSource` reads
 * a world), optionally moved by an offset (beside the main rig rather than over it). A
 * layer's meshes grow when its source hands it more bones than they hold.
 *
 * Ghost bones are transparent without depth sorting between instances (faint overlaps may
 * blend in either order).
 */
import { Group, Matrix4, MeshStandardMaterial, Quaternion, Vector3, type BufferGeometry, type InstancedMesh, type Object3D } from 'three';
import type { PhysikWorld } from '../core';
import {
  ballMatrix, boneMatrix, createOctahedronGeometry, disposeMeshes, growBounds, instanced, jointRadiusOf,
  type Bounds, type Shapes,
} from './shapes';

/** The ghost layers: 'compare' (a second solver's world), 'rapier' (the Rapier cross-check's rig). */
export type GhostLayerName = 'compare' | 'rapier';

/**
 * One frame of a ghost: `count` bones, each its head (3 numbers), world rotation (4: x, y, z,
 * w), length (1) and joint-sphere radius (1). The arrays may be longer than needed.
 */
export interface GhostFrame {
  count: number;
  head: Float64Array;
  rot: Float64Array;
  length: Float64Array;
  jointRadius: Float64Array;
}

/** Called once per drawn frame; null draws nothing this frame. Reuse the frame's arrays (no allocation). */
export type GhostSource = () => GhostFrame | null;

/** Every rig of `world` as a ghost frame (its arrays grow when the world has more bones; no allocation otherwise). */
export function worldGhostSource(world: PhysikWorld): GhostSource {
  const f: GhostFrame = { count: 0, head: new Float64Array(0), rot: new Float64Array(0), length: new Float64Array(0), jointRadius: new Float64Array(0) };
  return () => {
    const { Bone, Rig } = world.physik;
    let n = 0;
    for (const r of world.physik.rigs) n += r.bones.length;
    if (f.length.length < n) {
      f.head = new Float64Array(3 * n); f.rot = new Float64Array(4 * n);
      f.length = new Float64Array(n); f.jointRadius = new Float64Array(n);
    }
    let k = 0;
    for (const r of world.physik.rigs) {
      const jr = jointRadiusOf(Rig.height[r.eid]!);
      for (let i = 0; i < r.bones.length; i++, k++) {
        const e = r.bones[i]!;
        for (let a = 0; a < 3; a++) f.head[k * 3 + a] = Bone.head[e * 3 + a]!;
        for (let a = 0; a < 4; a++) f.rot[k * 4 + a] = Bone.rot[e * 4 + a]!;
        f.length[k] = Bone.length[e]!;
        f.jointRadius[k] = jr;
      }
    }
    f.count = n;
    return f;
  };
}

/** What a ghost layer drew in the last frame: bones, whether its meshes are in the scene, its offset. */
export interface GhostInfo { bones: number; drawn: boolean; offset: [number, number, number] }

export interface GhostLayers {
  /** What a layer draws (read every frame); null removes the layer's meshes. */
  setSource(layer: GhostLayerName, source: GhostSource | null): void;
  setOffset(layer: GhostLayerName, x: number, y: number, z: number): void;
  info(layer: GhostLayerName): GhostInfo;
  /** Draw each layer's source now. */
  write(): void;
  /** Take in the layers moved beside the main rig (over it they add nothing). */
  grow(b: Bounds): void;
  dispose(): void;
}

/** A ghost layer's meshes (grown on demand), materials and what it draws. */
interface Layer {
  group: Group;
  boneGeo: BufferGeometry;
  boneMat: MeshStandardMaterial;
  jointMat: MeshStandardMaterial;
  source: GhostSource | null;
  bones: InstancedMesh | null;
  joints: InstancedMesh | null;
  /** Bones the meshes hold, and drew in the last frame. */
  capacity: number;
  drawn: number;
  /** The last frame drawn (for framing), or null. */
  last: GhostFrame | null;
}

const GHOST = 0x5fd4ff;
/** The Rapier cross-check's ghost (magenta: apart from the bones' grey/red/blue and the compare ghost's cyan). */
const RAPIER_GHOST = 0xff4fd8;

export function createGhostLayers(parent: Object3D, shapes: Shapes): GhostLayers {
  const translucent = (color: number, opacity: number, emissive?: number) => new MeshStandardMaterial({
    color, emissive, flatShading: emissive !== undefined, roughness: 0.5, transparent: true, opacity, depthWrite: false,
  });
  // the Rapier ghost usually sits within a few per cent of the main rig: a wider, brighter shell
  // around each bone stays visible over it and shows where the two part
  const rapierBoneGeo = createOctahedronGeometry(0.16);
  const layer = (boneGeo: BufferGeometry, boneMat: MeshStandardMaterial, jointMat: MeshStandardMaterial): Layer => {
    const group = new Group();
    parent.add(group);
    return { group, boneGeo, boneMat, jointMat, source: null, bones: null, joints: null, capacity: 0, drawn: 0, last: null };
  };
  const layers: Record<GhostLayerName, Layer> = {
    compare: layer(shapes.bone, translucent(GHOST, 0.35, 0x0b3444), translucent(GHOST, 0.45)),
    rapier: layer(rapierBoneGeo, translucent(RAPIER_GHOST, 0.4, 0x44103a), translucent(RAPIER_GHOST, 0.5)),
  };
  const list = [layers.compare, layers.rapier];
  const m = new Matrix4();
  const tail = new Vector3(), head = new Vector3();
  const q = new Quaternion();

  function clear(L: Layer): void {
    disposeMeshes([L.bones, L.joints]);
    L.bones = L.joints = null;
    L.capacity = L.drawn = 0;
    L.last = null;
  }

  /** Draw the layer's source now: meshes grown when it has more bones than they hold. */
  function writeLayer(L: Layer): void {
    const f = L.source ? L.source() : null;
    L.last = f;
    if (!f || f.count === 0) {
      L.drawn = 0;
      if (L.bones) L.bones.count = 0;
      if (L.joints) L.joints.count = 0;
      return;
    }
    if (!L.bones || !L.joints || f.count > L.capacity) {
      clear(L);
      L.bones = instanced(L.boneGeo, L.boneMat, f.count, L.group);
      L.joints = instanced(shapes.joint, L.jointMat, f.count * 2, L.group);
      L.capacity = f.count;
    }
    const { bones, joints } = L;
    let ji = 0;
    for (let i = 0; i < f.count; i++) {
      const i3 = i * 3, len = f.length[i]!, jr = f.jointRadius[i]!;
      bones.setMatrixAt(i, boneMatrix(m, f.head, f.rot, len, i));
      // the tail: head + rot · (0, len, 0)
      const i4 = i * 4;
      q.set(f.rot[i4]!, f.rot[i4 + 1]!, f.rot[i4 + 2]!, f.rot[i4 + 3]!);
      tail.set(0, len, 0).applyQuaternion(q).add(head.set(f.head[i3]!, f.head[i3 + 1]!, f.head[i3 + 2]!));
      joints.setMatrixAt(ji++, ballMatrix(m, head.x, head.y, head.z, jr));
      joints.setMatrixAt(ji++, ballMatrix(m, tail.x, tail.y, tail.z, jr));
    }
    bones.count = f.count;
    joints.count = ji;
    L.drawn = f.count;
    bones.instanceMatrix.needsUpdate = true;
    joints.instanceMatrix.needsUpdate = true;
  }

  return {
    setSource(name, source) {
      const L = layers[name];
      L.source = source;
      if (!source) clear(L);
    },
    setOffset(name, x, y, z) {
      if (!Number.isFinite(x + y + z)) throw new Error(`ghost offset must be finite, got (${x}, ${y}, ${z})`);
      layers[name].group.position.set(x, y, z);
    },
    info(name) {
      const L = layers[name], o = L.group.position;
      return { bones: L.drawn, drawn: L.drawn > 0 && L.bones !== null && L.bones.parent === L.group, offset: [o.x, o.y, o.z] };
    },
    write() { for (let i = 0; i < list.length; i++) writeLayer(list[i]!); },
    grow(b) {
      for (const L of list) {
        const f = L.last, o = L.group.position;
        if (!f || (o.x === 0 && o.y === 0 && o.z === 0)) continue;
        for (let i = 0; i < f.count; i++) growBounds(b, f.head[i * 3]! + o.x, f.head[i * 3 + 1]! + o.y, f.head[i * 3 + 2]! + o.z, f.length[i]!);
      }
    },
    dispose() {
      for (const L of list) {
        clear(L);
        L.boneMat.dispose();
        L.jointMat.dispose();
        L.group.removeFromParent();
      }
      rapierBoneGeo.dispose();
    },
  };
}
