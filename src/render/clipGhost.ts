/**
 * The clip's ghost (browser only): the source animation's pose at the current clip time, drawn
 * as a translucent skeleton in a light colour (bones at 35% opacity, a brighter line from each
 * head to its tail, drawn through a character's mesh) over the physics rig or beside it, as Cascadeur's AutoPhysics shows the
 * animation it started from. What it draws comes from a source read every frame (the sandbox's
 * Motion, src/app/motion.ts: the clip sampled onto the rig's own bones); null draws nothing.
 * A view layer (`view.addLayer`); its meshes grow when the source hands it more bones.
 */
import { Group, LineBasicMaterial, Matrix4, MeshStandardMaterial, Quaternion, Vector3, type BufferAttribute, type InstancedMesh, type LineSegments, type Object3D } from 'three';
import { ballMatrix, boneMatrix, disposeMeshes, growBounds, instanced, lines, type Bounds, type Shapes } from './shapes';

/** One frame of the clip's pose: `count` bones, each its head (3), world rotation (4: x, y, z, w), length (1) and joint radius (1). */
export interface ClipGhostFrame {
  count: number;
  head: Float64Array;
  rot: Float64Array;
  length: Float64Array;
  jointRadius: Float64Array;
}

/** A light, warm grey: apart from the rig's grey/red/blue, the compare ghost's cyan and the Rapier ghost's magenta. */
export const CLIP_GHOST_COLOUR = 0xfff1c9;
export const CLIP_GHOST_OPACITY = 0.35;

export interface ClipGhost {
  update(): void;
  grow(b: Bounds): void;
  dispose(): void;
  /** Shown or hidden (hidden: nothing drawn, the source not read). */
  setVisible(on: boolean): void;
  readonly visible: boolean;
  /** Drawn moved by this much (beside the rig rather than over it). */
  setOffset(x: number, y: number, z: number): void;
  /** Bones drawn in the last frame (0: none). */
  readonly drawn: number;
}

export function createClipGhost(parent: Object3D, shapes: Shapes, source: () => ClipGhostFrame | null): ClipGhost {
  const group = new Group();
  group.name = 'clip-ghost';
  parent.add(group);
  const boneMat = new MeshStandardMaterial({
    color: CLIP_GHOST_COLOUR, emissive: 0x4a3f22, roughness: 0.6, transparent: true, opacity: CLIP_GHOST_OPACITY, depthWrite: false,
  });
  const jointMat = new MeshStandardMaterial({ color: CLIP_GHOST_COLOUR, roughness: 0.6, transparent: true, opacity: CLIP_GHOST_OPACITY + 0.1, depthWrite: false });
  // the lines show through a character's mesh (the clip's skeleton inside the skin), the bones do not
  const lineMat = new LineBasicMaterial({ color: CLIP_GHOST_COLOUR, transparent: true, opacity: 0.7, depthWrite: false, depthTest: false });
  let bones: InstancedMesh | null = null, joints: InstancedMesh | null = null, sticks: LineSegments | null = null;
  let capacity = 0, drawn = 0, visible = true;
  let last: ClipGhostFrame | null = null;
  const m = new Matrix4(), q = new Quaternion(), tail = new Vector3();

  function clear(): void {
    disposeMeshes([bones, joints, sticks]);
    bones = joints = sticks = null;
    capacity = 0;
  }

  function hideAll(): void {
    drawn = 0;
    last = null;
    if (bones) bones.count = 0;
    if (joints) joints.count = 0;
    if (sticks) sticks.geometry.setDrawRange(0, 0);
  }

  return {
    update() {
      const f = visible ? source() : null;
      if (!f || f.count === 0) { hideAll(); return; }
      last = f;
      if (!bones || !joints || !sticks || f.count > capacity) {
        clear();
        bones = instanced(shapes.bone, boneMat, f.count, group);
        joints = instanced(shapes.joint, jointMat, f.count, group);
        sticks = lines(f.count, lineMat, group);
        sticks.renderOrder = 1; // after the mesh
        capacity = f.count;
      }
      const pos = sticks.geometry.getAttribute('position') as BufferAttribute;
      const arr = pos.array as Float32Array;
      for (let i = 0; i < f.count; i++) {
        const i3 = i * 3, i4 = i * 4, len = f.length[i]!;
        bones.setMatrixAt(i, boneMatrix(m, f.head, f.rot, len, i));
        joints.setMatrixAt(i, ballMatrix(m, f.head[i3]!, f.head[i3 + 1]!, f.head[i3 + 2]!, f.jointRadius[i]!));
        q.set(f.rot[i4]!, f.rot[i4 + 1]!, f.rot[i4 + 2]!, f.rot[i4 + 3]!);
        tail.set(0, len, 0).applyQuaternion(q);
        const o = i * 6;
        arr[o] = f.head[i3]!; arr[o + 1] = f.head[i3 + 1]!; arr[o + 2] = f.head[i3 + 2]!;
        arr[o + 3] = f.head[i3]! + tail.x; arr[o + 4] = f.head[i3 + 1]! + tail.y; arr[o + 5] = f.head[i3 + 2]! + tail.z;
      }
      bones.count = f.count;
      joints.count = f.count;
      sticks.geometry.setDrawRange(0, f.count * 2);
      pos.needsUpdate = true;
      bones.instanceMatrix.needsUpdate = true;
      joints.instanceMatrix.needsUpdate = true;
      drawn = f.count;
    },
    grow(b) {
      const o = group.position;
      if (!last || !visible || (o.x === 0 && o.y === 0 && o.z === 0)) return;
      for (let i = 0; i < last.count; i++) growBounds(b, last.head[i * 3]! + o.x, last.head[i * 3 + 1]! + o.y, last.head[i * 3 + 2]! + o.z, last.length[i]!);
    },
    dispose() {
      clear();
      boneMat.dispose(); jointMat.dispose(); lineMat.dispose();
      group.removeFromParent();
    },
    setVisible(on) {
      visible = on;
      group.visible = on;
      if (!on) hideAll();
    },
    get visible() { return visible; },
    setOffset(x, y, z) {
      if (!Number.isFinite(x + y + z)) throw new Error(`clip ghost offset must be finite, got (${x}, ${y}, ${z})`);
      group.position.set(x, y, z);
    },
    get drawn() { return drawn; },
  };
}
