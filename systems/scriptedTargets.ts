/**
 * Scripted targets: plays a rig's timed target moves (from its scene's script) at the step
 * they are due, through the same path as a user's move, so interpolation starts as usual.
 */
import type { PhysikWorld } from '../src/core/world';
import { steppingRigs } from '../src/core/world';
import { setTargetOf, setActiveOf } from '../src/core/targets';

export function scriptedTargets(world: PhysikWorld): void {
  const { Rig } = world.physik;
  const rigs = steppingRigs(world);
  for (let ri = 0; ri < rigs.length; ri++) {
    const rig = rigs[ri]!;
    const step = Rig.step[rig.eid]!;
    const script = rig.script;
    while (rig.scriptCursor < script.length && script[rig.scriptCursor]!.step <= step) {
      const ev = script[rig.scriptCursor++]!;
      const cp = rig.controlPointByName.get(ev.point);
      if (cp === undefined) continue; // the point was removed (by an edit) after the scene loaded
      if (ev.active !== undefined) setActiveOf(world, rig, cp, ev.active);
      if (ev.target) setTargetOf(world, rig, cp, ev.target[0], ev.target[1], ev.target[2]);
    }
  }
}
