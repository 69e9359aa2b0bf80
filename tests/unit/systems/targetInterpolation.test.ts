/**
 * Target interpolation (PhysIK section 3.3): after `setTarget`, the effective target
 * (`ControlPoint.effective`, what the spring pulls toward) starts at the old target and
 * reaches the new one after `interpolationSteps` steps:
 *  - linear: a straight line at constant speed;
 *  - polar (eq. 12): an arc about a pivot (the bone's head, or the rig's centre of mass) at a
 *    constant angular rate, the distance to the pivot blended linearly;
 *  - polar falls back to linear when a point is within `interpolationEpsilon` of the pivot;
 *  - a move smaller than `interpolationThresholdDeg` about the pivot, or mode 'none', jumps.
 */
import { describe, expect, it } from 'vitest';
import { readMetrics, setSettings, setTarget, step } from '../../../src/core';
import type { InterpolationMode } from '../../../src/scene/types';
import { add, angleBetween, build, cross, DEG, dist, dot, norm, qAxisAngle, qRotate, scale, sub, v3, type V3 } from '../../support/helpers';

const N = 10;

/**
 * A pinned 2-bone chain with control points on the root's tail ('root') and on the child's
 * tail ('tip'). The root's head (the pinned point) does not move, so it is a fixed pivot
 * for polar-head interpolation of 'root'.
 */
function rig(mode: InterpolationMode, extra: object = {}) {
  const b = build({
    rig: {
      name: 'arm',
      root: 'pinned',
      bones: [
        { name: 'upper', parent: null, direction: [0, 1, 0], length: 1, head: [0.2, 0.5, -0.1] },
        { name: 'lower', parent: 'upper', direction: [1, 1, 0], length: 0.8 },
      ],
    },
    controlPoints: [
      { name: 'root', bone: 'upper' },
      { name: 'tip', bone: 'lower' },
    ],
    settings: { interpolation: mode, interpolationSteps: N, ...extra },
  });
  const { ControlPoint, Bone } = b.world.physik;
  const root = b.handle.controlPoints.root!, tip = b.handle.controlPoints.tip!;
  return {
    ...b,
    root,
    tip,
    pivot: v3(Bone.head, b.handle.bones.upper!),
    eff: (cp: number) => v3(ControlPoint.effective, cp),
    target: (cp: number) => v3(ControlPoint.target, cp),
  };
}

