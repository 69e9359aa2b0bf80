/**
 * Memory-layout probe for crowds: `npx tsx tests/bench/layout.ts [rigs]` (default 10 and 1000).
 *
 * Not the engine: a synthetic step that touches what a humanoid's step touches per bone (40
 * fields of 3 doubles, read and written, 18 bones per rig) in three layouts, to measure what
 * the layout alone costs once the rigs no longer fit in the caches:
 *  - by entity id (the stores now): one array per field indexed by entity id, each rig's 18
 *    bones followed by 18 other entities (its joints), as addRig numbers them;
 *  - per-rig blocks: each rig's fields in one contiguous block (field-major inside it);
 *  - per bone: every field of a bone together (array of structures).
 * Prints µs per rig-step (median of repeats) and the ratio to the entity-id layout. A rig of
 * the entity-id layout touches ~40 separate arrays (~40 pages and ~40 streams for the
 * prefetcher); a per-rig block is ~4 consecutive pages.
 */
import { performance } from 'node:perf_hooks';
import { spread, table, fixed as f } from './stats';

const BONES = 18, FIELDS = 40, WIDTH = 3, SPAN = 36; // entity ids per rig: bones and joints

type Step = () => number;

function byEntityId(rigs: number): Step {
  const arrays: Float64Array[] = [];
  for (let k = 0; k < FIELDS; k++) arrays.push(new Float64Array(rigs * SPAN * WIDTH).fill(1));
  return () => {
    let sum = 0;
    for (let r = 0; r < rigs; r++) {
      const first = r * SPAN + 1;
      for (let k = 0; k < FIELDS; k++) {
        const a = arrays[k]!;
        for (let b = 0; b < BONES; b++) sum += touch(a, (first + b) * WIDTH);
      }
    }
    return sum;
  };
}

function perRigBlocks(rigs: number): Step {
  const block = FIELDS * BONES * WIDTH;
  const a = new Float64Array(rigs * block).fill(1);
  return () => {
    let sum = 0;
    for (let r = 0; r < rigs; r++) {
      for (let k = 0; k < FIELDS; k++) {
        const o = r * block + k * BONES * WIDTH;
        for (let b = 0; b < BONES; b++) sum += touch(a, o + b * WIDTH);
      }
    }
    return sum;
  };
}

function perBone(rigs: number): Step {
  const stride = FIELDS * WIDTH;
  const a = new Float64Array(rigs * BONES * stride).fill(1);
  return () => {
    let sum = 0;
    for (let r = 0; r < rigs; r++) {
      for (let k = 0; k < FIELDS; k++) {
        for (let b = 0; b < BONES; b++) sum += touch(a, (r * BONES + b) * stride + k * WIDTH);
      }
    }
    return sum;
  };
}

/** Read a field's three values and write one back (a system's read-modify-write). */
function touch(a: Float64Array, i: number): number {
  const v = a[i]! + a[i + 1]! * 0.5 + a[i + 2]!;
  a[i] = v * 0.999999;
  return v;
}

function measure(make: (rigs: number) => Step, rigs: number): number {
  const step = make(rigs);
  for (let i = 0; i < 5; i++) step();
  const steps = Math.max(20, Math.round(20000 / rigs));
  const us: number[] = [];
  for (let rep = 0; rep < 7; rep++) {
    const t0 = performance.now();
    for (let i = 0; i < steps; i++) step();
    us.push(((performance.now() - t0) * 1000) / steps / rigs);
  }
  return spread(us).median;
}

const sizes = process.argv.slice(2).map(Number).filter((n) => n > 0);
const rows: string[][] = [];
for (const rigs of sizes.length ? sizes : [10, 1000]) {
  const base = measure(byEntityId, rigs);
  for (const [name, make] of [['by entity id (the stores now)', byEntityId], ['per-rig blocks', perRigBlocks], ['per bone (array of structures)', perBone]] as const) {
    const us = make === byEntityId ? base : measure(make, rigs);
    rows.push([name, String(rigs), f(us, 2), f(us / base, 2)]);
  }
}
console.log(`touching ${FIELDS} fields × ${WIDTH} doubles of ${BONES} bones per rig (read and write), median of 7 repeats:`);
console.log(table([['layout', 'rigs', 'µs per rig-step', 'ratio'], ...rows]));
