/**
 * The rig layer: every rig of the main world as bones, joints, control points and centre of
 * mass (browser only).
 *
 * - Bones: Blender-style octahedra (one InstancedMesh for the whole world). Colour per bone by
 *   how far its joint is pressed past its angular limits, in the stretched-red / squeezed-blue
 *   convention: past a max toward red, below a min toward blue; 0 = neutral grey,
 *   LIMIT_RED_DEG of excess (or more) = full colour. The selected bone is drawn yellow.
 * - Joint spheres at every head and at tails no child starts from; in a crowd (more than
 *   CROWD_BONES bones in the world) only the first rig gets them.
 * - Control points: attachment dot, target handle (orange sphere when active, grey when
 *   inactive, violet for poles; a pin, a point holding a bone where it is, a mint cube) and a
 *   line segment for the spring between them. The handle or bone under the pointer is drawn
 *   lighter and a little larger (`hover`).
 * - Each rig's centre of mass (Rig.centreOfMass) with a plumb line to the floor (y = 0).
 *
 * The buffers are sized from the world's rigs; when rigs, bones or control points change, the
 * next `current()` rebuilds them once (that frame allocates). Otherwise `write` only reads the
 * stores into the buffers.
 */
import {
  BoxGeometry, BufferAttribute, Color, Group, InstancedMesh, LineBasicMaterial, LineSegments, Matrix4,
  MeshBasicMaterial, MeshStandardMaterial, type Object3D,
} from 'three';
import type { PhysikWorld } from '../core';
import { jointRotationVector } from '../world/jointRotation';
import {
  NEUTRAL, ballMatrix, boneEidsOf, boneMatrix, disposeMeshes, instanced, jointRadiusOf, lines, sameBones, type Shapes,
} from './shapes';

/** Bones in the world above which only the first rig gets joint spheres. */
export const CROWD_BONES = 300;
/** Limit excess (degrees) at which a bone is drawn fully red. */
export const LIMIT_RED_DEG = 10;

const SELECTED = new Color(0xffd84a);
const RED = new Color(0xff2a2a);
const BLUE = new Color(0x2a7bff);
const HANDLE_ACTIVE = new Color(0xffa024);
const HANDLE_INACTIVE = new Color(0x7a7f88);
const HANDLE_POLE = new Color(0xb070ff);
const PIN = new Color(0x45e0b0);
const WHITE = new Color(0xffffff);
/** How much lighter, and how much larger, what is under the pointer is drawn. */
const HOVER_LIGHTEN = 0.45, HOVER_GROW = 1.3;

/** What the rig layer drew in its current buffers. */
export interface RigBuffers {
  /** Every instanced mesh, for the per-frame needsUpdate loop. */
  meshes: InstancedMesh[];
  bones: InstancedMesh;
  joints: InstancedMesh;
  dots: InstancedMesh;
  handles: InstancedMesh;
  /** Pins' cubes (one instance per control point, empty for those that are not pins). */
  pins: InstancedMesh;
  springs: LineSegments;
  coms: InstancedMesh;
  comShadows: InstancedMesh;
  plumbs: LineSegments;
  /** Bone entities in drawing order (all rigs), to notice a changed hierarchy. */
  boneEids: Int32Array;
  /** Control point entity and rig per handle instance. */
  handleCp: Int32Array;
  handleRig: Int32Array;
}

export interface RigLayer {
  readonly group: Group;
  /** The buffers for the world as it is now (rebuilt when its topology changed). */
  current(): RigBuffers;
  /** Read the stores into the buffers. */
  write(selectedBone: number): void;
  /** Draw the control point `cp` (or the bone) under the pointer lighter; -1 for none. */
  hover(cp: number, bone: number): void;
  /** Which control points are pins, by name (drawn as cubes). */
  setPinTest(isPin: (name: string) => boolean): void;
  /** Radius of the target handles of a rig (scene units). */
  handleRadius(rig: number): number;
  dispose(): void;
}

