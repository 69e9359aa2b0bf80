#!/usr/bin/env node
/**
 * The import graph's direction and cycles. Every source file belongs to a layer by its folder,
 *
 *   components ← src/math ← src/world ← systems ← src/core ← src/{scene, io, recording, rapier,
 *                                                              render, hud, app, cli}
 *
 * and may import only its own layer or those to its left (a type-only import counts too: it
 * couples the files all the same). Any cycle between files is refused as well. Prints each
 * offence as `file → import (why)`; exit status 1 when there is one. `npm test` runs it.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const LAYERS = [
  ['components'],
  ['src/math'],
  ['src/world'],
  ['systems'],
  ['src/core'],
  ['src/scene', 'src/io', 'src/recording', 'src/capture', 'src/rapier', 'src/render', 'src/hud', 'src/app', 'src/cli'],
];
function layerOf(file) {
  for (let l = 0; l < LAYERS.length; l++) if (LAYERS[l].some((dir) => file === dir || file.startsWith(dir + '/'))) return l;
  return -1;
}

const files = [];
function walk(dir) {
  for (const name of readdirSync(join(root, dir))) {
    const path = join(dir, name);
    if (statSync(join(root, path)).isDirectory()) walk(path);
    else if (/\.(ts|mjs)$/.test(name) && !name.endsWith('.d.ts')) files.push(path);
  }
}
for (const top of ['components', 'systems', 'src']) walk(top);

// (a worker or asset loaded by URL is checked to exist, but is no import: batch.ts starting its
// worker and the worker importing batch.ts is no cycle)
const IMPORT = /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|new URL\(\s*['"](\.[^'"]+)['"]/g;
function resolveImport(from, spec) {
  if (!spec.startsWith('.')) return null; // a package
  const base = join(dirname(from), spec);
  for (const candidate of [base, `${base}.ts`, `${base}/index.ts`, base.replace(/\.js$/, '.ts')]) {
    if (existsSync(join(root, candidate)) && statSync(join(root, candidate)).isFile()) return candidate;
  }
  return undefined;
}

const graph = new Map();
const offences = [];
for (const file of files) {
  const text = readFileSync(join(root, file), 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, '');
  const edges = [];
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[1] ?? m[2] ?? m[3];
    const target = resolveImport(file, spec);
    if (target === null) continue;
    if (target === undefined) { offences.push(`${file} → ${spec} (does not resolve)`); continue; }
    if (m[3] !== undefined || edges.includes(target)) continue;
    edges.push(target);
    const lf = layerOf(file), lt = layerOf(target);
    if (lt > lf) offences.push(`${file} → ${target} (${LAYERS[lf]?.[0] ?? '?'} may not depend on ${LAYERS[lt]?.[0] ?? '?'}${lt === 5 ? ' and its peers' : ''})`);
  }
  graph.set(file, edges);
}

// cycles: Tarjan's strongly connected components, iteratively
let index = 0;
const idx = new Map(), low = new Map(), onStack = new Set(), stack = [];
for (const start of graph.keys()) {
  if (idx.has(start)) continue;
  const work = [[start, 0]];
  idx.set(start, index); low.set(start, index); index++; stack.push(start); onStack.add(start);
  while (work.length) {
    const top = work[work.length - 1];
    const [v, i] = top;
    const edges = graph.get(v) ?? [];
    if (i < edges.length) {
      top[1]++;
      const w = edges[i];
      if (!idx.has(w)) { idx.set(w, index); low.set(w, index); index++; stack.push(w); onStack.add(w); work.push([w, 0]); }
      else if (onStack.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    } else {
      work.pop();
      if (work.length) { const u = work[work.length - 1][0]; low.set(u, Math.min(low.get(u), low.get(v))); }
      if (low.get(v) === idx.get(v)) {
        const component = [];
        let w;
        do { w = stack.pop(); onStack.delete(w); component.push(w); } while (w !== v);
        if (component.length > 1) offences.push(`cycle: ${component.sort().join(' ↔ ')}`);
      }
    }
  }
}

for (const o of offences) console.log(o);
console.log(`${files.length} files: ${offences.length === 0 ? 'the imports follow the layers, no cycles' : `${offences.length} offences`}`);
process.exitCode = offences.length === 0 ? 0 : 1;
