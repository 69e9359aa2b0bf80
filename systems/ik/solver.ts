/**
 * What a kinematic solver is: a function that poses one rig toward its goals and reports the
 * iterations it used and a status (STATUS_* of components/Rig). The solvers implement it; the
 * registry (registry.ts) lists them by name.
 */
import type { PhysikWorld, RigRecord } from '../../src/world/world';

export interface SolveResult { iterations: number; status: number }
export type KinematicSolver = (world: PhysikWorld, rig: RigRecord) => SolveResult;
