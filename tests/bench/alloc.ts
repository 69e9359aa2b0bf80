/**
 * Allocation per step, measured two ways.
 *
 * Count (the headline): V8's used heap grows by exactly the bytes allocated until a garbage
 * collection runs, so the growth over a window of steps without a collection is what they
 * allocated. Windows are timed, collections are observed (PerformanceObserver 'gc' entries,
 * with start and duration), and only windows no collection overlapped are kept; what one pair
 * of readings itself allocates (v8.getHeapStatistics returns a new object) is measured the same
 * way around an empty window and taken off. Every window runs the same steps from the same
 * state, so what differs between windows is the VM's own work landing in one (V8 compiles
 * and re-optimises code on the heap while the steps run): the figure is the least growth over
 * the clean windows (the median and the largest are reported too). Typed-array backing stores
 * live outside the V8 heap: their growth (process.memoryUsage().arrayBuffers) is read per
 * window too and reported beside.
 *
 * Sources: V8's sampling heap profiler (through node:inspector, keeping samples of objects the
 * collector has already freed) over the same windows, summed by the function that allocated
 * (after inlining: the optimised function the allocation sits in). A sample stands for about
 * `samplingInterval` bytes, so these are estimates: they say where, the count says how much.
 *
 * A window is `prepare()` (not measured: e.g. restoring a snapshot, so every window runs the
 * same steps) and then `run()` (measured), which performs `steps` steps.
 */
import v8 from 'node:v8';
import { Session } from 'node:inspector';
import { PerformanceObserver, performance } from 'node:perf_hooks';

export interface Windowed {
  prepare: () => void;
  run: () => void;
  /** Steps one run() performs (the unit of the results). */
  steps: number;
}

export interface AllocationCount {
  /** Least growth per step over the clean windows (the steps' own allocation). */
  bytesPerStep: number;
  median: number;
  max: number;
  /** Typed-array backing stores allocated per step (outside the V8 heap). */
  arrayBufferBytesPerStep: number;
  stepsPerWindow: number;
  windows: number;
  cleanWindows: number;
}

export interface AllocationSource { fn: string; file: string; bytesPerStep: number }

const used = () => v8.getHeapStatistics().used_heap_size;
const buffers = () => process.memoryUsage().arrayBuffers;
const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 0));
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[s.length >> 1]! : NaN;
};

/** Bytes allocated per step: heap growth over windows that no garbage collection overlapped. */
export async function countAllocations(w: Windowed, windows: number): Promise<AllocationCount> {
  const gcs: [number, number][] = [];
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gcs.push([e.startTime, e.startTime + e.duration]);
  });
  observer.observe({ entryTypes: ['gc'] });
  const empty: [number, number, number][] = [], full: [number, number, number, number][] = [];
  for (let k = 0; k < windows; k++) {
    w.prepare();
    // an empty window (the readings' own cost) next to each measured one
    let t0 = performance.now(), u0 = used(), u1 = used(), t1 = performance.now();
    empty.push([t0, t1, u1 - u0]);
    const b0 = buffers();
    t0 = performance.now(); u0 = used();
    w.run();
    u1 = used(); t1 = performance.now();
    full.push([t0, t1, u1 - u0, buffers() - b0]);
  }
  // gc entries arrive asynchronously: let them in before judging the windows
  await tick(); await tick();
  observer.disconnect();
  const clean = (t0: number, t1: number) => !gcs.some(([s, e]) => s <= t1 && e >= t0);
  const overhead = median(empty.filter(([t0, t1]) => clean(t0, t1)).map(([, , d]) => d)) || 0;
  const kept = full.filter(([t0, t1]) => clean(t0, t1));
  const bytes = kept.map(([, , d]) => Math.max(0, d - overhead) / w.steps);
  return {
    bytesPerStep: bytes.length ? Math.min(...bytes) : NaN,
    median: median(bytes),
    max: bytes.length ? Math.max(...bytes) : NaN,
    arrayBufferBytesPerStep: Math.max(0, median(kept.map(([, , , ab]) => ab / w.steps))),
    stepsPerWindow: w.steps,
    windows,
    cleanWindows: bytes.length,
  };
}

/** Where the steps allocate: sampled bytes per step by allocating function, largest first (those of at least `floor`). */
export async function allocationSources(w: Windowed, windows: number, floor = 0.5, samplingInterval = 32): Promise<AllocationSource[]> {
  const session = new Session();
  session.connect();
  const post = <T>(method: string, params: object = {}) =>
    new Promise<T>((resolve, reject) => session.post(method, params, (err, res) => (err ? reject(err) : resolve(res as T))));
  interface Node { callFrame: { functionName: string; url: string }; selfSize: number; children: Node[] }
  const by = new Map<string, AllocationSource>();
  try {
    await post('HeapProfiler.enable');
    for (let k = 0; k < windows; k++) {
      w.prepare();
      await post('HeapProfiler.startSampling', { samplingInterval, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
      w.run();
      const { profile } = await post<{ profile: { head: Node } }>('HeapProfiler.stopSampling');
      const walk = (n: Node) => {
        // the inspector's own work while it stops sampling is not the steps'
        if (n.callFrame.url.startsWith('node:')) return;
        // nor is the bench's (its frames hold the steps: walk on below them)
        const own = n.callFrame.url.includes('/tests/bench/') || (n.callFrame.url === '' && n.callFrame.functionName === 'Promise');
        if (n.selfSize > 0 && !own) {
          const file = n.callFrame.url.replace(/^file:\/\//, '').replace(/^.*?\/(src|systems|components|tests|node_modules)\//, '$1/');
          const key = `${n.callFrame.functionName}|${file}`;
          const s = by.get(key) ?? { fn: n.callFrame.functionName || '(anonymous)', file, bytesPerStep: 0 };
          s.bytesPerStep += n.selfSize / (windows * w.steps);
          by.set(key, s);
        }
        for (const c of n.children) walk(c);
      };
      walk(profile.head);
    }
    await post('HeapProfiler.disable');
  } finally {
    session.disconnect();
  }
  return [...by.values()].filter((s) => s.bytesPerStep >= floor).sort((a, b) => b.bytesPerStep - a.bytesPerStep);
}
