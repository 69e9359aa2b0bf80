/**
 * Sleeping rigs. A rig the settling system put to sleep (converged, `sleepWhenConverged`) is
 * not stepped, so an idle sandbox costs nothing, until something changes what it should do:
 * a target moves, a point is switched, a setting changes, the rig is reset (all of which call
 * `wakeRig`, src/world/wake.ts). Scripts keep time while a rig sleeps: `Rig.step` still counts.
 *
 * - `wakeOnChange` (before the physics): handles the change flags and fills the step's lists,
 *   `awake` (every rig not asleep), and of the awake rigs PhysIK integrates (solver 'physik')
 *   `simulated` (in one step) and `substepped` (in substeps, after a step the guard refused:
 *   systems/substepRetry.ts), and `groups`: the awake rigs cut into runs of about GROUP_BONES
 *   bones, which the step takes one at a time through every system (src/core/pipeline.ts).
 * - `sleepingClock` (last): advances the step counter of the rigs that slept through the step.
 */
import type { PhysikWorld, RigGroup } from '../src/world/world';
import { STATUS_SETTLING } from '../components';
import { setSettleStatus } from './settling';

/**
 * Bones per group of rigs stepped together: a bone's state, forces and solver scratch take
 * about 1 kB, so a group's data (~256 kB) stays in a core's L2 cache from one system to the next.
 */
const GROUP_BONES = 256;

export function wakeOnChange(world: PhysikWorld): void {
  const { Rig, rigs, awake, simulated, substepped } = world.physik;
  let same = true; // the lists are rebuilt only when their members change (no allocation otherwise)
  let a = 0, sim = 0, sub = 0;
  for (let ri = 0; ri < rigs.length; ri++) {
    const rig = rigs[ri]!;
    const r = rig.eid;
    if (Rig.changed[r]) {
      Rig.changed[r] = 0;
      Rig.sleeping[r] = 0;
      Rig.finishing[r] = 0;
      Rig.bestError[r] = Infinity;
      Rig.progressStep[r] = Rig.step[r]!;
      if (Rig.settle[r] !== STATUS_SETTLING) setSettleStatus(world, rig, STATUS_SETTLING);
    }
    if (Rig.sleeping[r]) continue;
    if (awake[a++] !== rig) same = false;
    if (rig.settings.solver !== 'physik') continue;
    if (Rig.substepCount[r]! > 1 || Rig.speedClamp[r]) { if (substepped[sub++] !== rig) same = false; }
    else if (simulated[sim++] !== rig) same = false;
  }
  if (same && a === awake.length && sim === simulated.length && sub === substepped.length) return;
  awake.length = 0;
  simulated.length = 0;
  substepped.length = 0;
  for (let ri = 0; ri < rigs.length; ri++) {
    const rig = rigs[ri]!;
    const r = rig.eid;
    if (Rig.sleeping[r]) continue;
    awake.push(rig);
    if (rig.settings.solver !== 'physik') continue;
    if (Rig.substepCount[r]! > 1 || Rig.speedClamp[r]) substepped.push(rig);
    else simulated.push(rig);
  }
  groupRigs(world);
}

/** Cut the awake rigs into groups of consecutive rigs of about GROUP_BONES bones (when the lists change only). */
function groupRigs(world: PhysikWorld): void {
  const { Rig, awake, groups } = world.physik;
  groups.length = 0;
  let group: RigGroup | null = null;
  let bones = 0;
  for (let ai = 0; ai < awake.length; ai++) {
    const rig = awake[ai]!;
    if (!group || bones >= GROUP_BONES) {
      group = { awake: [], simulated: [], substepped: [] };
      groups.push(group);
      bones = 0;
    }
    bones += rig.bones.length;
    group.awake.push(rig);
    if (rig.settings.solver !== 'physik') continue;
    const r = rig.eid;
    if (Rig.substepCount[r]! > 1 || Rig.speedClamp[r]) group.substepped.push(rig);
    else group.simulated.push(rig);
  }
}

export function sleepingClock(world: PhysikWorld): void {
  const { Rig, rigs, awake } = world.physik;
  // the rigs missing from `awake` slept through the step (both lists are in creation order;
  // a rig that fell asleep during this step was counted by metrics already)
  let ai = 0;
  for (let ri = 0; ri < rigs.length; ri++) {
    const rig = rigs[ri]!;
    if (ai < awake.length && awake[ai] === rig) { ai++; continue; }
    Rig.step[rig.eid] = Rig.step[rig.eid]! + 1;
  }
}
