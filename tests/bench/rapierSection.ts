/** The rapier section of `npm run bench`: Rapier's step on the same rigs through the mirror. */
import { existsSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createPhysikWorld, addRig, step, setSettings, createSnapshot, restoreRig, type PhysikWorld, type RigInput } from '../../src/core';
import { spread, table, fixed as f, type Spread } from './stats';
import { chainInput, treeInput, humanoidInput, type Family } from './rigs';
import { build, log, withSolve } from './building';
import { StepSection, measureStep, passCap } from './stepSection';

export interface RapierRow {
  rig: string; bones: number; jointModel: string; steps: number; repeats: number;
  /** mirror.step(): the mirror's forces (springs, damping, emulated limits) and Rapier's world.step(). */
  mirrorUs: Spread | null;
  /** Rapier's world.step() alone, timed inside mirror.step(). */
  worldStepUs: Spread | null;
  /** PhysIK's exact step on the same rig, measured as the step section does (alone, warm). */
  physikUs: number;
  /** PhysIK exact step / Rapier world.step(), and / mirror.step(). */
  ratio: number | null;
  ratioMirror: number | null;
  finite: boolean;
  note?: string;
}
export interface RapierSection {
  available: boolean; note?: string; rows: RapierRow[]; humanoidVsRapier: number | null; humanoidVsRapierMultibody: number | null;
  /** The humanoid, PhysIK and Rapier (impulse) timed in alternating blocks at the same time (see pairedHumanoid). */
  paired: { ratio: Spread; physikUs: Spread; rapierUs: Spread; blocks: number } | null;
}

/** The parts of src/rapier's mirror the bench uses (`createRapierMirror(world, rig, { jointModel })`). */
export interface Mirror { step(): void; finite(): boolean; dispose(): void }
export type CreateMirror = (world: PhysikWorld, rig: number, options: { jointModel: 'impulse' | 'multibody' }) => Promise<Mirror>;

export async function loadRapierMirror(): Promise<{ create: CreateMirror | null; note?: string }> {
  const entry = fileURLToPath(new URL('../../src/rapier/index.ts', import.meta.url));
  if (!existsSync(entry)) return { create: null, note: 'src/rapier is missing: no Rapier rows, humanoidVsRapier is null' };
  try {
    const mod = (await import(pathToFileURL(entry).href)) as Record<string, unknown>;
    const create = mod.createRapierMirror;
    if (typeof create !== 'function') return { create: null, note: 'src/rapier/index.ts has no createRapierMirror export: no Rapier rows' };
    return { create: create as CreateMirror };
  } catch (err) {
    return { create: null, note: `src/rapier could not be loaded (${(err as Error).message}): no Rapier rows` };
  }
}

/**
 * Times Rapier's world.step() inside mirror.step(), by wrapping the step of the mirror's Rapier
 * world (its private field `rworld`); null when the mirror does not have one.
 */
export function wrapWorldStep(mirror: Mirror): { elapsed: () => number } | null {
  const rworld = (mirror as unknown as { rworld?: { step: (...a: unknown[]) => void } }).rworld;
  if (!rworld || typeof rworld.step !== 'function') return null;
  const inner = rworld.step.bind(rworld);
  let ms = 0;
  rworld.step = (...a: unknown[]) => { const t0 = performance.now(); inner(...a); ms += performance.now() - t0; };
  return { elapsed: () => ms };
}

/**
 * `steps` steps of the mirror, µs per step of mirror.step() and of Rapier's world.step() inside
 * it (null if it cannot be reached); the PhysIK world is stepped too (not timed), so the mirror
 * follows the same moving targets.
 */
export function timedMirrorSteps(world: PhysikWorld, m: Mirror, steps: number): { mirrorUs: number; worldStepUs: number | null } {
  const inner = wrapWorldStep(m);
  let ms = 0;
  for (let s = 0; s < steps; s++) {
    step(world, 1);
    const t0 = performance.now();
    m.step();
    ms += performance.now() - t0;
  }
  return { mirrorUs: (ms * 1000) / steps, worldStepUs: inner ? (inner.elapsed() * 1000) / steps : null };
}

/** Multibody joints cost about bones³ in Rapier (docs/rapier.md has the timing): no 1000-bone rows. */
export const MULTIBODY_MAX_BONES = 100;

