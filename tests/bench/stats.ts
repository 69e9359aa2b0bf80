/** Small statistics shared by the benchmarks: quantiles, the spread of repeated timings, log-log fits. */

export interface Spread { median: number; min: number; max: number; q1: number; q3: number }

export function quantile(sorted: number[], q: number): number {
  const pos = (sorted.length - 1) * q, lo = Math.floor(pos), hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

export function spread(values: number[]): Spread {
  const s = [...values].sort((a, b) => a - b);
  return { median: quantile(s, 0.5), min: s[0]!, max: s[s.length - 1]!, q1: quantile(s, 0.25), q3: quantile(s, 0.75) };
}

/** Least-squares slope of log y against log x (the exponent a of y ~ x^a); NaN with fewer than two points. */
export function logLogSlope(xs: number[], ys: number[]): number {
  if (xs.length < 2) return NaN;
  const lx = xs.map(Math.log), ly = ys.map(Math.log);
  const mx = lx.reduce((a, b) => a + b, 0) / lx.length, my = ly.reduce((a, b) => a + b, 0) / ly.length;
  let num = 0, den = 0;
  for (let i = 0; i < lx.length; i++) { num += (lx[i]! - mx) * (ly[i]! - my); den += (lx[i]! - mx) ** 2; }
  return num / den;
}

/** A left-aligned first column, the rest right-aligned (first `left` columns left-aligned). */
export function table(rows: string[][], left = 1): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => r.map((cell, i) => (i < left ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ').trimEnd()).join('\n');
}

/** A number with d decimals, or its string form when not finite. */
export const fixed = (x: number, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : String(x));
