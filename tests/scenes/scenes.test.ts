/**
 * Every scene file loads, runs headless and meets its own `expect` block (including the
 * paper comparisons stated as `compare` entries, which run the variant in the same test).
 */
import { describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadSceneFile } from '../../src/scene/loadFile';
import { runScene, checkExpect } from '../../src/scene/run';

const dir = join(__dirname, '../../scenes');
const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();

describe('scenes', () => {
  it('ships the paper scenes', () => {
    for (const name of ['elbow', 'humanoid', 'running-pose', 'cannon', 'arm-raise', 'sit']) {
      expect(files).toContain(`${name}.json`);
    }
  });

  for (const file of files) {
    it(`${file} meets its expect block`, () => {
      const scene = loadSceneFile(join(dir, file));
      expect(scene.expect, `${file} has no expect block`).toBeDefined();
      const summary = runScene(scene);
      const result = checkExpect(scene, summary);
      const failed = result.checks.filter((c) => !c.ok).map((c) => `${c.what}: ${c.detail}`);
      expect(failed).toEqual([]);
      expect(result.checks.length).toBeGreaterThan(2);
    });
  }
});
