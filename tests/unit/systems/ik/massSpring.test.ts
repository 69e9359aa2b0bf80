/**
 * Mass-spring IK (systems/ik/massSpring.ts): the particle core (Verlet with gravity, length
 * relaxation with anchors, goal pulls), and the solver: goals reached, gravity, stability at
 * any dt, velocity kept between steps, limits held, the humanoid scene.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { build, chainBones, dist, norm, v3, type V3 } from '../../../support/helpers';
import { setTarget, setControlPointActive, step, readMetrics, readPose } from '../../../../src/core';
import { loadSceneFile } from '../../../../src/scene/loadFile';
import { runScene } from '../../../../src/scene/run';
import { createParticles, pullPoint, satisfyLengths, setMassSpringParams, verletStep } from '../../../../systems/ik/massSpring';

const scenes = join(__dirname, '../../../../scenes');

describe('particle core', () => {
  it('Verlet: a free particle falls g·dt² in the first step and keeps its velocity; anchors stay', () => {
    const ps = createParticles(2, 0);
    ps.invMass[0] = 0; ps.invMass[1] = 1;
    ps.pos.set([0, 0, 0, 1, 0, 0]); ps.prev.set(ps.pos);
    verletStep(ps, 0.1, 0, -10, 0, 0, 100);
    expect(ps.pos[4]).toBeCloseTo(-0.1, 12);
    verletStep(ps, 0.1, 0, -10, 0, 0, 100);
    expect(ps.pos[4]).toBeCloseTo(-0.3, 12); // 2x − x_prev + g dt²
    expect([ps.pos[0], ps.pos[1], ps.pos[2]]).toEqual([0, 0, 0]);
  });

  it('caps a step\'s displacement (any dt), and stands still instead of moving by NaN', () => {
    const ps = createParticles(2, 0);
    ps.invMass.set([0, 1]);
    ps.pos.set([0, 0, 0, 1, 0, 0]); ps.prev.set(ps.pos);
    const moved = verletStep(ps, 1, 0, -1000, 0, 0, 2);
    expect(moved).toBeCloseTo(2, 12);
    expect(ps.pos[4]).toBeCloseTo(-2, 12);
    ps.prev[3] = NaN;
    verletStep(ps, 1, 0, 0, 0, 0, 2);
    expect(Number.isFinite(ps.pos[3]!)).toBe(true);
  });

  it('relaxes lengths by inverse mass, with anchors and a head between two particles', () => {
    const ps = createParticles(3, 2);
    ps.invMass.set([0, 1, 1]);
    // bone 0: particle 0 → 1 (length 1); bone 1: head halfway along bone 0, tail particle 2 (length 1)
    ps.a.set([0, 0]); ps.b.set([0, 1]); ps.s.set([0, 0.5]); ps.t.set([1, 2]); ps.len.set([1, 1]);
    ps.pos.set([0, 0, 0, 1.5, 0, 0, 0.7, 0.3, 0]);
    for (let i = 0; i < 200; i++) satisfyLengths(ps);
    expect(Math.hypot(ps.pos[3]!, ps.pos[4]!, ps.pos[5]!)).toBeCloseTo(1, 9);
    const hx = 0.5 * ps.pos[3]!, hy = 0.5 * ps.pos[4]!, hz = 0.5 * ps.pos[5]!;
    expect(Math.hypot(ps.pos[6]! - hx, ps.pos[7]! - hy, ps.pos[8]! - hz)).toBeCloseTo(1, 9);
    expect([ps.pos[0], ps.pos[1], ps.pos[2]]).toEqual([0, 0, 0]);
  });

  it('pulls a point toward a target, split by inverse mass', () => {
    const ps = createParticles(2, 0);
    ps.invMass.set([1, 3]);
    ps.pos.set([0, 0, 0, 2, 0, 0]);
    const err = pullPoint(ps, 0, 1, 0.5, 2, 1, 0, 1); // the midpoint (1, 0, 0) → (2, 1, 0)
    expect(err).toBeCloseTo(Math.SQRT2, 12);
    const mx = 0.5 * (ps.pos[0]! + ps.pos[3]!), my = 0.5 * (ps.pos[1]! + ps.pos[4]!);
    expect(mx).toBeCloseTo(2, 12);
    expect(my).toBeCloseTo(1, 12);
    expect(Math.abs(ps.pos[3]! - 2)).toBeGreaterThan(Math.abs(ps.pos[0]!)); // the lighter end moves more
  });
});

function chain(n: number, settings: Record<string, unknown> = {}, limits?: NonNullable<Parameters<typeof chainBones>[1]>['limits'], cps = true) {
  return build({
    rig: { name: 'rope', root: 'pinned', bones: chainBones(n, { length: 0.25, ...(limits ? { limits } : {}) }) },
    controlPoints: cps ? [{ name: 'tip', bone: `b${n - 1}` }] : [],
    settings: { solver: 'massSpring', interpolation: 'none', ...settings },
  });
}

describe('massSpring solver', () => {
  it('brings the tip to a reachable target and reports converged', () => {
    const { world, handle, rig } = chain(6, { ikIterations: 20 });
    const t: V3 = [0.6, 0.9, 0.3];
    setTarget(world, handle.controlPoints['tip']!, t);
    let steps = 0;
    while (readMetrics(world, rig).solveStatus !== 'converged' && steps < 400) { step(world, 1); steps++; }
    expect(steps).toBeLessThan(400);
    expect(dist(v3(world.physik.Bone.tail, handle.bones['b5']!), t)).toBeLessThan(1e-4 * readMetrics(world, rig).height + 1e-12);
    expect(readMetrics(world, rig).maxJointGap).toBeLessThan(1e-12);
  });

  it('hangs under gravity and comes to rest', () => {
    const bones = chainBones(5, { length: 0.25 }).map((b) => ({ ...b, direction: [1, 0, 0] as V3 }));
    const { world, handle, rig } = build({ rig: { name: 'rope', root: 'pinned', bones }, settings: { solver: 'massSpring', gravity: 9.81 } });
    step(world, 600);
    const { Bone } = world.physik;
    const tip = v3(Bone.tail, handle.bones['b4']!);
    // from horizontal to hanging straight down, 1.25 below the pin
    expect(tip[1]).toBeLessThan(-1.24);
    expect(Math.abs(tip[0])).toBeLessThan(0.05);
    expect(readMetrics(world, rig).maxEndSpeed).toBeLessThan(1e-3);
  });

  it('stays finite and bounded for a huge dt and gravity', () => {
    const { world, handle, rig } = chain(8, { dt: 1, gravity: 1000 });
    setTarget(world, handle.controlPoints['tip']!, [1, -1, 0.5]);
    for (let s = 0; s < 300; s++) {
      step(world, 1);
      const pose = readPose(world, rig);
      for (const b of Object.values(pose)) for (const x of [...b.head, ...b.tail]) expect(Number.isFinite(x)).toBe(true);
    }
    const m = readMetrics(world, rig);
    expect(m.divergedSteps).toBe(0);
    expect(norm(v3(world.physik.Bone.tail, handle.bones['b7']!))).toBeLessThanOrEqual(2 + 1e-9);
  });

  it('keeps its previous positions between steps: a released chain keeps moving', () => {
    const { world, handle } = chain(4, { gravity: 0 });
    setMassSpringParams(world.physik.rigs[0]!, { damping: 0 });
    const cp = handle.controlPoints['tip']!;
    setTarget(world, cp, [0.7, 0.2, 0]);
    step(world, 3); // pulled hard: moving fast
    setControlPointActive(world, cp, false);
    const { Bone } = world.physik;
    const before = v3(Bone.tail, handle.bones['b3']!);
    step(world, 1); // no goal, no gravity: only the kept velocity moves it
    expect(dist(v3(Bone.tail, handle.bones['b3']!), before)).toBeGreaterThan(1e-3);
  });

  it('restarts from rest every step in path-independent mode (same target, same pose)', () => {
    const a = chain(5, { ikMode: 'path-independent', ikIterations: 200 }), b = chain(5, { ikMode: 'path-independent', ikIterations: 200 });
    setTarget(a.world, a.handle.controlPoints['tip']!, [-0.5, 0.6, 0.2]);
    step(a.world, 5);
    for (const x of [a, b]) { setTarget(x.world, x.handle.controlPoints['tip']!, [0.4, 0.7, -0.3]); step(x.world, 1); }
    const pa = readPose(a.world, a.rig), pb = readPose(b.world, b.rig);
    for (const k of Object.keys(pa)) for (let i = 0; i < 3; i++) expect(pa[k]!.tail[i]).toBeCloseTo(pb[k]!.tail[i]!, 12);
  });

  it('keeps every limit (clamped after each bone)', () => {
    const { world, handle, rig } = chain(6, { ikIterations: 20 }, { x: [-25, 25], y: [0, 0], z: [-25, 25] });
    setTarget(world, handle.controlPoints['tip']!, [0.9, 0.2, 0]);
    for (let s = 0; s < 100; s++) {
      step(world, 1);
      expect(readMetrics(world, rig).maxLimitViolationDeg).toBeLessThan(1e-6);
    }
    expect(dist(v3(world.physik.Bone.tail, handle.bones['b5']!), [0.9, 0.2, 0])).toBeGreaterThan(0.05); // out of the limits' reach
  });

  it('runs the humanoid scene finite and reaches its goals', () => {
    const summary = runScene(loadSceneFile(join(scenes, 'humanoid.json')), { settings: { solver: 'massSpring' } });
    expect(summary.finite).toBe(true);
    expect(summary.divergedSteps).toBe(0);
    expect(summary.maxTargetError).toBeLessThan(0.02);
    expect(summary.maxLimitViolationDeg).toBeLessThan(1e-6);
  });

  it('rejects out-of-range per-rig constants', () => {
    const { world } = chain(2);
    expect(() => setMassSpringParams(world.physik.rigs[0]!, { damping: 2 })).toThrow(/damping/);
    expect(() => setMassSpringParams(world.physik.rigs[0]!, { goalStiffness: -1 })).toThrow(/goalStiffness/);
  });
});
