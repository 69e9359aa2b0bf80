/**
 * The plain-data descriptions the plugin takes: a rig (bones with their rest directions, lengths,
 * masses and limits), its control points, its settings and its script of timed target moves;
 * and a scene, which holds them with a crowd and expectations (a scene file's form after
 * validation and defaulting; src/scene loads and runs one). `addRig` takes the rig's parts
 * directly. Angles are in degrees here (scene units); the world keeps radians.
 */

export type Vec3Tuple = [number, number, number];
export type SpringKind = 'linear' | 'capped';
export type InterpolationMode = 'none' | 'linear' | 'polar-head' | 'polar-com';
export type DampingMode = 'implicit' | 'explicit';
export type AngularDampingMode = 'implicit' | 'halve';
export type Integrator = 'semi-implicit' | 'explicit';
export type RootMode = 'floating' | 'pinned';

/** Per-axis limit in degrees: [min, max], or 'free' (the default for an omitted axis). */
export type AxisLimit = [number, number] | 'free';

export interface BoneDescription {
  name: string;
  /** Parent bone name; null for the root. Exactly one root per rig. */
  parent: string | null;
  /** World-space direction of the bone at rest (normalised by the loader). */
  direction: Vec3Tuple;
  /** Roll about the bone's own axis at rest, degrees (default 0). */
  roll?: number;
  length: number;
  /** Default 0.1 × length. */
  radius?: number;
  /** Default rig density × length. */
  mass?: number;
  /** Root only: world position of the head at rest (default [0,0,0]). */
  head?: Vec3Tuple;
  /** Where on the parent the head sits, 0 = parent's head, 1 = parent's tail (default 1). */
  attach?: number;
  /**
   * Where the head sits, anywhere on the parent: relative to the parent's head, in the
   * parent's rest frame (+Y runs from its head to its tail). Replaces `attach` (a bone gives
   * one or the other); `attach: a` is `offset: [0, a × parent length, 0]`. Imported skeletons
   * use it to keep every joint where the file has it.
   */
  offset?: Vec3Tuple;
  /** Angular limits per axis of the joint frame (y along the bone), degrees. */
  limits?: { x?: AxisLimit; y?: AxisLimit; z?: AxisLimit };
  /** Torsion-spring stiffness for this joint's limits; overrides the rig setting. */
  limitStiffness?: number;
}

export interface RigDescription {
  name: string;
  /** 'floating' (the original add-on) or 'pinned' (root head fixed in the world). */
  root?: RootMode;
  /** Mass per unit length for bones without a mass (default 1). */
  density?: number;
  bones: BoneDescription[];
}

export interface ControlPointDescription {
  name: string;
  bone: string;
  /** 0 = head, 1 = tail (default 1). */
  at?: number;
  /** Offset in the bone's local frame (default [0,0,0]). */
  offset?: Vec3Tuple;
  /** Initial target; default: the attachment's rest position (a pin). */
  target?: Vec3Tuple;
  stiffness?: number;
  spring?: SpringKind;
  cap?: number;
  active?: boolean;
  /**
   * 'goal' (default): a target to reach. 'pole': where the bend of the chain ending at this
   * bone should point (kinematic solvers); PhysIK ignores poles.
   */
  role?: 'goal' | 'pole';
}

