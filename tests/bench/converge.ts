/**
 * Time to convergence, PhysIK against its Rapier mirror (src/rapier, impulse joints), after a
 * target jump: `npm run bench -- --only converge` (part of `npm run bench`).
 *
 * Rigs: the humanoid scene (its script moves the right hand at step 0), and the arm (2 bones)
 * and chain (10 bones) scenes with the moves of their scripts at step 0 only, all with
 * interpolation 'none', so the target jumps: the effective target is the new one from the
 * first step. One PhysIK
 * world is stepped and its mirror after it each step (the mirror's springs pull toward the
 * effective targets PhysIK holds, so both are pulled to the same points), for up to MAX_STEPS.
 *
 * Converged, per engine: the step from which every goal's attachment point stays within 1% of
 * the rig's height of its target to the end of the run (the measure); at rest: the
 * step from which every bone end stays slower than restSpeed × height (PhysIK's own rest test,
 * applied to the mirror as the cross-check does). A rig that never gets there within the run
 * has null. Time to convergence = steps × the engine's time per step, each step timed as the
 * step section does: PhysIK's step measured alone and warm (the humanoid's: the step section's
 * figure, when it ran), Rapier's world.step() timed inside
 * mirror.step() (mirror.step(), which also applies the springs, damping and emulated limits,
 * is given beside). The ratio is PhysIK's time / Rapier's (goal ≤ 0.3 on the humanoid).
 */
import { performance } from 'node:perf_hooks';
import {
  createPhysikWorld, addRig, step, setSettings, createSnapshot, restoreRig, type PhysikWorld, type RigInput,
} from '../../src/core';
import { loadRapier } from '../../src/rapier/load';
import { buildRapierMirror, type RapierMirror } from '../../src/rapier/mirror';
import { humanoidInput, AWAKE } from './rigs';
import { fileURLToPath } from 'node:url';
import { loadSceneFile } from '../../src/scene/loadFile';
import { spread, table, fixed as f } from './stats';

const MAX_STEPS = 2000;
const WITHIN = 0.01; // of the rig's height

export interface ConvergeRow {
  rig: string;
  bones: number;
  steps: number;
  physik: { convergedStep: number | null; restStep: number | null; usPerStep: number; msToConverge: number | null };
  rapier: { convergedStep: number | null; restStep: number | null; usPerStep: number; mirrorUsPerStep: number; msToConverge: number | null; finite: boolean };
  /** PhysIK's ms to convergence / Rapier's (world.step()); null when either never converged. */
  ratio: number | null;
  finalErrorPhysik: number;
  finalErrorRapier: number;
}

export interface ConvergeSection { available: boolean; note?: string; rows: ConvergeRow[]; humanoidConvergeVsRapier: number | null }

/** A scene of scenes/ as a rig input, kept awake, with the moves of its script at step 0 only (one jump). */
function sceneInput(name: string): RigInput {
  const scene = loadSceneFile(fileURLToPath(new URL(`../../scenes/${name}.json`, import.meta.url)));
  return { rig: scene.rig, controlPoints: scene.controlPoints, settings: { ...scene.settings, ...AWAKE }, script: scene.script.filter((e) => e.step === 0) };
}

/** Attachment points of the rig's goal control points from bone heads and rotations (3 per goal), as attachmentPoint computes them. */
function goalPoints(world: PhysikWorld, heads: Float64Array, rots: Float64Array, out: Float64Array): void {
  const { ControlPoint, Bone } = world.physik;
  const rec = world.physik.rigs[0]!;
  let g = 0;
  for (const cp of rec.controlPoints) {
    if (!ControlPoint.active[cp] || ControlPoint.pole[cp]) continue;
    const b = ControlPoint.bone[cp]!, i = rec.bones.indexOf(b), c3 = cp * 3;
    const x = rots[i * 4]!, y = rots[i * 4 + 1]!, z = rots[i * 4 + 2]!, w = rots[i * 4 + 3]!;
    const vx = ControlPoint.offset[c3]!, vy = ControlPoint.at[cp]! * Bone.length[b]! + ControlPoint.offset[c3 + 1]!, vz = ControlPoint.offset[c3 + 2]!;
    const tx = 2 * (y * vz - z * vy), ty = 2 * (z * vx - x * vz), tz = 2 * (x * vy - y * vx);
    out[g * 3] = heads[i * 3]! + vx + w * tx + (y * tz - z * ty);
    out[g * 3 + 1] = heads[i * 3 + 1]! + vy + w * ty + (z * tx - x * tz);
    out[g * 3 + 2] = heads[i * 3 + 2]! + vz + w * tz + (x * ty - y * tx);
    g++;
  }
}

