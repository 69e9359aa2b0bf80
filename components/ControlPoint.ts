/**
 * ControlPoint: an attachment point on a bone pulled toward a target by a zero-rest-length
 * spring. The spring pulls toward the effective target, which interpolates from the old
 * target to the new one over several steps (PhysIK section 3.3).
 */
import { createStore, type Layout } from './store';

export const ControlPointLayout = {
  rig: [Int32Array, 1],
  bone: [Int32Array, 1],
  /** 0 = head, 1 = tail. */
  at: [Float64Array, 1],
  /** Offset in the bone's frame. */
  offset: [Float64Array, 3],
  target: [Float64Array, 3],
  effective: [Float64Array, 3],
  /** Interpolation progress: step i of iMax; i >= iMax means done. */
  interpStep: [Int32Array, 1],
  interpSteps: [Int32Array, 1],
  stiffness: [Float64Array, 1],
  /** SPRING_LINEAR or SPRING_CAPPED. */
  spring: [Uint8Array, 1],
  /** Cap c of the capped spring (distance); 0 = rig default. */
  cap: [Float64Array, 1],
  active: [Uint8Array, 1],
  /** 1 for a pole (kinematic solvers' bend direction), which PhysIK does not pull toward. */
  pole: [Uint8Array, 1],
  /** Attachment point in world space and the spring force, this step. */
  attachment: [Float64Array, 3],
  springForce: [Float64Array, 3],
} as const satisfies Layout;

export type ControlPointStore = ReturnType<typeof createControlPointStore>;
export const createControlPointStore = (capacity: number) => createStore(ControlPointLayout, capacity);