export interface Settings {
  dt: number;
  /** Linear damping coefficient c at head and tail of every bone (F = -c v). */
  damping: number;
  /**
   * Derive each bone's damping from its mass and the rig's control stiffness (near critical)
   * instead of using `damping`. The default when a scene or settings patch states no
   * `damping`; stating `damping` (without `dampingAuto`) switches it off.
   */
  dampingAuto: boolean;
  /** Damping ratio ζ of automatic damping (1 = critical for a bone on the stiffest control spring). */
  dampingRatio: number;
  dampingMode: DampingMode;
  /** Angular damping rate (1/s), multiplied by each bone's inertia; used when mode is 'implicit'. */
  angularDamping: number;
  angularDampingMode: AngularDampingMode;
  /** Joint acceleration mismatch tolerance. */
  epsilon: number;
  /** Pass cap for the inter-joint solve; 0 means 5 × joints². */
  maxPasses: number;
  integrator: Integrator;
  /** Default spring kind of control points. */
  spring: SpringKind;
  /**
   * Evaluate control springs at the end of the step (backward Euler): stable for stiff springs
   * on light bones, and the settled pose is unchanged. False is the paper's explicit spring.
   */
  springImplicit: boolean;
  /** Default control-point stiffness k. */
  stiffness: number;
  /** Default cap c of capped springs as a fraction of the rig's height (used when cap is 0). */
  capFraction: number;
  /** Absolute default cap c; 0 means capFraction × rig height. */
  cap: number;
  /** Torsion-spring stiffness kappa; scaled by the joint's inertia unless limitStiffnessAbsolute. */
  limitStiffness: number;
  limitStiffnessAbsolute: boolean;
  /** Evaluate active torsion springs at the end of the step (stable for stiff limits on light bones). */
  limitImplicit: boolean;
  /**
   * 'conservative' (default): the torque of a limit is the gradient of its spring energy over the
   * joint's rotation (stays conservative at large bends); 'axis': the paper's torque along the
   * joint-frame axis, whose off-axis coupling at large bends can pump energy.
   */
  limitTorque: 'conservative' | 'axis';
  limitSpring: SpringKind;
  /**
   * Hard stop behind the torsion springs: more than \`limitHardStopDeg\` past a limit, its
   * spring is 50 times stiffer (systems/torsionSprings.ts).
   */
  limitHardStop: boolean;
  /**
   * Stiffness floor of the torsion springs from the control springs: a limit is at least
   * this × k H² stiff (torque per radian), k the stiffest control spring, H the rig height.
   * Keeps limits from giving way under strong pulls on light bones. 0 = inertia only.
   */
  limitControlRatio: number;
  limitHardStopDeg: number;
  /** Cap of capped torsion springs, as an angle in degrees of excess (torque cap = k × this). */
  limitCapDeg: number;
  /** Tolerance band: the spring starts this fraction of the range inside each limit (paper: 0.1). */
  limitTolerance: number;
  interpolation: InterpolationMode;
  interpolationSteps: number;
  /** Below this angular displacement (degrees, about the pivot) a target jumps without interpolation. */
  interpolationThresholdDeg: number;
  /** Polar interpolation falls back to linear when a point is this close to the pivot. */
  interpolationEpsilon: number;
  /** Inter-joint force solve: the paper's Gauss-Seidel passes, or a direct tree solve (linear time). */
  interJoint: 'iterative' | 'exact';
  /** Include the centripetal term ω×(ω×r) in the acceleration of a point. */
  centripetal: boolean;
  /** Gyroscopic torque ω×(Iω): backward Euler of the free rotation (stable), or explicit (the paper's eq. 1). */
  gyroscopic: 'implicit' | 'explicit';
  /**
   * 'project': each step keeps the momentum the external loads leave and ends with no more
   * mechanical energy than it began with (systems/conservationProjection.ts); 'none': the
   * integrator's own (the paper's).
   */
  conservation: 'project' | 'none';
  /** A joint locked on all three axes is a weld (one rigid body with its parent), not a stiff spring (systems/welds.ts). */
  welds: boolean;
  /** A joint locked at 0° on two axes is a hinge (one degree of freedom, exact), not a ball held by two stiff springs (systems/hinges.ts). */
  hinges: boolean;
  /** Rest detection: the rig is at rest when every bone end moves slower than this × height per second. */
  restSpeed: number;
  /**
   * Static balance: 'converged' (and sleep) also need the largest net load on a bone within
   * this fraction of the rig's spring load (each spring counted at least at its pull at
   * `settleTolerance` × height) and every bone end slower than settleTolerance × height per second.
   */
  restLoad: number;
  solver: string;
  /** Kinematic solvers: iteration cap per step, and tolerance as a fraction of the rig's height. */
  ikIterations: number;
  ikTolerance: number;
  /**
   * 'path-dependent': iterate from the last pose, `ikIterations` at most per step.
   * 'path-independent': restart from the rest pose every step and iterate to tolerance.
   */
  ikMode: 'path-dependent' | 'path-independent';
  /** Damped least squares: damping lambda (times the rig's height), adapted to the error when dlsAdaptive. */
  dlsLambda: number;
  dlsAdaptive: boolean;
  /** Jacobian solvers: weight of the pull toward the rest pose (0 = off). */
  restPull: number;
  /** Mass-spring solver: gravity along −Y (units per s²; 0 = none). */
  gravity: number;
  /** Two-bone solver: which way the middle joint bends when no pole is given. */
  bendDirection: 'positive' | 'negative';
  /**
   * Divergence guard: a step the guard refuses is rolled back and retried in 2, 4, ... up to
   * this many substeps; 1 = no retry (the refused step keeps the last good pose at rest).
   */
  maxSubsteps: number;
  /**
   * Settling status (systems/settling.ts): after `settleSteps` steps at rest the rig is
   * 'converged' when every goal is within `settleTolerance` × height, else 'stalled'; a rig
   * still moving that has not improved its target error for `stallSteps` steps is 'stalled'.
   */
  settleSteps: number;
  settleTolerance: number;
  stallSteps: number;
  /** Stop stepping a converged (or stalled, at rest) rig until a target or setting changes. */
  sleepWhenConverged: boolean;
  /**
   * Hybrid finish: once PhysIK has slowed near its targets (within `finishRadius` × height,
   * end speeds under 10 × restSpeed), this kinematic solver takes over to reach the targets
   * exactly within the limits. 'none' = PhysIK to the end.
   */
  finish: 'none' | 'ccd' | 'dls';
  finishRadius: number;
}

