#!/usr/bin/env node
/**
 * Builds the package's `dist/`: compiles the library's entry points (tsconfig.lib.json) to ES
 * modules with declarations and source maps, then gives every relative import the file
 * extension Node's ES module loader requires (the sources import `./world`, as bundlers and
 * Vite allow; Node and TypeScript's NodeNext resolution need `./world.js`). Run by `npm run
 * build:lib` and by `prepack`. The output is written beside and renamed over `dist/` only when
 * complete.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, '.dist-build');
rmSync(out, { recursive: true, force: true });
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.lib.json'), '--outDir', out], { cwd: root, stdio: 'inherit' });
// files the compiler does not emit: the batch worker (plain JavaScript, loaded by URL)
copyFileSync(join(root, 'src/cli/batchWorker.mjs'), join(out, 'src/cli/batchWorker.mjs'));

const SPECIFIER = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])(\.{1,2}\/[^'"]*)\2/g;
let rewritten = 0;
function fixFile(file) {
  const declaration = file.endsWith('.d.ts');
  const text = readFileSync(file, 'utf8');
  const fixed = text.replace(SPECIFIER, (whole, lead, quote, spec) => {
    if (/\.(m?js|json)$/.test(spec)) return whole;
    const base = resolve(dirname(file), spec);
    const ext = declaration ? '.d.ts' : '.js';
    let to;
    if (existsSync(base + ext)) to = spec + '.js';
    else if (existsSync(join(base, 'index' + ext))) to = spec + '/index.js';
    else throw new Error(`${file}: cannot resolve the import '${spec}'`);
    rewritten++;
    return `${lead}${quote}${to}${quote}`;
  });
  if (fixed !== text) writeFileSync(file, fixed);
}
function walk(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (/\.(js|d\.ts)$/.test(name)) fixFile(path);
  }
}
walk(out);
const dist = join(root, 'dist');
rmSync(dist, { recursive: true, force: true });
renameSync(out, dist);
console.log(`dist/ built (${rewritten} relative imports given their extension)`);