/** Largest distance of a goal point to its target. */
function goalError(world: PhysikWorld, points: Float64Array): number {
  const { ControlPoint } = world.physik;
  const rec = world.physik.rigs[0]!;
  let g = 0, worst = 0;
  for (const cp of rec.controlPoints) {
    if (!ControlPoint.active[cp] || ControlPoint.pole[cp]) continue;
    const c3 = cp * 3;
    const d = Math.hypot(points[g * 3]! - ControlPoint.target[c3]!, points[g * 3 + 1]! - ControlPoint.target[c3 + 1]!, points[g * 3 + 2]! - ControlPoint.target[c3 + 2]!);
    if (!(d <= worst)) worst = d;
    g++;
  }
  return worst;
}

/** The first step from which every later flag is true (1-based steps), or null. */
function staysFrom(flags: boolean[]): number | null {
  let from: number | null = null;
  for (let s = 0; s < flags.length; s++) {
    if (!flags[s]) from = null;
    else if (from === null) from = s + 1;
  }
  return from;
}

/** PhysIK's time per step over the run's steps: the run repeated from its start, warm, median of repeats. */
function physikUsPerStep(world: PhysikWorld, rig: number, steps: number): number {
  const snap = createSnapshot(world, rig);
  const reps = Math.max(3, Math.min(15, Math.round(200_000 / (steps * world.physik.rigs[0]!.bones.length))));
  const times: number[] = [];
  for (let r = 0; r < 2 * reps; r++) {
    restoreRig(world, rig, snap);
    const t0 = performance.now();
    step(world, steps);
    if (r >= reps) times.push(((performance.now() - t0) * 1000) / steps);
  }
  restoreRig(world, rig, snap);
  return spread(times).median;
}

/**
 * `knownUs`: PhysIK's µs per step by rig name, where the step section measured it (the humanoid
 * exact step: the same figure as humanoidVsRapier); other rigs are measured here, alone.
 */