/** A rotation as a unit quaternion [x, y, z, w]. */
export type QuatTuple = [number, number, number, number];

/**
 * A rig's starting pose (scene field `start`): where it stands when added and when reset,
 * at rest (no velocities). `bones`: world rotations by bone name, each the rotation from the
 * bone's frame (+Y along the bone) to the world, as the world keeps them (`Bone.rot`); a bone
 * not listed keeps its rest rotation relative to its parent. `head`: where the root bone's
 * head stands (floating roots only; default its rest head; a pinned root stays on its pin).
 * Saved by the sandbox with a scene, so the scene opens in the pose it was saved in.
 */
export interface StartPose {
  head?: Vec3Tuple;
  bones: Record<string, QuatTuple>;
}

export interface ScriptEvent {
  step: number;
  point: string;
  target?: Vec3Tuple;
  active?: boolean;
}

/**
 * A crowd (scene field `crowd`): `count` copies of the scene's rig on a grid behind it, each
 * following a seeded wandering target of its own (src/scene/crowd.ts). The sandbox spawns it
 * with the scene; a headless run steps it beside the scene's rig and reports it (RunSummary.crowd).
 */
export interface CrowdDescription {
  count: number;
  /** Distance between neighbours (default 1.2 × the rig's height). */
  spacing?: number;
  /** Steps between wander moves (default 100). */
  every?: number;
  /** Wander radius as a fraction of the distance from the root to the first target (default 0.5). */
  radius?: number;
  /** The control point that wanders (default: the one the script moves first, else the first goal). */
  point?: string;
  /** Seed of the wander targets (default 1). */
  seed?: number;
}

export interface ExpectRange { min?: number; max?: number }

export interface ExpectCompare {
  name: string;
  metric: string;
  /** Settings and/or control point overrides of the variant run. */
  variant: { settings?: Partial<Settings> };
  /** The base run's metric must be 'less' or 'greater' than the variant's. */
  relation: 'less' | 'greater';
}

export interface ExpectBlock {
  finite?: boolean;
  converged?: boolean;
  /**
   * A summary metric's name → range (the names src/core/validation/check.ts's SUMMARY_METRICS lists, and
   * `targetErrors.<point>`, `pose.<bone>.head.<i>`, `crowd.<...>`). Parsed into an object
   * without a prototype, like `targets`, so a name such as `__proto__` stays a key.
   */
  metrics?: Record<string, ExpectRange>;
  /** Per goal control point: final distance from attachment to target. */
  targets?: Record<string, ExpectRange>;
  compare?: ExpectCompare[];
}

/** How a marker ties its bones to the clip: kinematically (exactly the clip), by springs, or not at all. */
export type MarkerMode = 'follow' | 'drive' | 'free';

/**
 * A marker of a capture (physics on top of motion): a group of bones tied to the clip. 'world':
 * each bone's head (or the point `at` along it) follows the clip's point in the world through a
 * control spring; 'pose': each bone's joint is driven toward the clip's rotation relative to its
 * parent (a pose-space drive; the root's drive holds it in the world).
 */
export interface CaptureMarkerDescription {
  name: string;
  bones: string[];
  kind: 'world' | 'pose';
  /** Default 'drive'. */
  mode?: MarkerMode;
  /** Multiplier of the capture's stiffness (default 1). */
  stiffness?: number;
  /** Multiplier of the capture's damping (default 1). */
  damping?: number;
  /** World markers: where on the bone, 0 = head, 1 = tail (default 0). */
  at?: number;
}

/** A marker's mode changed at a step (the capture's script). */
export interface CaptureEvent {
  step: number;
  marker: string;
  mode: MarkerMode;
}

/**
 * A scene's capture block: the clip that plays on the rig and the markers that tie the rig to
 * it (src/capture). The clip is a BVH or physik recording, inline (`text`) or a file path
 * relative to the scene file (`file`, read by the Node loader into `text`).
 */
export interface CaptureDescription {
  clip: { file?: string; text?: string; format?: 'bvh' | 'recording' };
  /** Rig-wide stiffness S (1/s²): drives S × inertia, world markers S × the rig's mass (default 2500). */
  stiffness?: number;
  /** Damping ratio ζ of drives and markers (default 1). */
  dampingRatio?: number;
  /** Clip time (s) the scene's step 0 plays (default 0). */
  start?: number;
  markers: CaptureMarkerDescription[];
  script?: CaptureEvent[];
}

export interface Scene {
  name: string;
  description?: string;
  rig: RigDescription;
  controlPoints: ControlPointDescription[];
  settings: Settings;
  steps: number;
  script: ScriptEvent[];
  /** The rig's starting pose (default: its rest pose). */
  start?: StartPose;
  /** Bones whose path length is summed into the 'secondaryMotion' metric. */
  secondaryBones?: string[];
  crowd?: CrowdDescription;
  /** A clip the rig plays with markers tied to it (physics on top of motion). */
  capture?: CaptureDescription;
  expect?: ExpectBlock;
}