export async function rapierSection(stepSec: StepSection | null): Promise<RapierSection> {
  const { create, note } = await loadRapierMirror();
  if (!create) return { available: false, note, rows: [], humanoidVsRapier: null, humanoidVsRapierMultibody: null, paired: null };
  const rows: RapierRow[] = [];
  // a rig to mirror: a fresh one per repeat (a Rapier world cannot be put back); the
  // 10,000-bone rigs are the step section's, put back to their start (building one takes seconds)
  type Source = () => { world: PhysikWorld; rig: number } | null;
  const fresh = (input: () => RigInput): Source => () => { const world = createPhysikWorld(); return { world, rig: addRig(world, input()).rig }; };
  const rigs: [string, Source, number, () => RigInput][] = [['humanoid', fresh(() => humanoidInput()), 18, () => humanoidInput()]];
  for (const family of ['chain', 'tree'] as const) {
    for (const n of [10, 100, 1000]) {
      const input = () => (family === 'chain' ? chainInput(n, passCap(n)) : treeInput(n, passCap(n)));
      rigs.push([`${family} ${n}`, fresh(input), n, input]);
    }
    rigs.push([`${family} 10000`, () => {
      const b = stepSec?.built.get(`${family} 10000`);
      if (!b) return null;
      restoreRig(b.world, b.rig, b.snapshot);
      setSettings(b.world, b.rig, { interJoint: 'exact' });
      return { world: b.world, rig: b.rig };
    }, 10_000, () => (family === 'chain' ? chainInput(10_000, passCap(10_000)) : treeInput(10_000, passCap(10_000)))]);
  }
  // PhysIK's side of each ratio: its exact step as the step section measures it (warm,
  // alone, the same rig and steps), taken from that section or measured here the same way,
  // before any Rapier work: run beside the mirror, PhysIK measured several times slower than
  // alone (the mirror's garbage is collected during PhysIK's steps, and each evicts the
  // other's data and code from the caches), which is Rapier's cost, not PhysIK's
  const physikUs = new Map<string, number>();
  for (const [name, , bones, input] of rigs) {
    const known = stepSec?.cases.find((r) => r.name === `${name} exact` && !r.skipped)?.usPerStep.median;
    if (known !== undefined) { physikUs.set(name, known); continue; }
    if (bones >= 10_000) continue; // only from the step section (a build takes seconds)
    log(`rapier: PhysIK reference for ${name} ...`);
    // (a fresh process needs a few thousand steps before V8 has optimised the systems)
    const plan = { steps: 200, ...(bones >= 1000 ? { repeats: 3, warmup: 2 } : { repeats: 10, warmup: 15 }) };
    const family: Family = name === 'humanoid' ? 'humanoid' : name.startsWith('tree') ? 'tree' : 'chain';
    const r = measureStep({ name, family, solve: 'exact', bones, ...plan }, withSolve(build(input()), 'exact'));
    physikUs.set(name, r.usPerStep.median);
  }
  // Rapier is WebAssembly: its code tiers up over the first few hundred steps, so a humanoid
  // runs 600 steps first
  {
    log('rapier: warm-up ...');
    const world = createPhysikWorld();
    const { rig } = addRig(world, humanoidInput());
    for (const jointModel of ['impulse', 'multibody'] as const) {
      const m = await create(world, rig, { jointModel });
      for (let s = 0; s < 600; s++) { step(world, 1); m.step(); }
      m.dispose();
    }
  }
  for (const [name, source, bones] of rigs) {
    const physik = physikUs.get(name) ?? NaN;
    for (const jointModel of ['impulse', 'multibody'] as const) {
      const steps = bones >= 10_000 ? 10 : bones >= 1000 ? 20 : jointModel === 'multibody' && bones >= 100 ? 10 : 200;
      const repeats = bones >= 10_000 ? 1 : bones >= 100 ? 3 : 10;
      const base = { rig: name, bones, jointModel, steps, repeats, physikUs: physik };
      if (jointModel === 'multibody' && bones > MULTIBODY_MAX_BONES) {
        rows.push({ ...base, mirrorUs: null, worldStepUs: null, ratio: null, ratioMirror: null, finite: true, note: `skipped: multibody cost grows ~bones³ (see the ${MULTIBODY_MAX_BONES}-bone rows)` });
        continue;
      }
      log(`rapier: ${name} ${jointModel} (${repeats} repeats of ${steps} steps) ...`);
      const mirrorTimes: number[] = [], worldTimes: number[] = [];
      let finite = true, refused = '';
      for (let r = 0; r < repeats; r++) {
        const src = source();
        if (!src) { refused = 'the step section did not build this rig'; break; }
        const { world, rig } = src;
        let m: Mirror;
        try { m = await create(world, rig, { jointModel }); } catch (err) { refused = (err as Error).message; break; }
        const t = timedMirrorSteps(world, m, steps);
        mirrorTimes.push(t.mirrorUs);
        if (t.worldStepUs !== null) worldTimes.push(t.worldStepUs);
        finite &&= m.finite();
        m.dispose();
      }
      if (refused) { rows.push({ ...base, mirrorUs: null, worldStepUs: null, ratio: null, ratioMirror: null, finite: true, note: refused.startsWith('the step') ? `skipped: ${refused}` : `mirror refused: ${refused}` }); continue; }
      const mirrorUs = spread(mirrorTimes), worldStepUs = worldTimes.length ? spread(worldTimes) : null;
      rows.push({
        ...base, mirrorUs, worldStepUs, finite,
        ratio: worldStepUs ? physik / worldStepUs.median : null,
        ratioMirror: physik / mirrorUs.median,
        ...(finite ? {} : { note: 'Rapier went non-finite (NaN) during the run: its times are not those of a working rig' }),
      });
    }
  }
  const ratio = (model: string) => {
    const r = rows.find((row) => row.rig === 'humanoid' && row.jointModel === model);
    return r ? (r.ratio ?? r.ratioMirror) : null;
  };
  return { available: true, rows, humanoidVsRapier: ratio('impulse'), humanoidVsRapierMultibody: ratio('multibody'), paired: await pairedHumanoid(create) };
}

