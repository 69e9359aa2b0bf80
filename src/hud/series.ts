/**
 * Time series for the HUD's live plots: a fixed-capacity ring buffer of (time, value) samples
 * holding the last `window` seconds of simulated time, plus the small pure helpers the pixi
 * overlay draws with (status from the Rig store, value formatting, plot scaling). No DOM, no
 * pixi: everything here runs and is tested in Node.
 *
 * Limits:
 * - Capacity is fixed when the buffer is made (window / dt plus a margin). Sampling more often
 *   than once per dt fills it early: the oldest samples are then overwritten before they leave
 *   the window (counted in `overwritten`), so the plot covers less than the window. Call
 *   `setCapacity` (allocates) after dt changes.
 * - Non-finite values (NaN, ±Infinity) and non-finite times are not stored; they are counted
 *   in `nonFinite` and otherwise ignored (the plot shows a gap-free line over the good ones).
 * - Time going backwards (a rig reset, a new scene) clears the buffer and counts a reset;
 *   equal times are accepted (a paused world sampled twice).
 * - min/max are over the samples in the window, recomputed by one scan (no allocation) only
 *   after the buffer changed.
 */
import type { SolveStatus } from '../../components';

/** Default plot window: the last 10 s of simulated time. */
export const WINDOW_SECONDS = 10;

/** Capacity for a window sampled once per dt (plus a margin of 2 for the window's ends). */
export function capacityFor(windowSeconds: number, dt: number): number {
  if (!(windowSeconds > 0) || !Number.isFinite(windowSeconds)) throw new Error(`window must be a positive number of seconds, got ${windowSeconds}`);
  if (!(dt > 0) || !Number.isFinite(dt)) throw new Error(`dt must be a positive number of seconds, got ${dt}`);
  return Math.ceil(windowSeconds / dt - 1e-9) + 2;
}

export class SeriesBuffer {
  readonly window: number;
  private t: Float64Array;
  private v: Float64Array;
  /** Ring index of the oldest sample. */
  private head = 0;
  private count = 0;
  private dirty = false;
  private cachedMin = NaN;
  private cachedMax = NaN;
  /** Samples skipped because the value or the time was not finite. */
  nonFinite = 0;
  /** Times the buffer was cleared because time went backwards. */
  resets = 0;
  /** Samples overwritten by capacity while still inside the window (sampled faster than dt). */
  overwritten = 0;
  /** The last value offered to push, finite or not (NaN before any). */
  lastValue = NaN;

  constructor(windowSeconds: number, dt: number) {
    const capacity = capacityFor(windowSeconds, dt);
    this.window = windowSeconds;
    this.t = new Float64Array(capacity);
    this.v = new Float64Array(capacity);
  }

  get capacity(): number { return this.t.length; }
  /** Number of samples held (oldest index 0, newest size - 1). */
  get size(): number { return this.count; }
  /** Time of the newest sample (NaN when empty). */
  get latestTime(): number { return this.count ? this.t[(this.head + this.count - 1) % this.t.length]! : NaN; }
  /** Value of the newest stored (finite) sample (NaN when empty). */
  get latest(): number { return this.count ? this.v[(this.head + this.count - 1) % this.v.length]! : NaN; }

  timeAt(i: number): number { return this.t[(this.head + i) % this.t.length]!; }
  valueAt(i: number): number { return this.v[(this.head + i) % this.v.length]!; }

  /** Visit the samples oldest first (for drawing; pass a hoisted function to avoid allocation). */
  forEach(fn: (t: number, v: number, i: number) => void): void {
    const cap = this.t.length;
    for (let i = 0; i < this.count; i++) {
      const k = (this.head + i) % cap;
      fn(this.t[k]!, this.v[k]!, i);
    }
  }

  /** Add a sample. Returns false when it was skipped (non-finite). */
  push(t: number, v: number): boolean {
    this.lastValue = v;
    if (!Number.isFinite(t) || !Number.isFinite(v)) { this.nonFinite++; return false; }
    if (this.count > 0 && t < this.latestTime) { this.clear(); this.resets++; }
    const cap = this.t.length;
    if (this.count === cap) {
      // full: drop the oldest (it is still in the window unless the trim below would drop it)
      if (this.t[this.head]! >= t - this.window) this.overwritten++;
      this.head = (this.head + 1) % cap;
      this.count--;
    }
    const k = (this.head + this.count) % cap;
    this.t[k] = t;
    this.v[k] = v;
    this.count++;
    // trim samples older than the window, measured back from the newest
    const from = t - this.window;
    while (this.count > 0 && this.t[this.head]! < from) {
      this.head = (this.head + 1) % cap;
      this.count--;
    }
    this.dirty = true;
    return true;
  }

