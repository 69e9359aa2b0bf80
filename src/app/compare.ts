/**
 * Compare mode: the same rig and targets solved by a second solver, in a world of its own
 * (drawn by the view as a translucent ghost; stepped and timed separately, so each solver's
 * step time is its own).
 *
 * Before every step the ghost copies the main rig's control points by name: targets and
 * active flags that differ are set (so interpolation starts on the same step as in the main
 * rig; a target the main rig took at once, as a drag's, is taken at once too), points added
 * or removed by edits are added or removed. Settings and feel edits are mirrored, except the
 * solver. The ghost has no script of its own: the main rig's scripted moves reach
 * it through the copy. Copying allocates only when the set of points changed.
 */
import {
  addControlPoint, addRig, createPhysikWorld, describeControlPoint, getSettings, removeControlPoint, resetRig,
  setControlPointActive, setSettings, setTarget, step, type PhysikWorld,
} from '../core';
import { findRig } from '../world/world';
import type { RigDescription, Settings, StartPose } from '../scene/types';
import type { RigRef } from './edits';
import { applyFeel, setTargetNow, type Feel } from './feel';

export interface Comparison {
  readonly world: PhysikWorld;
  readonly rig: number;
  readonly solver: string;
  /** Copy the main rig's points, then step the ghost once; returns the step's wall time (ms). */
  step(): number;
  reset(): void;
  /** Mirror a settings edit (the solver is the ghost's own). */
  setSettings(patch: Partial<Settings>): void;
  /** Mirror a feel edit (feel.ts applyFeel; `was` the responsiveness the springs are at). */
  setFeel(feel: Partial<Feel>, was: number): void;
}

const scratch = new Float64Array(3);

/** Build the ghost for `main` (currently described by `rig`) solved by `solver`. Throws on an unknown solver. */
export function createComparison(main: RigRef, rig: RigDescription, solver: string, start?: StartPose): Comparison {
  const world = createPhysikWorld();
  const mainRecord = () => findRig(main.world, main.rig);
  const controlPoints = Array.from(mainRecord().controlPoints, (cp) => describeControlPoint(main.world, cp));
  const handle = addRig(world, { rig, controlPoints, settings: { ...getSettings(main.world, main.rig), solver }, ...(start ? { start } : {}) });
  const ghost = findRig(world, handle.rig);
  const { ControlPoint } = world.physik;
  const M = main.world.physik.ControlPoint;

  function copyPoints(): void {
    const from = mainRecord();
    for (let i = 0; i < from.controlPoints.length; i++) {
      const src = from.controlPoints[i]!;
      const name = from.controlPointNames[i]!;
      let cp = ghost.controlPointByName.get(name);
      if (cp === undefined) {
        cp = addControlPoint(world, handle.rig, describeControlPoint(main.world, src));
        continue;
      }
      const s3 = src * 3, c3 = cp * 3;
      if (M.target[s3] !== ControlPoint.target[c3] || M.target[s3 + 1] !== ControlPoint.target[c3 + 1] || M.target[s3 + 2] !== ControlPoint.target[c3 + 2]) {
        scratch[0] = M.target[s3]!; scratch[1] = M.target[s3 + 1]!; scratch[2] = M.target[s3 + 2]!;
        // the main rig's point interpolating: a jump, so interpolate here too; else a drag's move
        if (M.interpStep[src]! < M.interpSteps[src]!) setTarget(world, cp, scratch);
        else setTargetNow(world, cp, scratch);
      }
      if (M.active[src] !== ControlPoint.active[cp]) setControlPointActive(world, cp, M.active[src] === 1);
    }
    if (ghost.controlPoints.length > from.controlPoints.length) {
      const gone = ghost.controlPointNames.filter((n) => !from.controlPointByName.has(n));
      for (const n of gone) removeControlPoint(world, ghost.controlPointByName.get(n)!);
    }
  }

  return {
    world,
    rig: handle.rig,
    solver,
    step() {
      copyPoints();
      const t0 = performance.now();
      step(world, 1);
      return performance.now() - t0;
    },
    reset() {
      resetRig(world, handle.rig);
      copyPoints();
    },
    setSettings(patch) {
      const { solver: _ignored, ...rest } = patch;
      void _ignored;
      setSettings(world, handle.rig, rest);
    },
    setFeel(feel, was) {
      applyFeel(world, handle.rig, feel, was);
    },
  };
}
