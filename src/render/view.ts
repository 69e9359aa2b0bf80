/**
 * three.js view of a physik world (browser only): draws every rig of the world.
 *
 * - Bones: Blender-style octahedra (one shared geometry, one InstancedMesh for the whole
 *   world), instance matrix = translate(head) · rotate(Bone.rot) · scale(length); the bone's
 *   local +Y runs from head to tail. Colour per bone by how far its joint is pressed past its
 *   angular limits, in the stretched-red / squeezed-blue convention: past a max toward red, below a
 *   min toward blue; 0 = neutral grey, LIMIT_RED_DEG of excess (or more) = full colour.
 * - Joint spheres at every head and at tails no child starts from (InstancedMesh, low-poly);
 *   in a crowd (more than CROWD_BONES bones in the world) only the first rig gets them.
 * - Control points: attachment dot, target handle sphere (orange when active, grey when
 *   inactive, violet for poles) and a line segment for the spring between them.
 * - Each rig's centre of mass (Rig.centreOfMass) with a plumb line to its projection on the floor (y = 0).
 * - Floor grid, hemisphere + directional light, OrbitControls.
 * - Selected bone (`setSelectedBone`): drawn yellow with an edge outline on top, and at its
 *   head a gizmo of its angular limits, per enabled axis of the joint frame (x red, y green,
 *   z blue): a translucent fan from min to max showing where the bone would point when turned
 *   about that axis alone (twist, y, sweeps the frame's +Z instead, since it does not move the
 *   bone), and a marker at the current angle (`jointRotationVector`). Geometry in ./limits.ts.
 * - Ghosts: translucent bones and joints of another simulation, no handles, no centre of mass,
 *   in layers of their own: 'compare' (`setGhost`: every rig of a second world, e.g. another
 *   solver run side by side; cyan) and 'rapier' (the Rapier cross-check's rig; magenta, its
 *   bones a wider shell than the main rig's, so drawn over it the two show where they part).
 *   A layer draws whatever its `GhostSource` hands it each frame (head, rotation, length per
 *   bone; `worldGhostSource` reads a world), optionally moved by an offset (`setGhostOffset`:
 *   beside the main rig rather than over it; `frame()` then takes it in).
 * - Onion skins (`setOnionSkins`, `recordOnionPose`, `clearOnion`): the app records the main
 *   world's bone matrices at a fixed simulated-time interval into a ring of 8 poses; the last
 *   `count` are drawn as faint bones, fading with age.
 * - Picking: `pickTarget` (handles) and `pickBone` (closest bone axis to the ray). Handles
 *   should win over bones, so callers try `pickTarget` first.
 *
 * `update()` only reads the stores and writes into buffers allocated when the view is built
 * (scratch Matrix4/Vector3/Quaternion/Color reused): no allocation per frame. The buffers are
 * sized from the world's rigs at creation; if rigs are added or removed later, the next
 * `update()` rebuilds them once (that frame allocates), and the onion ring is cleared then; a
 * ghost layer's meshes grow when its source hands it more bones than they hold.
 *
 * Limits: no shadows; no per-bone radius (octahedron width is a fixed fraction of the length,
 * as in Blender); the floor is the plane y = 0 whatever the scene; kinematic-solver rigs are
 * drawn the same way. Bone picking tests the head→tail axis with a tolerance shaped like the
 * octahedron (0.12 × length at the waist, 0.03 × length at the ends, at least a few pixels), not
 * the octahedron's faces. The limit gizmo shows each axis alone: for a
 * joint turned about several axes the bone is not on any one arc, and the twist marker shows
 * the twist component, not where a point on the bone is. Ghost and onion bones are
 * transparent without depth sorting between instances (faint overlaps may blend in either
 * order). The onion ring holds the main world's bones only.
 */
import {
  AmbientLight, BufferAttribute, BufferGeometry, Color, DirectionalLight, DoubleSide, DynamicDrawUsage,
  EdgesGeometry, GridHelper, Group, HemisphereLight, InstancedBufferAttribute, InstancedMesh, Line,
  LineBasicMaterial, LineSegments, Matrix4, Mesh, MeshBasicMaterial, MeshStandardMaterial,
  PerspectiveCamera, Quaternion, Ray, Scene, SphereGeometry, Vector2, Vector3, WebGLRenderer,
  CircleGeometry, Raycaster,
} from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';
import type { PhysikWorld } from '../core';
import { jointRotationVector } from '../world/jointRotation';
import {
  LIMIT_ARC_SEGMENTS, jointFrame, limitDirection, limitFanIndex, limitOutlineIndex,
  raySegmentClosest, writeLimitFan,
} from './limits';

