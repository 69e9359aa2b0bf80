/**
 * AngularLimit: per-axis limits of a bone's rotation relative to its parent, measured in the
 * joint frame (the bone's rest frame carried by the parent; y along the bone). Enforced by
 * torsion springs (PhysIK section 3.2).
 */
import { createStore, type Layout } from './store';

export const SPRING_LINEAR = 0;
export const SPRING_CAPPED = 1;

export const AngularLimitLayout = {
  /** Per axis x, y, z: 1 when limited. */
  enabled: [Uint8Array, 3],
  min: [Float64Array, 3],
  max: [Float64Array, 3],
  /** Stiffness kappa; negative means "use the rig setting". */
  stiffness: [Float64Array, 1],
  /** Current angle per axis (radians) and stiffness used this step. */
  angle: [Float64Array, 3],
  k: [Float64Array, 3],
  /**
   * 1 when a limit of the joint acted this step or could be reached within it (torsionSprings);
   * 0 when every angle sat far enough inside its limits: its springs hold no energy at the step's
   * end either, so the energy budget skips it (systems/conservationProjection.ts).
   */
  near: [Uint8Array, 1],
  /**
   * The least distance (radians) from an angle to the band of its limit, over the axes whose
   * springs act (torsionSprings; the largest double when none does); at most 0 when one is in
   * its band or past it. A joint whose angles cannot move this far within the step passes no
   * limit in it (catchMissedLimits).
   */
  slack: [Float64Array, 1],
} as const satisfies Layout;

export type AngularLimitStore = ReturnType<typeof createAngularLimitStore>;
export const createAngularLimitStore = (capacity: number) => createStore(AngularLimitLayout, capacity);
