/**
 * Dragging control-point targets in the sandbox (browser only).
 *
 * - Press on a target handle and drag: the target moves on the plane through it that faces
 *   the camera, at once on every move (feel.ts setTargetNow: the pointer's path is the
 *   smooth path, so no interpolation trails behind the handle; the rig follows live). The press is taken
 *   in the capture phase, so OrbitControls never sees it; OrbitControls is also disabled
 *   while dragging.
 * - A drag by either tool reports its start (`onStart`) and end (`onEnd`, whether the target
 *   moved), and a move made (`onMoved(cp, from, to)`): the host makes it one undoable step.
 * - The last handle pressed gets a TransformControls gizmo (axis-constrained moves). In three
 *   r169+ TransformControls is not an Object3D: its `getHelper()` goes into the scene.
 *   OrbitControls is disabled while the gizmo drags (`dragging-changed`).
 */
import { Object3D, Plane, Vector3 } from 'three';
import { TransformControls } from 'three/examples/jsm/controls/TransformControls.js';
import type { PhysikWorld } from '../core';
import { setTargetNow } from './feel';
import type { View } from '../render/view';

export interface TargetDragger {
  /** Control point being dragged by either tool, or -1. */
  readonly dragging: number;
  /** Control point the gizmo is attached to, or -1. */
  readonly selected: number;
  select(cp: number): void;
  /** Whether the pointer is over one of the gizmo's axes (a press there belongs to the gizmo). */
  readonly gizmoHovered: boolean;
  /** Keep the gizmo on the selected target (scripted moves, reset); call once a frame. */
  sync(): void;
  dispose(): void;
}

export interface DraggerHooks {
  /** A drag of control point `cp` begins (nothing has moved yet). */
  onStart?(cp: number): void;
  /** The drag of `cp` ended; `moved`: whether its target moved. */
  onEnd?(cp: number, moved: boolean): void;
  /** A drag of control point `cp` ended, moving its target from `from` to `to`. */
  onMoved?(cp: number, from: [number, number, number], to: [number, number, number]): void;
  /** The gizmo was attached to `cp` (-1: detached). */
  onSelect?(cp: number): void;
  /** Move a target while dragging (default: setTargetNow on the world; worker mode also posts it to the worker). */
  setTarget?(cp: number, to: Float64Array): void;
}