/** Bones in the world above which only the first rig gets joint spheres (see writeBuffers). */
export const CROWD_BONES = 300;

/** Limit excess (degrees) at which a bone is drawn fully red. */
export const LIMIT_RED_DEG = 10;
/** Most onion skins drawn (and poses kept in the ring). */
export const ONION_MAX = 8;
/** Opacity of the newest and of the oldest onion skin. */
const ONION_NEWEST = 0.3, ONION_OLDEST = 0.08;
/**
 * Bone picking tolerance around the axis, as a fraction of the bone's length: PICK_FRACTION at
 * the octahedron's waist, tapering like the octahedron to PICK_END_FRACTION at head and tail (so
 * a short bone is not hidden behind the fat end of its neighbour), or PICK_PIXELS CSS pixels if larger.
 */
const PICK_FRACTION = 0.12, PICK_END_FRACTION = 0.03, PICK_PIXELS = 5;
/** Limit gizmo radius as a fraction of the selected bone's length. */
const LIMIT_RADIUS = 0.35;

const NEUTRAL = new Color(0xc9d1dc);
const SELECTED = new Color(0xffd84a);
const RED = new Color(0xff2a2a);
const BLUE = new Color(0x2a7bff);
const HANDLE_ACTIVE = new Color(0xffa024);
const HANDLE_INACTIVE = new Color(0x7a7f88);
const HANDLE_POLE = new Color(0xb070ff);
const GHOST = 0x5fd4ff;
/** The Rapier cross-check's ghost (magenta: apart from the bones' grey/red/blue and the compare ghost's cyan). */
const RAPIER_GHOST = 0xff4fd8;
const ONION = 0xd8def0;
/** Limit gizmo colour per joint-frame axis x, y, z. */
const AXIS_COLOURS = [0xff5a5a, 0x5ee07a, 0x5a9bff] as const;
const BACKGROUND = 0x24282f;
/** Overlays (selection outline, limit gizmo) draw after everything else, through it. */
const OVERLAY_ORDER = 10;

/** Where the octahedron is widest, as a fraction of the bone's length from the head. */
const OCTAHEDRON_WAIST = 0.1;

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

/** A bone under the pointer: `at` in [0, 1] from head to tail, `point` on the bone's axis (world). */
export interface BonePick {
  bone: number;
  at: number;
  point: [number, number, number];
}

export interface View {
  scene: Scene;
  camera: PerspectiveCamera;
  renderer: WebGLRenderer;
  orbit: OrbitControls;
  /** Read the world (and the ghost) and draw one frame (no allocation unless the rigs changed). */
  update(): void;
  /** Control point whose target handle is under the client (CSS pixel) position, or -1. */
  pickTarget(clientX: number, clientY: number): number;
  /**
   * Bone of the main world (never the ghost's) whose axis passes closest to the ray through a
   * client position, the nearest along the ray among those within about 0.12 × length of the
   * axis (less toward the ends, at least a few pixels); null when none. Handles should win over bones: call `pickTarget` first.
   */
  pickBone(clientX: number, clientY: number): BonePick | null;
  /** Client (CSS pixel) position of a world point, written into `out`; false when behind the camera. */
  project(x: number, y: number, z: number, out: { x: number; y: number }): boolean;
  /** Ray from the camera through a client position (shared object: copy what you keep). */
  rayAt(clientX: number, clientY: number): Ray;
  /** Point the camera at the world's rigs (their current bounds). */
  frame(): void;
  /** Radius of the target handles of a rig (scene units). */
  handleRadius(rig: number): number;
  /** Draw every rig of a second world as a translucent ghost over the main one (the 'compare' layer); null = none. */
  setGhost(ghost: PhysikWorld | null): void;
  /** What a ghost layer draws (read every frame); null removes the layer's meshes. */
  setGhostSource(layer: GhostLayerName, source: GhostSource | null): void;
  /** Move a ghost layer by (x, y, z) world units (0, 0, 0: over the main rig). */
  setGhostOffset(layer: GhostLayerName, x: number, y: number, z: number): void;
  /** What a ghost layer drew in the last frame: bones, and whether its meshes are in the scene. */
  ghostInfo(layer: GhostLayerName): { bones: number; drawn: boolean; offset: [number, number, number] };
  /** Highlight a bone of the main world and draw its joint's angular limits; -1 = none. */
  setSelectedBone(bone: number): void;
  /** How many recorded poses to draw as onion skins (0 = off, at most ONION_MAX). */
  setOnionSkins(count: number): void;
  /** Snapshot the main world's current bone pose into the onion ring (call at a fixed simulated-time interval). */
  recordOnionPose(): void;
  /** Forget the recorded onion poses (e.g. on reset). */
  clearOnion(): void;
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
  /** Bone entities in drawing order (all rigs), to notice a changed hierarchy. */
  boneEids: Int32Array;
  /** Control point entity per handle instance. */
  handleCp: Int32Array;
  handleRig: Int32Array;
}

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

