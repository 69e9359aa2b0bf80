/**
 * The two-bone closed form (law of cosines), after R. Juckett, "Analytic Two-Bone IK in 2D":
 * the solver 'twoBone' poses arms and legs with it, and Bézier IK closes a chain's last two
 * bones on their target with it.
 * - `twoBoneAngles2D`: the 2D closed form. Bend direction chosen by a flag; returns whether an
 *   exact solution exists; otherwise the closest reach (the cosine is clamped: straight toward
 *   the target when too far, folded when too close). A zero-length bone makes the solvable set
 *   a circle of radius l1 + l2: angle 2 is then 0 and angle 1 points at the target.
 * - `twoBonePositions3D`: the same in the plane through S and the target with a given bend
 *   normal N (the elbow goes to the side ŵ × N, so the bend from bone 1 to bone 2 is a
 *   positive rotation about N).
 */

const EPS = 1e-12;

/**
 * Analytic two-bone IK in 2D. Bone 1 from the origin, bone 2 from its tail; out[o] = angle 1
 * (from +x), out[o+1] = angle 2 (relative to bone 1), radians. `positive` selects the solution
 * with angle 2 ≥ 0. Returns true when the end reaches (x, y) exactly; otherwise the angles give
 * the closest reach (straight toward the target when too far, folded when too close).
 * Lengths must be ≥ 0; with a zero-length bone angle 2 is 0 and bone 1 points at the target.
 */
export function twoBoneAngles2D(out: Float64Array, o: number, l1: number, l2: number, x: number, y: number, positive: boolean): boolean {
  in2[0] = l1; in2[1] = l2; in2[2] = x; in2[3] = y; in2[4] = positive ? 1 : 0;
  return angles2D(out, o, in2);
}

const in2 = new Float64Array(5);

/** twoBoneAngles2D with its inputs in inp = [l1, l2, x, y, positive (1/0)]. */
function angles2D(out: Float64Array, o: number, inp: Float64Array): boolean {
  const l1 = inp[0]!, l2 = inp[1]!, x = inp[2]!, y = inp[3]!, positive = inp[4] === 1;
  const d2 = x * x + y * y;
  const sum = l1 + l2;
  let valid = true;
  let c2: number, s2: number;
  const denom = 2 * l1 * l2;
  if (denom > 1e-12 * sum * sum) {
    c2 = (d2 - l1 * l1 - l2 * l2) / denom;
    const slack = 1e-12 * (1 + sum * sum / denom);
    if (c2 < -1 - slack || c2 > 1 + slack) valid = false;
    if (c2 < -1) c2 = -1; else if (c2 > 1) c2 = 1;
    const a2 = positive ? Math.acos(c2) : -Math.acos(c2);
    out[o + 1] = a2;
    s2 = Math.sin(a2);
  } else {
    // a zero-length bone: the reachable set is the circle of radius l1 + l2
    const d = Math.sqrt(d2);
    if (Math.abs(d - sum) > 1e-12 * Math.max(1, sum)) valid = false;
    c2 = 1; s2 = 0;
    out[o + 1] = 0;
  }
  const adj = l1 + l2 * c2, opp = l2 * s2;
  out[o] = Math.atan2(y * adj - x * opp, x * adj + y * opp); // atan2(0, 0) = 0: any angle will do
  return valid;
}

const p2 = new Float64Array(2);

/**
 * The two-bone solve in 3D. Inputs in inp[io..io+13]: S (3), target W (3), bend normal N (3;
 * need not be unit or perpendicular, only its part perpendicular to S→W counts and it must not
 * vanish), F (3, a unit direction used when W = S), l1, l2. Writes the elbow to out[o..o+2]
 * and the reached end to out[o+3..o+5]; returns the validity flag of the 2D solve. The bend
 * from bone 1 to bone 2 is a positive rotation about N.
 */
export function twoBonePositions3D(out: Float64Array, o: number, inp: Float64Array, io: number): boolean {
  const sx = inp[io]!, sy = inp[io + 1]!, sz = inp[io + 2]!;
  const nx = inp[io + 6]!, ny = inp[io + 7]!, nz = inp[io + 8]!;
  const l1 = inp[io + 12]!, l2 = inp[io + 13]!;
  let ux = inp[io + 3]! - sx, uy = inp[io + 4]! - sy, uz = inp[io + 5]! - sz;
  let D = Math.sqrt(ux * ux + uy * uy + uz * uz);
  if (D > EPS) { ux /= D; uy /= D; uz /= D; } else { ux = inp[io + 9]!; uy = inp[io + 10]!; uz = inp[io + 11]!; D = 0; }
  // N ⟂ û, then m̂ = û × N̂ is the elbow's side
  const dn = nx * ux + ny * uy + nz * uz;
  let px = nx - dn * ux, py = ny - dn * uy, pz = nz - dn * uz;
  const pl = Math.sqrt(px * px + py * py + pz * pz);
  px /= pl; py /= pl; pz /= pl;
  const mx = uy * pz - uz * py, my = uz * px - ux * pz, mz = ux * py - uy * px;
  in2[0] = l1; in2[1] = l2; in2[2] = D; in2[3] = 0; in2[4] = 0; // angle 2 < 0: elbow at +m̂
  const valid = angles2D(p2, 0, in2);
  const a1 = p2[0]!, a12 = p2[0]! + p2[1]!;
  const c1 = Math.cos(a1), s1 = Math.sin(a1), c12 = Math.cos(a12), s12 = Math.sin(a12);
  const ex = sx + l1 * (c1 * ux + s1 * mx), ey = sy + l1 * (c1 * uy + s1 * my), ez = sz + l1 * (c1 * uz + s1 * mz);
  out[o] = ex; out[o + 1] = ey; out[o + 2] = ez;
  out[o + 3] = ex + l2 * (c12 * ux + s12 * mx);
  out[o + 4] = ey + l2 * (c12 * uy + s12 * my);
  out[o + 5] = ez + l2 * (c12 * uz + s12 * mz);
  return valid;
}
