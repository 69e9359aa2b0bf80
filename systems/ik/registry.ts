/**
 * The kinematic solvers by the name a rig's `solver` setting uses, in the order the
 * comparison lists them. A solver poses one rig
 * toward its goals and reports the iterations it used and a status (STATUS_* of components/Rig).
 */
import type { KinematicSolver } from './solver';
import { fabrikSolve } from './fabrik';
import { ccdSolve } from './ccd';
import { jacobianTransposeSolve, dlsSolve } from './jacobian';
import { massSpringSolve } from './massSpring';
import { twoBoneSolve } from './twoBone';
import { triangleSolve } from './triangle';
import { bezierSolve } from './bezier';

export type { SolveResult, KinematicSolver } from './solver';

export const kinematicSolvers: Record<string, KinematicSolver> = {
  fabrik: fabrikSolve,
  ccd: ccdSolve,
  jacobianTranspose: jacobianTransposeSolve,
  dls: dlsSolve,
  massSpring: massSpringSolve,
  twoBone: twoBoneSolve,
  triangle: triangleSolve,
  bezier: bezierSolve,
};
