#!/usr/bin/env node
/**
 * Would a WebAssembly kernel make the step fast enough for the last two performance goals? This probe
 * measures the joint solve's fold (foldChild of systems/jointSolve/coupledArticulated.ts, the articulated-body
 * up pass, ~1/3 of a humanoid step's joint solve) as plain JavaScript over typed arrays (the
 * project's code, run by V8), the same after an ArrayBuffer has been detached in the process (the
 * state an application with Rapier or a worker runs in), and compiled to WebAssembly by
 * AssemblyScript, on the humanoid's 18-bone tree, timed in alternating blocks in one process.
 *
 * No copy of the kernel is kept: foldChild's source is read from coupledArticulated.ts and turned
 * into AssemblyScript (typed signature, `unchecked` element access, f64 literals) and into plain
 * JS (esbuild strips the types) at run time; both must give the same bits, which is checked.
 * Bodies are synthetic (seeded), with the humanoid's topology and pressed limits (K ≠ 0) on the
 * elbows, knees, hands and feet; the cost of this arithmetic does not depend on the values.
 *
 * AssemblyScript is not a dependency of the project: `npm i --no-save assemblyscript` first.
 * Usage: `node tests/bench/wasmProbe.mjs [--rounds 40]`. Not part of the tests: it only prints.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transformSync } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const roundsArg = process.argv.indexOf('--rounds');
const rounds = roundsArg > 0 ? Number(process.argv[roundsArg + 1]) : 40;
if (!(Number.isInteger(rounds) && rounds >= 4)) throw new Error(`--rounds: expected an integer of at least 4, got ${process.argv[roundsArg + 1]}`);
let ascBin;
try {
  ascBin = join(dirname(createRequire(import.meta.url).resolve('assemblyscript/package.json')), 'bin', 'asc.js');
} catch {
  console.error('wasmProbe: AssemblyScript is not installed (it is not a dependency): run `npm i --no-save assemblyscript` first');
  process.exit(2);
}

// foldChild, as the project has it, made standalone: the coupling's arrays and the bone count as arguments
const source = readFileSync(join(root, 'systems/jointSolve/coupledArticulated.ts'), 'utf8');
const start = source.indexOf('function foldChild(');
const fold0 = source.slice(start, source.indexOf('\n}\n', start) + 3);
const header = /^function foldChild\([^)]*\): boolean \{\n  const \{ K, A, g, Dinv, zeta \} = coupling;\n  const world = i < 0, b3 = world \? 0 : rig\.bones\[i\]! \* 3, c3 = rig\.bones\[j\]! \* 3, a = j \* 36, j6 = j \* 6;/;
if (!header.test(fold0) || !fold0.includes('const slot = world ? rig.bones.length : i')) {
  throw new Error('wasmProbe: foldChild in systems/jointSolve/coupledArticulated.ts no longer has the shape this probe rewrites; update the probe');
}
const fold = fold0
  .replace(header, 'function foldChild(head: F, angVel: F, on: bool, K: F, A: F, g: F, Dinv: F, zeta: F, n: i32, i: i32, j: i32): bool {\n  const world = i < 0, b3: i32 = world ? 0 : i * 3, c3: i32 = j * 3, a: i32 = j * 36, j6: i32 = j * 6;')
  .replace('const slot = world ? rig.bones.length : i', 'const slot: i32 = world ? n : i')
  .replace(/let (\w+) = 0, (\w+) = 0, (\w+) = 0;/g, 'let $1: f64 = 0, $2: f64 = 0, $3: f64 = 0;')
  .replaceAll('world ? 0 : head', 'world ? 0.0 : head')
  .replace('Number.isFinite(det)', 'isFinite(det)');
// element access: reads X[e]! → unchecked(X[e]); writes X[e] (op)= v → unchecked(X[e] = ...)
const asFold = fold
  .replace(/(\w+)\[([^[\]]+)\]!/g, 'unchecked($1[$2])')
  .replace(/\b(A|g|Dinv|zeta)\[([^[\]]+)\] (\+|-)?= ([^;]+);/g, (_, x, e, op, v) => (op ? `unchecked(${x}[${e}] = unchecked(${x}[${e}]) ${op} (${v}));` : `unchecked(${x}[${e}] = ${v});`));
const upPass = `
/** The up pass: every bone's body (from B, G) with its children folded in, then the root into the world; a checksum of the world slot. */
export function upPass(head: F, angVel: F, K: F, A: F, g: F, Dinv: F, zeta: F, B: F, G: F, childStart: I, childIndex: I, n: i32): f64 {
  for (let i = n - 1; i >= 0; i--) {
    for (let k = 0; k < 21; k++) unchecked(A[i * 36 + k] = unchecked(B[i * 21 + k]));
    for (let k = 0; k < 6; k++) unchecked(g[i * 6 + k] = unchecked(G[i * 6 + k]));
    for (let k = unchecked(childStart[i]); k < unchecked(childStart[i + 1]); k++) {
      if (!foldChild(head, angVel, true, K, A, g, Dinv, zeta, n, i, unchecked(childIndex[k]))) return -1;
    }
  }
  for (let k = 0; k < 21; k++) unchecked(A[n * 36 + k] = 0);
  for (let k = 0; k < 6; k++) unchecked(g[n * 6 + k] = 0);
  if (!foldChild(head, angVel, true, K, A, g, Dinv, zeta, n, -1, 0)) return -1;
  let s: f64 = 0;
  for (let k = 0; k < 21; k++) s += unchecked(A[n * 36 + k]) * f64(k + 1);
  for (let k = 0; k < 6; k++) s += unchecked(g[n * 6 + k]);
  return s;
}
`;
const asGlobals = `
let arrays = new StaticArray<StaticArray<f64>>(0);
let ints = new StaticArray<StaticArray<i32>>(0);
let N: i32 = 0;
/** Arrays for n bones: f64 head, angVel, K, A, g, Dinv, zeta, B, G; i32 childStart, childIndex. */
export function init(n: i32): void {
  N = n;
  arrays = [new StaticArray<f64>(3 * n), new StaticArray<f64>(3 * n), new StaticArray<f64>(6 * n), new StaticArray<f64>(36 * (n + 1)),
    new StaticArray<f64>(6 * (n + 1)), new StaticArray<f64>(9 * n), new StaticArray<f64>(3 * n), new StaticArray<f64>(21 * n), new StaticArray<f64>(6 * n)];
  ints = [new StaticArray<i32>(n + 1), new StaticArray<i32>(n)];
}
export function f64Array(k: i32): usize { return changetype<usize>(arrays[k]); }
export function i32Array(k: i32): usize { return changetype<usize>(ints[k]); }
export function run(times: i32): f64 {
  let s: f64 = 0;
  const a = arrays, c = ints;
  for (let t = 0; t < times; t++) s += upPass(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], c[0], c[1], N);
  return s;
}
`;
const dir = mkdtempSync(join(tmpdir(), 'physik-wasm-probe-'));
writeFileSync(join(dir, 'kernel.ts'), `type F = StaticArray<f64>; type I = StaticArray<i32>;\n${asFold}${upPass}${asGlobals}`);
execFileSync(process.execPath, [ascBin, join(dir, 'kernel.ts'), '-O3', '--noAssert', '--runtime', 'incremental', '--exportRuntime', '-o', join(dir, 'kernel.wasm')], { stdio: 'inherit' });
const jsSource = transformSync(
  `type f64 = number; type i32 = number; type bool = boolean; type F = Float64Array; type I = Int32Array;\nconst f64 = (x: number) => x; const unchecked = <T>(x: T): T => x;\n${fold}${upPass}`,
  { loader: 'ts', format: 'esm' },
).code;
writeFileSync(join(dir, 'kernel.mjs'), jsSource);
const { upPass: jsUpPass } = await import(join(dir, 'kernel.mjs'));

// the humanoid's tree (its bones are listed depth first, each after its parent)
const bones = JSON.parse(readFileSync(join(root, 'scenes/humanoid.json'), 'utf8')).rig.bones;
const n = bones.length, index = new Map(bones.map((b, i) => [b.name, i]));
const parent = bones.map((b) => (b.parent == null ? -1 : index.get(b.parent)));
const childStart = new Int32Array(n + 1), childIndex = new Int32Array(n);
for (let i = 1; i < n; i++) childStart[parent[i] + 2]++;
for (let i = 0; i < n; i++) childStart[i + 1] += childStart[i];
for (let i = 1; i < n; i++) childIndex[childStart[parent[i] + 1]++] = i;
let seed = 7;
const rnd = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
const head = Float64Array.from({ length: 3 * n }, rnd), angVel = Float64Array.from({ length: 3 * n }, () => rnd() - 0.5);
const K = new Float64Array(6 * n);
for (const name of ['forearm.L', 'forearm.R', 'shin.L', 'shin.R', 'hand.L', 'hand.R', 'foot.L', 'foot.R']) {
  const o = index.get(name) * 6; K[o] = 0.3; K[o + 3] = 0.2; K[o + 5] = 0.1;
}
const B = new Float64Array(21 * n), G = Float64Array.from({ length: 6 * n }, () => rnd() - 0.5);
for (let i = 0; i < n; i++) {
  // a rod's body about its head: A11 = m I, A12 = −m [d]ₓ, A22 = I + m (|d|² I − d dᵀ)
  const o = i * 21, m = 1 + rnd(), dx = 0.1 * rnd(), dy = 0.3 * rnd(), dz = 0.1 * rnd();
  B[o] = m; B[o + 3] = m; B[o + 5] = m;
  B[o + 7] = m * dz; B[o + 8] = -m * dy; B[o + 9] = -m * dz; B[o + 11] = m * dx; B[o + 12] = m * dy; B[o + 13] = -m * dx;
  B[o + 15] = 0.1 + m * (dy * dy + dz * dz); B[o + 16] = -m * dx * dy; B[o + 17] = -m * dx * dz;
  B[o + 18] = 0.05 + m * (dx * dx + dz * dz); B[o + 19] = -m * dy * dz; B[o + 20] = 0.1 + m * (dx * dx + dy * dy);
}
const js = { A: new Float64Array(36 * (n + 1)), g: new Float64Array(6 * (n + 1)), Dinv: new Float64Array(9 * n), zeta: new Float64Array(3 * n) };
const jsRun = (times) => {
  let s = 0;
  for (let t = 0; t < times; t++) s += jsUpPass(head, angVel, K, js.A, js.g, js.Dinv, js.zeta, B, G, childStart, childIndex, n);
  return s;
};
const { instance } = await WebAssembly.instantiate(readFileSync(join(dir, 'kernel.wasm')), { env: { abort() { throw new Error('wasm kernel aborted'); } } });
const X = instance.exports;
X.init(n);
[head, angVel, K, null, null, null, null, B, G].forEach((src, k) => { if (src) new Float64Array(X.memory.buffer, X.f64Array(k), src.length).set(src); });
[childStart, childIndex].forEach((src, k) => new Int32Array(X.memory.buffer, X.i32Array(k), src.length).set(src));
const same = jsRun(1) === X.run(1);

const REPS = 2000;
function measure() {
  const t = { js: [], wasm: [] };
  for (let r = 0; r < rounds; r++) {
    for (const [name, f] of r % 2 ? [['js', jsRun], ['wasm', X.run]] : [['wasm', X.run], ['js', jsRun]]) {
      const t0 = process.hrtime.bigint();
      f(REPS);
      t[name].push(Number(process.hrtime.bigint() - t0) / 1000 / REPS);
    }
  }
  const med = (a) => a.slice(rounds >> 2).sort((p, q) => p - q)[(rounds - (rounds >> 2)) >> 1];
  return { js: med(t.js), wasm: med(t.wasm) };
}
const plain = measure();
const b = new ArrayBuffer(8);
structuredClone(b, { transfer: [b] }); // detachOneBuffer of detached.ts (a TS module this plain-JS probe does not load): V8 now checks every typed-array access
const detached = measure();
console.log(`foldChild up pass on the humanoid's ${n}-bone tree, µs per pass (median of ${rounds - (rounds >> 2)} blocks of ${REPS}, JS and wasm alternating)`);
console.log(`JavaScript (typed arrays)                  ${plain.js.toFixed(3)}`);
console.log(`JavaScript, a buffer detached              ${detached.js.toFixed(3)}`);
console.log(`WebAssembly (AssemblyScript -O3)           ${plain.wasm.toFixed(3)}   (${detached.wasm.toFixed(3)} after the detach)`);
console.log(`wasm / JS: ${(plain.wasm / plain.js).toFixed(2)}; wasm / JS with a buffer detached: ${(detached.wasm / detached.js).toFixed(2)}`);
console.log(`same bits from both: ${same ? 'yes' : 'NO'}`);
