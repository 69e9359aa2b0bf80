/**
 * Rig: one per character. Holds the root's pin, the rig's scale and the per-step metrics
 * the metrics system writes. Settings live beside it in plain objects (read once a step).
 */
import { createStore, type Layout } from './store';

export const STATUS_SETTLING = 0;
export const STATUS_CONVERGED = 1;
export const STATUS_STALLED = 2;
export const STATUS_DIVERGED = 3;
export const statusNames = ['settling', 'converged', 'stalled', 'diverged'] as const;
export type SolveStatus = (typeof statusNames)[number];

export const RigLayout = {
  root: [Int32Array, 1],
  pinned: [Uint8Array, 1],
  /** Where the root's head is pinned (pinned rigs). */
  pin: [Float64Array, 3],
  /** Diameter of the rest pose (rotation-invariant, src/world/rigScale.ts): the unit for caps, rest speed and normalised errors. */
  height: [Float64Array, 1],
  step: [Int32Array, 1],
  /** Joint solve of the last step: passes, largest mismatch, status (STATUS_*). */
  passes: [Int32Array, 1],
  mismatch: [Float64Array, 1],
  solveStatus: [Uint8Array, 1],
  /** Running totals for passes per step. */
  passesTotal: [Float64Array, 1],
  passesMax: [Int32Array, 1],
  stepsSolved: [Int32Array, 1],
  centreOfMass: [Float64Array, 3],
  /** The rig's total mass (systems/metrics.ts measureRig). */
  totalMass: [Float64Array, 1],
  kineticEnergy: [Float64Array, 1],
  /** 1 while a target of the rig is still interpolating (systems/metrics.ts rigMeasures). */
  interpolating: [Uint8Array, 1],
  maxTargetError: [Float64Array, 1],
  meanTargetError: [Float64Array, 1],
  /** Diagnostics of the pose, measured when read (systems/metrics.ts measureDiagnostics: use readMetrics). */
  maxJointGap: [Float64Array, 1],
  maxLimitViolation: [Float64Array, 1],
  /** 1 while maxJointGap and maxLimitViolation are those of the current pose; 0 once a step moved it. */
  diagnosed: [Uint8Array, 1],
  maxEndSpeed: [Float64Array, 1],
  /** 1 while at rest; the step the current rest began (-1 when moving). */
  atRest: [Uint8Array, 1],
  restSince: [Int32Array, 1],
  /**
   * Static balance (systems/metrics.ts measureLoads): the largest net load on a bone after the
   * joint solve (a force), the active control springs' total pull, the load the residual is
   * judged against (the spring load, at least each spring's pull at the settle tolerance), and
   * 1 while the rig is static (at rest, slower still, and the residual within restLoad of it).
   */
  loadResidual: [Float64Array, 1],
  /** The residual as the last joint solve found it on the way (its fast form), −1 when it did not: measureLoads then measures. */
  solvedLoad: [Float64Array, 1],
  springLoad: [Float64Array, 1],
  loadScale: [Float64Array, 1],
  static: [Uint8Array, 1],
  /** Steps refused by the divergence guard even after substep retries (the rig kept its last good state). */
  diverged: [Int32Array, 1],
  /** Substeps the last step used (1, or more after the guard refused the whole step), and steps retried so. */
  substeps: [Int32Array, 1],
  retriedSteps: [Int32Array, 1],
  /** Substeps the rig takes each step until HOLD good steps allow half (systems/substepRetry.ts), and good steps at it. */
  substepCount: [Int32Array, 1],
  substepHeld: [Int32Array, 1],
  /** 1 while too-fast steps are taken with clamped speeds (substeps did not help); steps so taken. */
  speedClamp: [Uint8Array, 1],
  clampedSteps: [Int32Array, 1],
  /**
   * The rig's settling status (STATUS_*, systems/settling.ts) and the step it began; the best
   * target error since the targets last moved and the step it last improved (progress).
   */
  settle: [Uint8Array, 1],
  settleSince: [Int32Array, 1],
  bestError: [Float64Array, 1],
  progressStep: [Int32Array, 1],
  /** Set when targets, active flags or settings change (src/world/wake.ts); cleared by settling. */
  changed: [Uint8Array, 1],
  /**
   * Conservation (systems/momentumBudget.ts, systems/conservationProjection.ts): 1 when this
   * step's budget was recorded; the linear and angular momentum the step should end with (the
   * angular one about the pin of a pinned rig, its centre of mass otherwise) and that point; the
   * mechanical energy at the step's start and end; the lowest energy since anything but the
   * step changed it (the guard's reference); energy the guard removed (total), steps it acted on.
   */
  conserve: [Uint8Array, 1],
  expectedMomentum: [Float64Array, 6],
  momentumPoint: [Float64Array, 3],
  energyStart: [Float64Array, 1],
  kineticEnergyStart: [Float64Array, 1],
  energyEnd: [Float64Array, 1],
  energyReference: [Float64Array, 1],
  energyRemoved: [Float64Array, 1],
  energyGuardSteps: [Int32Array, 1],
  /** 1 while the rig sleeps (converged, not stepped until a target moves or a setting changes). */
  sleeping: [Uint8Array, 1],
  /** Hybrid finish since targets or settings last changed: 0 not tried, 1 reached the goals, 2 stopped short (PhysIK went on). */
  finishing: [Uint8Array, 1],
} as const satisfies Layout;

export type RigStore = ReturnType<typeof createRigStore>;
export const createRigStore = (capacity: number) => createStore(RigLayout, capacity);
