/**
 * Grabbing bones directly (browser only), like taking hold of a wooden mannequin:
 *
 * - Press on a bone (not on a target handle or the gizmo): a control point is added at the
 *   pressed point on the bone's axis, its target on that point (`onStart` is told first, so the
 *   host can take the state before the grab).
 * - Drag: the target follows the pointer on the plane through it facing the camera, at once
 *   (feel.ts setTargetNow, as a target's drag), so the body follows the hand. On release the point is removed, unless Shift (or Alt) is held:
 *   then it stays as a pin.
 * - Click without dragging: the point stays as a pin where you clicked.
 * - Either way `onEnd` is told whether a pin stayed: the host makes the grab one undoable step.
 *
 * Presses are taken in the capture phase after the target dragger's (which has first pick)
 * and hidden from OrbitControls. Pins are named pin1, pin2, ...; grabs use the same names.
 */
import { Plane, Vector3 } from 'three';
import { addControlPoint, removeControlPoint } from '../core';
import { setTargetNow } from './feel';
import { findRig } from '../world/world';
import type { View } from '../render/view';
import type { TargetDragger } from './drag';
import type { ControlPointDescription } from '../scene/types';
import { freshName, type RigRef } from './edits';

/** Name prefix of the points a grab leaves: pin1, pin2, ... */
export const PIN_PREFIX = 'pin';
/** Whether a control point's name is a pin's (the view draws pins apart from targets). */
export const isPinName = (name: string) => name.startsWith(PIN_PREFIX) && /^\d+$/.test(name.slice(PIN_PREFIX.length));

/** Pointer travel (CSS px) below which a press and release is a click. */
const CLICK_SLOP = 4;

export interface BoneGrabber {
  /** Name of the control point being dragged by a grab, or null. */
  readonly grabbing: string | null;
  dispose(): void;
}

export interface GrabOptions {
  ref: RigRef;
  view: View;
  canvas: HTMLCanvasElement;
  dragger: TargetDragger;
  /** A grab begins (nothing changed yet). */
  onStart?(): void;
  /** The grab of `bone` ended: `pin`, the name of the pin left, or null when the point was removed. */
  onEnd?(pin: string | null, bone: string): void;
  /** A bone was pressed (its joint's limits get drawn). */
  onBone?(bone: number): void;
  /** A pin was kept (select it). */
  onPin?(cp: number): void;
  /** Something was refused (shown to the user). */
  onError?(message: string): void;
  /** How the grab's point is added, moved and removed (default: in `ref.world`; worker mode mirrors them to its worker). */
  points?: GrabPoints;
}

export interface GrabPoints {
  add(point: ControlPointDescription): number;
  move(cp: number, to: Float64Array): void;
  remove(cp: number): void;
}

export function createBoneGrabber(o: GrabOptions): BoneGrabber {
  const { ref, view, canvas } = o;
  const points: GrabPoints = o.points ?? {
    add: (point) => addControlPoint(ref.world, ref.rig, point),
    move: (cp, to) => setTargetNow(ref.world, cp, to),
    remove: (cp) => removeControlPoint(ref.world, cp),
  };
  let grabbed = -1; // control point entity of the current grab
  let name: string | null = null;
  let boneName = '';
  let pointerId = -1;
  let moved = false;
  let startX = 0, startY = 0;
  const plane = new Plane();
  const hit = new Vector3();
  const normal = new Vector3();
  const tmp = new Float64Array(3);

  function onDown(e: PointerEvent): void {
    if (e.button !== 0 || grabbed >= 0 || o.dragger.gizmoHovered) return;
    const pick = view.pickBone(e.clientX, e.clientY);
    if (!pick) return;
    const record = findRig(ref.world, ref.rig);
    const boneIndex = record.bones.indexOf(pick.bone);
    if (boneIndex < 0) return; // a bone of another rig (not editable here)
    e.stopImmediatePropagation();
    e.preventDefault();
    name = freshName(ref, PIN_PREFIX);
    boneName = record.boneNames[boneIndex]!;
    o.onStart?.();
    try {
      grabbed = points.add({ name, bone: boneName, at: Math.min(1, Math.max(0, pick.at)), target: pick.point });
    } catch (err) {
      o.onError?.(`could not grab the bone: ${err instanceof Error ? err.message : String(err)}`);
      name = null;
      return;
    }
    pointerId = e.pointerId;
    moved = false;
    startX = e.clientX; startY = e.clientY;
    canvas.setPointerCapture?.(e.pointerId);
    view.orbit.enabled = false;
    view.camera.getWorldDirection(normal);
    hit.set(pick.point[0], pick.point[1], pick.point[2]);
    plane.setFromNormalAndCoplanarPoint(normal, hit);
    o.onBone?.(pick.bone);
  }

  function onMove(e: PointerEvent): void {
    if (grabbed < 0 || e.pointerId !== pointerId) return;
    e.stopImmediatePropagation();
    if (!moved && Math.hypot(e.clientX - startX, e.clientY - startY) < CLICK_SLOP) return;
    moved = true;
    if (!view.rayAt(e.clientX, e.clientY).intersectPlane(plane, hit)) return;
    tmp[0] = hit.x; tmp[1] = hit.y; tmp[2] = hit.z;
    points.move(grabbed, tmp);
  }

  function onUp(e: PointerEvent): void {
    if (grabbed < 0 || e.pointerId !== pointerId) return;
    e.stopImmediatePropagation();
    if (canvas.hasPointerCapture?.(e.pointerId)) canvas.releasePointerCapture(e.pointerId);
    view.orbit.enabled = true;
    const cp = grabbed;
    grabbed = -1;
    pointerId = -1;
    const keep = !moved || e.shiftKey || e.altKey;
    const pin = keep ? name : null;
    name = null;
    if (keep) o.onPin?.(cp);
    else points.remove(cp);
    o.onEnd?.(pin, boneName);
  }

  canvas.addEventListener('pointerdown', onDown, { capture: true });
  canvas.addEventListener('pointermove', onMove, { capture: true });
  canvas.addEventListener('pointerup', onUp, { capture: true });
  canvas.addEventListener('pointercancel', onUp, { capture: true });

  return {
    get grabbing() { return grabbed >= 0 ? name : null; },
    dispose() {
      canvas.removeEventListener('pointerdown', onDown, { capture: true });
      canvas.removeEventListener('pointermove', onMove, { capture: true });
      canvas.removeEventListener('pointerup', onUp, { capture: true });
      canvas.removeEventListener('pointercancel', onUp, { capture: true });
    },
  };
}