  /** Smallest value in the window (NaN when empty). */
  get min(): number { if (this.dirty) this.rescan(); return this.cachedMin; }
  /** Largest value in the window (NaN when empty). */
  get max(): number { if (this.dirty) this.rescan(); return this.cachedMax; }

  private rescan(): void {
    let lo = Infinity;
    let hi = -Infinity;
    const cap = this.v.length;
    for (let i = 0; i < this.count; i++) {
      const x = this.v[(this.head + i) % cap]!;
      if (x < lo) lo = x;
      if (x > hi) hi = x;
    }
    this.cachedMin = this.count ? lo : NaN;
    this.cachedMax = this.count ? hi : NaN;
    this.dirty = false;
  }

  /** Drop every sample (counters are kept). */
  clear(): void {
    this.head = 0;
    this.count = 0;
    this.cachedMin = NaN;
    this.cachedMax = NaN;
    this.dirty = false;
  }

  /** Change the capacity (allocates; keeps the newest samples that fit). */
  setCapacity(capacity: number): void {
    const n = Math.max(2, Math.floor(capacity));
    if (n === this.t.length) return;
    const keep = Math.min(this.count, n);
    const t = new Float64Array(n);
    const v = new Float64Array(n);
    for (let i = 0; i < keep; i++) {
      t[i] = this.timeAt(this.count - keep + i);
      v[i] = this.valueAt(this.count - keep + i);
    }
    this.t = t;
    this.v = v;
    this.head = 0;
    this.count = keep;
    this.dirty = true;
  }
}

// ---- helpers for the overlay (pure) ----

const STATUS_BY_CODE: readonly SolveStatus[] = ['settling', 'converged', 'stalled', 'diverged'];

/**
 * The status shown, as `readMetrics` reports it: the rig's settling status (Rig.settle,
 * systems/settling.ts); an unknown code reads as 'settling'.
 */
export function hudStatus(settleCode: number): SolveStatus {
  return STATUS_BY_CODE[settleCode] ?? 'settling';
}

/** Colours (0xRRGGBB) of the status line. */
export const STATUS_COLOURS: Readonly<Record<SolveStatus, number>> = {
  converged: 0x4caf50,
  settling: 0xffc107,
  stalled: 0xff9800,
  diverged: 0xf44336,
};

/** Short text of a value: 3 significant digits, exponent form outside [1e-3, 1e4). */
export function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? '+inf' : '-inf';
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a >= 1e-3 && a < 1e4) return Number.isInteger(v) ? String(v) : v.toPrecision(3);
  return v.toExponential(2);
}

/** Vertical range of a plot, in plot units (log10 of the value for log plots). */
export interface PlotRange { lo: number; hi: number }

/**
 * Range for a plot of the window's [min, max]. Log plots clamp values to `floor` and span at
 * least one decade; linear plots start at 0 (or min when negative) and span at least 1.
 * Writes into `out` (no allocation).
 */
export function plotRange(out: PlotRange, min: number, max: number, log: boolean, floor: number): PlotRange {
  if (!Number.isFinite(min) || !Number.isFinite(max)) {
    out.lo = log ? Math.log10(floor) : 0;
    out.hi = out.lo + 1;
    return out;
  }
  if (log) {
    const hi = Math.log10(Math.max(max, floor));
    const lo = Math.log10(Math.max(min, floor));
    out.lo = Math.floor(lo + 1e-9) + 0; // + 0 turns -0 into 0
    out.hi = Math.max(Math.ceil(hi - 1e-9), out.lo + 1) + 0;
  } else {
    out.lo = Math.min(0, min);
    out.hi = Math.max(max, out.lo + 1);
  }
  return out;
}

/** y in pixels (0 at the top, h at the bottom) of a value in a plot of height h. */
export function plotY(v: number, range: PlotRange, h: number, log: boolean, floor: number): number {
  const u = log ? Math.log10(Math.max(v, floor)) : v;
  const f = (u - range.lo) / (range.hi - range.lo);
  return h * (1 - Math.min(1, Math.max(0, f)));
}
