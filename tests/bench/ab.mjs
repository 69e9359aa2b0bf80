#!/usr/bin/env node
/**
 * A/B timing of two versions of the step in one process: `node tests/bench/ab.mjs [ref] [--rigs N]
 * [--rounds R] [--steps S] [--detached]` bundles tests/bench/abEntry.ts from the working tree and from git ref
 * `ref` (default HEAD, checked out into .tmp/ab-<ref>) with esbuild, then times the two in
 * alternating blocks (S steps of an N-humanoid world, R rounds each) so that both share the
 * machine's speed of the moment (this VM's speed drifts up to 2× within minutes; figures taken
 * minutes apart do not compare). Prints the median and minimum µs per humanoid step of each and
 * new / old, and whether both ended in the same pose. `--detached` detaches an ArrayBuffer first
 * (the state an application with Rapier or a worker runs in: V8 then checks every typed-array
 * access, tests/bench/detached.ts). Not part of the tests.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const arg = (name, fallback) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : fallback; };
const ref = process.argv[2] && !process.argv[2].startsWith('--') ? process.argv[2] : 'HEAD';
const rigs = Number(arg('--rigs', '1')), rounds = Number(arg('--rounds', '40')), steps = Number(arg('--steps', rigs === 1 ? '400' : '4'));
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
if (!existsSync(join(tree, 'tests/bench/abEntry.ts'))) copyFileSync(join(root, 'tests/bench/abEntry.ts'), join(tree, 'tests/bench/abEntry.ts'));
const oldMod = await bundle(tree, 'old');
const newMod = await bundle(root, 'new');
const a = oldMod.makeWorkload(rigs), b = newMod.makeWorkload(rigs);
const detached = process.argv.includes(newMod.DETACHED_FLAG);
if (detached) newMod.detachOneBuffer();
const warm = Math.max(2000, 20 * steps);
for (let done = 0; done < warm; done += steps) { a.steps(steps); b.steps(steps); }
const ta = [], tb = [];
for (let r = 0; r < rounds; r++) {
  for (const [w, t] of r % 2 ? [[a, ta], [b, tb]] : [[b, tb], [a, ta]]) {
    const t0 = process.hrtime.bigint();
    w.steps(steps);
    t.push(Number(process.hrtime.bigint() - t0) / 1000 / steps / rigs);
  }
}
const med = (x) => { const s = [...x].sort((p, q) => p - q); return s[s.length >> 1]; };
const f = (x) => x.toFixed(2);
console.log(`${rigs} humanoid(s), ${rounds} rounds of ${steps} steps, µs per humanoid step${detached ? ', a buffer detached' : ''}`);
console.log(`old ${sha}: median ${f(med(ta))}  min ${f(Math.min(...ta))}`);
console.log(`new (working tree): median ${f(med(tb))}  min ${f(Math.min(...tb))}`);
console.log(`new / old: median ${(med(tb) / med(ta)).toFixed(3)}  min ${(Math.min(...tb) / Math.min(...ta)).toFixed(3)}`);
console.log(`same pose at the end: ${a.checksum() === b.checksum() ? 'yes (same bits)' : `no (${a.checksum()} vs ${b.checksum()})`}`);
