/**
 * Scripted targets: plays a rig's timed target moves (from its scene's script) at the step
 * they are due, through the same path as a user's move, so interpolation starts as usual.
 * A move's three numbers are handed to setTargetOf already boxed (see `boxedTargets`).
 */
import type { PhysikWorld } from '../src/world/world';
import type { ScriptEvent } from '../src/world/types';
import { steppingRigs } from '../src/world/world';
import { setTargetOf, setActiveOf } from '../src/world/targets';

/**
 * Per script, every event's target as tagged values (3 per event; null without a target).
 * V8 boxes a double read from a number array when it is passed to a function it does not
 * inline: a heap number per coordinate per move. An array of generic elements holds them
 * boxed once, when the script is first played.
 */
const boxed = new WeakMap<ScriptEvent[], unknown[]>();

function boxedTargets(script: ScriptEvent[]): unknown[] {
  let b = boxed.get(script);
  if (b === undefined || b.length !== 3 * script.length) {
    b = new Array<unknown>(3 * script.length).fill(null); // generic elements: numbers stored boxed
    for (let i = 0; i < script.length; i++) {
      const t = script[i]!.target;
      if (t) { b[3 * i] = t[0]; b[3 * i + 1] = t[1]; b[3 * i + 2] = t[2]; }
    }
    boxed.set(script, b);
  }
  return b;
}

export function scriptedTargets(world: PhysikWorld): void {
  const { Rig } = world.physik;
  const rigs = steppingRigs(world);
  for (let ri = 0; ri < rigs.length; ri++) {
    const rig = rigs[ri]!;
    const step = Rig.step[rig.eid]!;
    const script = rig.script;
    while (rig.scriptCursor < script.length && script[rig.scriptCursor]!.step <= step) {
      const i = rig.scriptCursor++;
      const ev = script[i]!;
      const cp = rig.controlPointByName.get(ev.point);
      if (cp === undefined) continue; // the point was removed (by an edit) after the scene loaded
      if (ev.active !== undefined) setActiveOf(world, rig, cp, ev.active);
      if (ev.target) {
        const b = boxedTargets(script);
        setTargetOf(world, rig, cp, b[3 * i] as number, b[3 * i + 1] as number, b[3 * i + 2] as number);
      }
    }
  }
}
