/**
 * three.js view of a physik world (browser only): a renderer, a camera with OrbitControls, a
 * floor grid and lights, and the layers that draw the world, each in a file of its own:
 *
 * - rigLayer.ts: every rig's bones (coloured by limit excess), joints, control points and
 *   centre of mass;
 * - ghostLayers.ts: translucent ghosts of another simulation ('compare', 'rapier');
 * - onionLayer.ts: onion skins of recent poses;
 * - selectionLayer.ts: the selected bone's outline and its joint's limit gizmo;
 * - picking.ts: handle and bone picking, rays and projection;
 * - labelLayer.ts: the centre of mass's label.
 *
 * Insets (`setInsets`: the page's panel, plots and strips over the canvas) shift the camera's
 * centre into the free part of the view, and `frame()` fits the page's own rig (not a crowd) into that part.
 *
 * More layers (a skinned mesh, labels...) join through `addLayer`: each is written every frame
 * before the render, may add to the bounds `frame()` takes in, and is disposed with the view.
 *
 * `update()` only reads the stores and writes into buffers allocated when the view is built:
 * no allocation per frame. When rigs are added or removed, the next `update()` rebuilds the
 * buffers once (that frame allocates), and the onion ring is cleared then.
 *
 * The floor and its grid follow the rigs (floor.ts): at their lowest point when framed, cells
 * of a round size from their height. With a character's mesh drawn (characterLayer.ts), the
 * bones can be drawn over it, through it (X-ray: `setBonesOverlay('xray')`) or not at all.
 *
 * Limits: no shadows; no per-bone radius (octahedron width is a fixed fraction of the length,
 * as in Blender); kinematic-solver rigs are drawn the same way.
 */
import {
  AmbientLight, Color, DirectionalLight, GridHelper, HemisphereLight, LineBasicMaterial, PerspectiveCamera,
  Scene, Vector2, Vector3, WebGLRenderer, type Material, type Object3D, type Ray,
} from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';
import type { PhysikWorld } from '../core';
import { createShapes, growBounds, type Bounds, type Shapes } from './shapes';
import { createRigLayer } from './rigLayer';
import { createGhostLayers, worldGhostSource, type GhostInfo, type GhostLayerName, type GhostSource } from './ghostLayers';
import { createOnionLayer } from './onionLayer';
import { createSelectionLayer } from './selectionLayer';
import { choosePick, createPicking, type BonePick, type LayerPick } from './picking';
import { createComLabel } from './labelLayer';
import { floorFor, type FloorPlan } from './floor';

export { CROWD_BONES, LIMIT_RED_DEG } from './rigLayer';
export { ONION_MAX } from './onionLayer';
export { createOctahedronGeometry, jointRadiusOf, type Bounds, type Shapes } from './shapes';
export { worldGhostSource, type GhostFrame, type GhostLayerName, type GhostSource, type GhostInfo } from './ghostLayers';
export type { BonePick } from './picking';

const BACKGROUND = 0x24282f;

/** A layer added to the view: written every frame before the render. */
export interface ViewLayer {
  /** Read what it draws and write its buffers (no allocation per frame). */
  update(): void;
  /** Grow the bounds `frame()` takes in (optional). */
  grow?(bounds: Bounds): void;
  /** The bone under a ray through what the layer draws (a character's skinned mesh), `distance` along the ray; null for none (optional). */
  pickBone?(ray: Ray): LayerPick | null;
  /** Light what the layer draws of the bone under the pointer and of the selected bone (entities, −1: none), every frame before `update` (optional). */
  highlight?(hoverBone: number, selectedBone: number): void;
  dispose(): void;
}

