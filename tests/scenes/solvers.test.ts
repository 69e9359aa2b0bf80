/**
 * Every scene runs under every solver: finite, no NaN, or (for a solver that cannot serve the
 * rig, such as two-bone with a goal on the root) a clear error that names the solver and rig.
 * Runs are capped at 300 steps and crowds at 4 copies: this checks robustness, the scene tests
 * check accuracy.
 */
import { describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadSceneFile } from '../../src/scene/loadFile';
import { runScene } from '../../src/scene/run';
import { settingEnums } from '../../src/core/settings';

const dir = join(__dirname, '../../scenes');
const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
const solvers = settingEnums.solver!;

describe('every scene under every solver', () => {
  it('has all the solvers of the issue registered', () => {
    for (const s of ['physik', 'fabrik', 'ccd', 'jacobianTranspose', 'dls', 'massSpring', 'twoBone', 'triangle', 'bezier']) expect(solvers).toContain(s);
  });

  for (const file of files) {
    it(`${file}`, () => {
      const loaded = loadSceneFile(join(dir, file));
      // a crowd scene's crowd shrunk to 4 copies: its rig is another scene's, the crowd's size costs time, not coverage
      const scene = loaded.crowd ? { ...loaded, crowd: { ...loaded.crowd, count: Math.min(loaded.crowd.count, 4) } } : loaded;
      for (const solver of solvers) {
        let summary;
        try {
          summary = runScene(scene, { steps: Math.min(scene.steps, 300), settings: { solver } });
        } catch (e) {
          const message = e instanceof Error ? e.message : String(e);
          expect(message, `${solver} on ${file}`).toMatch(new RegExp(solver, 'i'));
          expect(message, `${solver} on ${file}`).toContain(scene.rig.name);
          continue;
        }
        expect(summary.finite, `${solver} on ${file}`).toBe(true);
        expect(summary.divergedSteps, `${solver} on ${file}`).toBe(0);
        for (const b of Object.values(summary.pose)) for (const v of [...b.head, ...b.tail, ...b.local]) expect(Number.isFinite(v)).toBe(true);
      }
    });
  }
});
