/**
 * Browser smoke check (index.html): load the humanoid scene through a JSON import, build a
 * world with the core API, step it and write the final metrics into <pre id="status">.
 * Browser-safe imports only: the core and `scene/load` (never `scene/loadFile`, which reads files with Node's fs).
 */
import humanoid from '../../scenes/humanoid.json';
import { createPhysikWorld, addRig, step, readMetrics } from '../core';
import { parseScene } from '../scene/load';

const STEPS = 200;

/** Run the humanoid for `steps` steps and describe the final state, one metric per line. */
export function smokeReport(steps = STEPS): string {
  const scene = parseScene(humanoid, 'scenes/humanoid.json');
  const world = createPhysikWorld();
  const { rig } = addRig(world, { rig: scene.rig, controlPoints: scene.controlPoints, settings: scene.settings, script: scene.script });
  const t0 = performance.now();
  step(world, steps);
  const ms = performance.now() - t0;
  const m = readMetrics(world, rig);
  return [
    `scene: ${scene.name}, ${steps} steps`,
    `status: ${m.status}`,
    `max target error: ${m.maxTargetError.toFixed(4)}`,
    `passes per step: mean ${m.passesPerStep.mean.toFixed(1)}, max ${m.passesPerStep.max}`,
    `time per step: ${((ms * 1000) / steps).toFixed(1)} µs (cold: includes JIT warm-up)`,
  ].join('\n');
}

const out = typeof document !== 'undefined' ? document.getElementById('status') : null;
if (out) {
  try {
    out.textContent = smokeReport();
  } catch (e) {
    out.textContent = `error: ${e instanceof Error ? e.message : String(e)}`;
    throw e;
  }
}
