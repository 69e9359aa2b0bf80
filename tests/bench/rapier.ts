/**
 * PhysIK against its Rapier mirror (src/rapier), time per step, in the same process:
 * `npm run bench:rapier` (`-- --json` for JSON). Cases: the humanoid scene (its script) and
 * pinned chains of 10, 100 and 1000 free bones whose tip is pulled to a reachable point.
 * Each repetition builds a fresh PhysIK world and mirrors it with impulse joints and with
 * multibody joints, then steps all three in lockstep (PhysIK first: the mirrors read its
 * effective targets), timing each engine's own step; the first repetition warms up and is
 * dropped. Reported: the median µs per step over the repetitions (with its interquartile
 * range), Rapier / PhysIK, and the tip distance at the end as a fraction of the rig's height
 * (a check that the mirrors simulate the same thing; the chains are still moving at the end,
 * and free chains are the most path-dependent rigs there are). Multibody joints are measured
 * up to 100 bones: their cost grows faster than n² (measured once: 0.13 s per step at 100
 * bones, 2 s at 300), so 1000 is extrapolated from the 10–100 fit, which underestimates it,
 * and the table says so.
 */
import { fileURLToPath } from 'node:url';
import { createPhysikWorld, addRig, step, setTarget, type PhysikWorld } from '../../src/core';
import { loadSceneFile } from '../../src/scene/loadFile';
import { loadRapier } from '../../src/rapier/load';
import { buildRapierMirror, type RapierMirror } from '../../src/rapier/mirror';
import type { JointModel } from '../../src/rapier/jointPlan';
import { chainBones } from '../support/helpers';
import { spread, table, fixed, logLogSlope, type Spread } from './stats';

const json = process.argv.includes('--json');
const log = (s: string) => { if (!json) console.log(s); };

interface Case {
  name: string;
  bones: number;
  steps: number;
  reps: number;
  multibody: boolean;
  build: () => { world: PhysikWorld; rig: number; start: () => void };
}

const humanoid = loadSceneFile(fileURLToPath(new URL('../../scenes/humanoid.json', import.meta.url)));

function chainCase(n: number, steps: number, reps: number, multibody: boolean): Case {
  return {
    name: `chain ${n}`, bones: n, steps, reps, multibody,
    build: () => {
      const world = createPhysikWorld({ capacity: 2 * n + 16 });
      const { rig, controlPoints } = addRig(world, {
        rig: { name: `chain${n}`, root: 'pinned', bones: chainBones(n, { length: 0.1, mass: 0.5 }) },
        controlPoints: [{ name: 'tip', bone: `b${n - 1}` }],
      });
      // a reachable point: 0.1 n is the chain's length
      return { world, rig, start: () => setTarget(world, controlPoints.tip!, [0.03 * n, 0.08 * n, 0.02 * n]) };
    },
  };
}

const cases: Case[] = [
  {
    name: 'humanoid', bones: humanoid.rig.bones.length, steps: humanoid.steps, reps: 6, multibody: true,
    build: () => {
      const world = createPhysikWorld();
      const { rig } = addRig(world, { rig: humanoid.rig, controlPoints: humanoid.controlPoints, settings: humanoid.settings, script: humanoid.script });
      return { world, rig, start: () => {} };
    },
  },
  chainCase(10, 300, 6, true),
  chainCase(100, 60, 3, true),
  chainCase(1000, 30, 3, false),
];

interface Timing { us: Spread; distance: number; finite: boolean }
interface Row { name: string; bones: number; steps: number; reps: number; physik: Spread; impulse: Timing; multibody: Timing | null }

