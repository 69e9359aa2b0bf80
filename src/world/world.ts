/**
 * The physik world: a bitecs world carrying the plugin's component stores, the ChildOf
 * relation and the per-rig records (topology in depth-first order, settings, script).
 * `installPhysik` adds the plugin to an existing bitecs world; `createPhysikWorld` makes one.
 */
import { createWorld, createRelation, type World } from 'bitecs';
import {
  createBoneStore, createJointStore, createAngularLimitStore, createControlPointStore,
  createRigStore, type BoneStore, type JointStore, type AngularLimitStore,
  type ControlPointStore, type RigStore,
} from '../../components';
import type { ScriptEvent, Settings } from './types';

export interface RigRecord {
  eid: number;
  name: string;
  settings: Settings;
  /** Bone entities in depth-first order, root first. */
  bones: Int32Array;
  boneNames: string[];
  boneByName: Map<string, number>;
  /** Children of the bone at depth-first index i: childIndex[childStart[i] .. childStart[i+1]) (indices). */
  childStart: Int32Array;
  childIndex: Int32Array;
  /** Joint entities in depth-first order of their parent bone. */
  joints: Int32Array;
  /** Slots of joint j: jointSlots[jointSlotStart[j] .. jointSlotStart[j+1]); a non-grounded joint's first slot is its parent. */
  jointSlotStart: Int32Array;
  jointSlots: Int32Array;
  controlPoints: Int32Array;
  /** Bumped whenever control points are added or removed (solvers' caches compare it). */
  controlPointsVersion: number;
  /**
   * The starting pose (a scene's `start`), what resetRig returns to instead of the rest pose:
   * the world rotation of every bone in depth-first order (4 each), then the root's centre (3).
   * Null: the rest pose.
   */
  start: Float64Array | null;
  /** Targets and active flags as added (restored by resetRig). */
  initialTargets: Float64Array;
  initialActive: Uint8Array;
  controlPointNames: string[];
  controlPointByName: Map<string, number>;
  /** Timed target moves sorted by step, and the next one to play. */
  script: ScriptEvent[];
  scriptCursor: number;
  /** Default cap of capped control springs (absolute units). */
  defaultCap: number;
  /** Settings the limit inertia scale was computed for (recomputed when they change). */
  limitScaleKey: string;
  /** Per-step scratch of the joint solve, sized for this rig. */
  scratch: {
    slotR: Float64Array; // lever from the bone's centre to the joint, world
    slotW: Float64Array; // inverse of the point's force-acceleration matrix M(r, r), sym 3×3
    slotC: Float64Array; // velocity-dependent acceleration of the point (centripetal), world
    slotA: Float64Array; // acceleration of the bone at the joint (work)
    jointS: Float64Array; // (Σ W_i)⁻¹, sym 3×3
  };
}

export interface PhysikContext {
  Bone: BoneStore;
  Joint: JointStore;
  AngularLimit: AngularLimitStore;
  ControlPoint: ControlPointStore;
  Rig: RigStore;
  /** bitecs relation: bone → parent bone (exclusive; removing a parent removes its children). */
  ChildOf: ReturnType<typeof createRelation>;
  /** Marker components, so bitecs queries can find the plugin's entities. */
  tags: { IsBone: object; IsJoint: object; IsControlPoint: object; IsRig: object };
  /** Rigs in creation order (the order every system visits them: deterministic). */
  rigs: RigRecord[];
  /**
   * The rigs the systems advance this step, in creation order: set by the step while some
   * rigs sleep (converged, see `sleepWhenConverged`) or while one rig retries its step in
   * substeps; null means every rig.
   */
  stepping: RigRecord[] | null;
  /**
   * Filled each step (systems/sleep.ts): the rigs not asleep; those PhysIK integrates in one
   * step; those it integrates in substeps (systems/substepRetry.ts).
   */
  awake: RigRecord[];
  simulated: RigRecord[];
  substepped: RigRecord[];
  /**
   * The awake rigs cut into groups of consecutive rigs, each small enough to stay in the
   * processor's cache (systems/sleep.ts fills them with the lists above). The step runs the
   * physics and the awake systems over one group before the next (src/core/pipeline.ts), so a
   * crowd's rig is loaded from memory once a step instead of once per system. `group` is the
   * one being stepped (null outside the step).
   */
  groups: RigGroup[];
  group: RigGroup | null;
  /** Called when a rig's settling status changes (systems/settling.ts; `onSettle` in the API). */
  settleListeners: SettleListener[];
  /** The user's systems, by the phase they run in (`addSystem` in the API; src/core/pipeline.ts). */
  userSystems: Record<UserPhase, System[]>;
}

