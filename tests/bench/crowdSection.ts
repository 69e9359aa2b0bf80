/** The crowd section of `npm run bench`: worlds of 1 to 1000 humanoids. */
import { performance } from 'node:perf_hooks';
import { createPhysikWorld, addRigs, step, createSnapshot, restoreRig } from '../../src/core';
import { spread, table, fixed as f, type Spread } from './stats';
import { crowdScene, crowdInputs } from './rigs';
import { log } from './building';

export interface CrowdRow {
  rigs: number; bones: number; sleep: boolean; buildMs: number; stepsTimed: number; msPerStep: Spread; stepsPerSecond: number; usPerRigStep: number;
  /** Fraction of the timed rig-steps that were awake (1 when sleep is off). */
  awakeFraction: number;
}

export const CROWD_SIZES = [1, 10, 100, 1000] as const;

/**
 * Crowds of the crowd scene (scenes/crowd.json, rigs.ts crowdInputs: its humanoid on a grid, each
 * copy wandering after its own seeded target, a new one every 100 steps), kept awake, and, for the largest,
 * also with the default sleep of converged rigs (a rig that has reached its target and settled
 * costs next to nothing until its next move).
 */
export function crowdSection(): CrowdRow[] {
  const scene = crowdScene();
  const rows: CrowdRow[] = [];
  // every size runs the same steps (20 to 220 of the crowd's script: the first move under way,
  // the wander moves at 100 and 200), in blocks of 10; small crowds repeat that window (from
  // snapshots) so each has enough blocks
  const from = 20, to = 220, block = 10;
  const cases: [number, boolean][] = [...CROWD_SIZES.map((n): [number, boolean] => [n, false]), [1000, true]];
  for (const [n, sleep] of cases) {
    log(`crowd: ${n} humanoids${sleep ? ' (sleep on)' : ''} ...`);
    const t0 = performance.now();
    const world = createPhysikWorld();
    const rigs = addRigs(world, crowdInputs(n, !sleep, scene)).map((h) => h.rig); // (as the sandbox spawns a crowd)
    const buildMs = performance.now() - t0;
    step(world, from); // warm-up, and the moves get going
    const snaps = rigs.map((r) => createSnapshot(world, r));
    // small crowds repeat the window; the first half of the repeats is warm-up (after the
    // kinematic peers ran, the physics systems' code re-optimises for a while)
    const repeats = Math.max(1, Math.ceil(200 / n)), warmup = n >= 100 ? 0 : repeats;
    const blocks: number[] = [];
    let awake = 0, seen = 0;
    const sleeping = world.physik.Rig.sleeping;
    for (let rep = 0; rep < warmup + repeats; rep++) {
      rigs.forEach((r, i) => restoreRig(world, r, snaps[i]!));
      for (let s = from; s < to; s += block) {
        const b0 = performance.now();
        step(world, block);
        if (rep >= warmup) {
          blocks.push((performance.now() - b0) / block);
          for (const r of rigs) { seen++; if (!sleeping[r]) awake++; }
        }
      }
    }
    const ms = spread(blocks);
    rows.push({
      rigs: n, bones: n * scene.rig.bones.length, sleep, buildMs, stepsTimed: blocks.length * block, msPerStep: ms,
      stepsPerSecond: 1000 / ms.median, usPerRigStep: (ms.median * 1000) / n, awakeFraction: awake / seen,
    });
  }
  return rows;
}

export function formatCrowd(rows: CrowdRow[]): string[] {
  const t = [['crowd', 'bones', 'sleep', 'awake', 'build ms', 'steps timed', 'ms/step median', 'IQR', 'steps/s', 'µs per rig-step']];
  for (const r of rows) {
    t.push([
      `${r.rigs} humanoid${r.rigs > 1 ? 's' : ''}`, String(r.bones), r.sleep ? 'on (default)' : 'off', `${f(100 * r.awakeFraction, 0)}%`, f(r.buildMs, 0), String(r.stepsTimed),
      f(r.msPerStep.median, 3), `${f(r.msPerStep.q1, 3)}–${f(r.msPerStep.q3, 3)}`, f(r.stepsPerSecond, 0), f(r.usPerRigStep),
    ]);
  }
  return [
    'crowd scene: humanoids on a grid, each wandering after its own seeded target (a new one every 100 steps); steps 20–220 of its script, one core;',
    "sleep off: every rig simulated every step (the goal's figure); sleep on: converged rigs sleep until their next move ('awake': share of rig-steps simulated, sampled every 10 steps)",
    table(t),
  ];
}