const R = await loadRapier();
const models: JointModel[] = ['impulse', 'multibody'];
const t0 = performance.now();
const rows: Row[] = [];
for (const c of cases) {
  const times: Record<string, number[]> = { physik: [], impulse: [], multibody: [] };
  const last: Record<string, { distance: number; finite: boolean }> = {};
  for (let rep = 0; rep <= c.reps; rep++) {
    const { world, rig, start } = c.build();
    const used = models.filter((m) => m === 'impulse' || c.multibody);
    const mirrors: RapierMirror[] = used.map((jointModel) => buildRapierMirror(R, world, rig, { jointModel }));
    start();
    const elapsed = new Float64Array(1 + mirrors.length);
    for (let s = 0; s < c.steps; s++) {
      let a = performance.now();
      step(world, 1);
      elapsed[0] = elapsed[0]! + (performance.now() - a);
      for (let k = 0; k < mirrors.length; k++) {
        a = performance.now();
        mirrors[k]!.step();
        elapsed[k + 1] = elapsed[k + 1]! + (performance.now() - a);
      }
    }
    if (rep > 0) {
      times.physik!.push((elapsed[0]! / c.steps) * 1000);
      used.forEach((m, k) => times[m]!.push((elapsed[k + 1]! / c.steps) * 1000));
    }
    const record = world.physik.rigs[0]!;
    const height = world.physik.Rig.height[rig]!;
    const tips = new Float64Array(3 * record.bones.length);
    used.forEach((m, k) => {
      const mirror = mirrors[k]!;
      mirror.tipPositions(tips);
      let max = 0;
      record.bones.forEach((b, i) => {
        const d = Math.hypot(tips[i * 3]! - world.physik.Bone.tail[b * 3]!, tips[i * 3 + 1]! - world.physik.Bone.tail[b * 3 + 1]!, tips[i * 3 + 2]! - world.physik.Bone.tail[b * 3 + 2]!);
        if (!(d <= max)) max = d; // NaN sticks
      });
      last[m] = { distance: max / height, finite: mirror.finite() };
      mirror.dispose();
    });
  }
  const timing = (m: string): Timing => ({ us: spread(times[m]!), ...last[m]! });
  rows.push({ name: c.name, bones: c.bones, steps: c.steps, reps: c.reps, physik: spread(times.physik!), impulse: timing('impulse'), multibody: c.multibody ? timing('multibody') : null });
}

// multibody cost against chain length, from the chains it was run on
const mbChains = rows.filter((r) => r.name.startsWith('chain') && r.multibody);
const mbSlope = logLogSlope(mbChains.map((r) => r.bones), mbChains.map((r) => r.multibody!.us.median));
const extrapolate = (n: number) => {
  const ref = mbChains[mbChains.length - 1]!;
  return ref.multibody!.us.median * (n / ref.bones) ** mbSlope;
};

if (json) {
  console.log(JSON.stringify({
    node: process.version,
    cases: rows.map((r) => ({
      name: r.name, bones: r.bones, steps: r.steps, reps: r.reps,
      physikUsPerStep: r.physik.median, physikIqr: [r.physik.q1, r.physik.q3],
      impulseUsPerStep: r.impulse.us.median, impulseIqr: [r.impulse.us.q1, r.impulse.us.q3], impulseOverPhysik: r.impulse.us.median / r.physik.median,
      impulseTipDistance: r.impulse.distance, impulseFinite: r.impulse.finite,
      multibodyUsPerStep: r.multibody ? r.multibody.us.median : null, multibodyOverPhysik: r.multibody ? r.multibody.us.median / r.physik.median : null,
      multibodyTipDistance: r.multibody ? r.multibody.distance : null, multibodyFinite: r.multibody ? r.multibody.finite : null,
      multibodyExtrapolatedUsPerStep: r.multibody ? null : extrapolate(r.bones),
    })),
    multibodyExponent: mbSlope,
  }));
} else {
  const iqr = (s: Spread) => `${fixed(s.q1)}–${fixed(s.q3)}`;
  const head = ['case', 'bones', 'steps×reps', 'PhysIK µs/step', 'IQR', 'impulse µs/step', 'IQR', 'impulse/PhysIK', 'tip dist/H', 'multibody µs/step', 'multibody/PhysIK', 'tip dist/H'];
  const body = rows.map((r) => [
    r.name, String(r.bones), `${r.steps}×${r.reps}`, fixed(r.physik.median), iqr(r.physik),
    fixed(r.impulse.us.median), iqr(r.impulse.us), fixed(r.impulse.us.median / r.physik.median, 2), r.impulse.finite ? r.impulse.distance.toExponential(1) : 'NaN',
    r.multibody ? fixed(r.multibody.us.median) : `≥ ~${fixed(extrapolate(r.bones) / 1e6, 0)} s (extrapolated)`,
    r.multibody ? fixed(r.multibody.us.median / r.physik.median, 2) : '-',
    r.multibody ? (r.multibody.finite ? r.multibody.distance.toExponential(1) : 'NaN') : '-',
  ]);
  log(`node ${process.version}, ${process.platform} ${process.arch}; Rapier ${R.version()} (${'@dimforge/rapier3d-compat'}), impulse and multibody joints, 4 solver iterations, 1 substep\n`);
  log(table([head, ...body]));
  log(`\nmultibody: time per step ~ bones^${fixed(mbSlope, 2)} (chains of ${mbChains.map((r) => r.bones).join(', ')})`);
  log('tip dist/H: largest distance between the two rigs\' bone tips at the end, / the rig\'s height (chains are still moving at the end)');
  log(`\nbench took ${fixed((performance.now() - t0) / 1000)} s`);
}
