/**
 * Bone: a rigid rod along its local +Y from head to tail. State is the world rotation and
 * world angular velocity (plus the root's centre position and velocity); head, tail and
 * centre are derived by forward kinematics so joints stay connected by construction.
 */
import { createStore, type Layout } from './store';

export const BoneLayout = {
  rig: [Int32Array, 1],
  /** Parent bone entity, -1 for the root (mirrors the ChildOf relation for hot loops). */
  parent: [Int32Array, 1],
  /** Joint entity at this bone's head (shared with siblings attached at the same point). */
  joint: [Int32Array, 1],
  length: [Float64Array, 1],
  radius: [Float64Array, 1],
  mass: [Float64Array, 1],
  /** Principal moments about the centre in the bone frame: x, y (along the bone), z. */
  inertia: [Float64Array, 3],
  /** Point on the parent where this bone's head sits, in the parent's frame. */
  attach: [Float64Array, 3],
  /** Rotation relative to the parent at rest (x, y, z, w). */
  restLocal: [Float64Array, 4],
  /** World rotation at rest, for reset. */
  restWorld: [Float64Array, 4],
  rot: [Float64Array, 4],
  angVel: [Float64Array, 3],
  head: [Float64Array, 3],
  tail: [Float64Array, 3],
  centre: [Float64Array, 3],
  /** Velocity of the centre (state for the root, derived for the others). */
  vel: [Float64Array, 3],
  headVel: [Float64Array, 3],
  /** External force and torque (springs, damping, torsion) about the centre. */
  force: [Float64Array, 3],
  torque: [Float64Array, 3],
  /** Damping coefficient c at each end of the bone (F = −c v): the setting, or derived (dampingAuto). */
  damping: [Float64Array, 1],
  /** Mass including the implicit damping terms (this step). */
  effMass: [Float64Array, 1],
  /** Effective inertia in world frame (sym 3×3: xx, xy, xz, yy, yz, zz), plus implicit spring terms. */
  effInertiaWorld: [Float64Array, 6],
  /**
   * Inertia scale of the joint at the head, per axis: [0] swing (the joint frame's x and z: the
   * effective transverse inertia about the head), [1] twist (y: the effective inertia about the
   * bone's own axis). Torsion stiffness on an axis is kappa × its scale (src/core/rig.ts).
   */
  limitInertia: [Float64Array, 2],
  /** Inverse effective inertia in world frame, symmetric 3×3 as xx, xy, xz, yy, yz, zz. */
  invInertiaWorld: [Float64Array, 6],
  /** Gyroscopic torque this step (systems/damping.ts; part of torque). */
  gyroTorque: [Float64Array, 3],
  /** Linear and angular acceleration after the joint solve. */
  acc: [Float64Array, 3],
  angAcc: [Float64Array, 3],
  /** Force the joint at the head applies to this bone (kept between steps: warm start). */
  jointForce: [Float64Array, 3],
} as const satisfies Layout;

export type BoneStore = ReturnType<typeof createBoneStore>;
export const createBoneStore = (capacity: number) => createStore(BoneLayout, capacity);
