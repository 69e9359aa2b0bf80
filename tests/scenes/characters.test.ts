/**
 * The kinematic solvers with no excuse (FABRIK, CCD, DLS, the Jacobian transpose) on imported
 * characters: each file imported one to one (children attached anywhere on their parent, limits
 * from the humanoid template), its two goal control points given targets from a random pose
 * within its joints' limits (src/scene/reachableGoals.ts, as `physik compare` does), then 5 steps
 * of up to 300 iterations as in tests/scenes/solvers.test.ts: every goal within 1e-3 of the rig's
 * height and no limit exceeded by 0.1°. Before the off-axis fix FABRIK missed RiggedFigure's
 * goals by up to 6e-2 of its height (its arms and legs hang off the chest's and hips' axes).
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { importBvh } from '../../src/io/bvhImport';
import { importGltf } from '../../src/io/gltfImport';
import { reachableGoals } from '../../src/scene/reachableGoals';
import type { Scene } from '../../src/scene/types';
import { createPhysikWorld, addRig, step, readMetrics } from '../../src/core';

const dir = join(__dirname, '../fixtures/external');
const files = ['RiggedFigure.glb', 'RiggedSimple.glb', 'cmu_subject02_walk_delfem2.bvh', 'bvhio_example.bvh'];
const solvers = ['fabrik', 'ccd', 'dls', 'jacobianTranspose'] as const;
const SEEDS = [1, 3, 5, 6];

async function load(file: string): Promise<Scene> {
  const path = join(dir, file);
  const { scene } = file.endsWith('.bvh')
    ? importBvh(readFileSync(path, 'utf8'), path, { controlPoints: 2 })
    : await importGltf(new Uint8Array(readFileSync(path)), path, { controlPoints: 2 });
  return scene;
}

describe('reachable goals on imported characters, per solver', () => {
  for (const file of files) {
    it(`${file}: fabrik, ccd, dls and the transpose within 1e-3 of the height and the limits`, async () => {
      const imported = await load(file);
      const missed: string[] = [];
      for (const seed of SEEDS) {
        const scene = reachableGoals(imported, seed);
        for (const solver of solvers) {
          const world = createPhysikWorld();
          const h = addRig(world, { rig: scene.rig, controlPoints: scene.controlPoints, settings: { ...scene.settings, solver, interpolation: 'none', ikIterations: 300 } });
          step(world, 5);
          const m = readMetrics(world, h.rig);
          const height = world.physik.Rig.height[h.rig]!;
          const worst = Math.max(...Object.values(m.targetErrors)) / height;
          expect(Number.isFinite(worst), `${solver} on ${file}, seed ${seed}`).toBe(true);
          if (worst > 1e-3) missed.push(`${solver} seed ${seed}: ${worst.toExponential(2)}`);
          expect(m.maxLimitViolationDeg, `${solver} on ${file}, seed ${seed}`).toBeLessThan(0.1);
        }
      }
      expect(missed, `missed by more than 1e-3 of the height on ${file}`).toEqual([]);
    });
  }
});