describe('target interpolation', () => {
  it('linear: starts at the old target, moves at constant speed along the line, ends exactly on the new one', () => {
    const r = rig('linear');
    const old = r.eff(r.tip);
    const next: V3 = [-1.3, 0.4, 0.9];
    setTarget(r.world, r.tip, next);
    expect(r.eff(r.tip)).toEqual(old);
    const path: V3[] = [old];
    for (let i = 1; i <= N; i++) {
      step(r.world);
      path.push(r.eff(r.tip));
    }
    const total = dist(old, next);
    for (let i = 1; i <= N; i++) {
      // on the line at fraction i/N
      const expected = add(old, scale(sub(next, old), i / N));
      expect(dist(path[i]!, expected)).toBeLessThan(1e-12 * total);
      // equal distances per step
      expect(dist(path[i]!, path[i - 1]!)).toBeCloseTo(total / N, 12);
    }
    expect(path[N - 1]).not.toEqual(next);
    expect(path[N]).toEqual(next);
    step(r.world, 3);
    expect(r.eff(r.tip)).toEqual(next);
  });

  it('polar-head about a fixed pivot: constant angular rate in the plane of the move, radius blended linearly, exact end', () => {
    const r = rig('polar-head');
    const o = r.pivot;
    const old = r.eff(r.root);
    const a = sub(old, o);
    // new target: 130° about the pivot in a tilted plane, at 2.2 × the distance
    const axis: V3 = [0.3, 0.2, 1];
    const b = scale(qRotate(qAxisAngle(axis, 130 * DEG), a), 2.2);
    const next = add(o, b);
    const theta = angleBetween(a, b);
    const r0 = norm(a), r1 = norm(b);
    const normal = cross(a, b);
    setTarget(r.world, r.root, next);
    expect(r.eff(r.root)).toEqual(old);
    let prev = old;
    for (let i = 1; i <= N; i++) {
      step(r.world);
      // the pivot really is fixed
      expect(v3(r.world.physik.Bone.head, r.handle.bones.upper!)).toEqual(o);
      const e = r.eff(r.root);
      const d = sub(e, o);
      expect(angleBetween(a, d)).toBeCloseTo((theta * i) / N, 10);
      expect(angleBetween(sub(prev, o), d)).toBeCloseTo(theta / N, 10);
      expect(norm(d)).toBeCloseTo(r0 + ((r1 - r0) * i) / N, 10);
      expect(Math.abs(dot(d, normal)) / (norm(d) * norm(normal))).toBeLessThan(1e-12);
      prev = e;
    }
    expect(r.eff(r.root)).toEqual(next);
  });

  it('polar-head: a half turn (old and new opposite about the pivot) still ends exactly on the target', () => {
    const r = rig('polar-head');
    const o = r.pivot;
    const old = r.eff(r.root);
    const next = sub(o, sub(old, o)); // 180° about the pivot, same radius
    setTarget(r.world, r.root, next);
    const mid: V3[] = [];
    for (let i = 1; i <= N; i++) {
      step(r.world);
      mid.push(r.eff(r.root));
    }
    // on the circle all the way (radius constant), and never through the pivot
    for (const e of mid) expect(dist(e, o)).toBeCloseTo(dist(old, o), 10);
    expect(mid[N - 1]).toEqual(next);
  });

  it('polar-com: starts at the old target, ends exactly on the new one, and follows eq. 12 about the moving centre of mass', () => {
    const r = rig('polar-com');
    step(r.world); // the centre of mass is known after a step
    const { Rig } = r.world.physik;
    const old = r.eff(r.tip);
    const next: V3 = [-1.5, 1.0, 0.8];
    setTarget(r.world, r.tip, next);
    expect(r.eff(r.tip)).toEqual(old);
    let prev = old;
    let offLine = 0;
    for (let i = 0; i < N; i++) {
      const o = v3(Rig.centreOfMass, r.rig); // the pivot this step uses
      step(r.world);
      const e = r.eff(r.tip);
      if (i < N - 1) {
        const alpha = 1 / (N - i);
        const before = angleBetween(sub(prev, o), sub(next, o));
        expect(angleBetween(sub(e, o), sub(next, o))).toBeCloseTo((1 - alpha) * before, 10);
        expect(dist(e, o)).toBeCloseTo((1 - alpha) * dist(prev, o) + alpha * dist(next, o), 10);
        // distance from the straight line old → next
        const u = sub(next, old);
        offLine = Math.max(offLine, norm(cross(sub(e, old), u)) / norm(u));
      }
      prev = e;
    }
    expect(r.eff(r.tip)).toEqual(next);
    expect(offLine).toBeGreaterThan(0.05); // an arc, not the straight line
  });

  it('polar falls back to linear when the new target is within interpolationEpsilon of the pivot', () => {
    const r = rig('polar-head', { interpolationEpsilon: 1e-6 });
    const o = r.pivot;
    const old = r.eff(r.root);
    const next = add(o, [4e-7, 0, 3e-7]); // 5e-7 from the pivot
    setTarget(r.world, r.root, next);
    expect(r.eff(r.root)).toEqual(old);
    for (let i = 1; i <= N; i++) {
      step(r.world);
      const expected = add(old, scale(sub(next, old), i / N));
      expect(dist(r.eff(r.root), expected)).toBeLessThan(1e-12);
    }
    expect(r.eff(r.root)).toEqual(next);
  });

  it('polar: a move of the target exactly onto the pivot is interpolated (linear fallback), not a jump', () => {
    // A one-bone-length move straight onto the pivot: the angle about the pivot is undefined,
    // which is exactly the case the paper's linear fallback is for.
    const r = rig('polar-head');
    const o = r.pivot;
    const old = r.eff(r.root);
    setTarget(r.world, r.root, o);
    expect(r.eff(r.root), 'the effective target jumped straight onto the pivot').toEqual(old);
    step(r.world);
    expect(dist(r.eff(r.root), add(old, scale(sub(o, old), 1 / N)))).toBeLessThan(1e-12);
  });

  it('a move below interpolationThresholdDeg (about the pivot) jumps at once; one above it does not', () => {
    for (const mode of ['polar-head', 'linear'] as const) {
      const r = rig(mode, { interpolationThresholdDeg: 5 });
      const o = r.pivot;
      const a = sub(r.eff(r.root), o);
      const small = add(o, qRotate(qAxisAngle([0, 0, 1], 3 * DEG), a));
      setTarget(r.world, r.root, small);
      expect(r.eff(r.root)).toEqual(small);
      step(r.world);
      expect(r.eff(r.root)).toEqual(small);

      const old = r.eff(r.root);
      const big = add(o, qRotate(qAxisAngle([0, 0, 1], 8 * DEG), sub(old, o)));
      setTarget(r.world, r.root, big);
      expect(r.eff(r.root)).toEqual(old);
      step(r.world);
      expect(r.eff(r.root)).not.toEqual(big);
      expect(dist(r.eff(r.root), old)).toBeGreaterThan(0);
    }
  });

  it("mode 'none' jumps at once, however far", () => {
    const r = rig('none');
    const next: V3 = [5, -3, 2];
    setTarget(r.world, r.tip, next);
    expect(r.eff(r.tip)).toEqual(next);
    step(r.world);
    expect(r.eff(r.tip)).toEqual(next);
  });

  it('interpolationSteps = 1 jumps at once', () => {
    const r = rig('linear');
    setSettings(r.world, r.rig, { interpolationSteps: 1 });
    const next: V3 = [-1.3, 0.4, 0.9];
    setTarget(r.world, r.tip, next);
    step(r.world);
    expect(r.eff(r.tip)).toEqual(next);
  });

  it('a new move during an interpolation restarts from where the effective target is', () => {
    const r = rig('linear');
    setTarget(r.world, r.tip, [-1.3, 0.4, 0.9]);
    step(r.world, 4);
    const here = r.eff(r.tip);
    const next: V3 = [1.5, 2.0, -0.5];
    setTarget(r.world, r.tip, next);
    expect(r.eff(r.tip)).toEqual(here);
    step(r.world);
    expect(dist(r.eff(r.tip), add(here, scale(sub(next, here), 1 / N)))).toBeLessThan(1e-12);
    step(r.world, N - 1);
    expect(r.eff(r.tip)).toEqual(next);
  });

  it('the rig reports itself as moving while a target interpolates', () => {
    const r = rig('linear');
    step(r.world, 200);
    expect(readMetrics(r.world, r.rig).atRest).toBe(true);
    setTarget(r.world, r.tip, [-1.3, 0.4, 0.9]);
    step(r.world);
    expect(readMetrics(r.world, r.rig).atRest).toBe(false);
  });

  it('polar-com before the first step pivots about the rig’s centre of mass (not the origin)', () => {
    // A rig far from the origin: the tip's move is a half turn about the rig's centre of mass,
    // but only ~1° seen from the world origin.
    const b = build({
      rig: {
        name: 'far',
        root: 'pinned',
        bones: [
          { name: 'a', parent: null, direction: [0, 1, 0], length: 1, head: [100, 0, 0] },
          { name: 'b', parent: 'a', direction: [0, 1, 0], length: 1 },
        ],
      },
      controlPoints: [{ name: 'tip', bone: 'b' }],
      settings: { interpolation: 'polar-com', interpolationSteps: N },
    });
    const cp = b.handle.controlPoints.tip!;
    const { ControlPoint } = b.world.physik;
    const old = v3(ControlPoint.effective, cp);
    const next: V3 = [100, 0, 0.01];
    setTarget(b.world, cp, next);
    expect(v3(ControlPoint.effective, cp), 'a half-turn move jumped at once').toEqual(old);
    // after a step the same move is interpolated
    const c = build({
      rig: {
        name: 'far',
        root: 'pinned',
        bones: [
          { name: 'a', parent: null, direction: [0, 1, 0], length: 1, head: [100, 0, 0] },
          { name: 'b', parent: 'a', direction: [0, 1, 0], length: 1 },
        ],
      },
      controlPoints: [{ name: 'tip', bone: 'b' }],
      settings: { interpolation: 'polar-com', interpolationSteps: N },
    });
    step(c.world);
    const cpc = c.handle.controlPoints.tip!;
    const oldc = v3(c.world.physik.ControlPoint.effective, cpc);
    setTarget(c.world, cpc, next);
    expect(v3(c.world.physik.ControlPoint.effective, cpc)).toEqual(oldc);
  });
});