/** Joint-sphere radius of a rig `height` tall (main rig and ghosts alike). */
export const jointRadiusOf = (height: number) => Math.max(0.006, height * 0.008);

/** A ghost layer's meshes (grown on demand), materials and what it draws. */
interface GhostLayer {
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
  /** The last frame drawn (for `frame()`), or null. */
  last: GhostFrame | null;
}

/**
 * Onion skins: a ring of ONION_MAX poses of the main world's bones, one InstancedMesh per slot
 * whose instance matrices are a view into `ring` (so recording writes straight into what is
 * drawn, and only the per-slot opacity changes as poses age).
 */
interface Onion {
  ring: Float32Array;
  meshes: InstancedMesh[];
  boneEids: Int32Array;
  /** Slot the next pose goes into, and how many slots hold a pose. */
  next: number;
  filled: number;
}

/** Limit gizmo of one joint-frame axis: fan and outline share the points; a marker at the current angle. */
interface AxisGizmo {
  points: BufferAttribute;
  fan: Mesh;
  outline: Line;
  marker: Line;
  markerPoints: BufferAttribute;
  tip: Mesh;
}

function boneEidsOf(world: PhysikWorld): Int32Array {
  let n = 0;
  for (const r of world.physik.rigs) n += r.bones.length;
  const out = new Int32Array(n);
  let k = 0;
  for (const r of world.physik.rigs) for (let i = 0; i < r.bones.length; i++) out[k++] = r.bones[i]!;
  return out;
}

