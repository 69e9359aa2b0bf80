/**
 * `physik run` over many scene files (src/cli/batch.ts): worker threads, results in file order,
 * the same numbers as running each file alone (only the wall-clock fields differ), a bad file
 * reported in its place without stopping the batch.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli as capture } from '../../support/cli';
import { runBatch } from '../../../src/cli/batch';

const scenes = join(__dirname, '../../../scenes');
const tmp = mkdtempSync(join(tmpdir(), 'physik-batch-'));
const bad = join(tmp, 'bad.json');
writeFileSync(bad, JSON.stringify({ name: 'bad', rig: { name: 'r', bones: [{ name: 'a', parent: 'nobody', direction: [0, 1, 0], length: 1 }] } }));
const files = ['humanoid.json', 'arm.json', 'elbow.json', 'chain.json', 'wobble.json'].map((f) => join(scenes, f));

/** A result without its wall-clock fields (msPerStep, msPerStepSteady, msPerStepMedian, msPerSolve, a crowd's stepsPerSecond). */
const timeless = (x: unknown) => JSON.stringify(x, (k, v) => (k === 'msPerStep' || k === 'msPerStepSteady' || k === 'msPerStepMedian' || k === 'msPerSolve' || k === 'stepsPerSecond' ? undefined : v));

describe('physik run over many scenes', () => {
  it('runs them in worker threads, results in file order, the same numbers as one run per file', async () => {
    const argv = ['run', files[0]!, bad, ...files.slice(1), '--steps', '120', '--workers', '2', '--json'];
    const r = await capture(argv);
    expect(r.code).toBe(1); // one file could not be run
    const results = JSON.parse(r.out) as { file: string; summary?: { scene: string }; error?: string }[];
    expect(results.map((x) => x.file)).toEqual([files[0], bad, ...files.slice(1)]);
    expect(results[1]!.error).toMatch(/bad\.json/);
    expect(results[1]!.error).toMatch(/nobody/);
    for (const [i, x] of results.entries()) {
      if (i === 1) continue;
      const alone = await capture(['run', x.file, '--steps', '120', '--json']);
      expect(alone.code).toBe(0);
      expect(timeless(x.summary)).toBe(timeless(JSON.parse(alone.out)));
    }
  });

  it('gives the same results with 1, 2 and 3 workers, and again', async () => {
    const jobs = files.map((file) => ({ file, steps: 80, solver: 'ccd' }));
    const serial = timeless(await runBatch(jobs, 1));
    expect(timeless(await runBatch(jobs, 2))).toBe(serial);
    expect(timeless(await runBatch(jobs, 3))).toBe(serial);
    expect(timeless(await runBatch(jobs, 2))).toBe(serial);
  });

  it('prints one block per scene in file order, the expect checks, and a closing line', async () => {
    const r = await capture(['run', join(scenes, 'elbow.json'), join(scenes, 'arm.json'), '--workers', '2']);
    expect(r.code).toBe(0);
    const elbow = r.out.indexOf('scene elbow'), arm = r.out.indexOf('scene arm');
    expect(elbow).toBeGreaterThanOrEqual(0);
    expect(arm).toBeGreaterThan(elbow);
    expect(r.out).toMatch(/expect {12}met/);
    expect(r.out).toMatch(/2 scenes: 2 ran \(expect met in 2 of 2\), 0 could not be run; 2 worker threads/);
  });

  it('refuses a bad --workers and keeps one file per call for the other commands', async () => {
    for (const w of ['0', '65', 'two']) {
      const r = await capture(['run', files[0]!, files[1]!, '--workers', w]);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(/--workers expects a whole number from 1 to 64/);
    }
    const v = await capture(['validate', files[0]!, files[1]!]);
    expect(v.code).toBe(2);
    expect(v.err).toMatch(/one scene file per call/);
  });
});
