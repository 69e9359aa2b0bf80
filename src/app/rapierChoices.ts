/**
 * The Rapier ghost's choices, listed here so the page needs nothing of src/rapier until the ghost
 * is on: the mirror's joint models, and where the ghost is drawn.
 */
import type { JointModel } from '../rapier/jointPlan';

/** Joint models of the Rapier ghost (the mirror's). */
export const rapierJointModels: readonly JointModel[] = ['impulse', 'multibody'];
/** Where the Rapier ghost is drawn: over the main rig, or beside it. */
export type RapierPlacement = 'overlaid' | 'beside';
export const rapierPlacements: readonly RapierPlacement[] = ['overlaid', 'beside'];
