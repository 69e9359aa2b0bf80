/**
 * three.js view of a physik world (browser only): draws every rig of the world.
 *
 * - Bones: Blender-style octahedra (one shared geometry, one InstancedMesh for the whole
 *   world), instance matrix = translate(head) · rotate(Bone.rot) · scale(length); the bone's
 *   local +Y runs from head to tail. Colour per bone by how far its joint is pressed past its
 *   angular limits: 0 = neutral grey, LIMIT_RED_DEG of excess (or more) = full red.
 * - Joint spheres at every head and tail (InstancedMesh).
 * - Control points: attachment dot, target handle sphere (orange when active, grey when
 *   inactive, violet for poles) and a line segment for the spring between them.
 * - Each rig's centre of mass (Rig.centreOfMass) with a plumb line to its projection on the floor (y = 0).
 * - Floor grid, hemisphere + directional light, OrbitControls.
 *
 * `update()` only reads the stores and writes into buffers allocated when the view is built
 * (scratch Matrix4/Vector3/Quaternion/Color reused): no allocation per frame. The buffers are
 * sized from the world's rigs at creation; if rigs are added or removed later, the next
 * `update()` rebuilds them once (that frame allocates).
 *
 * Limits: no shadows; no per-bone radius (octahedron width is a fixed fraction of the length,
 * as in Blender); the floor is the plane y = 0 whatever the scene; picking is a ray test against
 * the target handles only (not bones); kinematic-solver rigs are drawn the same way.
 */
import {
  AmbientLight, BufferAttribute, BufferGeometry, Color, DirectionalLight, DynamicDrawUsage,
  GridHelper, Group, HemisphereLight, InstancedMesh, LineBasicMaterial, LineSegments, Matrix4,
  MeshBasicMaterial, MeshStandardMaterial, PerspectiveCamera, Quaternion, Ray, Scene,
  SphereGeometry, Vector2, Vector3, WebGLRenderer, CircleGeometry, Raycaster,
} from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';
import type { PhysikWorld } from '../core';
import { jointRotationVector } from '../../systems/torsionSprings';

/** Limit excess (degrees) at which a bone is drawn fully red. */
export const LIMIT_RED_DEG = 10;

const NEUTRAL = new Color(0xc9d1dc);
const RED = new Color(0xff2a2a);
const HANDLE_ACTIVE = new Color(0xffa024);
const HANDLE_INACTIVE = new Color(0x7a7f88);
const HANDLE_POLE = new Color(0xb070ff);
const BACKGROUND = 0x24282f;

