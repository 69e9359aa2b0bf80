/**
 * The sandbox's undoable edits of control points, as `Edit`s for the history. Each refers to
 * its point by name and looks the entity up when it runs, so an undo that re-creates a point
 * (under a new entity id) leaves later redos working.
 */
import { addControlPoint, describeControlPoint, removeControlPoint, setControlPointActive, setTarget, type PhysikWorld } from '../core';
import { findRig } from '../world/world';
import type { ControlPointDescription, Vec3Tuple } from '../scene/types';
import type { Edit } from './history';

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

export function addPointEdit(ref: RigRef, description: ControlPointDescription): Edit {
  const d = structuredClone(description);
  return {
    label: `add ${d.name}`,
    redo: () => void addControlPoint(ref.world, ref.rig, d),
    undo: () => removeControlPoint(ref.world, pointNamed(ref, d.name)),
  };
}

/** Remove the named point; its description is taken now, so undo restores it as it was. */
export function removePointEdit(ref: RigRef, name: string): Edit {
  const d = describeControlPoint(ref.world, pointNamed(ref, name));
  return {
    label: `delete ${name}`,
    redo: () => removeControlPoint(ref.world, pointNamed(ref, name)),
    undo: () => void addControlPoint(ref.world, ref.rig, d),
  };
}

export function activeEdit(ref: RigRef, name: string, active: boolean): Edit {
  const set = (a: boolean) => setControlPointActive(ref.world, pointNamed(ref, name), a);
  return { label: `${active ? 'enable' : 'disable'} ${name}`, redo: () => set(active), undo: () => set(!active) };
}

export function moveTargetEdit(ref: RigRef, name: string, from: Vec3Tuple, to: Vec3Tuple): Edit {
  const a = [...from], b = [...to];
  return {
    label: `move ${name}`,
    redo: () => setTarget(ref.world, pointNamed(ref, name), b),
    undo: () => setTarget(ref.world, pointNamed(ref, name), a),
  };
}
