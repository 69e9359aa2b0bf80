import { describe, expect, it } from 'vitest';
import {
  SeriesBuffer, capacityFor, formatValue, hudStatus, plotRange, plotY, type PlotRange,
} from '../../../src/hud/series';

const dt = 0.05;

function fill(s: SeriesBuffer, from: number, steps: number, value: (i: number) => number = (i) => i): void {
  for (let i = 0; i < steps; i++) s.push(from + i * dt, value(i));
}

function times(s: SeriesBuffer): number[] {
  const out: number[] = [];
  s.forEach((t) => out.push(t));
  return out;
}

describe('SeriesBuffer', () => {
  it('sizes its capacity from the window and dt', () => {
    expect(capacityFor(10, 0.05)).toBe(202);
    expect(capacityFor(10, 1 / 60)).toBe(602);
    expect(new SeriesBuffer(10, 0.05).capacity).toBe(202);
    expect(() => capacityFor(10, 0)).toThrow(/dt/);
    expect(() => capacityFor(-1, 0.05)).toThrow(/window/);
  });

  it('keeps only the samples within the window, measured back from the newest', () => {
    const s = new SeriesBuffer(10, dt);
    fill(s, 0, 400); // 0 .. 19.95 s
    const t = times(s);
    const newest = 399 * dt;
    expect(s.latestTime).toBeCloseTo(newest, 12);
    expect(t[0]!).toBeGreaterThanOrEqual(newest - 10 - 1e-9);
    expect(t.length).toBeGreaterThanOrEqual(200);
    expect(t.length).toBeLessThanOrEqual(201);
    for (let i = 1; i < t.length; i++) expect(t[i]!).toBeGreaterThan(t[i - 1]!);
    // index access agrees with iteration, oldest first
    expect(s.timeAt(0)).toBe(t[0]);
    expect(s.valueAt(s.size - 1)).toBe(399);
    expect(s.overwritten).toBe(0);
  });

  it('trims by time when samples are sparse (a gap drops everything older than the window)', () => {
    const s = new SeriesBuffer(10, dt);
    fill(s, 0, 20);
    s.push(30, 7);
    expect(s.size).toBe(1);
    expect(s.latest).toBe(7);
    expect(s.min).toBe(7);
    expect(s.max).toBe(7);
  });

  it('computes min and max over the window only', () => {
    const s = new SeriesBuffer(10, dt);
    s.push(0, 1000); // leaves the window later
    s.push(0.05, -5);
    fill(s, 1, 10, (i) => i * 0.5); // 0 .. 4.5
    expect(s.max).toBe(1000);
    expect(s.min).toBe(-5);
    s.push(10.04, 2); // 0 is now older than 10.04 - 10 = 0.04
    expect(s.max).toBe(4.5);
    expect(s.min).toBe(-5);
    s.push(10.1, 3); // 0.05 leaves too
    expect(s.min).toBe(0);
    expect(s.max).toBe(4.5);
  });

  it('is empty with NaN min/max before any sample', () => {
    const s = new SeriesBuffer(10, dt);
    expect(s.size).toBe(0);
    expect(Number.isNaN(s.min)).toBe(true);
    expect(Number.isNaN(s.max)).toBe(true);
    expect(Number.isNaN(s.latest)).toBe(true);
  });

  it('skips and counts non-finite values and times', () => {
    const s = new SeriesBuffer(10, dt);
    expect(s.push(0, 1)).toBe(true);
    expect(s.push(0.05, NaN)).toBe(false);
    expect(s.push(0.1, Infinity)).toBe(false);
    expect(s.push(0.15, -Infinity)).toBe(false);
    expect(s.push(NaN, 2)).toBe(false);
    expect(s.push(0.2, 3)).toBe(true);
    expect(s.size).toBe(2);
    expect(s.nonFinite).toBe(4);
    expect(s.min).toBe(1);
    expect(s.max).toBe(3);
    // the last offered value is remembered for the value label
    s.push(0.25, NaN);
    expect(Number.isNaN(s.lastValue)).toBe(true);
    expect(s.latest).toBe(3);
  });

  it('resets when time goes backwards, and accepts equal times', () => {
    const s = new SeriesBuffer(10, dt);
    fill(s, 0, 100);
    s.push(s.latestTime, 42); // same time: kept
    expect(s.size).toBe(101);
    expect(s.resets).toBe(0);
    s.push(0, 5); // rig reset
    expect(s.resets).toBe(1);
    expect(s.size).toBe(1);
    expect(s.min).toBe(5);
    expect(s.max).toBe(5);
    fill(s, dt, 10);
    expect(s.size).toBe(11);
  });

  it('never grows beyond its capacity; sampling faster than dt overwrites and counts', () => {
    const s = new SeriesBuffer(10, dt);
    const cap = s.capacity;
    for (let i = 0; i < 5000; i++) s.push(i * 0.01, i); // 5x faster than dt
    expect(s.capacity).toBe(cap);
    expect(s.size).toBe(cap);
    expect(s.overwritten).toBeGreaterThan(0);
    expect(s.valueAt(s.size - 1)).toBe(4999);
    expect(s.valueAt(0)).toBe(4999 - cap + 1);
    expect(s.min).toBe(4999 - cap + 1);
    expect(s.max).toBe(4999);
  });

  it('wraps around many times and stays ordered', () => {
    const s = new SeriesBuffer(1, 0.1);
    for (let i = 0; i < 1000; i++) s.push(i * 0.1, Math.sin(i));
    const t = times(s);
    expect(t.length).toBeLessThanOrEqual(s.capacity);
    for (let i = 1; i < t.length; i++) expect(t[i]!).toBeGreaterThan(t[i - 1]!);
    expect(t[t.length - 1]!).toBeCloseTo(99.9, 9);
  });

  it('setCapacity keeps the newest samples', () => {
    const s = new SeriesBuffer(10, dt);
    fill(s, 0, 100);
    s.setCapacity(10);
    expect(s.capacity).toBe(10);
    expect(s.size).toBe(10);
    expect(s.valueAt(0)).toBe(90);
    expect(s.max).toBe(99);
    s.push(100 * dt, 100);
    expect(s.size).toBe(10);
    expect(s.valueAt(9)).toBe(100);
  });

  it('clear keeps the counters', () => {
    const s = new SeriesBuffer(10, dt);
    s.push(0, NaN);
    s.push(0, 1);
    s.clear();
    expect(s.size).toBe(0);
    expect(s.nonFinite).toBe(1);
  });
});