/** A system: one stage of the step, run over the rigs `steppingRigs(world)` returns. */
export type System = (world: PhysikWorld) => void;

/**
 * Where a user's system runs in the step: 'beforeStep' first, over every rig (set targets,
 * drive control points); 'forces' after the plugin's forces and before the joint solve, over
 * the rigs PhysIK simulates (add to Bone.force and Bone.torque; it runs again in each substep of
 * a retried step); 'afterPose' after forward kinematics and the metrics, over the awake rigs
 * (read poses); 'afterStep' last, over every rig.
 */
export type UserPhase = 'beforeStep' | 'forces' | 'afterPose' | 'afterStep';

/** Run the user's systems of a phase, in the order they were added. */
export function runUserSystems(world: PhysikWorld, phase: UserPhase): void {
  const list = world.physik.userSystems[phase];
  for (let k = 0; k < list.length; k++) list[k]!(world);
}

/** Consecutive awake rigs stepped together (PhysikContext.groups): its share of each list. */
export interface RigGroup {
  awake: RigRecord[];
  simulated: RigRecord[];
  substepped: RigRecord[];
}

export interface SettleEvent {
  rig: number;
  name: string;
  status: 'settling' | 'converged' | 'stalled' | 'diverged';
  previous: 'settling' | 'converged' | 'stalled' | 'diverged';
  step: number;
  maxTargetError: number;
}
export type SettleListener = (event: SettleEvent) => void;

export type PhysikWorld = World<{ physik: PhysikContext }>;

export interface PhysikOptions {
  /** Initial entity capacity of the stores (default 64, a rig or two; they grow on demand, addRigs once for all its rigs). */
  capacity?: number;
}

function createContext(options: PhysikOptions = {}): PhysikContext {
  const capacity = Math.max(16, options.capacity ?? 64);
  return {
    Bone: createBoneStore(capacity),
    Joint: createJointStore(capacity),
    AngularLimit: createAngularLimitStore(capacity),
    ControlPoint: createControlPointStore(capacity),
    Rig: createRigStore(capacity),
    ChildOf: createRelation({ exclusive: true, autoRemoveSubject: true }),
    tags: { IsBone: {}, IsJoint: {}, IsControlPoint: {}, IsRig: {} },
    rigs: [],
    stepping: null,
    awake: [],
    simulated: [],
    substepped: [],
    groups: [],
    group: null,
    settleListeners: [],
    userSystems: { beforeStep: [], forces: [], afterPose: [], afterStep: [] },
  };
}

/** Add the physik plugin to an existing bitecs world (returns the same world, typed). */
export function installPhysik<W extends World>(world: W, options?: PhysikOptions): W & PhysikWorld {
  const w = world as W & { physik?: PhysikContext };
  if (!w.physik) w.physik = createContext(options);
  return w as W & PhysikWorld;
}

/** A new bitecs world with the physik plugin installed. */
export function createPhysikWorld(options?: PhysikOptions): PhysikWorld {
  return installPhysik(createWorld(), options);
}

/** The rigs a system visits this step (all of them unless the step narrowed the set). */
export function steppingRigs(world: PhysikWorld): readonly RigRecord[] {
  return world.physik.stepping ?? world.physik.rigs;
}

export function findRig(world: PhysikWorld, rig: number): RigRecord {
  for (const r of world.physik.rigs) if (r.eid === rig) return r;
  throw new Error(`no rig with entity id ${rig} in this world`);
}
