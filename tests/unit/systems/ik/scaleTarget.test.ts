/**
 * Scale targets (systems/ik/scaleTarget.ts): a scale goal spread along a chain so the product
 * of the local scales meets it, within per-bone limits, as evenly as the limits allow; the
 * guide's two failure cases; out-of-range goals; bad limits; the 3-vector form.
 */
import { describe, expect, it } from 'vitest';
import { distributeScale, distributeScale3 } from '../../../../systems/ik/scaleTarget';

const product = (a: ArrayLike<number>, n = a.length, stride = 1, offset = 0) => {
  let p = 1;
  for (let k = 0; k < n; k++) p *= a[offset + k * stride]!;
  return p;
};

describe('distributeScale', () => {
  it('spreads an unconstrained goal evenly (goal^(1/n))', () => {
    const out = new Float64Array(4);
    expect(distributeScale(16, out, 4)).toBe(true);
    for (const s of out) expect(s).toBeCloseTo(2, 12);
    expect(distributeScale(-8, out, 3)).toBe(true); // a mirror: the sign on the effector's bone
    expect(Array.from(out.subarray(0, 3)).map((x) => +x.toFixed(12))).toEqual([2, 2, -2]);
    expect(product(out, 3)).toBeCloseTo(-8, 12);
  });

  it('meets the goal within limits, the free bones sharing it equally', () => {
    const out = new Float64Array(4);
    const min = [0.5, 0.5, 0.5, 0.5], max = [1.2, 10, 10, 10];
    expect(distributeScale(8, out, 4, min, max)).toBe(true);
    expect(product(out)).toBeCloseTo(8, 12);
    expect(out[0]).toBeCloseTo(1.2, 12); // clamped at its max
    expect(out[1]).toBeCloseTo(out[2]!, 12);
    expect(out[2]).toBeCloseTo(out[3]!, 12);
    for (let k = 0; k < 4; k++) { expect(out[k]).toBeGreaterThanOrEqual(min[k]!); expect(out[k]).toBeLessThanOrEqual(max[k]!); }
  });

  it('meets the goal where the guide\'s loop misses (its off-by-one, and a limit late in the chain)', () => {
    const out = new Float64Array(3);
    // guide: 1.5 × (4 / 1.5)^(1/2) = 2.45
    expect(distributeScale(4, out, 2, [0.1, 0.1], [1.5, 10])).toBe(true);
    expect(product(out, 2)).toBeCloseTo(4, 12);
    expect(out[0]).toBeCloseTo(1.5, 12);
    // guide: 1.587 × 1.587 × 1.1 = 2.77
    expect(distributeScale(4, out, 3, [1, 1, 1], [4, 4, 1.1])).toBe(true);
    expect(product(out)).toBeCloseTo(4, 12);
    expect(out[2]).toBeCloseTo(1.1, 12);
    expect(out[0]).toBeCloseTo(Math.sqrt(4 / 1.1), 12);
  });

  it('shrinks as well as grows, and keeps every bone within its limits', () => {
    const out = new Float64Array(5);
    const min = [0.9, 0.2, 0.5, 0.95, 0.1], max = [1, 1, 1, 1, 1];
    expect(distributeScale(0.05, out, 5, min, max)).toBe(true);
    expect(product(out)).toBeCloseTo(0.05, 12);
    for (let k = 0; k < 5; k++) { expect(out[k]).toBeGreaterThanOrEqual(min[k]! - 1e-15); expect(out[k]).toBeLessThanOrEqual(max[k]! + 1e-15); }
  });

  it('reports a goal out of the limits\' range and leaves the closest product', () => {
    const out = new Float64Array(3);
    expect(distributeScale(100, out, 3, [1, 1, 1], [2, 3, 4])).toBe(false);
    expect(Array.from(out)).toEqual([2, 3, 4]);
    expect(distributeScale(0.01, out, 3, [0.5, 0.5, 0.8], [2, 3, 4])).toBe(false);
    expect(Array.from(out)).toEqual([0.5, 0.5, 0.8]);
    expect(distributeScale(0, out, 3)).toBe(false);
    expect(Array.from(out)).toEqual([1, 1, 1]);
    expect(distributeScale(-2, out, 3, [0.5, 0.5, 0.5], [2, 2, 2])).toBe(false); // constrained scales are positive
  });

  it('throws on bad limits', () => {
    const out = new Float64Array(2);
    expect(() => distributeScale(2, out, 2, [0, 1], [2, 2])).toThrow(/min must be > 0/);
    expect(() => distributeScale(2, out, 2, [1, 3], [2, 2])).toThrow(/0 < min ≤ max/);
    expect(() => distributeScale(2, out, 2, [1, NaN], [2, 2])).toThrow(/bone 1/);
  });

  it('works per component on 3-vectors (x, y, z per bone)', () => {
    const n = 3, out = new Float64Array(3 * n);
    const min = new Float64Array(3 * n).fill(0.5), max = new Float64Array(3 * n).fill(2);
    max[0] = 1; // bone 0, x
    expect(distributeScale3([2, 0.5, 1], out, n, min, max)).toBe(true);
    expect(product(out, n, 3, 0)).toBeCloseTo(2, 12);
    expect(product(out, n, 3, 1)).toBeCloseTo(0.5, 12);
    expect(product(out, n, 3, 2)).toBeCloseTo(1, 12);
    expect(out[0]).toBeCloseTo(1, 12);
  });
});
