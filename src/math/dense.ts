/** Dense linear solves for the joint solve's small systems (a joint's children together). */

/** Solve the n×n system K X = R in place (R has w columns), partial pivoting; X left in R. */
export function solveDense(K: Float64Array, R: Float64Array, n: number, w: number): void {
  for (let col = 0; col < n; col++) {
    let piv = col, best = Math.abs(K[col * n + col]!);
    for (let row = col + 1; row < n; row++) {
      const v = Math.abs(K[row * n + col]!);
      if (v > best) { best = v; piv = row; }
    }
    if (piv !== col) {
      for (let k = 0; k < n; k++) { const t = K[col * n + k]!; K[col * n + k] = K[piv * n + k]!; K[piv * n + k] = t; }
      for (let k = 0; k < w; k++) { const t = R[col * w + k]!; R[col * w + k] = R[piv * w + k]!; R[piv * w + k] = t; }
    }
    const inv = 1 / K[col * n + col]!;
    for (let row = col + 1; row < n; row++) {
      const f = K[row * n + col]! * inv;
      if (f === 0) continue;
      for (let k = col; k < n; k++) K[row * n + k] = K[row * n + k]! - f * K[col * n + k]!;
      for (let k = 0; k < w; k++) R[row * w + k] = R[row * w + k]! - f * R[col * w + k]!;
    }
  }
  for (let row = n - 1; row >= 0; row--) {
    const inv = 1 / K[row * n + row]!;
    for (let k = 0; k < w; k++) {
      let v = R[row * w + k]!;
      for (let c = row + 1; c < n; c++) v -= K[row * n + c]! * R[c * w + k]!;
      R[row * w + k] = v * inv;
    }
  }
}
