/**
 * Conservation: a free rig (floating, no springs, no damping) keeps its linear and angular
 * momentum and does not gain kinetic energy; with damping on and the targets still, the total
 * mechanical energy (kinetic + control springs + limit springs) never rises. Momentum and
 * energy are measured here from the stores, independently of the systems that keep them.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { addRig, createPhysikWorld, setTarget, step, type PhysikWorld } from '../../../src/core';
import type { RigDescription, Settings } from '../../../src/scene/types';
import type { RigRecord } from '../../../src/world/world';
import { SPRING_CAPPED } from '../../../components';
import { limitSpringEnergy } from '../../../systems/torsionSprings';
import { springEnergy } from '../../../systems/controlSprings';
import { attachmentPoint } from '../../../src/core/rig';
import { rng } from '../../support/helpers';
import { measure } from '../../support/momentum';

/** A floating chain of n bones zig-zagging out along x. */
function chain(n: number): RigDescription {
  const bones = [];
  for (let i = 0; i < n; i++) {
    bones.push({ name: `b${i}`, parent: i ? `b${i - 1}` : null, direction: [1, 0.3 * (i % 2), 0.1] as [number, number, number], length: 0.5, mass: 1, ...(i === 0 ? { head: [0, 0, 0] as [number, number, number] } : {}) });
  }
  return { name: `chain${n}`, root: 'floating', bones };
}
const humanoid = (): RigDescription => JSON.parse(readFileSync('scenes/humanoid.json', 'utf8')).rig;

const free: Partial<Settings> = { dampingAuto: false, damping: 0, angularDamping: 0, sleepWhenConverged: false };

/** Energy in the control springs and limit springs at the current pose. */
function potential(world: PhysikWorld, rig: RigRecord): number {
  const { ControlPoint: C, AngularLimit: A } = world.physik;
  let pe = 0;
  const att = new Float64Array(3), out = new Float64Array(1);
  for (const cp of rig.controlPoints) {
    if (!C.active[cp] || C.pole[cp]) continue;
    attachmentPoint(world, cp, att, 0);
    const d = Math.hypot(C.effective[cp * 3]! - att[0]!, C.effective[cp * 3 + 1]! - att[1]!, C.effective[cp * 3 + 2]! - att[2]!);
    pe += springEnergy(C.stiffness[cp]!, C.spring[cp] === SPRING_CAPPED ? (C.cap[cp]! > 0 ? C.cap[cp]! : rig.defaultCap) : -1, d);
  }
  for (const b of rig.bones) {
    if (!(A.enabled[b * 3] || A.enabled[b * 3 + 1] || A.enabled[b * 3 + 2])) continue;
    limitSpringEnergy(world, rig, b, true, out, 0);
    pe += out[0]!;
  }
  return pe;
}

/** A free rig spun up with seeded random angular velocities (and a root velocity), stepped `steps` times. */
function spin(desc: RigDescription, dt: number, steps: number, settings: Partial<Settings> = {}) {
  const world = createPhysikWorld();
  addRig(world, { rig: desc, settings: { ...free, dt, ...settings } });
  const rig = world.physik.rigs[0]!;
  const B = world.physik.Bone;
  const r = rng(7);
  for (const b of rig.bones) for (let a = 0; a < 3; a++) B.angVel[b * 3 + a] = (2 * r() - 1) * 0.5;
  for (let a = 0; a < 3; a++) B.vel[rig.bones[0]! * 3 + a] = (2 * r() - 1) * 0.5;
  step(world); // velocities of every bone derived from the state
  const start = measure(world, rig);
  const per1000 = { P: 0, L: 0 };
  let peakKE = start.KE;
  for (let i = 1; i <= steps; i++) {
    step(world);
    const m = measure(world, rig);
    if (m.KE > peakKE) peakKE = m.KE;
    if (i === 1000) {
      per1000.P = Math.hypot(m.P[0]! - start.P[0]!, m.P[1]! - start.P[1]!, m.P[2]! - start.P[2]!) / start.scaleP;
      per1000.L = Math.hypot(m.L[0]! - start.L[0]!, m.L[1]! - start.L[1]!, m.L[2]! - start.L[2]!) / start.scaleL;
    }
  }
  const end = measure(world, rig);
  return { per1000, peakKE: peakKE / start.KE, endKE: end.KE / start.KE, guardSteps: world.physik.Rig.energyGuardSteps[rig.eid]! };
}

describe('a free rig keeps its momentum and gains no energy', () => {
  const rigs: [string, () => RigDescription][] = [['2-bone chain', () => chain(2)], ['10-bone chain', () => chain(10)], ['humanoid with its limits', humanoid]];
  for (const [name, desc] of rigs) {
    it(`${name}: momentum drift per 1000 steps within 1e-2 (linear) and 5e-2 (angular) of its scale, five times less at dt 0.01; kinetic energy never above 1.1× its start over 10,000 steps`, () => {
      const coarse = spin(desc(), 0.05, 10_000);
      expect(coarse.per1000.P).toBeLessThan(1e-2);
      expect(coarse.per1000.L).toBeLessThan(5e-2);
      expect(coarse.peakKE).toBeLessThan(1.1);
      const fine = spin(desc(), 0.01, 1000);
      // (both are at round-off: the floor is what double precision leaves of them)
      expect(fine.per1000.P).toBeLessThan(Math.max(coarse.per1000.P / 5, 1e-12));
      expect(fine.per1000.L).toBeLessThan(Math.max(coarse.per1000.L / 5, 1e-12));
      expect(fine.peakKE).toBeLessThan(1.1);
    });
  }

  it('the measurement can fail: with the paper\'s velocity terms and no conservation the same chain drifts and gains energy', () => {
    const paper = spin(chain(10), 0.05, 2000, { centripetal: false, gyroscopic: 'explicit', conservation: 'none' });
    expect(paper.per1000.P).toBeGreaterThan(0.1);
    expect(paper.peakKE).toBeGreaterThan(1.1);
  });
});

describe('with damping on and the targets still, total energy never rises', () => {
  it('humanoid pulled to far targets and let settle: kinetic + spring + limit energy never more than 1% above any earlier value', () => {
    const world = createPhysikWorld();
    const h = addRig(world, { rig: humanoid(), controlPoints: JSON.parse(readFileSync('scenes/humanoid.json', 'utf8')).controlPoints, settings: { interpolation: 'none', sleepWhenConverged: false } });
    const rig = world.physik.rigs[0]!;
    const names = Object.keys(h.controlPoints);
    const r = rng(3);
    // every target jumps once, then stays
    for (const n of names) {
      const cp = h.controlPoints[n]!;
      const t = world.physik.ControlPoint.target;
      setTarget(world, cp, [t[cp * 3]! + (2 * r() - 1) * 0.4, t[cp * 3 + 1]! + (2 * r() - 1) * 0.4, t[cp * 3 + 2]! + (2 * r() - 1) * 0.4]);
    }
    step(world);
    let lowest = measure(world, rig).KE + potential(world, rig);
    let worst = 0;
    for (let i = 0; i < 600; i++) {
      step(world);
      const e = measure(world, rig).KE + potential(world, rig);
      worst = Math.max(worst, e / lowest - 1);
      lowest = Math.min(lowest, e);
    }
    expect(worst).toBeLessThan(0.01);
  });
});
