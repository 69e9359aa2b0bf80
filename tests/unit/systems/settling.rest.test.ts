/**
 * An honest rest test: the step a rig is first reported 'converged' (and the step a stalled rig
 * falls asleep) it is static. Every bone end moves slower than 1e-4 × height per second, and the
 * largest net load on a bone (|F| + |τ| / length after the joint solve) is within 1e-3 of the
 * spring load. A rig that reaches its goals ends with no spring load, its residual shrinking with
 * it (their ratio tends to a constant of the slowest motion, ~1e-2 on the arm), so each spring
 * counts at least as its pull at the settle tolerance. Measured here from the stores, apart
 * from systems/metrics.ts: the end speeds from the bones' velocities, the loads from the
 * accelerations the joint solve left and the springs' forces.
 */
import { describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { addRig, createPhysikWorld, onSettle, readMetrics, setSettings, setTarget, step, type PhysikWorld } from '../../../src/core';
import type { RigRecord } from '../../../src/world/world';
import { loadSceneFile } from '../../../src/scene/loadFile';
import { checkExpect, runScene, summaryMetric } from '../../../src/scene/run';
import { chainBones } from '../../support/helpers';

const SPEED = 1e-4; // × height per second
const LOAD = 1e-3; // × the spring load

interface Balance { step: number; status: string; speed: number; residual: number; springLoad: number; pull: number; height: number }

/** End speeds, net loads and spring loads of a rig, from the stores. */
function balance(world: PhysikWorld, rig: RigRecord, status: string): Balance {
  const { Bone, ControlPoint, Rig } = world.physik;
  const H = Rig.height[rig.eid]!;
  let speed = 0, residual = 0;
  for (const b of rig.bones) {
    const i = b * 3, o = b * 6;
    const v = [Bone.vel[i]!, Bone.vel[i + 1]!, Bone.vel[i + 2]!];
    const w = [Bone.angVel[i]!, Bone.angVel[i + 1]!, Bone.angVel[i + 2]!];
    const d = [Bone.tail[i]! - Bone.centre[i]!, Bone.tail[i + 1]! - Bone.centre[i + 1]!, Bone.tail[i + 2]! - Bone.centre[i + 2]!];
    const tail = [v[0]! + w[1]! * d[2]! - w[2]! * d[1]!, v[1]! + w[2]! * d[0]! - w[0]! * d[2]!, v[2]! + w[0]! * d[1]! - w[1]! * d[0]!];
    speed = Math.max(speed, Math.hypot(Bone.headVel[i]!, Bone.headVel[i + 1]!, Bone.headVel[i + 2]!), Math.hypot(tail[0]!, tail[1]!, tail[2]!));
    const E = Bone.effInertiaWorld, a = [Bone.angAcc[i]!, Bone.angAcc[i + 1]!, Bone.angAcc[i + 2]!];
    const torque = [
      E[o]! * a[0]! + E[o + 1]! * a[1]! + E[o + 2]! * a[2]!,
      E[o + 1]! * a[0]! + E[o + 3]! * a[1]! + E[o + 4]! * a[2]!,
      E[o + 2]! * a[0]! + E[o + 4]! * a[1]! + E[o + 5]! * a[2]!,
    ];
    const force = Bone.effMass[b]! * Math.hypot(Bone.acc[i]!, Bone.acc[i + 1]!, Bone.acc[i + 2]!);
    residual = Math.max(residual, force + Math.hypot(torque[0]!, torque[1]!, torque[2]!) / Bone.length[b]!);
  }
  let springLoad = 0, pull = 0;
  for (const cp of rig.controlPoints) {
    if (!ControlPoint.active[cp] || ControlPoint.pole[cp]) continue;
    const c = cp * 3;
    springLoad += Math.hypot(ControlPoint.springForce[c]!, ControlPoint.springForce[c + 1]!, ControlPoint.springForce[c + 2]!);
    pull += ControlPoint.stiffness[cp]! * rig.settings.settleTolerance * H;
  }
  return { step: Rig.step[rig.eid]!, status, speed, residual, springLoad, pull, height: H };
}

const fmt = (b: Balance) =>
  `${b.status} at step ${b.step}: speed ${(b.speed / b.height).toExponential(2)} × height/s, residual ${(b.residual / Math.max(b.springLoad, b.pull)).toExponential(2)}`
  + ` of the spring load at least at the tolerance (${(b.residual / b.springLoad).toExponential(2)} of the spring load itself)`;

function expectStatic(b: Balance): void {
  expect(b.speed, fmt(b)).toBeLessThanOrEqual(SPEED * b.height);
  expect(b.residual, fmt(b)).toBeLessThanOrEqual(LOAD * Math.max(b.springLoad, b.pull));
}

const dir = join(__dirname, '../../../scenes');
const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();

/** Run a scene's own rig (its crowd left out) and record its balance at each first converged step and each stalled step it fell asleep in. */
function runRecording(file: string) {
  const scene = loadSceneFile(join(dir, file));
  const world = createPhysikWorld();
  const h = addRig(world, { rig: scene.rig, controlPoints: scene.controlPoints, settings: scene.settings, script: scene.script });
  const rig = world.physik.rigs.find((r) => r.eid === h.rig)!;
  const converged: Balance[] = [], asleep: Balance[] = [];
  const reported: { balance: Balance; metrics: ReturnType<typeof readMetrics> }[] = [];
  let stalled: Balance | null = null;
  // a settle listener runs before the rig may be put to sleep (velocities zeroed): the state it sees is the step's
  onSettle(world, (e) => {
    if (e.rig !== h.rig) return;
    const b = balance(world, rig, e.status);
    if (e.status === 'converged') { converged.push(b); reported.push({ balance: b, metrics: readMetrics(world, h.rig) }); }
    if (e.status === 'stalled') stalled = b;
  });
  for (let s = 0; s < scene.steps; s++) {
    stalled = null;
    const wasAsleep = world.physik.Rig.sleeping[h.rig] === 1;
    step(world, 1);
    if (stalled && !wasAsleep && world.physik.Rig.sleeping[h.rig] === 1) asleep.push(stalled);
  }
  return { converged, asleep, reported };
}

describe('converged means static', () => {
  const convergedScenes: string[] = [];

  for (const file of files) {
    it(`${file}: static when first converged, and when asleep stalled`, () => {
      const { converged, asleep } = runRecording(file);
      if (converged.length) { convergedScenes.push(file); expectStatic(converged[0]!); }
      for (const b of converged) expectStatic(b);
      for (const b of asleep) expectStatic(b);
    });
  }

  it('some scenes converge (the checks above are not vacuous)', () => {
    expect(convergedScenes.length).toBeGreaterThan(0);
  });

  it('readMetrics reports the same residual and spring load as measured here', () => {
    const { reported } = runRecording('scale-m.json');
    expect(reported.length).toBeGreaterThan(0);
    for (const { balance: b, metrics: m } of reported) {
      expect(m.loadResidual).toBeCloseTo(b.residual, 12);
      expect(m.springLoad).toBeCloseTo(b.springLoad, 12);
      expect(m.loadRatio).toBeCloseTo(b.residual / Math.max(b.springLoad, b.pull), 9);
      expect(m.static).toBe(true);
      expect(m.maxEndSpeed).toBeLessThanOrEqual(SPEED * m.height);
    }
  });
});

describe('the load residual the joint solve finds on the way', () => {
  it('is the one measured from its accelerations, on every step of a humanoid reach (welds, hinges, limits)', () => {
    const scene = loadSceneFile(join(dir, 'humanoid.json'));
    const world = createPhysikWorld();
    const h = addRig(world, { rig: scene.rig, controlPoints: scene.controlPoints, settings: scene.settings, script: scene.script });
    const rig = world.physik.rigs.find((r) => r.eid === h.rig)!;
    let worst = 0;
    for (let s = 0; s < 200; s++) {
      step(world, 1);
      const measured = balance(world, rig, '').residual;
      worst = Math.max(worst, Math.abs(readMetrics(world, h.rig).loadResidual - measured) / measured);
    }
    expect(worst).toBeLessThan(1e-9);
  });
});

describe('static balance on a chain', () => {
  function chain(settings = {}) {
    const world = createPhysikWorld();
    const h = addRig(world, { rig: { name: 'chain', root: 'pinned', bones: chainBones(4, { length: 0.5 }) }, controlPoints: [{ name: 'tip', bone: 'b3' }], settings });
    setTarget(world, h.controlPoints.tip!, [0.8, 1.2, 0]);
    const steps = () => { let n = 0; while (readMetrics(world, h.rig).status !== 'converged' && n < 3000) { step(world); n++; } return n; };
    return { world, rig: h.rig, steps };
  }

  it('a rig slow enough to be at rest is not converged until its load is balanced; restLoad sets how far', () => {
    const strict = chain(), loose = chain({ restLoad: 1 });
    const nStrict = strict.steps(), nLoose = loose.steps();
    expect(nStrict).toBeLessThan(3000);
    expect(nLoose).toBeLessThan(nStrict);
    const m = readMetrics(strict.world, strict.rig);
    expect(m.loadRatio).toBeLessThanOrEqual(1e-3);
    expect(readMetrics(loose.world, loose.rig).loadRatio).toBeGreaterThan(m.loadRatio);
  });

  it('restLoad must be positive', () => {
    const c = chain();
    expect(() => setSettings(c.world, c.rig, { restLoad: 0 })).toThrow(/restLoad/);
    expect(() => setSettings(c.world, c.rig, { restLoad: -1 })).toThrow(/restLoad/);
  });

  it('the load figures are summary metrics an expect block can name', () => {
    const scene = loadSceneFile(join(dir, 'scale-m.json'));
    const summary = runScene(scene);
    expect(summaryMetric(summary, 'loadRatio')).toBe(summary.loadRatio);
    expect(summaryMetric(summary, 'static')).toBe(summary.static ? 1 : 0);
    const result = checkExpect({ ...scene, expect: { metrics: { loadRatio: { max: 1e-3 }, loadResidual: { min: 0 }, springLoad: { min: 0 } } } }, summary);
    expect(result.checks.map((c) => c.ok)).toEqual([true, true, true]);
  });
});
