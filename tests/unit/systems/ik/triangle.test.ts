/**
 * Triangle-theorem IK (systems/ik/triangle.ts): the theorem's joint against the law of
 * cosines (and the misprinted equation 17), the virtual-link chain (reach, link lengths,
 * closest reach), the spiral (δ) and the spring (turn), and the solver on rigs.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { build, chainBones, dist, norm, rng, type V3, v3 } from '../../../support/helpers';
import { setTarget, step, readMetrics } from '../../../../src/core';
import { loadSceneFile } from '../../../../src/scene/loadFile';
import { runScene } from '../../../../src/scene/run';
import { setTriangleShape, triangleChain, triangleJoint } from '../../../../systems/ik/triangle';

const scenes = join(__dirname, '../../../../scenes');

describe('triangleJoint (the theorem)', () => {
  const J = new Float64Array(3);

  it('equals the law-of-cosines circle intersection for random triangles', () => {
    const r = rng(7);
    for (let k = 0; k < 200; k++) {
      const l1 = 0.1 + 2 * r(), l2 = 0.1 + 2 * r();
      const A = Math.abs(l1 - l2) + (l1 + l2 - Math.abs(l1 - l2)) * (0.01 + 0.98 * r());
      // O at a random point, P at distance A in a random direction, plane vector random
      const O: V3 = [r() * 4 - 2, r() * 4 - 2, r() * 4 - 2];
      const d: V3 = [r() - 0.5, r() - 0.5, r() - 0.5];
      const dn = norm(d);
      const u: V3 = [d[0] / dn, d[1] / dn, d[2] / dn];
      const P: V3 = [O[0] + A * u[0], O[1] + A * u[1], O[2] + A * u[2]];
      const v: V3 = [r() - 0.5, r() - 0.5, r() - 0.5];
      expect(triangleJoint(J, 0, ...O, ...P, l1, l2, ...v)).toBe(true);
      // law of cosines: cos θ = (l1² + A² − l2²) / (2 A l1); J = O + l1 cos θ û + l1 sin θ n̂
      const c = (l1 * l1 + A * A - l2 * l2) / (2 * A * l1), s = Math.sqrt(1 - c * c);
      const vd = v[0] * u[0] + v[1] * u[1] + v[2] * u[2];
      const n: V3 = [v[0] - vd * u[0], v[1] - vd * u[1], v[2] - vd * u[2]];
      const nn = norm(n);
      const expected: V3 = [0, 1, 2].map((i) => O[i]! + l1 * c * u[i]! + (l1 * s * n[i]!) / nn) as V3;
      expect(dist([J[0]!, J[1]!, J[2]!], expected)).toBeLessThan(1e-9);
      expect(dist([J[0]!, J[1]!, J[2]!], O)).toBeCloseTo(l1, 9);
      expect(dist([J[0]!, J[1]!, J[2]!], P)).toBeCloseTo(l2, 9);
    }
  });

  it('uses √(l1² − |Oj|²) for the perpendicular leg: the printed equation 17 (l2) misses when l1 ≠ l2', () => {
    const l1 = 1, l2 = 0.6, A = 1.2;
    triangleJoint(J, 0, 0, 0, 0, A, 0, 0, l1, l2, 0, 1, 0);
    const oj = J[0]!; // the foot of the perpendicular, along OP = +x
    expect(J[1]).toBeCloseTo(Math.sqrt(l1 * l1 - oj * oj), 12);
    const printed = Math.sqrt(Math.max(0, l2 * l2 - oj * oj));
    expect(Math.hypot(oj, printed)).not.toBeCloseTo(l1, 2); // the printed form breaks |OJ| = l1
  });

  it('gives the closest reach when the circles do not meet (too far: straight; too close: folded)', () => {
    expect(triangleJoint(J, 0, 0, 0, 0, 5, 0, 0, 2, 1, 0, 1, 0)).toBe(false);
    expect([J[0], J[1], J[2]]).toEqual([2, 0, 0]);
    expect(triangleJoint(J, 0, 0, 0, 0, 0.5, 0, 0, 2, 1, 0, 1, 0)).toBe(false);
    expect(J[0]).toBeCloseTo(2, 12); // the end at 2 − 1 = 1 along OP, as close to 0.5 as it gets
    expect(triangleJoint(J, 0, 0, 0, 0, 0.5, 0, 0, 1, 2, 0, 1, 0)).toBe(false);
    expect(J[0]).toBeCloseTo(-1, 12); // folded the other way: the end at −1 + 2 = 1
  });
});

describe('triangleChain (virtual links)', () => {
  const n = 50, L = new Float64Array(n).fill(0.1), pts = new Float64Array(3 * (n + 1)), work = new Float64Array(2 * n);
  const O = new Float64Array([0, 0, 0]), N = new Float64Array([0, 0, 1]);
  const linkErr = () => {
    let e = 0;
    for (let i = 0; i < n; i++) e = Math.max(e, Math.abs(Math.hypot(pts[3 * i + 3]! - pts[3 * i]!, pts[3 * i + 4]! - pts[3 * i + 1]!, pts[3 * i + 5]! - pts[3 * i + 2]!) - 0.1));
    return e;
  };
  const radius = (i: number) => Math.hypot(pts[3 * i]!, pts[3 * i + 1]!, pts[3 * i + 2]!);

  it('reaches a reachable target with every link at its length (the paper\'s 50 links)', () => {
    for (const t of [[1, 0.6, 0], [3, -2, 1], [0.05, 0.02, 0], [4.99, 0, 0]]) {
      expect(triangleChain(pts, L, n, O, 0, new Float64Array(t), 0, N, 0, 0, 0, work)).toBe(true);
      expect(linkErr()).toBeLessThan(1e-9);
      expect(dist([pts[3 * n]!, pts[3 * n + 1]!, pts[3 * n + 2]!], t)).toBeLessThan(1e-9);
    }
  });

  it('keeps the joints at the fraction |OP| / length of their chain length from O (eq. 22)', () => {
    triangleChain(pts, L, n, O, 0, new Float64Array([1, 0.6, 0]), 0, N, 0, 0, 0, work);
    const t = Math.hypot(1, 0.6) / 5;
    for (let i = 2; i < n; i++) expect(radius(i)).toBeCloseTo(t * 0.1 * i, 9);
  });

  it('points straight at an unreachable target', () => {
    expect(triangleChain(pts, L, n, O, 0, new Float64Array([0, 8, 0]), 0, N, 0, 0, 0, work)).toBe(false);
    for (let i = 0; i <= n; i++) { expect(pts[3 * i + 1]).toBeCloseTo(0.1 * i, 9); expect(Math.abs(pts[3 * i]!)).toBeLessThan(1e-9); }
  });

  it('coils tighter with δ (spiral) and leaves the plane with a turn (spring), still on target', () => {
    const t = new Float64Array([1, 0.6, 0]);
    triangleChain(pts, L, n, O, 0, t, 0, N, 0, 0, 0, work);
    const plain = Array.from({ length: n + 1 }, (_, i) => radius(i));
    triangleChain(pts, L, n, O, 0, t, 0, N, 0, 0.05, 0, work);
    expect(linkErr()).toBeLessThan(1e-9);
    expect(dist([pts[3 * n]!, pts[3 * n + 1]!, pts[3 * n + 2]!], t)).toBeLessThan(1e-9);
    let smaller = 0;
    for (let i = 3; i < n; i++) if (radius(i) < plain[i]! - 1e-6) smaller++;
    expect(smaller).toBeGreaterThan(n - 10); // the virtual links (the joints' distances from O) shrink
    let maxZ = 0;
    for (let i = 0; i <= n; i++) maxZ = Math.max(maxZ, Math.abs(pts[3 * i + 2]!));
    expect(maxZ).toBeLessThan(1e-12); // the spiral stays in its plane
    triangleChain(pts, L, n, O, 0, t, 0, N, 0, 0, 0.3, work);
    expect(linkErr()).toBeLessThan(1e-9);
    expect(dist([pts[3 * n]!, pts[3 * n + 1]!, pts[3 * n + 2]!], t)).toBeLessThan(1e-9);
    maxZ = 0;
    for (let i = 0; i <= n; i++) maxZ = Math.max(maxZ, Math.abs(pts[3 * i + 2]!));
    expect(maxZ).toBeGreaterThan(0.1); // the spring leaves the plane
  });
});

describe('triangle solver', () => {
  it('poses a 12-bone chain onto reachable targets in one step (no limits)', () => {
    const { world, handle, rig } = build({
      rig: { name: 'tail', root: 'pinned', bones: chainBones(12, { length: 0.2 }) },
      controlPoints: [{ name: 'tip', bone: 'b11' }],
      settings: { solver: 'triangle', interpolation: 'none' },
    });
    for (const t of [[0.8, 1.2, 0.3], [-1, 0.5, -0.5], [0.2, 0.1, 0.1]] as V3[]) {
      setTarget(world, handle.controlPoints['tip']!, t);
      step(world, 1);
      expect(dist(v3(world.physik.Bone.tail, handle.bones['b11']!), t)).toBeLessThan(1e-9);
      const m = readMetrics(world, rig);
      expect(m.solveStatus).toBe('converged');
      expect(m.maxJointGap).toBeLessThan(1e-12);
    }
  });

  it('holds limits (clamped after) and stays finite', () => {
    const { world, handle, rig } = build({
      rig: { name: 'tail', root: 'pinned', bones: chainBones(12, { length: 0.2, limits: { x: [-20, 20], y: [0, 0], z: [-20, 20] } }) },
      controlPoints: [{ name: 'tip', bone: 'b11' }],
      settings: { solver: 'triangle', interpolation: 'none' },
    });
    setTarget(world, handle.controlPoints['tip']!, [0.5, 0.5, 0.2]);
    step(world, 3);
    const m = readMetrics(world, rig);
    expect(m.maxLimitViolationDeg).toBeLessThan(1e-6);
    expect(m.solveStatus).toBe('stalled'); // the limits keep it from the target
  });

  it('coils with a per-rig δ and still reaches', () => {
    const { world, handle } = build({
      rig: { name: 'spiral', root: 'pinned', bones: chainBones(30, { length: 0.1 }) },
      controlPoints: [{ name: 'tip', bone: 'b29' }],
      settings: { solver: 'triangle', interpolation: 'none' },
    });
    setTriangleShape(world.physik.rigs[0]!, { delta: 0.3, turnDeg: 0 });
    setTarget(world, handle.controlPoints['tip']!, [0.6, 0.4, 0]);
    step(world, 1);
    expect(dist(v3(world.physik.Bone.tail, handle.bones['b29']!), [0.6, 0.4, 0])).toBeLessThan(1e-9);
    expect(() => setTriangleShape(world.physik.rigs[0]!, { delta: -1 })).toThrow(/delta/);
  });

  it('runs the humanoid scene finite (chains from the root; locked collarbones and hips folded)', () => {
    const summary = runScene(loadSceneFile(join(scenes, 'humanoid.json')), { settings: { solver: 'triangle' } });
    expect(summary.finite).toBe(true);
    expect(summary.divergedSteps).toBe(0);
    expect(summary.maxLimitViolationDeg).toBeLessThan(1e-6);
    expect(summary.targetErrors['footL']).toBeLessThan(1e-9);
  });

  it('reaches the spiral and neck scene targets when their limits are lifted', () => {
    for (const name of ['spiral', 'neck']) {
      const scene = loadSceneFile(join(scenes, `${name}.json`));
      for (const b of scene.rig.bones) delete b.limits;
      const summary = runScene(scene, { settings: { solver: 'triangle' } });
      expect(summary.finite).toBe(true);
      expect(summary.maxTargetError).toBeLessThan(1e-9);
    }
  });
});