/** Whether the world's bones are still `eids`, in order (no allocation). */
function sameBones(world: PhysikWorld, eids: Int32Array): boolean {
  let k = 0;
  for (const r of world.physik.rigs) {
    if (k + r.bones.length > eids.length) return false;
    for (let i = 0; i < r.bones.length; i++) if (eids[k++] !== r.bones[i]) return false;
  }
  return k === eids.length;
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
  const boneEdgeGeo = new EdgesGeometry(boneGeo);
  const sphereGeo = new SphereGeometry(1, 12, 8);
  // joints are many and small: 48 triangles each keeps a crowd of 100 humanoids (3600 joints)
  // cheap even on a software renderer (16 × 12 made it 1.4M triangles, 0.7 s a frame on SwiftShader)
  const jointGeo = new SphereGeometry(1, 8, 4);
  const discGeo = new CircleGeometry(1, 24).rotateX(-Math.PI / 2);
  const boneMat = new MeshStandardMaterial({ color: 0xffffff, flatShading: true, roughness: 0.6, metalness: 0.05 });
  const jointMat = new MeshStandardMaterial({ color: 0x8d97a6, roughness: 0.5 });
  const dotMat = new MeshBasicMaterial({ color: 0xfff06a });
  const handleMat = new MeshStandardMaterial({ color: 0xffffff, roughness: 0.35, emissive: 0x302010 });
  const comMat = new MeshStandardMaterial({ color: 0x4fd1ff, roughness: 0.3, emissive: 0x0a3040 });
  const shadowMat = new MeshBasicMaterial({ color: 0x4fd1ff, transparent: true, opacity: 0.45, depthWrite: false });
  const springMat = new LineBasicMaterial({ color: 0xffc36a });
  const plumbMat = new LineBasicMaterial({ color: 0x4fd1ff, transparent: true, opacity: 0.6 });
  const ghostBoneMat = new MeshStandardMaterial({
    color: GHOST, emissive: 0x0b3444, flatShading: true, roughness: 0.5, transparent: true, opacity: 0.35, depthWrite: false,
  });
  const ghostJointMat = new MeshStandardMaterial({ color: GHOST, roughness: 0.5, transparent: true, opacity: 0.45, depthWrite: false });
  // the Rapier ghost usually sits within a few per cent of the main rig: a wider, brighter shell
  // around each bone stays visible over it and shows where the two part
  const rapierBoneGeo = createOctahedronGeometry(0.16);
  const rapierBoneMat = new MeshStandardMaterial({
    color: RAPIER_GHOST, emissive: 0x44103a, flatShading: true, roughness: 0.5, transparent: true, opacity: 0.4, depthWrite: false,
  });
  const rapierJointMat = new MeshStandardMaterial({ color: RAPIER_GHOST, roughness: 0.5, transparent: true, opacity: 0.5, depthWrite: false });
  // one material per onion slot: a slot's opacity follows the age of the pose it holds
  const onionMats: MeshStandardMaterial[] = [];
  for (let i = 0; i < ONION_MAX; i++) {
    onionMats.push(new MeshStandardMaterial({ color: ONION, flatShading: true, roughness: 0.7, transparent: true, opacity: ONION_NEWEST, depthWrite: false }));
  }
  const selectionMat = new LineBasicMaterial({ color: SELECTED, transparent: true, opacity: 0.95, depthTest: false });

  const group = new Group();
  scene.add(group);
  const layer = (boneGeometry: BufferGeometry, boneMaterial: MeshStandardMaterial, jointMaterial: MeshStandardMaterial): GhostLayer => {
    const g = new Group();
    scene.add(g);
    return { group: g, boneGeo: boneGeometry, boneMat: boneMaterial, jointMat: jointMaterial, source: null, bones: null, joints: null, capacity: 0, drawn: 0, last: null };
  };
  const ghostLayers: Record<GhostLayerName, GhostLayer> = {
    compare: layer(boneGeo, ghostBoneMat, ghostJointMat),
    rapier: layer(rapierBoneGeo, rapierBoneMat, rapierJointMat),
  };
  const layerList = [ghostLayers.compare, ghostLayers.rapier];
  const onionGroup = new Group();
  scene.add(onionGroup);
  const overlay = new Group();
  overlay.renderOrder = OVERLAY_ORDER;
  scene.add(overlay);

  // scratch (reused every frame)
  const m = new Matrix4();
  const p = new Vector3();
  const q = new Quaternion();
  const s = new Vector3();
  const c = new Color();
  const phi = new Float64Array(3);
  const frameQ = new Float64Array(4);
  const dir = new Float64Array(3);
  const closest = new Float64Array(3);
  const ndc = new Vector2();
  const raycaster = new Raycaster();
  const toPoint = new Vector3();
  const lastSize = new Vector2(-1, -1);

  let buf: Buffers | undefined;
  let onion: Onion | undefined;
  let onionCount = 0;
  let selectedBone = -1;

  function instanced(geo: BufferGeometry, mat: MeshStandardMaterial | MeshBasicMaterial, n: number, colours: boolean, parent: Group = group): InstancedMesh {
    const mesh = new InstancedMesh(geo, mat, Math.max(1, n));
    mesh.count = n;
    mesh.instanceMatrix.setUsage(DynamicDrawUsage);
    mesh.frustumCulled = false; // bounds move every frame
    if (colours) for (let i = 0; i < Math.max(1, n); i++) mesh.setColorAt(i, NEUTRAL);
    parent.add(mesh);
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

  // ---------- selection outline and limit gizmo (built once, shown for the selected bone) ----------

  const selectionOutline = new LineSegments(boneEdgeGeo, selectionMat);
  selectionOutline.renderOrder = OVERLAY_ORDER;
  selectionOutline.frustumCulled = false;
  selectionOutline.visible = false;
  overlay.add(selectionOutline);

  const fanIndex = new BufferAttribute(limitFanIndex(LIMIT_ARC_SEGMENTS), 1);
  const outlineIndex = new BufferAttribute(limitOutlineIndex(LIMIT_ARC_SEGMENTS), 1);
  const gizmoGeos: BufferGeometry[] = [];
  const gizmoMats: (MeshBasicMaterial | LineBasicMaterial)[] = [];
  const axisGizmos: AxisGizmo[] = [];
  for (let a = 0; a < 3; a++) {
    const colour = AXIS_COLOURS[a]!;
    const points = new BufferAttribute(new Float32Array((LIMIT_ARC_SEGMENTS + 2) * 3), 3);
    points.setUsage(DynamicDrawUsage);
    const fanGeo = new BufferGeometry();
    fanGeo.setAttribute('position', points);
    fanGeo.setIndex(fanIndex);
    const outlineGeo = new BufferGeometry();
    outlineGeo.setAttribute('position', points);
    outlineGeo.setIndex(outlineIndex);
    const markerPoints = new BufferAttribute(new Float32Array(6), 3);
    markerPoints.setUsage(DynamicDrawUsage);
    const markerGeo = new BufferGeometry();
    markerGeo.setAttribute('position', markerPoints);
    const fanMat = new MeshBasicMaterial({ color: colour, transparent: true, opacity: 0.2, side: DoubleSide, depthWrite: false, depthTest: false });
    const lineMat = new LineBasicMaterial({ color: colour, transparent: true, opacity: 0.85, depthTest: false });
    const tipMat = new MeshBasicMaterial({ color: colour, depthTest: false });
    gizmoGeos.push(fanGeo, outlineGeo, markerGeo);
    gizmoMats.push(fanMat, lineMat, tipMat);
    const fan = new Mesh(fanGeo, fanMat);
    const outline = new Line(outlineGeo, lineMat);
    const marker = new Line(markerGeo, lineMat);
    const tip = new Mesh(sphereGeo, tipMat);
    for (const o of [fan, outline, marker, tip]) {
      o.renderOrder = OVERLAY_ORDER;
      o.frustumCulled = false;
      o.visible = false;
      overlay.add(o);
    }
    axisGizmos.push({ points, fan, outline, marker, markerPoints, tip });
  }

  function hideLimitGizmo(): void {
    for (let a = 0; a < 3; a++) {
      const g = axisGizmos[a]!;
      g.fan.visible = g.outline.visible = g.marker.visible = g.tip.visible = false;
    }
  }

  /** Selection outline and limit gizmo of the selected bone (hidden when it is not in the world). */
  function writeSelection(): void {
    const { Bone, AngularLimit } = world.physik;
    const b = selectedBone;
    let found = false;
    if (b >= 0) for (const r of world.physik.rigs) if (r.bones.includes(b)) { found = true; break; }
    if (!found) {
      selectionOutline.visible = false;
      hideLimitGizmo();
      return;
    }
    const b3 = b * 3, b4 = b * 4;
    const len = Bone.length[b]!;
    const hx = Bone.head[b3]!, hy = Bone.head[b3 + 1]!, hz = Bone.head[b3 + 2]!;
    selectionOutline.visible = true;
    selectionOutline.position.set(hx, hy, hz);
    selectionOutline.quaternion.set(Bone.rot[b4]!, Bone.rot[b4 + 1]!, Bone.rot[b4 + 2]!, Bone.rot[b4 + 3]!);
    selectionOutline.scale.set(len, len, len);

    const parent = Bone.parent[b]!;
    if (parent < 0) { hideLimitGizmo(); return; }
    jointFrame(frameQ, 0, Bone.rot, Bone.restLocal, parent, b);
    jointRotationVector(world, b, phi);
    const radius = LIMIT_RADIUS * len;
    const tipR = Math.max(0.003, 0.03 * len);
    for (let a = 0; a < 3; a++) {
      const g = axisGizmos[a]!;
      const lo = AngularLimit.min[b3 + a]!, hi = AngularLimit.max[b3 + a]!;
      const show = AngularLimit.enabled[b3 + a] === 1 && lo <= hi;
      g.fan.visible = g.outline.visible = g.marker.visible = g.tip.visible = show;
      if (!show) continue;
      writeLimitFan(g.points.array as Float32Array, 0, frameQ, 0, hx, hy, hz, a, lo, hi, radius, LIMIT_ARC_SEGMENTS);
      g.points.needsUpdate = true;
      // the marker reaches a little past the arc so it reads when it sits on an edge
      limitDirection(dir, 0, frameQ, 0, a, phi[a]!);
      const r = radius * 1.2;
      const mp = g.markerPoints.array as Float32Array;
      mp[0] = hx; mp[1] = hy; mp[2] = hz;
      mp[3] = hx + r * dir[0]!; mp[4] = hy + r * dir[1]!; mp[5] = hz + r * dir[2]!;
      g.markerPoints.needsUpdate = true;
      g.tip.position.set(mp[3]!, mp[4]!, mp[5]!);
      g.tip.scale.set(tipR, tipR, tipR);
    }
  }

  // ---------- main world ----------

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
    const joints = instanced(jointGeo, jointMat, nb * 2, false);
    const dots = instanced(jointGeo, dotMat, nc, false);
    const handles = instanced(sphereGeo, handleMat, nc, true);
    const coms = instanced(sphereGeo, comMat, rigs.length, false);
    const comShadows = instanced(discGeo, shadowMat, rigs.length, false);
    return {
      meshes: [bones, joints, dots, handles, coms, comShadows],
      bones, joints, dots, handles, coms, comShadows,
      springs: lines(nc, springMat),
      plumbs: lines(rigs.length, plumbMat),
      boneEids: boneEidsOf(world),
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

  // per rig: whether bone i's tail has a child's head on it (computed once per rig record)
  const tailCache = new WeakMap<object, Uint8Array>();
  function coveredTails(rig: { bones: Int32Array }): Uint8Array {
    let c = tailCache.get(rig);
    if (c) return c;
    const { Bone } = world.physik;
    c = new Uint8Array(rig.bones.length);
    for (let i = 0; i < rig.bones.length; i++) {
      const e = rig.bones[i]!;
      for (let j = 0; j < rig.bones.length; j++) {
        const k = rig.bones[j]!;
        if (Bone.parent[k] === e && Math.abs(Bone.attach[k * 3 + 1]! - Bone.length[e]!) < 1e-9 * Math.max(1, Bone.length[e]!)) { c[i] = 1; break; }
      }
    }
    tailCache.set(rig, c);
    return c;
  }

  function writeBuffers(b: Buffers): void {
    const { Bone, ControlPoint, Rig, AngularLimit } = world.physik;
    let bi = 0, ji = 0, ci = 0, ri = 0;
    const springPos = b.springs.geometry.getAttribute('position') as BufferAttribute;
    const plumbPos = b.plumbs.geometry.getAttribute('position') as BufferAttribute;
    const sp = springPos.array as Float32Array, pp = plumbPos.array as Float32Array;
    for (const rig of world.physik.rigs) {
      const height = Rig.height[rig.eid]!;
      const jointR = jointRadiusOf(height);
      const tailCovered = coveredTails(rig);
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
        c.copy(e === selectedBone ? SELECTED : NEUTRAL);
        if (over >= under) c.lerp(RED, Math.min(1, (over * 180) / Math.PI / LIMIT_RED_DEG));
        else c.lerp(BLUE, Math.min(1, (under * 180) / Math.PI / LIMIT_RED_DEG));
        b.bones.setColorAt(bi, c);
        bi++;
        s.set(jointR, jointR, jointR);
        q.identity();
        m.compose(p, q, s);
        b.joints.setMatrixAt(ji++, m);
        p.set(Bone.tail[e3]!, Bone.tail[e3 + 1]!, Bone.tail[e3 + 2]!);
        // a tail with a child attached there already has that child's head sphere: draw it empty
        if (tailCovered[i]) s.set(0, 0, 0);
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
    // level of detail: in a crowd (more than CROWD_BONES bones) only the first rig, the one
    // being posed, gets joint spheres; the others' joints would cost more than all the bones
    const rigs = world.physik.rigs;
    b.joints.count = ji > 2 * CROWD_BONES && rigs.length > 1 ? 2 * rigs[0]!.bones.length : ji;
    for (let i = 0; i < b.meshes.length; i++) b.meshes[i]!.instanceMatrix.needsUpdate = true;
    b.bones.instanceColor!.needsUpdate = true;
    b.handles.instanceColor!.needsUpdate = true;
    springPos.needsUpdate = true;
    plumbPos.needsUpdate = true;
  }

  function current(): Buffers {
    if (buf && sameTopology(buf)) return buf;
    buf = build();
    // the onion ring only cares about the bones: a new control point keeps it
    if (!onion || !sameBones(world, onion.boneEids)) buildOnion(buf.boneEids);
    return buf;
  }

  function sameTopology(b: Buffers): boolean {
    const rigs = world.physik.rigs;
    if (b.coms.count !== rigs.length) return false;
    let nc = 0;
    for (const r of rigs) nc += r.controlPoints.length;
    if (nc !== b.handles.count || !sameBones(world, b.boneEids)) return false;
    let k = 0;
    for (const r of rigs) for (const cp of r.controlPoints) if (b.handleCp[k++] !== cp) return false;
    return true;
  }

  // ---------- ghost layers ----------

  function disposeLayer(L: GhostLayer): void {
    for (const o of [L.bones, L.joints]) {
      if (!o) continue;
      L.group.remove(o);
      o.dispose();
    }
    L.bones = L.joints = null;
    L.capacity = L.drawn = 0;
    L.last = null;
  }

  /** Draw the layer's source now: meshes grown when it has more bones than they hold. */
  function writeLayer(L: GhostLayer): void {
    const f = L.source ? L.source() : null;
    L.last = f;
    if (!f || f.count === 0) {
      L.drawn = 0;
      if (L.bones) L.bones.count = 0;
      if (L.joints) L.joints.count = 0;
      return;
    }
    if (!L.bones || !L.joints || f.count > L.capacity) {
      disposeLayer(L);
      L.bones = instanced(L.boneGeo, L.boneMat, f.count, false, L.group);
      L.joints = instanced(jointGeo, L.jointMat, f.count * 2, false, L.group);
      L.capacity = f.count;
    }
    const { bones, joints } = L;
    let ji = 0;
    for (let i = 0; i < f.count; i++) {
      const i3 = i * 3, i4 = i * 4;
      const len = f.length[i]!;
      p.set(f.head[i3]!, f.head[i3 + 1]!, f.head[i3 + 2]!);
      q.set(f.rot[i4]!, f.rot[i4 + 1]!, f.rot[i4 + 2]!, f.rot[i4 + 3]!);
      s.set(len, len, len);
      m.compose(p, q, s);
      bones.setMatrixAt(i, m);
      // the tail: head + rot · (0, len, 0)
      toPoint.set(0, len, 0).applyQuaternion(q).add(p);
      const jr = f.jointRadius[i]!;
      s.set(jr, jr, jr);
      q.identity();
      m.compose(p, q, s);
      joints.setMatrixAt(ji++, m);
      m.compose(toPoint, q, s);
      joints.setMatrixAt(ji++, m);
    }
    bones.count = f.count;
    joints.count = ji;
    L.drawn = f.count;
    bones.instanceMatrix.needsUpdate = true;
    joints.instanceMatrix.needsUpdate = true;
  }

  // ---------- onion skins ----------

  function disposeOnion(): void {
    if (!onion) return;
    for (const o of onion.meshes) {
      onionGroup.remove(o);
      o.dispose();
    }
    onion = undefined;
  }

  function buildOnion(boneEids: Int32Array): void {
    disposeOnion();
    const n = boneEids.length, slot = Math.max(1, n) * 16;
    const ring = new Float32Array(ONION_MAX * slot);
    const meshes: InstancedMesh[] = [];
    for (let i = 0; i < ONION_MAX; i++) {
      const mesh = new InstancedMesh(boneGeo, onionMats[i]!, Math.max(1, n));
      mesh.instanceMatrix = new InstancedBufferAttribute(ring.subarray(i * slot, (i + 1) * slot), 16);
      mesh.instanceMatrix.setUsage(DynamicDrawUsage);
      mesh.count = n;
      mesh.frustumCulled = false;
      mesh.visible = false;
      onionGroup.add(mesh);
      meshes.push(mesh);
    }
    onion = { ring, meshes, boneEids: boneEids.slice(), next: 0, filled: 0 };
  }

  function recordOnionPose(): void {
    current(); // rebuilds (and clears) the ring if the bones changed
    const o = onion;
    if (!o) return;
    const { Bone } = world.physik;
    const mesh = o.meshes[o.next]!;
    let bi = 0;
    for (const rig of world.physik.rigs) {
      for (let i = 0; i < rig.bones.length; i++) {
        const e = rig.bones[i]!;
        const e3 = e * 3, e4 = e * 4;
        const len = Bone.length[e]!;
        p.set(Bone.head[e3]!, Bone.head[e3 + 1]!, Bone.head[e3 + 2]!);
        q.set(Bone.rot[e4]!, Bone.rot[e4 + 1]!, Bone.rot[e4 + 2]!, Bone.rot[e4 + 3]!);
        s.set(len, len, len);
        m.compose(p, q, s);
        mesh.setMatrixAt(bi++, m);
      }
    }
    mesh.instanceMatrix.needsUpdate = true;
    o.next = (o.next + 1) % ONION_MAX;
    if (o.filled < ONION_MAX) o.filled++;
  }

  function clearOnion(): void {
    if (!onion) return;
    onion.next = 0;
    onion.filled = 0;
    for (const mesh of onion.meshes) mesh.visible = false;
  }

  /** Show the newest `onionCount` poses, opacity fading with age (age 0 = newest). */
  function writeOnion(): void {
    if (!onion) return;
    const shown = Math.min(onionCount, onion.filled);
    for (let i = 0; i < ONION_MAX; i++) {
      const age = (onion.next - 1 - i + 2 * ONION_MAX) % ONION_MAX;
      const mesh = onion.meshes[i]!;
      mesh.visible = age < shown;
      if (!mesh.visible) continue;
      onionMats[i]!.opacity = shown <= 1 ? ONION_NEWEST : ONION_NEWEST + ((ONION_OLDEST - ONION_NEWEST) * age) / (shown - 1);
    }
  }

  // ---------- frame ----------

  function update(): void {
    resize();
    writeBuffers(current());
    for (let i = 0; i < layerList.length; i++) writeLayer(layerList[i]!);
    writeOnion();
    writeSelection();
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

  function pickBone(clientX: number, clientY: number): BonePick | null {
    const ray = rayAt(clientX, clientY);
    const { Bone } = world.physik;
    const o = ray.origin, d = ray.direction;
    // world size of one CSS pixel at distance t along the ray is t × pixelAngle
    const height = canvas.getBoundingClientRect().height || 1;
    const pixelAngle = (2 * Math.tan((camera.fov * Math.PI) / 360)) / (height * camera.zoom);
    let best = -1, bestT = Infinity, bestD = Infinity, bestTol = 0, bestS = 0;
    for (const rig of world.physik.rigs) {
      for (let i = 0; i < rig.bones.length; i++) {
        const e = rig.bones[i]!, e3 = e * 3;
        raySegmentClosest(o.x, o.y, o.z, d.x, d.y, d.z,
          Bone.head[e3]!, Bone.head[e3 + 1]!, Bone.head[e3 + 2]!,
          Bone.tail[e3]!, Bone.tail[e3 + 1]!, Bone.tail[e3 + 2]!, closest);
        const dist = Math.sqrt(closest[0]!), t = closest[1]!;
        if (t <= 0) continue;
        const at = closest[2]!;
        const taper = at < OCTAHEDRON_WAIST ? at / OCTAHEDRON_WAIST : (1 - at) / (1 - OCTAHEDRON_WAIST);
        const fraction = PICK_END_FRACTION + (PICK_FRACTION - PICK_END_FRACTION) * taper;
        const tol = Math.max(fraction * Bone.length[e]!, PICK_PIXELS * pixelAngle * t);
        if (dist > tol) continue;
        // nearest along the ray; bones meeting at a joint tie in depth, so there the closer axis wins
        const slack = 0.5 * Math.max(tol, bestTol);
        if (best < 0 || t < bestT - slack || (t <= bestT + slack && dist / tol < bestD)) {
          best = e; bestT = t; bestD = dist / tol; bestTol = tol; bestS = at;
        }
      }
    }
    if (best < 0) return null;
    const b3 = best * 3;
    const point: [number, number, number] = [0, 0, 0];
    for (let k = 0; k < 3; k++) point[k] = Bone.head[b3 + k]! + bestS * (Bone.tail[b3 + k]! - Bone.head[b3 + k]!);
    return { bone: best, at: bestS, point };
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
    // ghost layers moved beside the main rig (over it they add nothing)
    for (const L of layerList) {
      const f = L.last, o = L.group.position;
      if (!f || (o.x === 0 && o.y === 0 && o.z === 0)) continue;
      for (let i = 0; i < f.count; i++) {
        const x = f.head[i * 3]! + o.x, y = f.head[i * 3 + 1]! + o.y, z = f.head[i * 3 + 2]! + o.z;
        if (!Number.isFinite(x + y + z)) continue;
        const r = f.length[i]!;
        minX = Math.min(minX, x - r); maxX = Math.max(maxX, x + r);
        minY = Math.min(minY, y - r); maxY = Math.max(maxY, y + r);
        minZ = Math.min(minZ, z - r); maxZ = Math.max(maxZ, z + r);
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

  function setGhost(w: PhysikWorld | null): void {
    setGhostSource('compare', w ? worldGhostSource(w) : null);
  }

  function setGhostSource(name: GhostLayerName, source: GhostSource | null): void {
    const L = ghostLayers[name];
    L.source = source;
    if (!source) disposeLayer(L);
  }

  function setGhostOffset(name: GhostLayerName, x: number, y: number, z: number): void {
    if (!Number.isFinite(x + y + z)) throw new Error(`ghost offset must be finite, got (${x}, ${y}, ${z})`);
    ghostLayers[name].group.position.set(x, y, z);
  }

  function ghostInfo(name: GhostLayerName): { bones: number; drawn: boolean; offset: [number, number, number] } {
    const L = ghostLayers[name], o = L.group.position;
    return { bones: L.drawn, drawn: L.drawn > 0 && L.bones !== null && L.bones.parent === L.group, offset: [o.x, o.y, o.z] };
  }

  function setSelectedBone(bone: number): void {
    selectedBone = Number.isInteger(bone) && bone >= 0 ? bone : -1;
  }

  function setOnionSkins(count: number): void {
    onionCount = Math.max(0, Math.min(ONION_MAX, Math.floor(count) || 0));
  }

  function dispose(): void {
    disposeBuffers();
    for (const L of layerList) disposeLayer(L);
    disposeOnion();
    orbit.dispose();
    for (const g of [boneGeo, rapierBoneGeo, boneEdgeGeo, sphereGeo, jointGeo, discGeo, ...gizmoGeos]) g.dispose();
    for (const mt of [boneMat, jointMat, dotMat, handleMat, comMat, shadowMat, springMat, plumbMat,
      ghostBoneMat, ghostJointMat, rapierBoneMat, rapierJointMat, selectionMat, ...onionMats, ...gizmoMats]) mt.dispose();
    grid.geometry.dispose();
    (grid.material as LineBasicMaterial).dispose();
    renderer.dispose();
  }

  buf = build();
  buildOnion(buf.boneEids);
  frame();
  return {
    scene, camera, renderer, orbit, update, pickTarget, pickBone, project, rayAt, frame, handleRadius,
    setGhost, setGhostSource, setGhostOffset, ghostInfo, setSelectedBone, setOnionSkins, recordOnionPose, clearOnion, dispose,
  };
}