export interface View {
  scene: Scene;
  camera: PerspectiveCamera;
  renderer: WebGLRenderer;
  orbit: OrbitControls;
  /** Geometries the layers share (a new layer may draw with them). */
  shapes: Shapes;
  /** Read the world (and the ghosts) and draw one frame (no allocation unless the rigs changed). */
  update(): void;
  /** Add a layer (drawn from the next frame on); returns a function that removes and disposes it. */
  addLayer(layer: ViewLayer): () => void;
  /** Control point whose target handle is under the client (CSS pixel) position, or -1. */
  pickTarget(clientX: number, clientY: number): number;
  /**
   * Bone of the main world (never a ghost's) whose axis passes closest to the ray through a
   * client position, the nearest along the ray among those within about 0.12 × length of the
   * axis (less toward the ends, at least a few pixels); else the bone a layer finds under it
   * (a character's skinned mesh: the bone its hit face is most weighted to, the point on that
   * bone's axis). With the bones drawn over the mesh but not through it ('over'), the mesh wins
   * where it is nearer; with them hidden, only the mesh is picked. Null when none. Handles
   * should win over bones: call `pickTarget` first.
   */
  pickBone(clientX: number, clientY: number): BonePick | null;
  /** Client (CSS pixel) position of a world point, written into `out`; false when behind the camera. */
  project(x: number, y: number, z: number, out: { x: number; y: number }): boolean;
  /** Ray from the camera through a client position (shared object: copy what you keep). */
  rayAt(clientX: number, clientY: number): Ray;
  /** Point the camera at the world's rigs (their bones' and targets' bounds), fitting them into the free part of the view. */
  frame(): void;
  /** CSS pixels along each edge covered by the page (panel, plots, strips): the camera centres on the rest. */
  setInsets(insets: Insets): void;
  readonly insets: Readonly<Insets>;
  /** Draw the control point (or else the bone) under the pointer lighter; -1 for none. */
  setHover(cp: number, bone: number): void;
  /** Which control points are pins, by name (drawn as cubes rather than spheres). */
  setPinTest(isPin: (name: string) => boolean): void;
  /** Radius of the target handles of a rig (scene units). */
  handleRadius(rig: number): number;
  /** Draw every rig of a second world as a translucent ghost over the main one (the 'compare' layer); null = none. */
  setGhost(ghost: PhysikWorld | null): void;
  /** What a ghost layer draws (read every frame); null removes the layer's meshes. */
  setGhostSource(layer: GhostLayerName, source: GhostSource | null): void;
  /** Move a ghost layer by (x, y, z) world units (0, 0, 0: over the main rig). */
  setGhostOffset(layer: GhostLayerName, x: number, y: number, z: number): void;
  /** What a ghost layer drew in the last frame: bones, and whether its meshes are in the scene. */
  ghostInfo(layer: GhostLayerName): GhostInfo;
  /** Draw the bones over the scene (default), through everything else (X-ray), or not at all. */
  setBonesOverlay(mode: 'over' | 'xray' | 'hidden'): void;
  /** Where the floor grid is (placed by `frame()` from the rigs). */
  readonly floor: Readonly<FloorPlan>;
  /** Highlight a bone of the main world and draw its joint's angular limits; -1 = none. */
  setSelectedBone(bone: number): void;
  /** The bone highlighted (`setSelectedBone`), or -1. */
  readonly selectedBone: number;
  /** Point the camera at the selected bone, from where it looks now (no bone selected: `frame()`). */
  frameSelected(): void;
  /** How many recorded poses to draw as onion skins (0 = off, at most ONION_MAX). */
  setOnionSkins(count: number): void;
  /** Snapshot the main world's current bone pose into the onion ring (call at a fixed simulated-time interval). */
  recordOnionPose(): void;
  /** Forget the recorded onion poses (e.g. on reset). */
  clearOnion(): void;
  dispose(): void;
}

/** CSS pixels covered along each edge of the view. */
export interface Insets { left: number; right: number; top: number; bottom: number }

