/**
 * Onion skins (browser only): the app records the main world's bone matrices at a fixed
 * simulated-time interval into a ring of ONION_MAX poses; the newest `count` are drawn as
 * translucent green bones, fading with age. One InstancedMesh per slot whose instance matrices are a
 * view into the ring, so recording writes straight into what is drawn and only the per-slot
 * opacity changes as poses age. The ring holds the main world's bones only, and is cleared
 * when they change.
 */
import { DynamicDrawUsage, Group, InstancedBufferAttribute, InstancedMesh, Matrix4, MeshStandardMaterial, type Object3D } from 'three';
import type { PhysikWorld } from '../core';
import { boneMatrix, disposeMeshes, sameBones, type Shapes } from './shapes';

/** Most onion skins drawn (and poses kept in the ring). */
export const ONION_MAX = 8;
/** Opacity of the newest and of the oldest onion skin. */
const ONION_NEWEST = 0.55, ONION_OLDEST = 0.12;
/** A green apart from the bones' grey, the handles' orange and the ghosts' cyan and magenta. */
const ONION = 0x8ee86a;

export interface OnionLayer {
  /** How many recorded poses to draw (0 = off, at most ONION_MAX). */
  setCount(count: number): void;
  /** Snapshot the world's bone pose into the ring (bones given in drawing order). */
  record(boneEids: Int32Array): void;
  /** Forget the recorded poses. */
  clear(): void;
  /** Make the ring fit these bones (a new ring, empty, when they changed). */
  fit(boneEids: Int32Array): void;
  /** Show the newest poses, opacity fading with age. */
  write(): void;
  dispose(): void;
}

interface Ring {
  meshes: InstancedMesh[];
  boneEids: Int32Array;
  /** Slot the next pose goes into, and how many slots hold a pose. */
  next: number;
  filled: number;
}

export function createOnionLayer(world: PhysikWorld, parent: Object3D, shapes: Shapes): OnionLayer {
  const group = new Group();
  parent.add(group);
  // one material per slot: a slot's opacity follows the age of the pose it holds
  const mats: MeshStandardMaterial[] = [];
  for (let i = 0; i < ONION_MAX; i++) {
    mats.push(new MeshStandardMaterial({
      color: ONION, emissive: 0x1c3a12, flatShading: true, roughness: 0.7, transparent: true, opacity: ONION_NEWEST, depthWrite: false,
    }));
  }
  const m = new Matrix4();
  let ring: Ring | undefined;
  let count = 0;

  function build(boneEids: Int32Array): void {
    if (ring) disposeMeshes(ring.meshes);
    const n = boneEids.length, slot = Math.max(1, n) * 16;
    const data = new Float32Array(ONION_MAX * slot);
    const meshes: InstancedMesh[] = [];
    for (let i = 0; i < ONION_MAX; i++) {
      const mesh = new InstancedMesh(shapes.bone, mats[i]!, Math.max(1, n));
      mesh.instanceMatrix = new InstancedBufferAttribute(data.subarray(i * slot, (i + 1) * slot), 16);
      mesh.instanceMatrix.setUsage(DynamicDrawUsage);
      mesh.count = n;
      mesh.frustumCulled = false;
      mesh.visible = false;
      group.add(mesh);
      meshes.push(mesh);
    }
    ring = { meshes, boneEids: boneEids.slice(), next: 0, filled: 0 };
  }

  function fit(boneEids: Int32Array): void {
    if (!ring || !sameBones(world, ring.boneEids)) build(boneEids);
  }

  return {
    setCount(n) { count = Math.max(0, Math.min(ONION_MAX, Math.floor(n) || 0)); },
    fit,
    record(boneEids) {
      fit(boneEids);
      const o = ring!;
      const { Bone } = world.physik;
      const mesh = o.meshes[o.next]!;
      for (let i = 0; i < o.boneEids.length; i++) {
        const e = o.boneEids[i]!;
        mesh.setMatrixAt(i, boneMatrix(m, Bone.head, Bone.rot, Bone.length[e]!, e));
      }
      mesh.instanceMatrix.needsUpdate = true;
      o.next = (o.next + 1) % ONION_MAX;
      if (o.filled < ONION_MAX) o.filled++;
    },
    clear() {
      if (!ring) return;
      ring.next = 0;
      ring.filled = 0;
      for (const mesh of ring.meshes) mesh.visible = false;
    },
    write() {
      if (!ring) return;
      const shown = Math.min(count, ring.filled);
      for (let i = 0; i < ONION_MAX; i++) {
        const age = (ring.next - 1 - i + 2 * ONION_MAX) % ONION_MAX;
        const mesh = ring.meshes[i]!;
        mesh.visible = age < shown;
        if (!mesh.visible) continue;
        mats[i]!.opacity = shown <= 1 ? ONION_NEWEST : ONION_NEWEST + ((ONION_OLDEST - ONION_NEWEST) * age) / (shown - 1);
      }
    },
    dispose() {
      if (ring) disposeMeshes(ring.meshes);
      ring = undefined;
      for (const mt of mats) mt.dispose();
      group.removeFromParent();
    },
  };
}
