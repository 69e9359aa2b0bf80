/**
 * Joint: the point where a parent bone meets the heads of its children (or, for a pinned
 * root, where the root's head meets the world). Children attached at the same point of the
 * same parent share one joint, so a joint can hold any number of bones (paper eq. 6-11).
 */
import { createStore, type Layout } from './store';

export const JointLayout = {
  rig: [Int32Array, 1],
  /** Parent bone, or -1 when the joint ties the root's head to the world. */
  parent: [Int32Array, 1],
  /** Attachment point on the parent, in the parent's frame. */
  point: [Float64Array, 3],
  /** 1 when the world holds this joint still (pinned root). */
  grounded: [Uint8Array, 1],
  /** Acceleration mismatch at the joint after the last solve. */
  mismatch: [Float64Array, 1],
} as const satisfies Layout;

export type JointStore = ReturnType<typeof createJointStore>;
export const createJointStore = (capacity: number) => createStore(JointLayout, capacity);
