/**
 * Stability of the default settings across bone masses (0.25 .. 100) and units (metres and
 * centimetres), on a floating 6-bone chain with angular limits whose two control points
 * (its base and its tip) are moved far; and the paper's original settings, which with
 * explicit end-point damping are known to blow up light bones (design notes).
 */
import { describe, expect, it } from 'vitest';
import { addRig, createPhysikWorld, paperSettings, readMetrics, readPose, setTarget, step, type RigMetrics } from '../../src/core';
import type { Settings } from '../../src/scene/types';
import { allFinite, chainBones } from './helpers';

const STEPS = 1500;

interface Result {
  final: RigMetrics;
  finite: boolean;
  peakKE: number;
  peakSpeed: number;
  totalMass: number;
  /** Tail positions of all bones at the end, divided by the unit. */
  tails: number[];
  /** First step at which the target error exceeded 1000 × height, and the diverged count then. */
  flewOff: { step: number; divergedSteps: number } | null;
}

/**
 * A floating 6-bone chain of length 3 units along +Y with limits on every joint; the base
 * (the root's head) and the tip are pulled to targets that need the chain to bend.
 */
function run(mass: number, unit: number, settings: Partial<Settings> = {}, steps = STEPS): Result {
  const world = createPhysikWorld();
  const h = addRig(world, {
    rig: { name: 'chain', bones: chainBones(6, { length: 0.5 * unit, mass, limits: { x: [-45, 45], y: [-10, 10], z: [-45, 45] } }) },
    controlPoints: [
      { name: 'base', bone: 'b0', at: 0 },
      { name: 'tip', bone: 'b5' },
    ],
    settings,
  });
  setTarget(world, h.controlPoints.base!, [-1 * unit, 0.5 * unit, 0.8 * unit]);
  setTarget(world, h.controlPoints.tip!, [0.6 * unit, 1.5 * unit, -0.4 * unit]);
  let peakKE = 0, peakSpeed = 0;
  let flewOff: Result['flewOff'] = null;
  for (let i = 0; i < steps; i++) {
    step(world);
    const m = readMetrics(world, h.rig);
    peakKE = Math.max(peakKE, m.kineticEnergy);
    peakSpeed = Math.max(peakSpeed, m.maxEndSpeed);
    if (!flewOff && !(m.maxTargetError < 1000 * m.height)) flewOff = { step: i, divergedSteps: m.divergedSteps };
  }
  const final = readMetrics(world, h.rig);
  const tails = Object.values(readPose(world, h.rig)).flatMap((b) => b.tail.map((x) => x / unit));
  return { final, finite: allFinite(world, world.physik.rigs[0]!.bones), peakKE, peakSpeed, totalMass: 6 * mass, tails, flewOff };
}

/** What "stable and settled" means, in units of the rig (height H, total mass M). */
function expectSettled(r: Result): void {
  const H = r.final.height;
  expect(r.finite).toBe(true);
  expect(r.final.divergedSteps).toBe(0);
  expect(r.final.solveStatus).toBe('converged');
  // no divergence on the way: peak kinetic energy and end speed stay modest
  expect(r.peakKE / (r.totalMass * H * H)).toBeLessThan(0.05);
  expect(r.peakSpeed / H).toBeLessThan(2);
  // settled: tiny kinetic energy, at rest
  expect(r.final.kineticEnergy / (r.totalMass * H * H)).toBeLessThan(1e-10);
  expect(r.final.atRest).toBe(true);
  // targets reached (they are reachable within the limits), limits respected, joints together
  expect(r.final.maxTargetError / H).toBeLessThan(1e-3);
  expect(r.final.maxLimitViolationDeg).toBeLessThan(1);
  expect(r.final.maxJointGap / H).toBeLessThan(1e-9);
}

describe('stability with the default settings', () => {
  const metres = new Map<number, Result>();
  for (const mass of [0.25, 1, 10, 100]) {
    it(`bone mass ${mass}, metres: finite, no divergence, settles on the targets`, () => {
      const r = run(mass, 1);
      metres.set(mass, r);
      expectSettled(r);
    });
    it(`bone mass ${mass}, centimetres (lengths × 100): the same, and the same pose scaled`, () => {
      const r = run(mass, 100);
      expectSettled(r);
      const m = metres.get(mass) ?? run(mass, 1);
      // same motion in the rig's own units: final poses agree to 1% of the height
      const d = Math.max(...r.tails.map((x, i) => Math.abs(x - m.tails[i]!)));
      expect(d / m.final.height).toBeLessThan(0.01);
    });
  }
});

describe("the paper's settings", () => {
  it('with explicit damping (paperSettings) light bones (mass 0.25) blow up', () => {
    const r = run(0.25, 1, { ...paperSettings }, 400);
    const H = r.final.height;
    // observed: the kinetic energy reaches ~1e93 within 10 steps and the guard reports diverged steps
    expect(r.final.divergedSteps).toBeGreaterThan(0);
    expect(r.peakKE / (r.totalMass * H * H) > 1e6 || !Number.isFinite(r.peakKE)).toBe(true);
    expect(r.final.atRest).toBe(false);
    expect(r.final.maxTargetError / H).toBeGreaterThan(1);
    // never NaN in the world's state
    expect(r.finite).toBe(true);
  });

  it('explicit end-point damping alone is what breaks light bones: mass 0.25 blows up, mass 10 settles', () => {
    const light = run(0.25, 1, { dampingMode: 'explicit' }, 400);
    expect(light.final.divergedSteps).toBeGreaterThan(0);
    expect(light.final.atRest).toBe(false);
    const heavy = run(10, 1, { dampingMode: 'explicit' }, 600);
    expectSettled(heavy);
  });

  it('a rig that blows up is flagged as diverged before it flies off (design: "held at its last good state")', () => {
    const r = run(0.25, 1, { ...paperSettings }, 60);
    // observed with the current guard (non-finite accelerations only): the target error passes
    // 1000 × height within the first few steps with no diverged step reported; the first one
    // comes a few steps later, when the rig is ~1e46 units away.
    expect(r.flewOff).not.toBeNull();
    expect(r.flewOff!.divergedSteps, `flew off at step ${r.flewOff!.step} with no diverged step reported`).toBeGreaterThan(0);
  });
});
