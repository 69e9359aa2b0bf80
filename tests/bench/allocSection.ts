/** The allocation section of `npm run bench`: bytes allocated per step (alloc.ts). */
import { createPhysikWorld, addRig, step, setSettings, createSnapshot, restoreRig, type RigInput } from '../../src/core';
import type { Settings } from '../../src/scene/types';
import { table, fixed as f } from './stats';
import { chainInput, treeInput, humanoidInput, crowdInputs } from './rigs';
import { countAllocations, allocationSources, type AllocationCount, type AllocationSource, type Windowed } from './alloc';
import { build, log } from './building';
import { walkCapture } from './capture';

export interface AllocRow { name: string; count: AllocationCount; sources: AllocationSource[] }

export async function allocSection(): Promise<AllocRow[]> {
  const rows: AllocRow[] = [];
  const steps = 200, windows = 9, WARMUP_WINDOWS = 25;
  const rig = (name: string, input: RigInput, settings: Partial<Settings> = {}, from = 0): [string, Windowed] => {
    const b = build(input);
    if (Object.keys(settings).length) setSettings(b.world, b.rig, settings);
    if (from > 0) step(b.world, from);
    const snap = createSnapshot(b.world, b.rig);
    return [name, { prepare: () => restoreRig(b.world, b.rig, snap), run: () => step(b.world, steps), steps }];
  };
  const crowd = (n: number): [string, Windowed] => {
    const world = createPhysikWorld();
    const rigs = crowdInputs(n, true).map((input) => addRig(world, input).rig);
    const snaps = rigs.map((r) => createSnapshot(world, r));
    return [`crowd of ${n} humanoids (whole world)`, { prepare: () => rigs.forEach((r, i) => restoreRig(world, r, snaps[i]!)), run: () => step(world, steps), steps }];
  };
  // a capture (capture.ts): the steps with a clip playing, its markers and drives, and the
  // capture's measure after each step; windows from step 100, the clip going on past them
  const capture = (): [string, Windowed] => {
    const { world, rig: r } = walkCapture(600);
    step(world, 100);
    const snap = createSnapshot(world, r);
    return ['capture of the CMU walk (31 joints, markers on hips, hands, feet)', { prepare: () => restoreRig(world, r, snap), run: () => step(world, steps), steps }];
  };
  const cases: [string, Windowed][] = [
    rig('humanoid exact (default)', humanoidInput()),
    // the same steps' cost without the target move each window starts with (the script's one
    // move is at step 0, its interpolation over by step 50): the steady state
    rig('humanoid exact, steady state (windows from step 100: no target move)', humanoidInput(), {}, 100),
    rig('humanoid iterative', humanoidInput(), { interJoint: 'iterative' }),
    rig('chain 100 exact', chainInput(100, 200)),
    rig('tree 100 exact', treeInput(100, 200)),
    crowd(10),
    capture(),
    ...['fabrik', 'ccd', 'jacobianTranspose', 'dls', 'massSpring', 'twoBone', 'triangle', 'bezier'].map((solver) => rig(`humanoid ${solver}`, humanoidInput(), { solver })),
  ];
  for (const [name, w] of cases) {
    log(`alloc: ${name} ...`);
    // warm-up: optimised code, caches built. A system runs once a step, and V8 optimises such a
    // function only after some thousand calls (measured: the two-bone solver first ran optimised
    // after ~1000–1700 steps), so 4 windows left some of them in the interpreter, where every
    // double is an allocation: the steady state is measured after 25 windows (5000 steps).
    for (let i = 0; i < WARMUP_WINDOWS; i++) { w.prepare(); w.run(); }
    const count = await countAllocations(w, windows);
    const sources = count.bytesPerStep > 0.5 || !(count.cleanWindows > 0) ? await allocationSources(w, 3) : [];
    rows.push({ name, count, sources });
  }
  return rows;
}

export function formatAlloc(rows: AllocRow[]): string[] {
  const t = [['case', 'B/step', 'median', 'max', 'typed-array B/step', 'clean windows']];
  for (const r of rows) {
    const c = r.count;
    t.push([r.name, f(c.bytesPerStep, 1), f(c.median, 1), f(c.max, 1), f(c.arrayBufferBytesPerStep, 1), `${c.cleanWindows}/${c.windows} × ${c.stepsPerWindow} steps`]);
  }
  const out = [
    'allocation per step: V8 used-heap growth over windows of the same 200 steps that no garbage collection overlapped, minus the readings\' own cost;',
    'B/step is the least over the windows (the steps\' own allocation: more in a window is V8 compiling code on the heap meanwhile), median and max beside:',
    table(t),
  ];
  const withSources = rows.filter((r) => r.sources.length);
  if (withSources.length) {
    out.push('', 'where (sampling heap profiler, estimated B/step by allocating function after inlining):');
    for (const r of withSources) out.push(`  ${r.name}: ${r.sources.slice(0, 6).map((s) => `${s.fn} (${s.file}) ${f(s.bytesPerStep, 1)}`).join('; ')}`);
  }
  return out;
}
