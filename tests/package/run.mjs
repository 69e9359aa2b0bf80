#!/usr/bin/env node
/**
 * The package as a user gets it: `npm pack`, then the tarball installed into fresh throwaway
 * projects (`--prefer-offline`: packages come from the npm cache the repository's own install
 * filled; only metadata not cached yet is fetched), each running the README's plugin example
 * and checking the pose it prints:
 *
 * - node-esm: plain JavaScript ES modules on Node, with only the required dependencies (bitecs and
 *   zod; the installed size is reported); also `npx physik run` on a scene the package ships,
 *   and the subpaths that need no optional package.
 * - ts-nodenext: TypeScript strict, `module`/`moduleResolution` NodeNext, `noUnusedLocals`,
 *   `noUncheckedIndexedAccess`, `skipLibCheck: false`; with three and Rapier installed, so every
 *   subpath is imported and type-checked.
 * - ts-bundler: the same with `moduleResolution` Bundler.
 * - vite: a Vite library build of the example, run on Node.
 *
 * `npm run test:package`; `.ci/run` calls it. Exit status 1 on any failure. The tools (tsc, vite)
 * are this repository's own, so nothing is downloaded.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const work = mkdtempSync(join(tmpdir(), 'physik-package-'));
const tsc = join(root, 'node_modules/typescript/bin/tsc');
const vite = join(root, 'node_modules/vite/bin/vite.js');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const devVersion = (name) => pkg.devDependencies[name];
const failures = [];

function sh(cmd, args, cwd, env = {}) {
  try {
    return execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  } catch (e) {
    throw new Error(`${[cmd, ...args].join(' ')} (in ${cwd}) failed:\n${e.stdout ?? ''}${e.stderr ?? ''}`);
  }
}
function npmInstall(dir, packages) {
  sh('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', ...packages], dir, { npm_config_update_notifier: 'false' });
}
function duBytes(dir) {
  let total = 0;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name), s = statSync(path);
    total += s.isDirectory() ? duBytes(path) : s.size;
  }
  return total;
}
function check(name, fn) {
  const t0 = Date.now();
  try {
    const note = fn();
    console.log(`ok   ${name} (${((Date.now() - t0) / 1000).toFixed(1)} s)${note ? `: ${note}` : ''}`);
  } catch (e) {
    failures.push(name);
    console.log(`FAIL ${name}: ${e.message}`);
  }
}

// the README's example, and a line that prints what it did
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const block = /## Use it in your own bitecs world\s+```ts\n([\s\S]*?)```/.exec(readme);
if (!block) throw new Error('README.md: the plugin example (a ts block under "Use it in your own bitecs world") was not found');
const exampleTs = `${block[1]}console.log(JSON.stringify({ tail: pose['fore']?.tail, error: metrics.maxTargetError }));\n`;
const exampleJs = exampleTs.replace(/(\w)!(?=[,.;)\]])/g, '$1');
/** The example's printed pose: the forearm's tail at the hand's target, [0.3, 0.3, 0]. */
function checkPose(output) {
  const line = output.trim().split('\n').pop();
  const { tail, error } = JSON.parse(line);
  const miss = Math.hypot(tail[0] - 0.3, tail[1] - 0.3, tail[2]);
  if (!(miss < 0.01)) throw new Error(`the hand ended ${miss} m from its target (printed ${line})`);
  return `hand ${(miss * 1000).toFixed(2)} mm from its target (maxTargetError ${error.toExponential(2)})`;
}

let tarball;
check('npm pack', () => {
  const out = sh('npm', ['pack', '--pack-destination', work, '--json', '--loglevel=error'], root);
  const info = JSON.parse(out.slice(out.indexOf('[')))[0];
  tarball = join(work, info.filename);
  const files = info.files.map((f) => f.path);
  const stray = files.filter((f) => !/^(dist\/|bin\/|scenes\/[^/]+\.json$|README\.md$|LICENSE$|CHANGELOG\.md$|package\.json$)/.test(f));
  if (stray.length) throw new Error(`the tarball holds files a user does not need: ${stray.slice(0, 10).join(', ')}`);
  for (const need of ['LICENSE', 'CHANGELOG.md', 'README.md', 'dist/src/core/index.js', 'dist/src/core/index.d.ts', 'dist/src/cli/main.js']) {
    if (!files.includes(need)) throw new Error(`the tarball lacks ${need}`);
  }
  return `${files.length} files, ${(info.size / 1024).toFixed(0)} kB packed`;
});
if (!tarball) { console.log('package test: the tarball could not be made'); process.exit(1); }

function project(name, packageJson) {
  const dir = join(work, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, private: true, type: 'module', ...packageJson }, null, 2));
  return dir;
}

