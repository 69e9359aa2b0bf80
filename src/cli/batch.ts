/**
 * Batch runs: `physik run a.json b.json … [--workers N]` runs every scene headless, in worker
 * threads when there are several, and hands the results back in the order of the files.
 *
 * Each scene runs alone in a fresh world (runScene), whichever thread runs it, so a batch's
 * results are the same numbers as running the files one by one in this process (bit for bit;
 * only the wall-clock fields msPerStep, msPerStepSteady, msPerStepMedian and msPerSolve differ). Work is handed out one file at
 * a time to whichever worker is free (a long scene does not hold back the rest); results are
 * put back in file order. A file that cannot be loaded or run gives an error entry (its
 * message names the file and the JSON path) and the batch goes on; so does a scene over the
 * work and memory bounds (src/scene/bounds.ts), refused before it is built.
 */
import { Worker } from 'node:worker_threads';
import os from 'node:os';
import { loadSceneFile } from '../scene/loadFile';
import { SceneError } from '../scene/load';
import { runScene, checkExpect, summaryMetric, type RunSummary, type ExpectResult } from '../scene/run';
import { workBounds } from '../scene/bounds';
import { formatPath } from '../core/validation/check';
import type { ExpectRange, Scene } from '../scene/types';

export interface BatchJob {
  file: string;
  steps?: number;
  solver?: string;
  /** Raise the work and memory bounds (--allow-large). */
  allowLarge?: boolean;
}

export interface BatchResult {
  file: string;
  summary?: RunSummary;
  /** The scene's expect block checked (scenes that have one, run as written: no --steps or --solver). */
  expect?: ExpectResult;
  /** The expect checks not met, one line each: `file: expect.path: expected …, got …`. */
  failures?: string[];
  /** Why the file could not be run. */
  error?: string;
}

/** CPUs this process may use (os.availableParallelism). */
export function cpuCount(): number {
  return Math.max(1, os.availableParallelism?.() ?? os.cpus().length);
}

/** Workers when none are asked for: one per file, at most one per core. */
export function defaultWorkers(files: number): number {
  return Math.max(1, Math.min(files, cpuCount()));
}

const rangeText = (r: ExpectRange | undefined) => (!r ? 'the range'
  : r.min !== undefined && r.max !== undefined ? `between ${r.min} and ${r.max}`
    : r.max !== undefined ? `at most ${r.max}` : `at least ${r.min}`);

/**
 * The checks of a scene's expect block that `result` did not meet, one line each, in the
 * house style of scene errors: `file: expect.metrics.maxTargetError: expected at most 0.01, got 0.05`.
 */
export function expectFailures(file: string, scene: Scene, summary: RunSummary, result: ExpectResult): string[] {
  const e = scene.expect ?? {};
  const lines: string[] = [];
  const metric = (name: string) => {
    try { return String(summaryMetric(summary, name)); } catch { return 'no such metric'; }
  };
  for (const c of result.checks) {
    if (c.ok) continue;
    let path = 'expect', expected = 'the check met', got = c.detail;
    const compare = (e.compare ?? []).findIndex((x) => c.what === `compare: ${x.name}` || c.what === `compare: ${x.name}: variant finite`);
    if (c.what === 'finite') { path = 'expect.finite'; expected = String(e.finite); got = String(summary.finite); }
    else if (c.what === 'converged') { path = 'expect.converged'; expected = String(e.converged); got = `${summary.converged} (status ${summary.status})`; }
    else if (c.what.startsWith('metric ')) {
      const name = c.what.slice('metric '.length);
      path = formatPath(['expect', 'metrics', name]); expected = rangeText(e.metrics?.[name]); got = metric(name);
    } else if (c.what.startsWith('target ')) {
      const name = c.what.slice('target '.length);
      path = formatPath(['expect', 'targets', name]); expected = rangeText(e.targets?.[name]); got = String(summary.targetErrors[name]);
    } else if (compare >= 0) {
      const x = e.compare![compare]!;
      if (c.what.endsWith(': variant finite')) { path = `expect.compare[${compare}].variant`; expected = 'a finite run'; got = 'a run that is not finite'; }
      else { path = `expect.compare[${compare}]`; expected = `${x.metric} ${x.relation === 'less' ? 'below' : 'above'} the variant's ("${x.name}")`; }
    }
    lines.push(`${file}: ${path}: expected ${expected}, got ${got}`);
  }
  return lines;
}

/** One scene, in this thread. */
export function runJob(job: BatchJob): BatchResult {
  try {
    const scene = loadSceneFile(job.file);
    const bounds = workBounds(scene, { command: 'run', steps: job.steps, solver: job.solver, allowLarge: job.allowLarge });
    if (bounds.length) return { file: job.file, error: bounds.map((b) => `${job.file}: ${b.path}: ${b.message}`).join('\n') };
    const summary = runScene(scene, { steps: job.steps, settings: job.solver ? { solver: job.solver } : undefined });
    const expect = scene.expect && job.steps === undefined && !job.solver ? checkExpect(scene, summary) : undefined;
    const failures = expect && !expect.ok ? expectFailures(job.file, scene, summary, expect) : [];
    return { file: job.file, summary, ...(expect ? { expect } : {}), ...(failures.length ? { failures } : {}) };
  } catch (e) {
    return { file: job.file, error: e instanceof SceneError ? e.message : `physik: ${e instanceof Error ? e.message : String(e)}` };
  }
}

/**
 * Every job, results in job order. With `workers` ≤ 1 (or one job) they run here, one after
 * another; otherwise in min(workers, jobs) worker threads.
 */
export async function runBatch(jobs: readonly BatchJob[], workers: number): Promise<BatchResult[]> {
  if (workers <= 1 || jobs.length <= 1) return jobs.map(runJob);
  const results: BatchResult[] = new Array(jobs.length);
  let next = 0;
  const threads = Math.min(workers, jobs.length);
  const one = () => new Promise<void>((resolve) => {
    // the entry registers the TypeScript loader in the worker, then loads this module there
    const worker = new Worker(new URL('./batchWorker.mjs', import.meta.url));
    let current = -1;
    const feed = () => {
      if (next >= jobs.length) { current = -1; void worker.terminate(); return; }
      current = next++;
      worker.postMessage({ index: current, job: jobs[current] });
    };
    worker.on('message', (m: { index: number; result: BatchResult }) => {
      results[m.index] = m.result;
      feed();
    });
    // a worker that fails takes only its current file with it; the others go on
    worker.on('error', (e) => {
      if (current >= 0) results[current] = { file: jobs[current]!.file, error: `physik: worker failed on ${jobs[current]!.file}: ${e.message}` };
      current = -1;
    });
    worker.on('exit', () => {
      if (current >= 0) results[current] = { file: jobs[current]!.file, error: `physik: worker stopped while running ${jobs[current]!.file}` };
      // files nobody picked up yet (every worker gone): run them here
      resolve();
    });
    feed();
  });
  await Promise.all(Array.from({ length: threads }, one));
  for (let i = 0; i < jobs.length; i++) if (!results[i]) results[i] = runJob(jobs[i]!);
  return results;
}
