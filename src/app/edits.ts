/**
 * Undo by state: every user action in the sandbox (a drag of a target, a bone grab, a pin, a
 * point enabled, disabled or deleted, a setting or feel knob changed, a reset) is one undoable
 * step that puts the main rig back as it was, pose and velocities included: the state before
 * the action is captured when it begins, the state after when it ends, and undo restores the
 * one, redo the other.
 *
 * A state is the rig's snapshot (src/core/snapshot.ts: every store's slice, the settings, the
 * script cursor) plus the description of each control point (the snapshot can only be
 * restored onto the set of points it was taken with, so a differing set is rebuilt from the
 * descriptions first) and whatever the host keeps beside the world (the feel knobs).
 *
 * Limits: only the main rig (a crowd and the compare ghost go on from where they are); about
 * two snapshots per step of the history (the 18-bone humanoid: about 30 kB a step).
 */
import {
  addControlPoint, createSnapshot, describeControlPoint, removeControlPoint, restoreRig,
  type PhysikWorld, type RigSnapshot,
} from '../core';
import { findRig } from '../world/world';
import type { ControlPointDescription } from '../scene/types';
import type { Edit, History } from './history';

/** The rig the edits act on (read when an edit runs: a loaded scene replaces the rig). */
export interface RigRef {
  readonly world: PhysikWorld;
  readonly rig: number;
}

/** Entity of the named control point of the current rig; throws when it is gone. */
export function pointNamed(ref: RigRef, name: string): number {
  const cp = findRig(ref.world, ref.rig).controlPointByName.get(name);
  if (cp === undefined) throw new Error(`no control point named "${name}" on this rig`);
  return cp;
}

/** A name not yet used by the rig's control points: `${prefix}1`, `${prefix}2`, ... */
export function freshName(ref: RigRef, prefix: string): string {
  const used = findRig(ref.world, ref.rig).controlPointByName;
  for (let i = 1; ; i++) if (!used.has(`${prefix}${i}`)) return `${prefix}${i}`;
}

/** The main rig as it stands, and what the host keeps beside it (`T`). */
export interface RigState<T = unknown> {
  rig: number;
  snapshot: RigSnapshot;
  points: ControlPointDescription[];
  extra: T;
}

export function captureState<T>(ref: RigRef, extra: T): RigState<T> {
  const record = findRig(ref.world, ref.rig);
  return {
    rig: ref.rig,
    snapshot: createSnapshot(ref.world, ref.rig),
    points: Array.from(record.controlPoints, (cp) => describeControlPoint(ref.world, cp)),
    extra,
  };
}

const sameSet = (ids: Int32Array, names: readonly string[], s: RigSnapshot) =>
  ids.length === s.controlPoints.length && ids.every((id, i) => id === s.controlPoints[i])
  && names.length === s.controlPointNames.length && names.every((n, i) => n === s.controlPointNames[i]);

/**
 * Put the rig back into `state`: its control points rebuilt from the descriptions when the set
 * differs (new entities, the same names in the same order), then everything the snapshot holds.
 * Throws, before changing anything, when the state is of another rig.
 */
export function restoreState(ref: RigRef, state: RigState): void {
  if (state.rig !== ref.rig) throw new Error('this step belongs to a rig that has since been replaced');
  const { world, rig } = ref;
  const record = findRig(world, rig);
  let snapshot = state.snapshot;
  if (!sameSet(record.controlPoints, record.controlPointNames, snapshot)) {
    for (const cp of Array.from(record.controlPoints)) removeControlPoint(world, cp);
    for (const d of state.points) addControlPoint(world, rig, d);
    // the same points under new entities: the snapshot's slices are in the same order
    snapshot = { ...snapshot, controlPoints: Int32Array.from(findRig(world, rig).controlPoints) };
  }
  restoreRig(world, rig, snapshot);
}

/** An action in progress: `commit` records it as one step (the state now is its result). */
export interface PendingStep {
  readonly label: string;
  commit(label?: string): void;
}

export interface Undoable {
  /** Take the state now: the action starts. */
  begin(label: string): PendingStep;
  /** Run `apply` as one step (nothing recorded when it throws: it must throw before changing anything). */
  run<R>(label: string, apply: () => R): R;
}

export interface UndoableHooks<T> {
  /** What the host keeps beside the world (taken with each state). */
  extra(): T;
  /** Put that back, after the world has been restored. */
  restoreExtra(extra: T): void;
}

/** Steps of `ref`'s rig, recorded in `history`. */
export function createUndoable<T>(ref: RigRef, history: History, hooks: UndoableHooks<T>): Undoable {
  const capture = () => captureState(ref, hooks.extra());
  const restore = (s: RigState<T>) => {
    restoreState(ref, s);
    hooks.restoreExtra(s.extra);
  };
  const edit = (label: string, before: RigState<T>, after: RigState<T>): Edit => ({
    label, undo: () => restore(before), redo: () => restore(after),
  });
  function begin(label: string): PendingStep {
    const before = capture();
    return {
      label,
      commit(final = label) { history.push(edit(final, before, capture())); },
    };
  }
  return {
    begin,
    run(label, apply) {
      const step = begin(label);
      const out = apply();
      step.commit();
      return out;
    },
  };
}