check('node-esm: JavaScript on Node 20, required dependencies only', () => {
  const dir = project('node-esm');
  npmInstall(dir, [tarball]);
  const installed = readdirSync(join(dir, 'node_modules')).filter((n) => !n.startsWith('.')).sort();
  if (installed.join(',') !== 'bitecs,physik-ecs,zod') throw new Error(`installed ${installed.join(', ')}; expected bitecs, physik-ecs and zod`);
  writeFileSync(join(dir, 'example.mjs'), exampleJs);
  const note = checkPose(sh(process.execPath, ['example.mjs'], dir));
  writeFileSync(join(dir, 'subpaths.mjs'), [
    "import { loadSceneFile, runScene } from 'physik-ecs/scene';",
    "import { recordSteps, recordingToJson } from 'physik-ecs/recording';",
    'console.log(typeof loadSceneFile, typeof runScene, typeof recordSteps, typeof recordingToJson);',
  ].join('\n'));
  const kinds = sh(process.execPath, ['subpaths.mjs'], dir).trim();
  if (kinds !== 'function function function function') throw new Error(`subpaths gave ${kinds}`);
  const help = sh('npx', ['--no-install', 'physik', '--help'], dir);
  if (!help.includes('physik run') && !/^ {2}run /m.test(help)) throw new Error(`physik --help printed: ${help}`);
  // a batch runs in worker threads: the compiled worker loads the compiled batch
  const batch = JSON.parse(sh('npx', ['--no-install', 'physik', 'run', 'node_modules/physik-ecs/scenes/arm.json', 'node_modules/physik-ecs/scenes/neck.json', '--workers', '2', '--json'], dir));
  if (!(batch.length === 2 && batch.every((r) => r.summary && r.summary.finite))) throw new Error(`a batch run gave ${JSON.stringify(batch).slice(0, 300)}`);
  const run = JSON.parse(sh('npx', ['--no-install', 'physik', 'run', 'node_modules/physik-ecs/scenes/humanoid.json', '--json'], dir));
  if (!(run.converged === true && run.maxTargetError < 0.005)) throw new Error(`npx physik run: converged ${run.converged}, maxTargetError ${run.maxTargetError}`);
  // a command that needs an optional package says which to install
  let glb;
  try { sh('npx', ['--no-install', 'physik', 'record', 'node_modules/physik-ecs/scenes/arm.json', '--steps', '10', '--out', 'arm.glb'], dir); } catch (e) { glb = e.message; }
  if (!glb || !glb.includes('needs the optional package three: install it with npm install three')) throw new Error(`record --out .glb without three: ${glb ?? 'succeeded'}`);
  return `${note}; node_modules ${(duBytes(join(dir, 'node_modules')) / 1e6).toFixed(1)} MB (${installed.join(', ')}); npx physik run humanoid.json converged in ${run.stepsToConverge} steps`;
});

const strictOptions = {
  strict: true, noUnusedLocals: true, noUnusedParameters: true, noUncheckedIndexedAccess: true, skipLibCheck: false,
  target: 'ES2022', lib: ['ES2022', 'DOM'], types: ['node'], outDir: 'out', erasableSyntaxOnly: true, verbatimModuleSyntax: true,
};
const allSubpaths = [
  "import { loadSceneFile, runScene, type RunSummary } from 'physik-ecs/scene';",
  "import { recordSteps, type Recording } from 'physik-ecs/recording';",
  "import { recordingToBvh, recordingToGlb, importBvh } from 'physik-ecs/io';",
  "import { runCrosscheck } from 'physik-ecs/rapier';",
  'const summary: RunSummary | null = null;',
  'const recording: Recording | null = null;',
  'console.log([loadSceneFile, runScene, recordSteps, recordingToBvh, recordingToGlb, importBvh, runCrosscheck].map((f) => typeof f).join(\' \'), summary, recording);',
].join('\n');
for (const [name, resolution] of [['ts-nodenext', { module: 'NodeNext', moduleResolution: 'NodeNext' }], ['ts-bundler', { module: 'ESNext', moduleResolution: 'Bundler' }]]) {
  check(`${name}: TypeScript strict, moduleResolution ${resolution.moduleResolution}, every subpath`, () => {
    const dir = project(name);
    npmInstall(dir, [tarball, `three@${devVersion('three')}`, `@types/three@${devVersion('@types/three')}`, `@dimforge/rapier3d-compat@${devVersion('@dimforge/rapier3d-compat')}`, `@types/node@${devVersion('@types/node')}`]);
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { ...strictOptions, ...resolution }, include: ['*.ts'] }, null, 2));
    writeFileSync(join(dir, 'example.ts'), exampleTs);
    writeFileSync(join(dir, 'subpaths.ts'), allSubpaths);
    sh(process.execPath, [tsc, '-p', '.'], dir);
    const note = checkPose(sh(process.execPath, ['out/example.js'], dir));
    const kinds = sh(process.execPath, ['out/subpaths.js'], dir).trim();
    if (!kinds.startsWith('function function function function function function function')) throw new Error(`subpaths gave ${kinds}`);
    return note;
  });
}

check('vite: a Vite build of the example, run on Node', () => {
  const dir = project('vite-app');
  npmInstall(dir, [tarball]);
  writeFileSync(join(dir, 'main.ts'), exampleTs);
  writeFileSync(join(dir, 'vite.config.mjs'), "export default { logLevel: 'error', build: { ssr: 'main.ts', outDir: 'out', ssr: true, rollupOptions: { input: 'main.ts' } }, ssr: { noExternal: true } };\n");
  sh(process.execPath, [vite, 'build', '--ssr', 'main.ts'], dir);
  const built = readdirSync(join(dir, 'out')).find((f) => f.endsWith('.js') || f.endsWith('.mjs'));
  if (!built) throw new Error('vite wrote no bundle');
  return checkPose(sh(process.execPath, [join('out', built)], dir));
});

rmSync(work, { recursive: true, force: true });
if (failures.length) {
  console.log(`package test: ${failures.length} failed (${failures.join('; ')})`);
  process.exit(1);
}
console.log('package test: all passed');