describe('HUD helpers', () => {
  it('maps the Rig store status as readMetrics does', () => {
    expect(hudStatus(0)).toBe('settling');
    expect(hudStatus(1)).toBe('converged');
    expect(hudStatus(2)).toBe('stalled');
    expect(hudStatus(3)).toBe('diverged');
    expect(hudStatus(99)).toBe('settling');
  });

  it('formats values compactly', () => {
    expect(formatValue(0)).toBe('0');
    expect(formatValue(12)).toBe('12');
    expect(formatValue(0.012345)).toBe('0.0123');
    expect(formatValue(1.5e-7)).toBe('1.50e-7');
    expect(formatValue(123456)).toBe('1.23e+5');
    expect(formatValue(NaN)).toBe('NaN');
    expect(formatValue(-Infinity)).toBe('-inf');
  });

  it('log range spans whole decades and clamps to the floor', () => {
    const r: PlotRange = { lo: 0, hi: 0 };
    plotRange(r, 2e-4, 0.3, true, 1e-6);
    expect(r).toEqual({ lo: -4, hi: 0 });
    plotRange(r, 0, 0, true, 1e-6); // all zero: floor, one decade
    expect(r).toEqual({ lo: -6, hi: -5 });
    plotRange(r, 0.5, 0.5, true, 1e-6);
    expect(r).toEqual({ lo: -1, hi: 0 });
    plotRange(r, 1e-3, 1, true, 1e-6); // exact decades are the ends
    expect(r).toEqual({ lo: -3, hi: 0 });
    plotRange(r, NaN, NaN, true, 1e-9);
    expect(r).toEqual({ lo: -9, hi: -8 });
  });

  it('linear range starts at zero and spans at least one', () => {
    const r: PlotRange = { lo: 0, hi: 0 };
    plotRange(r, 3, 12, false, 0);
    expect(r).toEqual({ lo: 0, hi: 12 });
    plotRange(r, 0, 0, false, 0);
    expect(r).toEqual({ lo: 0, hi: 1 });
  });

  it('plotY maps the range to the plot height, top = high, clamped', () => {
    const log: PlotRange = { lo: -6, hi: 0 };
    expect(plotY(1, log, 30, true, 1e-6)).toBeCloseTo(0, 12);
    expect(plotY(1e-6, log, 30, true, 1e-6)).toBeCloseTo(30, 12);
    expect(plotY(0, log, 30, true, 1e-6)).toBeCloseTo(30, 12); // below the floor
    expect(plotY(1e-3, log, 30, true, 1e-6)).toBeCloseTo(15, 12);
    const lin: PlotRange = { lo: 0, hi: 10 };
    expect(plotY(5, lin, 30, false, 0)).toBeCloseTo(15, 12);
    expect(plotY(20, lin, 30, false, 0)).toBe(0);
  });
});