export async function convergeSection(log: (s: string) => void, knownUs: Map<string, number> = new Map()): Promise<ConvergeSection> {
  let R: Awaited<ReturnType<typeof loadRapier>>;
  try {
    R = await loadRapier();
  } catch (err) {
    return { available: false, note: `Rapier could not be loaded (${(err as Error).message})`, rows: [], humanoidConvergeVsRapier: null };
  }
  // Rapier is WebAssembly: its code tiers up over the first few hundred steps (as the rapier section warms it)
  {
    log('converge: Rapier warm-up ...');
    const world = createPhysikWorld();
    const { rig } = addRig(world, humanoidInput());
    const m = buildRapierMirror(R, world, rig, { jointModel: 'impulse' });
    for (let s = 0; s < 600; s++) { step(world, 1); m.step(); }
    m.dispose();
  }
  const jump = { interpolation: 'none' as const };
  const cases: [string, () => RigInput][] = [
    ['humanoid', () => humanoidInput()],
    ['arm (scene)', () => sceneInput('arm')],
    ['chain (scene)', () => sceneInput('chain')],
  ];
  const rows: ConvergeRow[] = [];
  for (const [name, input] of cases) {
    log(`converge: ${name} ...`);
    const world = createPhysikWorld();
    const { rig } = addRig(world, input());
    setSettings(world, rig, jump);
    const rec = world.physik.rigs[0]!;
    const n = rec.bones.length;
    const height = world.physik.Rig.height[rig]!;
    const restSpeed = rec.settings.restSpeed * height;
    const start = createSnapshot(world, rig);
    // PhysIK alone first (warm, timed), then both in lockstep for the convergence steps
    const us = knownUs.get(name) ?? physikUsPerStep(world, rig, Math.min(MAX_STEPS, 400));
    restoreRig(world, rig, start);
    const mirror: RapierMirror = buildRapierMirror(R, world, rig, { jointModel: 'impulse' });
    const rworld = (mirror as unknown as { rworld: { step: (...a: unknown[]) => void } }).rworld;
    const inner = rworld.step.bind(rworld);
    let worldMs = 0, mirrorMs = 0;
    rworld.step = (...a: unknown[]) => { const t0 = performance.now(); inner(...a); worldMs += performance.now() - t0; };
    const heads = new Float64Array(3 * n), rots = new Float64Array(4 * n), pts = new Float64Array(3 * rec.controlPoints.length);
    const pIn: boolean[] = [], rIn: boolean[] = [], pRest: boolean[] = [], rRest: boolean[] = [];
    const { Bone, Rig } = world.physik;
    let finite = true, ep = NaN, er = NaN;
    for (let s = 0; s < MAX_STEPS; s++) {
      step(world, 1);
      const t0 = performance.now();
      mirror.step();
      mirrorMs += performance.now() - t0;
      for (let i = 0; i < n; i++) {
        const b = rec.bones[i]!;
        for (let a = 0; a < 3; a++) heads[i * 3 + a] = Bone.head[b * 3 + a]!;
        for (let a = 0; a < 4; a++) rots[i * 4 + a] = Bone.rot[b * 4 + a]!;
      }
      goalPoints(world, heads, rots, pts);
      ep = goalError(world, pts);
      mirror.headPositions(heads); mirror.rotations(rots);
      goalPoints(world, heads, rots, pts);
      er = goalError(world, pts);
      finite &&= mirror.finite();
      pIn.push(ep <= WITHIN * height); rIn.push(finite && er <= WITHIN * height);
      pRest.push(Rig.maxEndSpeed[rig]! < restSpeed);
      rRest.push(finite && mirror.maxEndSpeed() < restSpeed);
    }
    mirror.dispose();
    const rapierUs = (worldMs * 1000) / MAX_STEPS, mirrorUs = (mirrorMs * 1000) / MAX_STEPS;
    const pc = staysFrom(pIn), rc = staysFrom(rIn);
    const pms = pc === null ? null : (pc * us) / 1000, rms = rc === null ? null : (rc * rapierUs) / 1000;
    rows.push({
      rig: name, bones: n, steps: MAX_STEPS,
      physik: { convergedStep: pc, restStep: staysFrom(pRest), usPerStep: us, msToConverge: pms },
      rapier: { convergedStep: rc, restStep: staysFrom(rRest), usPerStep: rapierUs, mirrorUsPerStep: mirrorUs, msToConverge: rms, finite },
      ratio: pms !== null && rms !== null && rms > 0 ? pms / rms : null,
      finalErrorPhysik: ep / height, finalErrorRapier: er / height,
    });
  }
  return { available: true, rows, humanoidConvergeVsRapier: rows.find((r) => r.rig === 'humanoid')?.ratio ?? null };
}

export function formatConverge(sec: ConvergeSection): string[] {
  if (!sec.available) return [`converge: ${sec.note}`];
  const step = (x: number | null) => (x === null ? 'never' : String(x));
  const ms = (x: number | null) => (x === null ? '–' : f(x, 2));
  const rows = [['rig', 'bones', 'PhysIK converged', 'at rest', 'µs/step', 'ms', 'Rapier converged', 'at rest', 'world.step() µs', 'mirror.step() µs', 'ms', 'PhysIK / Rapier ms', 'final error / h PhysIK', 'Rapier']];
  for (const r of sec.rows) {
    rows.push([
      r.rig, String(r.bones),
      step(r.physik.convergedStep), step(r.physik.restStep), f(r.physik.usPerStep), ms(r.physik.msToConverge),
      step(r.rapier.convergedStep), step(r.rapier.restStep), f(r.rapier.usPerStep), f(r.rapier.mirrorUsPerStep), ms(r.rapier.msToConverge),
      r.ratio === null ? '–' : f(r.ratio, 3), r.finalErrorPhysik.toExponential(1), r.rapier.finite ? r.finalErrorRapier.toExponential(1) : 'NaN',
    ]);
  }
  return [
    `time to convergence after a target jump (interpolation 'none'; converged = every goal within ${WITHIN * 100}% of the rig's height of its target from that step to the end of ${MAX_STEPS} steps;`,
    "at rest = every bone end slower than restSpeed × height from then on); Rapier = the impulse-joint mirror stepped after PhysIK each step; ms = steps × time per step (Rapier's world.step()):",
    table(rows),
    '',
    `humanoidConvergeVsRapier = ${sec.humanoidConvergeVsRapier === null ? 'n/a' : f(sec.humanoidConvergeVsRapier, 3)} (PhysIK ms to convergence / Rapier's)`,
  ];
}
