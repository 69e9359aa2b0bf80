/**
 * scaleTarget: distribute a scale goal along a chain within per-bone limits, after the scale
 * target section of the IK guide (SpehleonLP, "Inverse Kinematics Guide").
 * Not a pose solver (not registered): the guide advises solving scale targets first, then
 * posing. Plain functions on numbers and typed arrays; no allocation.
 *
 * The chain's scales multiply: the effector's scale relative to the chain's base is the
 * product of the n local scales, so the goal is met when Π s_i = goal.
 * - Without limits every bone gets goal^(1/n) (the guide's unconstrained case). A negative
 *   goal (a mirror) gives |goal|^(1/n) everywhere and the sign on the last bone (the
 *   effector's); a zero goal cannot be distributed (false, all 1).
 * - With limits [min_i, max_i] (0 < min_i ≤ max_i, ∞ allowed) the goal is spread as evenly as
 *   the limits allow: in log space every free bone gets the same share c and the others sit at
 *   the limit they hit, with Σ clamp(c, ln min_i, ln max_i) = ln goal ("water filling", found by
 *   bisection on c, then solved exactly on the free set). When the goal is outside
 *   [Π min_i, Π max_i] every bone sits at its nearer limit (the closest product) and the
 *   function returns false.
 * The guide's constrained loop walks root to leaf, clamps, and re-spreads the remainder as
 * remaining^(1/(N − i)) where N − i − 1 bones are left: an off-by-one that misses the goal
 * (e.g. goal 4 over two bones with max 1.5 on the first gives 1.5 × 1.63 = 2.45), and a greedy
 * walk never revisits earlier bones when a later bone's limit binds (goal 4 over [1..4],
 * [1..4], [1..1.1] gives 1.587 × 1.587 × 1.1 = 2.77 where 1.907 × 1.907 × 1.1 = 4 was
 * possible); both cases are in the tests.
 */

/**
 * Fill out[offset + k·stride] (k < n) with scales whose product is `goal`, each within
 * [min[...], max[...]] at the same index when limits are given. Returns true when the product
 * equals the goal; false when it cannot (goal out of the limits' range, zero, or not finite),
 * leaving the closest product. Throws on bad limits (min ≤ 0, min > max, NaN).
 */
export function distributeScale(
  goal: number, out: Float64Array, n: number,
  min: ArrayLike<number> | null = null, max: ArrayLike<number> | null = null,
  stride = 1, offset = 0,
): boolean {
  if (n <= 0) return goal === 1;
  if (!Number.isFinite(goal) || goal === 0) {
    for (let k = 0; k < n; k++) out[offset + k * stride] = 1;
    return false;
  }
  if (!min && !max) {
    const s = Math.pow(Math.abs(goal), 1 / n);
    for (let k = 0; k < n; k++) out[offset + k * stride] = s;
    if (goal < 0) out[offset + (n - 1) * stride] = -s;
    return true;
  }
  // limits in log space
  let sumLo = 0, sumHi = 0;
  for (let k = 0; k < n; k++) {
    const i = offset + k * stride;
    const lo = min ? min[i]! : 0, hi = max ? max[i]! : Infinity;
    if (!(lo >= 0) || !(hi >= lo) || Number.isNaN(hi)) throw new Error(`distributeScale: bone ${k}: limits must satisfy 0 < min ≤ max, got [${lo}, ${hi}]`);
    if (min && !(lo > 0)) throw new Error(`distributeScale: bone ${k}: min must be > 0 (scales of a constrained chain are positive), got ${lo}`);
    sumLo += lo > 0 ? Math.log(lo) : -Infinity;
    sumHi += Math.log(hi);
  }
  if (goal < 0) {
    // a constrained chain has positive scales only
    for (let k = 0; k < n; k++) {
      const i = offset + k * stride;
      out[i] = clampScale(1, min ? min[i]! : 0, max ? max[i]! : Infinity);
    }
    return false;
  }
  const g = Math.log(goal);
  if (g <= sumLo || g >= sumHi) {
    const atLow = g <= sumLo;
    for (let k = 0; k < n; k++) {
      const i = offset + k * stride;
      out[i] = atLow ? (min ? min[i]! : 0) : max ? max[i]! : Infinity;
    }
    return g === sumLo || g === sumHi;
  }
  // bracket c: φ(c) = Σ clamp(c, lo_i, hi_i) is nondecreasing, φ(−∞) = Σ lo < g < Σ hi = φ(∞)
  let cLo = g / n, cHi = g / n, step = 1;
  while (phi(cLo, n, min, max, stride, offset) > g) { cLo -= step; step *= 2; }
  step = 1;
  while (phi(cHi, n, min, max, stride, offset) < g) { cHi += step; step *= 2; }
  for (let it = 0; it < 200 && cHi - cLo > 1e-15 * (1 + Math.abs(cHi)); it++) {
    const c = 0.5 * (cLo + cHi);
    if (phi(c, n, min, max, stride, offset) < g) cLo = c; else cHi = c;
  }
  // exact share on the free set classified at the midpoint
  const c = 0.5 * (cLo + cHi);
  let fixed = 0, free = 0;
  for (let k = 0; k < n; k++) {
    const i = offset + k * stride;
    const lo = logMin(min, i), hi = logMax(max, i);
    if (c <= lo) fixed += lo; else if (c >= hi) fixed += hi; else free++;
  }
  const share = free > 0 ? (g - fixed) / free : c;
  for (let k = 0; k < n; k++) {
    const i = offset + k * stride;
    const lo = logMin(min, i), hi = logMax(max, i);
    out[i] = Math.exp(c <= lo ? lo : c >= hi ? hi : share);
  }
  return true;
}

/** distributeScale per component of a 3-vector goal: out, min, max hold x, y, z per bone (3n). */
export function distributeScale3(
  goal: ArrayLike<number>, out: Float64Array, n: number,
  min: ArrayLike<number> | null = null, max: ArrayLike<number> | null = null,
): boolean {
  let ok = true;
  for (let a = 0; a < 3; a++) if (!distributeScale(goal[a]!, out, n, min, max, 3, a)) ok = false;
  return ok;
}

function logMin(min: ArrayLike<number> | null, i: number): number {
  return min ? Math.log(min[i]!) : -Infinity;
}

function logMax(max: ArrayLike<number> | null, i: number): number {
  return max ? Math.log(max[i]!) : Infinity;
}

function phi(c: number, n: number, min: ArrayLike<number> | null, max: ArrayLike<number> | null, stride: number, offset: number): number {
  let sum = 0;
  for (let k = 0; k < n; k++) {
    const i = offset + k * stride;
    const lo = logMin(min, i), hi = logMax(max, i);
    sum += c < lo ? lo : c > hi ? hi : c;
  }
  return sum;
}

function clampScale(s: number, lo: number, hi: number): number {
  return s < lo ? lo : s > hi ? hi : s;
}