export function createTargetDragger(world: PhysikWorld, view: View, canvas: HTMLCanvasElement, hooks: DraggerHooks = {}): TargetDragger {
  const { ControlPoint } = world.physik;
  const moveTarget = hooks.setTarget ?? ((cp: number, to: Float64Array) => setTargetNow(world, cp, to));
  const proxy = new Object3D();
  view.scene.add(proxy);
  const gizmo = new TransformControls(view.camera, canvas);
  gizmo.setSize(0.7);
  const helper = gizmo.getHelper();
  view.scene.add(helper);

  let selected = -1;
  let planeDrag = -1;
  let gizmoDrag = false;
  let pointerId = -1;
  const plane = new Plane();
  const hit = new Vector3();
  const grab = new Vector3(); // target − hit point at the press: no jump when grabbing off-centre
  const normal = new Vector3();
  const tmp = new Float64Array(3);
  let from: [number, number, number] = [0, 0, 0]; // target when the current drag began

  const targetNow = (cp: number): [number, number, number] =>
    [ControlPoint.target[cp * 3]!, ControlPoint.target[cp * 3 + 1]!, ControlPoint.target[cp * 3 + 2]!];
  const moved = (cp: number) => {
    const to = targetNow(cp);
    const changed = to[0] !== from[0] || to[1] !== from[1] || to[2] !== from[2];
    if (changed) hooks.onMoved?.(cp, from, to);
    hooks.onEnd?.(cp, changed);
  };
  const started = (cp: number) => {
    from = targetNow(cp);
    hooks.onStart?.(cp);
  };

  const targetOf = (cp: number, out: Vector3) =>
    out.set(ControlPoint.target[cp * 3]!, ControlPoint.target[cp * 3 + 1]!, ControlPoint.target[cp * 3 + 2]!);

  function select(cp: number): void {
    selected = cp;
    hooks.onSelect?.(cp);
    if (cp < 0) { gizmo.detach(); return; }
    targetOf(cp, proxy.position);
    proxy.updateMatrixWorld();
    gizmo.attach(proxy);
  }

  gizmo.addEventListener('dragging-changed', (e) => {
    gizmoDrag = Boolean((e as { value?: unknown }).value);
    view.orbit.enabled = !gizmoDrag;
    if (selected < 0) return;
    if (gizmoDrag) started(selected);
    else moved(selected);
  });
  gizmo.addEventListener('objectChange', () => {
    if (selected < 0) return;
    tmp[0] = proxy.position.x; tmp[1] = proxy.position.y; tmp[2] = proxy.position.z;
    moveTarget(selected, tmp);
  });

  function onDown(e: PointerEvent): void {
    if (e.button !== 0 || planeDrag >= 0) return;
    const cp = view.pickTarget(e.clientX, e.clientY);
    if (cp < 0) return; // not on a handle: leave it to the gizmo / orbit
    e.stopImmediatePropagation();
    e.preventDefault();
    planeDrag = cp;
    pointerId = e.pointerId;
    canvas.setPointerCapture?.(e.pointerId);
    view.orbit.enabled = false;
    select(cp);
    started(cp);
    gizmo.enabled = false;
    view.camera.getWorldDirection(normal);
    targetOf(cp, hit);
    plane.setFromNormalAndCoplanarPoint(normal, hit);
    const ray = view.rayAt(e.clientX, e.clientY);
    if (ray.intersectPlane(plane, grab)) grab.subVectors(hit, grab);
    else grab.set(0, 0, 0);
  }

  function onMove(e: PointerEvent): void {
    if (planeDrag < 0 || e.pointerId !== pointerId) return;
    e.stopImmediatePropagation();
    const ray = view.rayAt(e.clientX, e.clientY);
    if (!ray.intersectPlane(plane, hit)) return;
    hit.add(grab);
    tmp[0] = hit.x; tmp[1] = hit.y; tmp[2] = hit.z;
    moveTarget(planeDrag, tmp);
    proxy.position.copy(hit);
  }

  function onUp(e: PointerEvent): void {
    if (planeDrag < 0 || e.pointerId !== pointerId) return;
    e.stopImmediatePropagation();
    if (canvas.hasPointerCapture?.(e.pointerId)) canvas.releasePointerCapture(e.pointerId);
    const cp = planeDrag;
    planeDrag = -1;
    pointerId = -1;
    moved(cp);
    gizmo.enabled = true;
    view.orbit.enabled = true;
  }

  canvas.addEventListener('pointerdown', onDown, { capture: true });
  canvas.addEventListener('pointermove', onMove, { capture: true });
  canvas.addEventListener('pointerup', onUp, { capture: true });
  canvas.addEventListener('pointercancel', onUp, { capture: true });

  return {
    get dragging() { return planeDrag >= 0 ? planeDrag : gizmoDrag ? selected : -1; },
    get selected() { return selected; },
    get gizmoHovered() { return selected >= 0 && gizmo.axis !== null; },
    select,
    sync() {
      if (selected >= 0 && !gizmoDrag && planeDrag < 0) targetOf(selected, proxy.position);
    },
    dispose() {
      canvas.removeEventListener('pointerdown', onDown, { capture: true });
      canvas.removeEventListener('pointermove', onMove, { capture: true });
      canvas.removeEventListener('pointerup', onUp, { capture: true });
      canvas.removeEventListener('pointercancel', onUp, { capture: true });
      gizmo.detach();
      gizmo.dispose();
      view.scene.remove(helper, proxy);
    },
  };
}
