/**
 * The force-acceleration matrix (PhysIK eqs. 3-5): M(r, s) = m⁻¹ I₃ + [r]ₓᵀ I⁻¹ [s]ₓ gives the
 * change in acceleration of the point r of a rigid body when a force F acts at the point s
 * (both relative to the centre of mass). Checked against Newton-Euler directly:
 *   a_cm = F / m,  α = I⁻¹ (s × F),  a(r) = a_cm + α × r.
 * `pointCompliance` is the r = s case, stored as a symmetric 3×3.
 */
import { describe, expect, it } from 'vitest';
import { pointCompliance } from '../../../systems/interJointSolve';
import {
  add, cross, dot, matMul, matVec, norm, randVec, rng, scale, skew, sub, symFull, transpose, type M3, type V3,
} from '../../support/helpers';

interface Body {
  m: number;
  /** Inverse inertia in world frame, symmetric: xx, xy, xz, yy, yz, zz. */
  J: Float64Array;
}

/** A random rigid body: mass in [0.1, 10], J = A Aᵀ + δ I (symmetric positive definite). */
function randomBody(r: () => number): Body {
  const m = 0.1 + 9.9 * r();
  const A: M3 = Array.from({ length: 9 }, () => 2 * r() - 1);
  const S = matMul(A, transpose(A));
  const d = 0.05 + r();
  const J = new Float64Array([S[0]! + d, S[1]!, S[2]!, S[4]! + d, S[5]!, S[8]! + d]);
  return { m, J };
}

/** Newton-Euler: acceleration of point r when force F acts at point s. */
function newtonEuler(body: Body, r: V3, s: V3, F: V3): V3 {
  const aCm = scale(F, 1 / body.m);
  const alpha = matVec(symFull(body.J), cross(s, F));
  return add(aCm, cross(alpha, r));
}

/** The paper's M(r, s) as a full matrix. */
function paperM(body: Body, r: V3, s: V3): M3 {
  const K = matMul(matMul(transpose(skew(r)), symFull(body.J)), skew(s));
  return K.map((v, i) => v + (i % 4 === 0 ? 1 / body.m : 0));
}

function compliance(body: Body, r: V3): M3 {
  const out = new Float64Array(6);
  pointCompliance(out, 0, 1 / body.m, body.J, 0, r[0], r[1], r[2]);
  return symFull(out);
}

/** |x - y| <= tol × scale, where scale is the size of the terms that make up y. */
function expectVecClose(x: V3, y: V3, scaleOfTerms: number, tol = 1e-12): void {
  expect(norm(sub(x, y))).toBeLessThanOrEqual(tol * scaleOfTerms);
}

/** Size of the terms of Newton-Euler (to make the tolerance relative without cancellation trouble). */
function termScale(body: Body, r: V3, s: V3, F: V3): number {
  const alpha = matVec(symFull(body.J), cross(s, F));
  return norm(F) / body.m + norm(alpha) * norm(r);
}