export function createRigLayer(world: PhysikWorld, parent: Object3D, shapes: Shapes): RigLayer {
  const group = new Group();
  parent.add(group);
  const boneMat = new MeshStandardMaterial({ color: 0xffffff, flatShading: true, roughness: 0.6, metalness: 0.05 });
  const jointMat = new MeshStandardMaterial({ color: 0x8d97a6, roughness: 0.5 });
  const dotMat = new MeshBasicMaterial({ color: 0xfff06a });
  const handleMat = new MeshStandardMaterial({ color: 0xffffff, roughness: 0.35, emissive: 0x302010 });
  const pinMat = new MeshStandardMaterial({ color: 0xffffff, roughness: 0.4, emissive: 0x0a2a20 });
  const comMat = new MeshStandardMaterial({ color: 0x4fd1ff, roughness: 0.3, emissive: 0x0a3040 });
  const shadowMat = new MeshBasicMaterial({ color: 0x4fd1ff, transparent: true, opacity: 0.45, depthWrite: false });
  const springMat = new LineBasicMaterial({ color: 0xffc36a });
  const plumbMat = new LineBasicMaterial({ color: 0x4fd1ff, transparent: true, opacity: 0.6 });
  const materials = [boneMat, jointMat, dotMat, handleMat, pinMat, comMat, shadowMat, springMat, plumbMat];
  const pinGeo = new BoxGeometry(1.5, 1.5, 1.5);
  let isPin: (name: string) => boolean = () => false;
  let hoverCp = -1, hoverBone = -1;

  const m = new Matrix4();
  const c = new Color();
  const phi = new Float64Array(3);
  let buf: RigBuffers | undefined;

  function disposeBuffers(): void {
    if (!buf) return;
    disposeMeshes([...buf.meshes, buf.springs, buf.plumbs]);
    buf = undefined;
  }

  function build(): RigBuffers {
    disposeBuffers();
    const rigs = world.physik.rigs;
    let nb = 0, nc = 0;
    for (const r of rigs) { nb += r.bones.length; nc += r.controlPoints.length; }
    const handleCp = new Int32Array(nc), handleRig = new Int32Array(nc);
    let k = 0;
    for (const r of rigs) for (const cp of r.controlPoints) { handleCp[k] = cp; handleRig[k++] = r.eid; }
    const bones = instanced(shapes.bone, boneMat, nb, group, NEUTRAL);
    const joints = instanced(shapes.joint, jointMat, nb * 2, group);
    const dots = instanced(shapes.joint, dotMat, nc, group);
    const handles = instanced(shapes.sphere, handleMat, nc, group, NEUTRAL);
    const pins = instanced(pinGeo, pinMat, nc, group, PIN);
    const coms = instanced(shapes.sphere, comMat, rigs.length, group);
    const comShadows = instanced(shapes.disc, shadowMat, rigs.length, group);
    return {
      meshes: [bones, joints, dots, handles, pins, coms, comShadows],
      bones, joints, dots, handles, pins, coms, comShadows,
      springs: lines(nc, springMat, group),
      plumbs: lines(rigs.length, plumbMat, group),
      boneEids: boneEidsOf(world),
      handleCp,
      handleRig,
    };
  }

  function sameTopology(b: RigBuffers): boolean {
    const rigs = world.physik.rigs;
    if (b.coms.count !== rigs.length) return false;
    let nc = 0;
    for (const r of rigs) nc += r.controlPoints.length;
    if (nc !== b.handles.count || !sameBones(world, b.boneEids)) return false;
    let k = 0;
    for (const r of rigs) for (const cp of r.controlPoints) if (b.handleCp[k++] !== cp) return false;
    return true;
  }

  function current(): RigBuffers {
    if (!buf || !sameTopology(buf)) buf = build();
    return buf;
  }

  const handleRadius = (rig: number) => Math.max(0.01, world.physik.Rig.height[rig]! * 0.025);

  // per rig: whether bone i's tail has a child's head on it (computed once per rig record)
  const tailCache = new WeakMap<object, Uint8Array>();
  function coveredTails(rig: { bones: Int32Array }): Uint8Array {
    let covered = tailCache.get(rig);
    if (covered) return covered;
    const { Bone } = world.physik;
    covered = new Uint8Array(rig.bones.length);
    for (let i = 0; i < rig.bones.length; i++) {
      const e = rig.bones[i]!;
      for (let j = 0; j < rig.bones.length; j++) {
        const k = rig.bones[j]!;
        // at the tail: the whole offset in the parent's frame, not only its part along the bone
        // (an imported child may sit beside the tail, level with it)
        const off = Math.hypot(Bone.attach[k * 3]!, Bone.attach[k * 3 + 1]! - Bone.length[e]!, Bone.attach[k * 3 + 2]!);
        if (Bone.parent[k] === e && off < 1e-9 * Math.max(1, Bone.length[e]!)) { covered[i] = 1; break; }
      }
    }
    tailCache.set(rig, covered);
    return covered;
  }

  /** Colour of bone e by its joint's limit excess (the root has no parent: neutral), into `c`. */
  function boneColour(e: number, selected: boolean): Color {
    const { Bone, AngularLimit } = world.physik;
    const e3 = e * 3;
    let over = 0, under = 0; // past max (stretched: red) and below min (squeezed: blue)
    if (Bone.parent[e]! >= 0 && (AngularLimit.enabled[e3] || AngularLimit.enabled[e3 + 1] || AngularLimit.enabled[e3 + 2])) {
      jointRotationVector(world, e, phi);
      for (let a = 0; a < 3; a++) {
        if (!AngularLimit.enabled[e3 + a]) continue;
        const t = phi[a]!;
        const o = t - AngularLimit.max[e3 + a]!, u = AngularLimit.min[e3 + a]! - t;
        if (o > over) over = o;
        if (u > under) under = u;
      }
    }
    c.copy(selected ? SELECTED : NEUTRAL);
    if (over >= under) c.lerp(RED, Math.min(1, (over * 180) / Math.PI / LIMIT_RED_DEG));
    else c.lerp(BLUE, Math.min(1, (under * 180) / Math.PI / LIMIT_RED_DEG));
    if (e === hoverBone) c.lerp(WHITE, HOVER_LIGHTEN);
    return c;
  }

  function write(selectedBone: number): void {
    const b = current();
    const { Bone, ControlPoint, Rig } = world.physik;
    let bi = 0, ji = 0, ci = 0, ri = 0;
    const springPos = b.springs.geometry.getAttribute('position') as BufferAttribute;
    const plumbPos = b.plumbs.geometry.getAttribute('position') as BufferAttribute;
    const sp = springPos.array as Float32Array, pp = plumbPos.array as Float32Array;
    for (const rig of world.physik.rigs) {
      const height = Rig.height[rig.eid]!;
      const jointR = jointRadiusOf(height);
      const tailCovered = coveredTails(rig);
      for (let i = 0; i < rig.bones.length; i++) {
        const e = rig.bones[i]!, e3 = e * 3;
        b.bones.setMatrixAt(bi, boneMatrix(m, Bone.head, Bone.rot, Bone.length[e]!, e));
        b.bones.setColorAt(bi++, boneColour(e, e === selectedBone));
        b.joints.setMatrixAt(ji++, ballMatrix(m, Bone.head[e3]!, Bone.head[e3 + 1]!, Bone.head[e3 + 2]!, jointR));
        // a tail with a child attached there already has that child's head sphere: draw it empty
        b.joints.setMatrixAt(ji++, ballMatrix(m, Bone.tail[e3]!, Bone.tail[e3 + 1]!, Bone.tail[e3 + 2]!, tailCovered[i] ? 0 : jointR));
      }
      const hr = handleRadius(rig.eid), dr = hr * 0.45;
      for (let i = 0; i < rig.controlPoints.length; i++) {
        const cp = rig.controlPoints[i]!, c3 = cp * 3;
        const ax = ControlPoint.attachment[c3]!, ay = ControlPoint.attachment[c3 + 1]!, az = ControlPoint.attachment[c3 + 2]!;
        b.dots.setMatrixAt(ci, ballMatrix(m, ax, ay, az, dr));
        const pin = isPin(rig.controlPointNames[i]!);
        const r = cp === hoverCp ? hr * HOVER_GROW : hr;
        const tx = ControlPoint.target[c3]!, ty = ControlPoint.target[c3 + 1]!, tz = ControlPoint.target[c3 + 2]!;
        // a point is drawn as a sphere or as a cube, the other left empty
        b.handles.setMatrixAt(ci, ballMatrix(m, tx, ty, tz, pin ? 0 : r));
        b.pins.setMatrixAt(ci, ballMatrix(m, tx, ty, tz, pin ? r : 0));
        c.copy(pin ? (ControlPoint.active[cp] ? PIN : HANDLE_INACTIVE) : ControlPoint.pole[cp] ? HANDLE_POLE : ControlPoint.active[cp] ? HANDLE_ACTIVE : HANDLE_INACTIVE);
        if (cp === hoverCp) c.lerp(WHITE, HOVER_LIGHTEN);
        (pin ? b.pins : b.handles).setColorAt(ci, c);
        // the spring pulls the attachment toward the effective (interpolated) target
        const o = ci * 6;
        sp[o] = ax; sp[o + 1] = ay; sp[o + 2] = az;
        sp[o + 3] = ControlPoint.effective[c3]!; sp[o + 4] = ControlPoint.effective[c3 + 1]!; sp[o + 5] = ControlPoint.effective[c3 + 2]!;
        ci++;
      }
      const r3 = rig.eid * 3;
      const cx = Rig.centreOfMass[r3]!, cy = Rig.centreOfMass[r3 + 1]!, cz = Rig.centreOfMass[r3 + 2]!;
      const cr = Math.max(0.01, height * 0.02);
      b.coms.setMatrixAt(ri, ballMatrix(m, cx, cy, cz, cr));
      b.comShadows.setMatrixAt(ri, ballMatrix(m, cx, 0.001, cz, cr * 2.5)); // a flat disc: its y scale changes nothing
      const o = ri * 6;
      pp[o] = cx; pp[o + 1] = cy; pp[o + 2] = cz;
      pp[o + 3] = cx; pp[o + 4] = 0; pp[o + 5] = cz;
      ri++;
    }
    // level of detail: in a crowd only the first rig, the one being posed, gets joint spheres;
    // the others' joints would cost more than all the bones
    const rigs = world.physik.rigs;
    b.joints.count = ji > 2 * CROWD_BONES && rigs.length > 1 ? 2 * rigs[0]!.bones.length : ji;
    for (let i = 0; i < b.meshes.length; i++) b.meshes[i]!.instanceMatrix.needsUpdate = true;
    b.bones.instanceColor!.needsUpdate = true;
    b.handles.instanceColor!.needsUpdate = true;
    b.pins.instanceColor!.needsUpdate = true;
    springPos.needsUpdate = true;
    plumbPos.needsUpdate = true;
  }

  return {
    group, current, write, handleRadius,
    hover(cp, bone) { hoverCp = cp; hoverBone = bone; },
    setPinTest(test) { isPin = test; },
    dispose() {
      disposeBuffers();
      pinGeo.dispose();
      for (const mt of materials) mt.dispose();
      group.removeFromParent();
    },
  };
}