/**
 * The humanoid's ratio measured the way the peers are: PhysIK's exact step and Rapier's
 * world.step() (impulse joints) in alternating blocks of 200 steps, the ratio the median over
 * neighbouring pairs, so both share the machine's speed of the moment (on this VM it drifts by
 * up to 2× between sections, which the headline ratio, PhysIK from the step section and Rapier
 * from this one, does not correct for). PhysIK runs here after Rapier has been loaded, in the
 * state detached.ts describes (measured ~20 % slower than in the step section): this is the
 * ratio an application running both would see. Each side repeats the humanoid's first 200
 * steps (PhysIK from a snapshot; Rapier from a fresh mirror each round, its PhysIK world stepped
 * untimed beside it so it follows the same targets).
 */
export async function pairedHumanoid(create: CreateMirror): Promise<RapierSection['paired']> {
  log('rapier: humanoid, PhysIK and Rapier in alternating blocks ...');
  const BLOCKS = 15, STEPS = 200;
  const ours = createPhysikWorld();
  const { rig } = addRig(ours, humanoidInput());
  const snapshot = createSnapshot(ours, rig);
  const physikBlock = (): number => {
    restoreRig(ours, rig, snapshot);
    const t0 = performance.now();
    step(ours, STEPS);
    return ((performance.now() - t0) * 1000) / STEPS;
  };
  const rapierBlock = async (): Promise<number> => {
    const world = createPhysikWorld();
    const other = addRig(world, humanoidInput()).rig;
    const m = await create(world, other, { jointModel: 'impulse' });
    const t = timedMirrorSteps(world, m, STEPS);
    m.dispose();
    return t.worldStepUs ?? t.mirrorUs;
  };
  for (let i = 0; i < 3; i++) { physikBlock(); await rapierBlock(); } // warm-up of both
  const a: number[] = [], b: number[] = [], r: number[] = [];
  for (let i = 0; i < BLOCKS; i++) {
    const x = physikBlock(), y = await rapierBlock();
    a.push(x); b.push(y); r.push(x / y);
  }
  return { ratio: spread(r), physikUs: spread(a), rapierUs: spread(b), blocks: BLOCKS };
}

export function formatRapier(sec: RapierSection): string[] {
  if (!sec.available) return [`rapier: ${sec.note}`];
  const rows = [['rig', 'bones', 'joints', 'steps×reps', 'world.step() µs', 'IQR', 'mirror.step() µs', 'PhysIK exact µs', 'PhysIK / world.step()', 'PhysIK / mirror.step()', 'note']];
  for (const r of sec.rows) {
    rows.push([
      r.rig, String(r.bones), r.jointModel, `${r.steps}×${r.repeats}`,
      r.worldStepUs ? f(r.worldStepUs.median) : '–', r.worldStepUs ? `${f(r.worldStepUs.q1)}–${f(r.worldStepUs.q3)}` : '–',
      r.mirrorUs ? f(r.mirrorUs.median) : '–', f(r.physikUs), r.ratio === null ? '–' : f(r.ratio, 3), r.ratioMirror === null ? '–' : f(r.ratioMirror, 3), r.note ?? '',
    ]);
  }
  return [
    'Rapier through src/rapier\'s mirror (one body per bone, joints by the rig\'s limits, 4 solver iterations, 1 substep); world.step() timed inside mirror.step(), which also applies the springs, damping and emulated limits;',
    'each repeat a fresh rig from the start of its move (PhysIK\'s world stepped beside it, untimed, so the mirror follows the same targets), after a 600-step warm-up of Rapier\'s WebAssembly;',
    'PhysIK\'s time is its exact step measured alone as in the step section (beside the mirror it measured several times slower: Rapier\'s garbage collected during its steps, caches shared).',
    table(rows),
    '',
    `humanoidVsRapier = ${sec.humanoidVsRapier === null ? 'n/a' : f(sec.humanoidVsRapier, 3)} (PhysIK exact step / Rapier world.step(), impulse joints), ${sec.humanoidVsRapierMultibody === null ? 'n/a' : f(sec.humanoidVsRapierMultibody, 3)} (multibody)`,
    ...(sec.paired ? [`humanoidVsRapierPaired = ${f(sec.paired.ratio.median, 3)} (IQR ${f(sec.paired.ratio.q1, 3)}–${f(sec.paired.ratio.q3, 3)}): alternating blocks, PhysIK ${f(sec.paired.physikUs.median)} µs (Rapier loaded) / Rapier ${f(sec.paired.rapierUs.median)} µs, ${sec.paired.blocks} pairs`] : []),
  ];
}
