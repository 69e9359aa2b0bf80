/** The README's plugin example is this file's import, verbatim, and it poses the arm. */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

describe('README example', () => {
  it('is quoted verbatim in the README', () => {
    const example = readFileSync(join(__dirname, 'readme-example.ts'), 'utf8')
      .replace("from '../../../src/core'", "from 'physik-ecs'");
    const readme = readFileSync(join(__dirname, '../../../README.md'), 'utf8');
    expect(readme).toContain(example.trim());
  });

  it('bends the elbow so the hand reaches its target, within the limit', async () => {
    const { pose, metrics } = await import('./readme-example');
    expect(metrics.maxTargetError).toBeLessThan(0.01);
    expect(metrics.maxLimitViolationDeg).toBeLessThan(1);
    expect(pose.fore!.tail[0]).toBeCloseTo(0.3, 2);
    expect(pose.fore!.tail[1]).toBeCloseTo(0.3, 2);
    // the elbow bent about z by about 90 degrees
    const [, , z, w] = pose.fore!.local;
    expect((2 * Math.atan2(z, w) * 180) / Math.PI).toBeCloseTo(90, 0);
  });
});
