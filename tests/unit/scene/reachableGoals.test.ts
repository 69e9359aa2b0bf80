/**
 * Goals a character can reach (src/scene/reachableGoals.ts) and `physik compare` on a character
 * file: the imported rig's goals moved to a pose within its limits, then every solver on them.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { importBvh } from '../../../src/io/bvhImport';
import { reachableGoals } from '../../../src/scene/reachableGoals';
import { runScene } from '../../../src/scene/run';
import { runCli } from '../../support/cli';

const fixtures = join(__dirname, '../../fixtures/external');
const walk = importBvh(readFileSync(join(fixtures, 'cmu_subject02_walk_delfem2.bvh'), 'utf8'), 'walk.bvh', { controlPoints: 2 }).scene;

describe('reachable goals', () => {
  it('moves every goal off its rest position, the same way for the same seed and another way for another', () => {
    const a = reachableGoals(walk, 1), b = reachableGoals(walk, 1), c = reachableGoals(walk, 2);
    expect(a.controlPoints.map((p) => p.target)).toEqual(b.controlPoints.map((p) => p.target));
    expect(a.controlPoints.map((p) => p.target)).not.toEqual(c.controlPoints.map((p) => p.target));
    // held at rest the goals are met from the start; moved, the rig has somewhere to go
    expect(runScene({ ...walk, steps: 1 }).maxTargetError).toBeLessThan(1e-9);
    const moved = runScene({ ...a, steps: 1 });
    expect(moved.maxTargetError).toBeGreaterThan(1e-2 * moved.height);
  });

  it('PhysIK reaches them on the CMU walk skeleton, within its limits', () => {
    const scene = reachableGoals(walk, 3);
    const s = runScene(scene, { steps: 2000 });
    expect(s.finite).toBe(true);
    expect(Math.max(...Object.values(s.targetErrors))).toBeLessThan(1e-3 * s.height);
    expect(s.maxLimitViolationDeg).toBeLessThan(2);
  });
});

describe('physik compare <character>', () => {
  it('imports RiggedFigure, names the goals and rates every solver on them', async () => {
    const r = await runCli(['compare', join(fixtures, 'RiggedFigure.glb'), '--json']);
    expect(r.code).toBe(0);
    const lines = r.out.trim().split('\n');
    expect(lines[0]).toMatch(/rig ".*", \d+ bones; goals .* moved to a pose within the joints' limits \(seed 1\)/);
    const report = JSON.parse(lines[lines.length - 1]!) as { solvers: { solver: string; status?: string; maxTargetError?: number; error?: string }[] };
    const physik = report.solvers.find((s) => s.solver === 'physik')!;
    expect(physik.status).toBe('converged');
    for (const name of ['ccd', 'dls']) expect(report.solvers.find((s) => s.solver === name)!.status).toBe('converged');
  });

  it('refuses --seed on a scene file: a scene states its own goals', async () => {
    const r = await runCli(['compare', join(__dirname, '../../../scenes/arm.json'), '--seed', '3']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--seed: only a character file/);
  });
});
