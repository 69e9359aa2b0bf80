/**
 * A rig's script (the timed target moves and switches a scene carries, run by the
 * scriptedTargets system), read and replaced while the rig runs: an editor keys targets at
 * steps, and a saved scene carries them.
 */
import { findRig, type PhysikWorld } from '../world/world';
import type { ScriptEvent } from '../world/types';

/** A copy of the rig's script, in step order. */
export function getScript(world: PhysikWorld, rig: number): ScriptEvent[] {
  return findRig(world, rig).script.map((ev) => ({ ...ev, ...(ev.target ? { target: [...ev.target] as ScriptEvent['target'] } : {}) }));
}

/**
 * Replace the rig's script. Events at steps the rig has already taken do not fire now (they
 * fire after a reset); events of a point the rig no longer has are skipped when they come, as
 * for a scene's. Throws, changing nothing, for an event at a step that is not a whole number
 * from 0, or a target that is not three finite numbers.
 */
export function setScript(world: PhysikWorld, rig: number, script: readonly ScriptEvent[]): void {
  const record = findRig(world, rig);
  script.forEach((ev, i) => {
    const where = `setScript: event ${i}`;
    if (!(Number.isInteger(ev.step) && ev.step >= 0)) throw new Error(`${where}: step must be a whole number from 0, got ${ev.step}`);
    if (typeof ev.point !== 'string' || ev.point === '') throw new Error(`${where}: point must be a control point's name`);
    if (ev.target !== undefined && !(ev.target.length === 3 && ev.target.every(Number.isFinite))) {
      throw new Error(`${where}: target must be three finite numbers, got [${ev.target.join(', ')}]`);
    }
  });
  // a new array (the system caches per array), stable in step order
  record.script = script.map((ev) => ({ ...ev, ...(ev.target ? { target: [...ev.target] as ScriptEvent['target'] } : {}) }))
    .sort((a, b) => a.step - b.step);
  const now = world.physik.Rig.step[rig]!;
  let cursor = 0;
  while (cursor < record.script.length && record.script[cursor]!.step <= now) cursor++;
  record.scriptCursor = cursor;
}
