/**
 * The kinematic solvers by the name a rig's `solver` setting uses. A solver poses one rig
 * toward its goals and reports the iterations it used and a status (STATUS_* of components/Rig).
 */
import type { PhysikWorld, RigRecord } from '../../src/core/world';
// solver imports (one line each):
import { massSpringSolve } from './massSpring';
import { bezierSolve } from './bezier';
import { triangleSolve } from './triangle';
import { twoBoneSolve } from './twoBone';
import { ccd } from './ccd';
import { jacobianTranspose } from './jacobian';
import { dls } from './jacobian';
import { fabrik } from './fabrik';

export interface SolveResult { iterations: number; status: number }
export type KinematicSolver = (world: PhysikWorld, rig: RigRecord) => SolveResult;

export const kinematicSolvers: Record<string, KinematicSolver> = {
  // solver entries (one line each, name: function):
  massSpring: massSpringSolve,
  bezier: bezierSolve,
  triangle: triangleSolve,
  twoBone: twoBoneSolve,
  ccd: ccd,
  jacobianTranspose: jacobianTranspose,
  dls: dls,
  fabrik: fabrik,
};