/** Share of the free part of the view the framed rigs may fill. */
const FILL = 0.86;

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
  let grid = new GridHelper(10, 40, 0x6a7382, 0x3c424c);
  scene.add(grid);
  let floor: FloorPlan = { y: 0, x: 0, z: 0, size: 10, cell: 0.25, divisions: 40 };
  /** The grid under the rigs as they stand, sized from them (rebuilt only when its plan changes). */
  function placeFloor(): void {
    const plan = floorFor(world);
    if (plan.size !== floor.size || plan.divisions !== floor.divisions) {
      scene.remove(grid);
      grid.geometry.dispose();
      (grid.material as LineBasicMaterial).dispose();
      grid = new GridHelper(plan.size, plan.divisions, 0x6a7382, 0x3c424c);
      scene.add(grid);
    }
    grid.position.set(plan.x, plan.y, plan.z);
    floor = plan;
  }

  const orbit = new OrbitControls(camera, canvas);
  orbit.target.set(0, 1, 0);
  orbit.enableDamping = false;
  orbit.update();

  const shapes = createShapes();
  const rigs = createRigLayer(world, scene, shapes);
  const ghosts = createGhostLayers(scene, shapes);
  const onion = createOnionLayer(world, scene, shapes);
  const selection = createSelectionLayer(world, scene, shapes);
  const picking = createPicking(canvas, camera, world, rigs);
  const extra: ViewLayer[] = [createComLabel(world, canvas, picking.project)];
  const insets: Insets = { left: 0, right: 0, top: 0, bottom: 0 };
  let selectedBone = -1;
  let hoverBone = -1;
  let bonesOverlay: 'over' | 'xray' | 'hidden' = 'over';

  function pickBone(clientX: number, clientY: number): BonePick | null {
    const stick = bonesOverlay === 'hidden' ? null : picking.pickBone(clientX, clientY);
    const ray = picking.rayAt(clientX, clientY);
    return choosePick(bonesOverlay, stick, ray.origin, () => {
      let nearest: LayerPick | null = null;
      for (const L of extra) {
        const p = L.pickBone?.(ray);
        if (p && (!nearest || p.distance < nearest.distance)) nearest = p;
      }
      return nearest;
    });
  }

  const lastSize = new Vector2(-1, -1);
  function resize(): void {
    const w = canvas.clientWidth || canvas.width, h = canvas.clientHeight || canvas.height;
    if (w === lastSize.x && h === lastSize.y) return;
    lastSize.set(w, h);
    renderer.setSize(w, h, false);
    camera.aspect = w / Math.max(1, h);
    offset();
  }

  /** The free part of the view: its size and centre in CSS pixels. */
  function free(): { w: number; h: number; cx: number; cy: number } {
    const W = canvas.clientWidth || canvas.width, H = canvas.clientHeight || canvas.height;
    let { left, right, top, bottom } = insets;
    // never leave less than a quarter of the view: the insets shrink in proportion
    const room = (size: number, a: number, b: number) => (size - a - b < size / 4 ? (0.75 * size) / Math.max(1e-9, a + b) : 1);
    const kx = room(W, left, right), ky = room(H, top, bottom);
    left *= kx; right *= kx; top *= ky; bottom *= ky;
    const w = W - left - right, h = H - top - bottom;
    return { w, h, cx: left + w / 2, cy: top + h / 2 };
  }

  /** Put the camera's centre at the free part's centre. */
  function offset(): void {
    const W = canvas.clientWidth || canvas.width, H = canvas.clientHeight || canvas.height;
    const f = free();
    if (W > 0 && H > 0) camera.setViewOffset(W, H, W / 2 - f.cx, H / 2 - f.cy, W, H);
    camera.updateProjectionMatrix();
  }

  function update(): void {
    resize();
    // the onion ring only cares about the bones: a new control point keeps it
    onion.fit(rigs.current().boneEids);
    rigs.write(selectedBone);
    ghosts.write();
    onion.write();
    selection.write(selectedBone);
    for (let i = 0; i < extra.length; i++) {
      const L = extra[i]!;
      L.highlight?.(hoverBone, selectedBone);
      L.update();
    }
    orbit.update();
    renderer.render(scene, camera);
  }

  const bounds: Bounds = { min: new Vector3(), max: new Vector3() };
  const corner = new Vector3();
  const VIEW_DIRECTION = new Vector3(0.45, 0.35, 0.85).normalize();
  function frame(): void {
    placeFloor();
    const { Bone } = world.physik;
    bounds.min.setScalar(Infinity);
    bounds.max.setScalar(-Infinity);
    const { ControlPoint } = world.physik;
    // the page's own rig, the first (a crowd's copies come after it and stand behind it)
    for (const r of world.physik.rigs.slice(0, 1)) {
      for (const e of r.bones) for (const arr of [Bone.head, Bone.tail]) growBounds(bounds, arr[e * 3]!, arr[e * 3 + 1]!, arr[e * 3 + 2]!);
      // the handles too: the body is on its way to them
      for (const cp of r.controlPoints) growBounds(bounds, ControlPoint.target[cp * 3]!, ControlPoint.target[cp * 3 + 1]!, ControlPoint.target[cp * 3 + 2]!);
    }
    ghosts.grow(bounds);
    for (const L of extra) L.grow?.(bounds);
    fit(VIEW_DIRECTION, 0.5);
  }

  const looking = new Vector3();
  /** The selected bone framed from where the camera is now, with room around it. */
  function frameSelected(): void {
    const { Bone, Rig } = world.physik;
    const b = selectedBone;
    if (b < 0 || !Number.isFinite(Bone.head[b * 3]!)) { frame(); return; }
    bounds.min.setScalar(Infinity);
    bounds.max.setScalar(-Infinity);
    for (const arr of [Bone.head, Bone.tail]) growBounds(bounds, arr[b * 3]!, arr[b * 3 + 1]!, arr[b * 3 + 2]!);
    looking.copy(camera.position).sub(orbit.target);
    if (!(looking.lengthSq() > 0) || !Number.isFinite(looking.lengthSq())) looking.copy(VIEW_DIRECTION);
    // never closer than a quarter of the rig's height: the bone is seen with what is around it
    const least = 0.25 * (Rig.height[Bone.rig[b]!]! || 1);
    for (const k of ['x', 'y', 'z'] as const) {
      const grow = Math.max(0, least - (bounds.max[k] - bounds.min[k])) / 2;
      bounds.min[k] -= grow;
      bounds.max[k] += grow;
    }
    fit(looking.normalize(), least);
  }

  /** Fit `bounds` (at least `minSize` across) into the free part of the view, looking along −`direction`. */
  function fit(direction: Vector3, minSize: number): void {
    const { min, max } = bounds;
    if (!Number.isFinite(min.x)) return;
    resize();
    const size = Math.max(max.x - min.x, max.y - min.y, max.z - min.z, minSize);
    orbit.target.set((min.x + max.x) / 2, (min.y + max.y) / 2, (min.z + max.z) / 2);
    camera.near = size * 0.005;
    camera.far = size * 100;
    offset();
    // fit: project the bounds' corners and move the camera until they fill the free part
    const f = free();
    let dist = size * 1.9;
    for (let pass = 0; pass < 3; pass++) {
      camera.position.copy(orbit.target).addScaledVector(direction, dist);
      camera.lookAt(orbit.target);
      camera.updateMatrixWorld();
      let need = 0;
      for (let k = 0; k < 8; k++) {
        corner.set(k & 1 ? max.x : min.x, k & 2 ? max.y : min.y, k & 4 ? max.z : min.z);
        const at = { x: 0, y: 0 };
        picking.project(corner.x, corner.y, corner.z, at);
        const rect = canvas.getBoundingClientRect();
        need = Math.max(need, Math.abs(at.x - rect.left - f.cx) / (0.5 * FILL * f.w), Math.abs(at.y - rect.top - f.cy) / (0.5 * FILL * f.h));
      }
      if (!(need > 0) || !Number.isFinite(need)) break;
      dist *= need;
    }
    camera.position.copy(orbit.target).addScaledVector(direction, dist);
    orbit.update();
  }

  function dispose(): void {
    for (const L of extra.splice(0)) L.dispose();
    rigs.dispose();
    ghosts.dispose();
    onion.dispose();
    selection.dispose();
    shapes.dispose();
    orbit.dispose();
    grid.geometry.dispose();
    (grid.material as LineBasicMaterial).dispose();
    renderer.dispose();
  }

  onion.fit(rigs.current().boneEids);
  frame();
  return {
    scene, camera, renderer, orbit, shapes, update, frame, dispose,
    ...picking,
    pickBone,
    addLayer(layer) {
      extra.push(layer);
      return () => {
        const i = extra.indexOf(layer);
        if (i >= 0) { extra.splice(i, 1); layer.dispose(); }
      };
    },
    handleRadius: rigs.handleRadius,
    setInsets(next) {
      Object.assign(insets, next);
      offset();
    },
    get insets() { return insets; },
    setHover(cp, bone) {
      hoverBone = cp >= 0 ? -1 : bone;
      rigs.hover(cp, bone);
    },
    setPinTest: rigs.setPinTest,
    setGhost: (w) => ghosts.setSource('compare', w ? worldGhostSource(w) : null),
    setGhostSource: ghosts.setSource,
    setGhostOffset: ghosts.setOffset,
    ghostInfo: ghosts.info,
    setSelectedBone(bone) { selectedBone = Number.isInteger(bone) && bone >= 0 ? bone : -1; },
    get selectedBone() { return selectedBone; },
    frameSelected,
    setBonesOverlay(mode) {
      bonesOverlay = mode;
      rigs.group.visible = mode !== 'hidden';
      // X-ray: drawn last, over whatever is in front (a character's mesh)
      rigs.group.traverse((o) => {
        const m = o as Object3D & { material?: Material | Material[] };
        o.renderOrder = mode === 'xray' ? 10 : 0;
        for (const mat of m.material ? (Array.isArray(m.material) ? m.material : [m.material]) : []) mat.depthTest = mode !== 'xray';
      });
    },
    get floor() { return floor; },
    setOnionSkins: onion.setCount,
    recordOnionPose: () => onion.record(rigs.current().boneEids),
    clearOnion: onion.clear,
  };
}
