/**
 * Waking a rig: whatever changes what a rig should do (a target moved, a point switched on or
 * off, a setting changed, the rig reset) calls this. It ends the current rest, so rest
 * detection starts over, and flags the change for the settling system, which wakes a
 * sleeping rig, cancels a hybrid finish and restarts its progress tracking.
 */
import type { PhysikWorld } from './world';

export function wakeRig(world: PhysikWorld, rig: number): void {
  const R = world.physik.Rig;
  R.atRest[rig] = 0;
  R.restSince[rig] = -1;
  R.changed[rig] = 1;
}
