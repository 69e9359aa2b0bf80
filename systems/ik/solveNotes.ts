/**
 * What a kinematic solver could not honour in its last solve because of what the method is
 * (not because a target is out of reach): Bézier IK keeps the last bone's rotation and bends
 * along a curve that knows no limits, the triangle construction and the mass-spring particles
 * meet limits they cannot bend around, closed-form solvers serve goals sharing bones one after
 * another. A solver sets its rig's note on every solve ('' when it honoured everything), so
 * the note always speaks of the pose on screen; `physik compare` shows it beside the status.
 * Notes are constant strings (no allocation per step).
 */
import type { RigRecord } from '../../src/world/world';

interface Note { solver: string; note: string }
const notes = new WeakMap<RigRecord, Note>();

/** The note of `solver`'s solve of the rig ('' when it honoured everything). */
export function setSolveNote(rig: RigRecord, solver: string, note: string): void {
  const n = notes.get(rig);
  if (!n) notes.set(rig, { solver, note });
  else { n.solver = solver; n.note = note; }
}

/** The note of the rig's last kinematic solve, '' when none (or when it was by another solver than the rig's now). */
export function solveNoteOf(rig: RigRecord): string {
  const n = notes.get(rig);
  return n && n.solver === rig.settings.solver ? n.note : '';
}
