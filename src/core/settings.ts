/**
 * Default simulation settings and the preset that reproduces the paper's original add-on.
 * Defaults are chosen to be stable for bone masses 0.25..100 and rigs in metres or
 * centimetres (implicit damping, inertia-scaled torsion springs, semi-implicit Euler).
 */
import type { Settings } from '../world/types';
import { kinematicSolvers } from '../../systems/ik/registry';

export const defaultSettings: Readonly<Settings> = Object.freeze({
  dt: 0.05,
  damping: 20,
  dampingAuto: true,
  dampingRatio: 1,
  dampingMode: 'implicit',
  angularDamping: 2,
  angularDampingMode: 'implicit',
  epsilon: 0.001,
  maxPasses: 0,
  integrator: 'semi-implicit',
  spring: 'capped',
  springImplicit: true,
  stiffness: 30,
  capFraction: 0.25,
  cap: 0,
  limitStiffness: 100,
  limitStiffnessAbsolute: false,
  limitImplicit: true,
  limitTorque: 'conservative',
  limitSpring: 'linear',
  limitHardStop: true,
  limitHardStopDeg: 5,
  limitControlRatio: 0.05,
  limitCapDeg: 30,
  limitTolerance: 0,
  interpolation: 'polar-com',
  interpolationSteps: 50,
  interpolationThresholdDeg: 5,
  interpolationEpsilon: 1e-6,
  interJoint: 'exact',
  centripetal: true,
  gyroscopic: 'implicit',
  conservation: 'project',
  welds: true,
  hinges: true,
  restSpeed: 1e-3,
  restLoad: 1e-3,
  solver: 'physik',
  ikIterations: 10,
  ikTolerance: 1e-4,
  ikMode: 'path-dependent',
  dlsLambda: 0.05,
  dlsAdaptive: true,
  restPull: 0,
  gravity: 0,
  bendDirection: 'positive',
  maxSubsteps: 32,
  settleSteps: 10,
  settleTolerance: 1e-4,
  stallSteps: 400,
  sleepWhenConverged: true,
  finish: 'none',
  finishRadius: 0.05,
} satisfies Settings);

/**
 * The paper's original add-on: Gauss-Seidel joint passes, explicit damping, halved angular
 * velocity, explicit Euler, a cap of one unit, one absolute torsion stiffness and a 10%
 * tolerance band.
 */
export const paperSettings: Partial<Settings> = Object.freeze({
  interJoint: 'iterative',
  dampingAuto: false,
  springImplicit: false,
  dampingMode: 'explicit',
  angularDampingMode: 'halve',
  integrator: 'explicit',
  cap: 1,
  limitStiffness: 30,
  limitStiffnessAbsolute: true,
  limitImplicit: false,
  limitTorque: 'axis',
  limitHardStop: false,
  limitControlRatio: 0,
  limitTolerance: 0.1,
  maxSubsteps: 1,
  sleepWhenConverged: false,
  centripetal: false,
  gyroscopic: 'explicit',
  conservation: 'none',
  welds: false,
  hinges: false,
} satisfies Partial<Settings>);

/**
 * The tables below are looked up by a setting's name, which may come from input (a patch, a
 * panel): without a prototype, `settingEnums.constructor` is undefined like any unknown name.
 */
function nameKeyed<T>(entries: Record<string, T>): Record<string, T> {
  return Object.assign(Object.create(null) as Record<string, T>, entries);
}

/** Range checks shared by the scene schema and the plugin API; returns an error or null. */
export const settingRanges: Record<string, { min?: number; max?: number; integer?: boolean; exclusiveMin?: boolean }> = nameKeyed({
  dt: { min: 0, exclusiveMin: true, max: 1 },
  damping: { min: 0 },
  dampingRatio: { min: 0, exclusiveMin: true, max: 100 },
  angularDamping: { min: 0 },
  epsilon: { min: 0, exclusiveMin: true },
  maxPasses: { min: 0, integer: true },
  stiffness: { min: 0 },
  capFraction: { min: 0, exclusiveMin: true },
  cap: { min: 0 },
  limitStiffness: { min: 0 },
  limitCapDeg: { min: 0, exclusiveMin: true },
  limitHardStopDeg: { min: 0, max: 90 },
  limitControlRatio: { min: 0, max: 100 },
  limitTolerance: { min: 0, max: 0.49 },
  interpolationSteps: { min: 1, integer: true },
  interpolationThresholdDeg: { min: 0, max: 180 },
  interpolationEpsilon: { min: 0 },
  restSpeed: { min: 0, exclusiveMin: true },
  restLoad: { min: 0, exclusiveMin: true },
  ikIterations: { min: 1, max: 100000, integer: true },
  ikTolerance: { min: 0, exclusiveMin: true, max: 1 },
  dlsLambda: { min: 0 },
  restPull: { min: 0 },
  gravity: { min: -1000, max: 1000 },
  maxSubsteps: { min: 1, max: 1024, integer: true },
  settleSteps: { min: 1, max: 1e6, integer: true },
  settleTolerance: { min: 0, exclusiveMin: true, max: 1 },
  stallSteps: { min: 1, max: 1e6, integer: true },
  finishRadius: { min: 0, exclusiveMin: true, max: 10 },
});

export const settingEnums: Record<string, readonly string[]> = nameKeyed({
  dampingMode: ['implicit', 'explicit'],
  angularDampingMode: ['implicit', 'halve'],
  integrator: ['semi-implicit', 'explicit'],
  spring: ['linear', 'capped'],
  limitTorque: ['conservative', 'axis'],
  limitSpring: ['linear', 'capped'],
  interpolation: ['none', 'linear', 'polar-head', 'polar-com'],
  solver: ['physik', ...Object.keys(kinematicSolvers)],
  interJoint: ['iterative', 'exact'],
  gyroscopic: ['implicit', 'explicit'],
  conservation: ['project', 'none'],
  ikMode: ['path-dependent', 'path-independent'],
  bendDirection: ['positive', 'negative'],
  finish: ['none', 'ccd', 'dls'],
});
