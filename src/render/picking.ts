/**
 * Picking and projection for the view (browser only): the ray through a client (CSS pixel)
 * position, the target handle under it (`pickTarget`), the bone under it (`pickBone`: the
 * closest bone axis to the ray), and a world point's client position. Handles should win over
 * bones, so callers try `pickTarget` first.
 *
 * Bone picking tests the head→tail axis with a tolerance shaped like the octahedron (0.12 ×
 * length at the waist, 0.03 × length at the ends, at least a few pixels), not its faces.
 */
import { Raycaster, Vector2, Vector3, type PerspectiveCamera, type Ray } from 'three';
import type { PhysikWorld } from '../core';
import { raySegmentClosest } from './limits';
import { OCTAHEDRON_WAIST } from './shapes';
import type { RigLayer } from './rigLayer';

/**
 * Bone picking tolerance around the axis, as a fraction of the bone's length: PICK_FRACTION at
 * the octahedron's waist, tapering like the octahedron to PICK_END_FRACTION at head and tail (so
 * a short bone is not hidden behind the fat end of its neighbour), or PICK_PIXELS CSS pixels if larger.
 */
const PICK_FRACTION = 0.12, PICK_END_FRACTION = 0.03, PICK_PIXELS = 5;

/** A bone under the pointer: `at` in [0, 1] from head to tail, `point` on the bone's axis (world). */
export interface BonePick {
  bone: number;
  at: number;
  point: [number, number, number];
}

/** A bone found under the pointer by a layer (a character's skin), `distance` along the ray. */
export type LayerPick = BonePick & { distance: number };

/**
 * Which bone a press takes when the stick bones and a layer (a character's skin) both may have
 * one: with the bones drawn through everything ('xray') the stick under the pointer wins (what
 * is seen is taken), else the layer's; drawn only where not behind the mesh ('over'), the nearer
 * along the ray; hidden, only the layer's. `stick` is null when no stick is under the pointer;
 * `layer` is asked only when needed (it raycasts the skin).
 */
export function choosePick(
  overlay: 'over' | 'xray' | 'hidden', stick: BonePick | null, origin: { x: number; y: number; z: number }, layer: () => LayerPick | null,
): BonePick | null {
  const seen = overlay === 'hidden' ? null : stick;
  if (seen && overlay === 'xray') return seen;
  const mesh = layer();
  if (!mesh) return seen;
  if (seen) {
    const [x, y, z] = seen.point;
    if (Math.hypot(x - origin.x, y - origin.y, z - origin.z) <= mesh.distance) return seen;
  }
  return { bone: mesh.bone, at: mesh.at, point: mesh.point };
}

export interface Picking {
  rayAt(clientX: number, clientY: number): Ray;
  pickTarget(clientX: number, clientY: number): number;
  pickBone(clientX: number, clientY: number): BonePick | null;
  project(x: number, y: number, z: number, out: { x: number; y: number }): boolean;
}

export function createPicking(canvas: HTMLCanvasElement, camera: PerspectiveCamera, world: PhysikWorld, rigs: RigLayer): Picking {
  const ndc = new Vector2();
  const raycaster = new Raycaster();
  const toPoint = new Vector3();
  const closest = new Float64Array(3);

  function rayAt(clientX: number, clientY: number): Ray {
    const rect = canvas.getBoundingClientRect();
    ndc.set(((clientX - rect.left) / rect.width) * 2 - 1, -((clientY - rect.top) / rect.height) * 2 + 1);
    camera.updateMatrixWorld();
    raycaster.setFromCamera(ndc, camera);
    return raycaster.ray;
  }

  function pickTarget(clientX: number, clientY: number): number {
    const b = rigs.current();
    const ray = rayAt(clientX, clientY);
    const { ControlPoint } = world.physik;
    let best = -1, bestT = Infinity;
    for (let i = 0; i < b.handles.count; i++) {
      const cp = b.handleCp[i]!, c3 = cp * 3;
      toPoint.set(ControlPoint.target[c3]!, ControlPoint.target[c3 + 1]!, ControlPoint.target[c3 + 2]!);
      const r = rigs.handleRadius(b.handleRig[i]!) * 1.6; // a little slack for small handles
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

  return { rayAt, pickTarget, pickBone, project };
}