describe('force-acceleration matrix (pointCompliance, paper eqs. 3-5)', () => {
  it('M(r, r)·F equals the Newton-Euler acceleration of the point r for random bodies, levers and forces', () => {
    const r = rng(1);
    for (let trial = 0; trial < 200; trial++) {
      const body = randomBody(r);
      const lever = randVec(r, 2);
      const F = randVec(r, 10);
      const M = compliance(body, lever);
      const expected = newtonEuler(body, lever, lever, F);
      expectVecClose(matVec(M, F), expected, termScale(body, lever, lever, F));
    }
  });

  it('every one of the nine entries of M(r, r) matches Newton-Euler (columns are unit forces)', () => {
    const r = rng(2);
    for (let trial = 0; trial < 50; trial++) {
      const body = randomBody(r);
      const lever = randVec(r, 1.5);
      const M = compliance(body, lever);
      for (let c = 0; c < 3; c++) {
        const e: V3 = [0, 0, 0];
        e[c] = 1;
        const col = newtonEuler(body, lever, lever, e);
        const ts = termScale(body, lever, lever, e);
        for (let row = 0; row < 3; row++) expect(Math.abs(M[row * 3 + c]! - col[row]!)).toBeLessThanOrEqual(1e-12 * ts);
      }
    }
  });

  it('the Newton-Euler point compliance is symmetric, and M(r, r) is positive definite with M ⪰ m⁻¹ I', () => {
    const r = rng(3);
    for (let trial = 0; trial < 100; trial++) {
      const body = randomBody(r);
      const lever = randVec(r, 2);
      // symmetry is a property of the physics (reciprocity), so check it on Newton-Euler
      const NE: M3 = new Array(9).fill(0);
      for (let c = 0; c < 3; c++) {
        const e: V3 = [0, 0, 0];
        e[c] = 1;
        const col = newtonEuler(body, lever, lever, e);
        for (let row = 0; row < 3; row++) NE[row * 3 + c] = col[row]!;
      }
      const big = Math.max(...NE.map(Math.abs));
      for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) expect(Math.abs(NE[i * 3 + j]! - NE[j * 3 + i]!)).toBeLessThanOrEqual(1e-13 * big);

      const M = compliance(body, lever);
      // Sylvester: leading principal minors positive
      const m1 = M[0]!;
      const m2 = M[0]! * M[4]! - M[1]! * M[3]!;
      const m3 =
        M[0]! * (M[4]! * M[8]! - M[5]! * M[7]!) - M[1]! * (M[3]! * M[8]! - M[5]! * M[6]!) + M[2]! * (M[3]! * M[7]! - M[4]! * M[6]!);
      expect(m1).toBeGreaterThan(0);
      expect(m2).toBeGreaterThan(0);
      expect(m3).toBeGreaterThan(0);
      // xᵀ M x >= |x|² / m for any x (the rotational part is positive semi-definite)
      for (let k = 0; k < 10; k++) {
        const x = randVec(r);
        expect(dot(x, matVec(M, x))).toBeGreaterThanOrEqual((dot(x, x) / body.m) * (1 - 1e-12));
      }
    }
  });

  it('a force along the lever causes no rotation: M(r, r)·r = r / m', () => {
    const r = rng(4);
    for (let trial = 0; trial < 50; trial++) {
      const body = randomBody(r);
      const lever = randVec(r, 2);
      const M = compliance(body, lever);
      expectVecClose(matVec(M, lever), scale(lever, 1 / body.m), norm(lever) / body.m + norm(lever) * Math.max(...body.J) * dot(lever, lever));
    }
  });

  it('the general M(r, s) of eq. 3 (force at s, point r) matches Newton-Euler, and M(r, s) = M(s, r)ᵀ', () => {
    const r = rng(5);
    for (let trial = 0; trial < 200; trial++) {
      const body = randomBody(r);
      const pr = randVec(r, 2);
      const ps = randVec(r, 2);
      const F = randVec(r, 10);
      const M = paperM(body, pr, ps);
      expectVecClose(matVec(M, F), newtonEuler(body, pr, ps, F), termScale(body, pr, ps, F));
      const Mt = transpose(paperM(body, ps, pr));
      const big = Math.max(...M.map(Math.abs));
      for (let i = 0; i < 9; i++) expect(Math.abs(M[i]! - Mt[i]!)).toBeLessThanOrEqual(1e-13 * big);
    }
  });

  it('pointCompliance is the r = s case of the paper formula', () => {
    const r = rng(6);
    for (let trial = 0; trial < 100; trial++) {
      const body = randomBody(r);
      const lever = randVec(r, 2);
      const M = compliance(body, lever);
      const P = paperM(body, lever, lever);
      const big = Math.max(...P.map(Math.abs));
      for (let i = 0; i < 9; i++) expect(Math.abs(M[i]! - P[i]!)).toBeLessThanOrEqual(1e-13 * big);
    }
  });

  it('writes at the given offsets and reads J at its offset (no stray reads or writes)', () => {
    const body = randomBody(rng(7));
    const lever: V3 = [0.3, -0.7, 1.1];
    const J = new Float64Array(6 * 3).fill(NaN);
    J.set(body.J, 6);
    const out = new Float64Array(6 * 3).fill(-7);
    pointCompliance(out, 6, 1 / body.m, J, 6, lever[0], lever[1], lever[2]);
    expect([...out.subarray(0, 6)]).toEqual(new Array(6).fill(-7));
    expect([...out.subarray(12)]).toEqual(new Array(6).fill(-7));
    const ref = compliance(body, lever);
    expect(symFull(out, 6)).toEqual(ref);
  });

  it('at the centre of mass (r = 0) a force only translates: M = m⁻¹ I', () => {
    const body = randomBody(rng(8));
    const M0 = compliance(body, [0, 0, 0]);
    for (let i = 0; i < 9; i++) expect(M0[i]).toBeCloseTo(i % 4 === 0 ? 1 / body.m : 0, 15);
    // and pushing the end of a rod sideways accelerates the end more than the centre
    const F: V3 = [1, 0, 0];
    const end = matVec(compliance(body, [0, 1, 0]), F);
    expect(dot(end, F)).toBeGreaterThan(1 / body.m);
    expect(norm(sub(end, newtonEuler(body, [0, 1, 0], [0, 1, 0], F)))).toBeLessThan(1e-12 * (1 + norm(end)));
  });
});
