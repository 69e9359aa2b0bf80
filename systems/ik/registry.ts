/**
 * The kinematic solvers by the name a rig's `solver` setting uses. A solver poses one rig
 * toward its goals and reports the iterations it used and a status (STATUS_* of components/Rig).
 */
import type { PhysikWorld, RigRecord } from '../../src/core/world';
// solver imports (one line each):

export interface SolveResult { iterations: number; status: number }
export type KinematicSolver = (world: PhysikWorld, rig: RigRecord) => SolveResult;

export const kinematicSolvers: Record<string, KinematicSolver> = {
  // solver entries (one line each, name: function):
};