/** Blender's bone shape: head at the origin, tail at (0, 1, 0), a square waist at y = 0.1. */
export function createOctahedronGeometry(width = 0.1, waist = 0.1): BufferGeometry {
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

export interface View {
  scene: Scene;
  camera: PerspectiveCamera;
  renderer: WebGLRenderer;
  orbit: OrbitControls;
  /** Read the world and draw one frame (no allocation unless the world's rigs changed). */
  update(): void;
  /** Control point whose target handle is under the client (CSS pixel) position, or -1. */
  pickTarget(clientX: number, clientY: number): number;
  /** Client (CSS pixel) position of a world point, written into `out`; false when behind the camera. */
  project(x: number, y: number, z: number, out: { x: number; y: number }): boolean;
  /** Ray from the camera through a client position (shared object: copy what you keep). */
  rayAt(clientX: number, clientY: number): Ray;
  /** Point the camera at the world's rigs (their current bounds). */
  frame(): void;
  /** Radius of the target handles of a rig (scene units). */
  handleRadius(rig: number): number;
  dispose(): void;
}

interface Buffers {
  /** Every instanced mesh, for the per-frame needsUpdate loop (no array literal per frame). */
  meshes: InstancedMesh[];
  bones: InstancedMesh;
  joints: InstancedMesh;
  dots: InstancedMesh;
  handles: InstancedMesh;
  springs: LineSegments;
  coms: InstancedMesh;
  comShadows: InstancedMesh;
  plumbs: LineSegments;
  /** Control point entity per handle instance. */
  handleCp: Int32Array;
  handleRig: Int32Array;
}

export function createView(canvas: HTMLCanvasElement, world: PhysikWorld): View {
  const renderer = new WebGLRenderer({ canvas, antialias: true });
  renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2));
  renderer.setClearColor(BACKGROUND, 1);

  const scene = new Scene();
  scene.background = new Color(BACKGROUND);
  const camera = new PerspectiveCamera(45, 1, 0.01, 200);
  camera.position.set(2.2, 1.8, 3.2);

  scene.add(new HemisphereLight(0xe6eeff, 0x3a3f48, 1.6));
  scene.add(new AmbientLight(0xffffff, 0.15));
  const sun = new DirectionalLight(0xffffff, 1.6);
  sun.position.set(3, 6, 4);
  scene.add(sun);
  const grid = new GridHelper(10, 40, 0x6a7382, 0x3c424c);
  scene.add(grid);

  const orbit = new OrbitControls(camera, canvas);
  orbit.target.set(0, 1, 0);
  orbit.enableDamping = false;
  orbit.update();

  const boneGeo = createOctahedronGeometry();
  const sphereGeo = new SphereGeometry(1, 16, 12);
  const discGeo = new CircleGeometry(1, 24).rotateX(-Math.PI / 2);
  const boneMat = new MeshStandardMaterial({ color: 0xffffff, flatShading: true, roughness: 0.6, metalness: 0.05 });
  const jointMat = new MeshStandardMaterial({ color: 0x8d97a6, roughness: 0.5 });
  const dotMat = new MeshBasicMaterial({ color: 0xfff06a });
  const handleMat = new MeshStandardMaterial({ color: 0xffffff, roughness: 0.35, emissive: 0x302010 });
  const comMat = new MeshStandardMaterial({ color: 0x4fd1ff, roughness: 0.3, emissive: 0x0a3040 });
  const shadowMat = new MeshBasicMaterial({ color: 0x4fd1ff, transparent: true, opacity: 0.45, depthWrite: false });
  const springMat = new LineBasicMaterial({ color: 0xffc36a });
  const plumbMat = new LineBasicMaterial({ color: 0x4fd1ff, transparent: true, opacity: 0.6 });

  const group = new Group();
  scene.add(group);

  // scratch (reused every frame)
  const m = new Matrix4();
  const p = new Vector3();
  const q = new Quaternion();
  const s = new Vector3();
  const c = new Color();
  const phi = new Float64Array(3);
  const ndc = new Vector2();
  const raycaster = new Raycaster();
  const toPoint = new Vector3();
  const lastSize = new Vector2(-1, -1);

  let buf: Buffers | undefined;

  function instanced(geo: BufferGeometry, mat: MeshStandardMaterial | MeshBasicMaterial, n: number, colours: boolean): InstancedMesh {
    const mesh = new InstancedMesh(geo, mat, Math.max(1, n));
    mesh.count = n;
    mesh.instanceMatrix.setUsage(DynamicDrawUsage);
    mesh.frustumCulled = false; // bounds move every frame
    if (colours) for (let i = 0; i < Math.max(1, n); i++) mesh.setColorAt(i, NEUTRAL);
    group.add(mesh);
    return mesh;
  }

  function lines(n: number, mat: LineBasicMaterial): LineSegments {
    const g = new BufferGeometry();
    const attr = new BufferAttribute(new Float32Array(Math.max(1, n) * 6), 3);
    attr.setUsage(DynamicDrawUsage);
    g.setAttribute('position', attr);
    g.setDrawRange(0, n * 2);
    const l = new LineSegments(g, mat);
    l.frustumCulled = false;
    group.add(l);
    return l;
  }

  function disposeBuffers(): void {
    if (!buf) return;
    for (const o of buf.meshes) {
      group.remove(o);
      o.dispose();
    }
    for (const l of [buf.springs, buf.plumbs]) {
      group.remove(l);
      l.geometry.dispose();
    }
    buf = undefined;
  }

  function build(): Buffers {
    disposeBuffers();
    const rigs = world.physik.rigs;
    let nb = 0, nc = 0;
    for (const r of rigs) { nb += r.bones.length; nc += r.controlPoints.length; }
    const handleCp = new Int32Array(nc), handleRig = new Int32Array(nc);
    let k = 0;
    for (const r of rigs) for (const cp of r.controlPoints) { handleCp[k] = cp; handleRig[k++] = r.eid; }
    const bones = instanced(boneGeo, boneMat, nb, true);
    const joints = instanced(sphereGeo, jointMat, nb * 2, false);
    const dots = instanced(sphereGeo, dotMat, nc, false);
    const handles = instanced(sphereGeo, handleMat, nc, true);
    const coms = instanced(sphereGeo, comMat, rigs.length, false);
    const comShadows = instanced(discGeo, shadowMat, rigs.length, false);
    return {
      meshes: [bones, joints, dots, handles, coms, comShadows],
      bones, joints, dots, handles, coms, comShadows,
      springs: lines(nc, springMat),
      plumbs: lines(rigs.length, plumbMat),
      handleCp,
      handleRig,
    };
  }

  const handleRadius = (rig: number) => Math.max(0.01, world.physik.Rig.height[rig]! * 0.025);

  function resize(): void {
    const w = canvas.clientWidth || canvas.width, h = canvas.clientHeight || canvas.height;
    if (w === lastSize.x && h === lastSize.y) return;
    lastSize.set(w, h);
    renderer.setSize(w, h, false);
    camera.aspect = w / Math.max(1, h);
    camera.updateProjectionMatrix();
  }

  function writeBuffers(b: Buffers): void {
    const { Bone, ControlPoint, Rig, AngularLimit } = world.physik;
    let bi = 0, ji = 0, ci = 0, ri = 0;
    const springPos = b.springs.geometry.getAttribute('position') as BufferAttribute;
    const plumbPos = b.plumbs.geometry.getAttribute('position') as BufferAttribute;
    const sp = springPos.array as Float32Array, pp = plumbPos.array as Float32Array;
    for (const rig of world.physik.rigs) {
      const height = Rig.height[rig.eid]!;
      const jointR = Math.max(0.006, height * 0.008);
      for (let i = 0; i < rig.bones.length; i++) {
        const e = rig.bones[i]!;
        const e3 = e * 3, e4 = e * 4;
        const len = Bone.length[e]!;
        p.set(Bone.head[e3]!, Bone.head[e3 + 1]!, Bone.head[e3 + 2]!);
        q.set(Bone.rot[e4]!, Bone.rot[e4 + 1]!, Bone.rot[e4 + 2]!, Bone.rot[e4 + 3]!);
        s.set(len, len, len);
        m.compose(p, q, s);
        b.bones.setMatrixAt(bi, m);
        // limit excess of the joint at the head (the root has no parent: neutral)
        let over = 0;
        if (Bone.parent[e]! >= 0 && (AngularLimit.enabled[e3] || AngularLimit.enabled[e3 + 1] || AngularLimit.enabled[e3 + 2])) {
          jointRotationVector(world, e, phi);
          for (let a = 0; a < 3; a++) {
            if (!AngularLimit.enabled[e3 + a]) continue;
            const t = phi[a]!;
            const o = Math.max(t - AngularLimit.max[e3 + a]!, AngularLimit.min[e3 + a]! - t, 0);
            if (o > over) over = o;
          }
        }
        c.copy(NEUTRAL).lerp(RED, Math.min(1, (over * 180) / Math.PI / LIMIT_RED_DEG));
        b.bones.setColorAt(bi, c);
        bi++;
        s.set(jointR, jointR, jointR);
        q.identity();
        m.compose(p, q, s);
        b.joints.setMatrixAt(ji++, m);
        p.set(Bone.tail[e3]!, Bone.tail[e3 + 1]!, Bone.tail[e3 + 2]!);
        m.compose(p, q, s);
        b.joints.setMatrixAt(ji++, m);
      }
      const hr = handleRadius(rig.eid), dr = hr * 0.45;
      q.identity();
      for (let i = 0; i < rig.controlPoints.length; i++) {
        const cp = rig.controlPoints[i]!, c3 = cp * 3;
        const ax = ControlPoint.attachment[c3]!, ay = ControlPoint.attachment[c3 + 1]!, az = ControlPoint.attachment[c3 + 2]!;
        const tx = ControlPoint.target[c3]!, ty = ControlPoint.target[c3 + 1]!, tz = ControlPoint.target[c3 + 2]!;
        p.set(ax, ay, az);
        s.set(dr, dr, dr);
        m.compose(p, q, s);
        b.dots.setMatrixAt(ci, m);
        p.set(tx, ty, tz);
        s.set(hr, hr, hr);
        m.compose(p, q, s);
        b.handles.setMatrixAt(ci, m);
        b.handles.setColorAt(ci, ControlPoint.pole[cp] ? HANDLE_POLE : ControlPoint.active[cp] ? HANDLE_ACTIVE : HANDLE_INACTIVE);
        // the spring pulls the attachment toward the effective (interpolated) target
        const o = ci * 6;
        sp[o] = ax; sp[o + 1] = ay; sp[o + 2] = az;
        sp[o + 3] = ControlPoint.effective[c3]!; sp[o + 4] = ControlPoint.effective[c3 + 1]!; sp[o + 5] = ControlPoint.effective[c3 + 2]!;
        ci++;
      }
      const r3 = rig.eid * 3;
      const cx = Rig.centreOfMass[r3]!, cy = Rig.centreOfMass[r3 + 1]!, cz = Rig.centreOfMass[r3 + 2]!;
      const cr = Math.max(0.01, height * 0.02);
      p.set(cx, cy, cz);
      s.set(cr, cr, cr);
      m.compose(p, q, s);
      b.coms.setMatrixAt(ri, m);
      p.set(cx, 0.001, cz);
      s.set(cr * 2.5, 1, cr * 2.5);
      m.compose(p, q, s);
      b.comShadows.setMatrixAt(ri, m);
      const o = ri * 6;
      pp[o] = cx; pp[o + 1] = cy; pp[o + 2] = cz;
      pp[o + 3] = cx; pp[o + 4] = 0; pp[o + 5] = cz;
      ri++;
    }
    for (let i = 0; i < b.meshes.length; i++) b.meshes[i]!.instanceMatrix.needsUpdate = true;
    b.bones.instanceColor!.needsUpdate = true;
    b.handles.instanceColor!.needsUpdate = true;
    springPos.needsUpdate = true;
    plumbPos.needsUpdate = true;
  }

  function current(): Buffers {
    if (buf && sameTopology(buf)) return buf;
    buf = build();
    return buf;
  }

  function sameTopology(b: Buffers): boolean {
    const rigs = world.physik.rigs;
    if (b.coms.count !== rigs.length) return false;
    let nb = 0, nc = 0;
    for (const r of rigs) { nb += r.bones.length; nc += r.controlPoints.length; }
    if (nb !== b.bones.count || nc !== b.handles.count) return false;
    let k = 0;
    for (const r of rigs) for (const cp of r.controlPoints) if (b.handleCp[k++] !== cp) return false;
    return true;
  }

  function update(): void {
    resize();
    writeBuffers(current());
    orbit.update();
    renderer.render(scene, camera);
  }

  function rayAt(clientX: number, clientY: number): Ray {
    const rect = canvas.getBoundingClientRect();
    ndc.set(((clientX - rect.left) / rect.width) * 2 - 1, -((clientY - rect.top) / rect.height) * 2 + 1);
    camera.updateMatrixWorld();
    raycaster.setFromCamera(ndc, camera);
    return raycaster.ray;
  }

  function pickTarget(clientX: number, clientY: number): number {
    const b = current();
    const ray = rayAt(clientX, clientY);
    const { ControlPoint } = world.physik;
    let best = -1, bestT = Infinity;
    for (let i = 0; i < b.handles.count; i++) {
      const cp = b.handleCp[i]!, c3 = cp * 3;
      toPoint.set(ControlPoint.target[c3]!, ControlPoint.target[c3 + 1]!, ControlPoint.target[c3 + 2]!);
      const r = handleRadius(b.handleRig[i]!) * 1.6; // a little slack for small handles
      if (ray.distanceSqToPoint(toPoint) > r * r) continue;
      const t = toPoint.sub(ray.origin).dot(ray.direction);
      if (t > 0 && t < bestT) { bestT = t; best = cp; }
    }
    return best;
  }

  function project(x: number, y: number, z: number, out: { x: number; y: number }): boolean {
    const rect = canvas.getBoundingClientRect();
    camera.updateMatrixWorld();
    toPoint.set(x, y, z).project(camera);
    out.x = rect.left + ((toPoint.x + 1) / 2) * rect.width;
    out.y = rect.top + ((1 - toPoint.y) / 2) * rect.height;
    return toPoint.z < 1 && toPoint.z > -1;
  }

  function frame(): void {
    const { Bone } = world.physik;
    let minX = Infinity, minY = Infinity, minZ = Infinity, maxX = -Infinity, maxY = -Infinity, maxZ = -Infinity;
    for (const r of world.physik.rigs) for (const e of r.bones) {
      for (const arr of [Bone.head, Bone.tail]) {
        const x = arr[e * 3]!, y = arr[e * 3 + 1]!, z = arr[e * 3 + 2]!;
        minX = Math.min(minX, x); maxX = Math.max(maxX, x);
        minY = Math.min(minY, y); maxY = Math.max(maxY, y);
        minZ = Math.min(minZ, z); maxZ = Math.max(maxZ, z);
      }
    }
    if (!Number.isFinite(minX)) return;
    const size = Math.max(maxX - minX, maxY - minY, maxZ - minZ, 0.5);
    orbit.target.set((minX + maxX) / 2, (minY + maxY) / 2, (minZ + maxZ) / 2);
    const dist = size * 1.9;
    camera.position.set(orbit.target.x + dist * 0.45, orbit.target.y + dist * 0.35, orbit.target.z + dist * 0.85);
    camera.near = size * 0.005;
    camera.far = size * 100;
    camera.updateProjectionMatrix();
    orbit.update();
  }

  function dispose(): void {
    disposeBuffers();
    orbit.dispose();
    for (const g of [boneGeo, sphereGeo, discGeo]) g.dispose();
    for (const mt of [boneMat, jointMat, dotMat, handleMat, comMat, shadowMat, springMat, plumbMat]) mt.dispose();
    grid.geometry.dispose();
    (grid.material as LineBasicMaterial).dispose();
    renderer.dispose();
  }

  buf = build();
  frame();
  return { scene, camera, renderer, orbit, update, pickTarget, project, rayAt, frame, handleRadius, dispose };
}
