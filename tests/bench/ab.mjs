#!/usr/bin/env node
/**
 * A/B timing of two versions of the step in one process: `node tests/bench/ab.mjs [ref] [--rigs N]
 * [--rounds R] [--steps S] [--detached] [--cpu] [--capture] [--repeat K]` bundles tests/bench/abEntry.ts from the working tree and from git ref
 * `ref` (default HEAD, checked out into .tmp/ab-<ref>) with esbuild, then times the two in
 * alternating blocks (S steps of an N-humanoid world, R rounds each) so that both share the
 * machine's speed of the moment (this VM's speed drifts up to 2× within minutes; figures taken
 * minutes apart do not compare). Prints the median and minimum µs per humanoid step of each and
 * new / old; the median of the rounds' own new / old ratios ("paired": each round's two blocks ran
 * back to back, so the machine's drift between rounds cancels); and whether both ended in the same
 * pose. `--repeat K` runs it all K times and prints the median paired ratio. `--detached` detaches an ArrayBuffer first
 * (the state an application with Rapier or a worker runs in: V8 then checks every typed-array
 * access, tests/bench/detached.ts). `--cpu` times the process's user CPU time instead of the wall
 * clock: on a machine busy with other work a block's wall time includes the time the process
 * waited for a core, its CPU time does not. `--capture` times the step of the capture benchmark
 * instead (the CMU walk looped, markers on the hips, hands and feet: tests/bench/capture.ts), with
 * the working tree's entry in both versions (the ref needs `walkCapture`). Not part of the tests.
 *
 * The world built first in a process measured faster on crowds (the same code both sides, 1000
 * humanoids: 1.04-1.06 with the old world built first, 0.93-0.96 with the new one first), so the
 * comparison runs twice, in two processes, once with each version's world built first, and the
 * ratio reported is the geometric mean of the two (A/A: see the README).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const arg = (name, fallback) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : fallback; };
const ref = process.argv[2] && !process.argv[2].startsWith('--') ? process.argv[2] : 'HEAD';
const capture = process.argv.includes('--capture');
const rigs = Number(arg('--rigs', '1')), rounds = Number(arg('--rounds', capture ? '16' : '40')), steps = Number(arg('--steps', capture ? '200' : rigs === 1 ? '400' : '4'));
if (capture && rigs !== 1) throw new Error('--capture: one rig (the walk) only, without --rigs');
for (const [k, v] of Object.entries({ rigs, rounds, steps })) if (!(Number.isInteger(v) && v > 0)) throw new Error(`--${k}: expected a positive integer, got ${v}`);

const sha = execFileSync('git', ['rev-parse', '--short', ref], { cwd: root, encoding: 'utf8' }).trim();
const tree = join(root, '.tmp', `ab-${sha}`);
if (!existsSync(tree)) {
  mkdirSync(tree, { recursive: true });
  execFileSync('sh', ['-c', `git archive ${sha} | tar -x -C ${tree}`], { cwd: root });
}
async function bundle(dir, name) {
  // the entry resolves scenes/ relative to its own file: keep each bundle beside its tree's tests/bench
  const outfile = join(dir, 'tests', 'bench', `.ab-${name}.mjs`);
  await build({ entryPoints: [join(dir, 'tests/bench/abEntry.ts')], bundle: true, platform: 'node', format: 'esm', outfile, logLevel: 'error', nodePaths: [join(root, 'node_modules')] });
  return import(pathToFileURL(outfile).href).finally(() => rmSync(outfile, { force: true }));
}
// a ref from before the entry existed gets the working tree's (it only builds a world and steps it)
if (capture || !existsSync(join(tree, 'tests/bench/abEntry.ts'))) copyFileSync(join(root, 'tests/bench/abEntry.ts'), join(tree, 'tests/bench/abEntry.ts'));
const first = arg('--first', null);
const cpu = process.argv.includes('--cpu');
if (first === null) {
  // the parent: one child process per build order, then the two orders' ratios combined; all of
  // it `--repeat` times
  const repeat = Number(arg('--repeat', '1'));
  if (!(Number.isInteger(repeat) && repeat > 0)) throw new Error(`--repeat: expected a positive integer, got ${repeat}`);
  const args = process.argv.slice(2).filter((x, i, all) => x !== '--repeat' && all[i - 1] !== '--repeat');
  const f = (x) => x.toFixed(2), g = (x) => x.toFixed(3);
  const what = capture ? 'the captured CMU walk' : `${rigs} humanoid(s)`;
  const pairedRatios = [];
  let same = true;
  for (let rep = 0; rep < repeat; rep++) {
    const runs = [];
    for (const order of ['old', 'new']) {
      const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), ...args, '--first', order], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
      if (child.status !== 0) throw new Error(`ab.mjs --first ${order} failed (exit ${child.status})`);
      runs.push(JSON.parse(child.stdout.trim().split('\n').pop()));
    }
    const [r0] = runs;
    if (rep === 0) console.log(`${what}, ${rounds} rounds of ${steps} steps, µs${cpu ? ' of CPU time' : ''} per ${capture ? '' : 'humanoid '}step${r0.detached ? ', a buffer detached' : ''}; old ${sha}, new the working tree`);
    for (const r of runs) {
      console.log(`${r.first} built first: old median ${f(r.old.median)} min ${f(r.old.min)}, new median ${f(r.new.median)} min ${f(r.new.min)}; new / old median ${g(r.new.median / r.old.median)} min ${g(r.new.min / r.old.min)} paired ${g(r.paired)}`);
    }
    const both = (k) => Math.sqrt((runs[0].new[k] / runs[0].old[k]) * (runs[1].new[k] / runs[1].old[k]));
    const paired = Math.sqrt(runs[0].paired * runs[1].paired);
    pairedRatios.push(paired);
    console.log(`new / old (geometric mean of the two orders): median ${g(both('median'))}  min ${g(both('min'))}  paired ${g(paired)}`);
    if (!runs.every((r) => r.same)) { same = false; if (rep === 0) console.log(`(end poses: ${runs.map((r) => r.checksums).join('; ')})`); }
  }
  if (repeat > 1) {
    const sorted = [...pairedRatios].sort((p, q) => p - q);
    console.log(`paired new / old over ${repeat} repeats: median ${g(sorted[sorted.length >> 1])}, from ${g(sorted[0])} to ${g(sorted[sorted.length - 1])}`);
  }
  console.log(`same pose at the end: ${same ? 'yes (same bits)' : 'no'}`);
  process.exit(0);
}
if (first !== 'old' && first !== 'new') throw new Error(`--first: expected old or new, got ${first}`);
const oldMod = await bundle(tree, 'old');
const newMod = await bundle(root, 'new');
// (the worlds built in the order asked for; the modules always bundled old first)
// (a capture's take long enough for the warm-up and every round)
const warm = Math.max(2000, 20 * steps);
const make = (mod) => (capture ? mod.makeCaptureWorkload(warm + rounds * steps + 2) : mod.makeWorkload(rigs));
let a, b;
if (first === 'old') { a = make(oldMod); b = make(newMod); }
else { b = make(newMod); a = make(oldMod); }
const detached = process.argv.includes(newMod.DETACHED_FLAG);
if (detached) newMod.detachOneBuffer();
for (let done = 0; done < warm; done += steps) { a.steps(steps); b.steps(steps); }
const ta = [], tb = [];
for (let r = 0; r < rounds; r++) {
  for (const [w, t] of r % 2 ? [[a, ta], [b, tb]] : [[b, tb], [a, ta]]) {
    if (cpu) {
      const c0 = process.cpuUsage();
      w.steps(steps);
      t.push(process.cpuUsage(c0).user / steps / rigs);
    } else {
      const t0 = process.hrtime.bigint();
      w.steps(steps);
      t.push(Number(process.hrtime.bigint() - t0) / 1000 / steps / rigs);
    }
  }
}
const med = (x) => { const s = [...x].sort((p, q) => p - q); return s[s.length >> 1]; };
// one JSON line for the parent
console.log(JSON.stringify({
  first, detached,
  old: { median: med(ta), min: Math.min(...ta) }, new: { median: med(tb), min: Math.min(...tb) },
  // each round's two blocks ran back to back: their ratio leaves out the machine's drift between rounds
  paired: med(tb.map((t, r) => t / ta[r])),
  same: a.checksum() === b.checksum(), checksums: `${a.checksum()} vs ${b.checksum()}`,
}));
