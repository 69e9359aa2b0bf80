/** Small statistics shared by the benchmarks: quantiles and the spread of repeated timings. */

export interface Spread { median: number; min: number; max: number; q1: number; q3: number }

export function quantile(sorted: number[], q: number): number {
  const pos = (sorted.length - 1) * q, lo = Math.floor(pos), hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

export function spread(values: number[]): Spread {
  const s = [...values].sort((a, b) => a - b);
  return { median: quantile(s, 0.5), min: s[0]!, max: s[s.length - 1]!, q1: quantile(s, 0.25), q3: quantile(s, 0.75) };
}
