/**
 * Twist, the rotation of a bone about its own axis: damped at the rate swing gets in total
 * (systems/damping.ts), and limited by a spring scaled by the bone's own inertia about that
 * axis (src/world/derivedSettings.ts limitInertiaScale, systems/torsionSprings.ts), with the limits' energy
 * weighted per axis the same way wherever it is measured.
 */
import { describe, expect, it } from 'vitest';
import { addRig, createPhysikWorld, step, type PhysikWorld } from '../../../src/core';
import type { BoneDescription, Settings } from '../../../src/scene/types';
import { damping } from '../../../systems/damping';
import { limitRotationVector, limitSpringEnergy, torsionSprings } from '../../../systems/torsionSprings';
import { jointRotationVector } from '../../../src/world/jointRotation';
import { forwardKinematics } from '../../../systems/forwardKinematics';
import { copyDoubles } from '../../../components/doubles';
import { build, DEG, dot, norm, q4, qAxisAngle, qMul, qRotate, v3, type Q, type V3 } from '../../support/helpers';
import { probeTwist } from '../../bench/twist';

/** A single floating bone spinning at `w` about its own axis (y) or a transverse one (x) through its centre. */
function spinning(axis: 'x' | 'y', w: number, settings: Partial<Settings>) {
  const world = createPhysikWorld();
  const h = addRig(world, {
    rig: { name: 'rod', root: 'floating', bones: [{ name: 'rod', parent: null, direction: [0.3, 1, -0.4], length: 0.5, mass: 0.4, head: [0, 0, 0] }] },
    settings: { sleepWhenConverged: false, ...settings },
  });
  const b = h.bones.rod!;
  const { Bone } = world.physik;
  const along = qRotate(q4(Bone.rot, b), axis === 'y' ? [0, 1, 0] : [1, 0, 0]);
  copyDoubles(Bone.angVel, b * 3, [along[0] * w, along[1] * w, along[2] * w]);
  return { world, b, along };
}

/** Spin about `along` after each of n steps, over the spin before. */
function decay(world: PhysikWorld, b: number, along: V3, n: number): number[] {
  const out: number[] = [];
  let before = dot(v3(world.physik.Bone.angVel, b), along);
  for (let i = 0; i < n; i++) {
    step(world);
    const now = dot(v3(world.physik.Bone.angVel, b), along);
    out.push(now / before);
    before = now;
  }
  return out;
}

describe('twist damping', () => {
  it('a bone spun about its own axis is damped at the rate it swings at: β + c L² / (2 I_x)', () => {
    const settings: Partial<Settings> = { dampingAuto: false, damping: 3, angularDamping: 2 };
    const twist = spinning('y', 1.5, settings);
    const swing = spinning('x', 1.5, settings);
    const ft = decay(twist.world, twist.b, twist.along, 5);
    const fs = decay(swing.world, swing.b, swing.along, 5);
    const { Bone } = twist.world.physik;
    const L = Bone.length[twist.b]!, Ix = Bone.inertia[twist.b * 3]!;
    const rate = 2 + (3 * L * L) / (2 * Ix);
    for (let i = 0; i < 5; i++) {
      expect(ft[i]).toBeCloseTo(1 / (1 + 0.05 * rate), 9);
      expect(fs[i]).toBeCloseTo(ft[i]!, 9);
    }
    // β alone (the end dampers sit on the axis) would have left it at 1 / (1 + β dt) a step
    expect(ft[0]!).toBeLessThan(0.5 / (1 + 0.05 * 2));
  });

  it('with β = 0 the end dampers alone still damp twist; halving (the paper) is left as it was', () => {
    const a = spinning('y', 1, { dampingAuto: false, damping: 3, angularDamping: 0 });
    const { Bone } = a.world.physik;
    const L = Bone.length[a.b]!, Ix = Bone.inertia[a.b * 3]!;
    expect(decay(a.world, a.b, a.along, 1)[0]).toBeCloseTo(1 / (1 + (0.05 * 3 * L * L) / (2 * Ix)), 9);
    const halve = spinning('y', 1, { dampingAuto: false, damping: 3, angularDampingMode: 'halve' });
    expect(decay(halve.world, halve.b, halve.along, 1)[0]).toBeCloseTo(0.5, 9);
  });

  it('implicit: however strong the damping and long the step, a twist only shrinks, never flips', () => {
    for (const [c, dt] of [[1e4, 0.5], [50, 0.2], [1e6, 0.05]] as const) {
      const { world, b, along } = spinning('y', 0.5, { dampingAuto: false, damping: c, angularDamping: 1, dt });
      for (const f of decay(world, b, along, 20)) {
        expect(f).toBeGreaterThan(0);
        expect(f).toBeLessThan(1);
      }
    }
  });
});

type Limits = NonNullable<BoneDescription['limits']>;

/** Pinned 2-bone chain with the child's joint frame turned away from the world's. */
function twoBone(limits: Limits, settings: Partial<Settings>, radius = 0.05) {
  const built = build({
    rig: {
      name: 'limb', root: 'pinned',
      bones: [
        { name: 'parent', parent: null, direction: [0.3, 1, -0.2], length: 1, head: [0.1, 0.2, 0.3] },
        { name: 'child', parent: 'parent', direction: [1, 2, 0.5], length: 0.8, radius, limits },
      ],
    },
    settings: { limitHardStop: false, ...settings },
  });
  return { ...built, child: built.handle.bones.child! };
}

/** Pose the child at `rel` relative to its rest pose in its joint frame. */
function poseChild(world: PhysikWorld, child: number, rel: Q): void {
  const { Bone } = world.physik;
  const frame = qMul(q4(Bone.rot, Bone.parent[child]!), q4(Bone.restLocal, child));
  copyDoubles(Bone.rot, child * 4, qMul(frame, rel));
  forwardKinematics(world);
}

/** The stiffness the springs use on x (swing) and y (twist) with the child posed past both limits. */
function stiffness(world: PhysikWorld, child: number): { swing: number; twist: number } {
  poseChild(world, child, qMul(qAxisAngle([1, 0, 0], 40 * DEG), qAxisAngle([0, 1, 0], 20 * DEG)));
  damping(world);
  torsionSprings(world);
  const { AngularLimit } = world.physik;
  return { swing: AngularLimit.k[child * 3]!, twist: AngularLimit.k[child * 3 + 1]! };
}

describe('twist limits', () => {
  const limits: Limits = { x: [-30, 30], y: [-10, 10], z: [-30, 30] };
  const noFloor: Partial<Settings> = { limitControlRatio: 0, limitStiffness: 100 };

  it("a twist limit's stiffness is κ × the bone's effective inertia about its own axis, a swing limit's about its head", () => {
    const { world, child } = twoBone(limits, noFloor);
    const k = stiffness(world, child);
    const { Bone } = world.physik;
    const s = world.physik.rigs[0]!.settings;
    const m = Bone.mass[child]!, L = Bone.length[child]!, c = Bone.damping[child]!;
    const Ix = Bone.inertia[child * 3]!, Iy = Bone.inertia[child * 3 + 1]!;
    const twistRate = s.angularDamping + (c * L * L) / (2 * Ix);
    expect(k.twist).toBeCloseTo(100 * Iy * (1 + twistRate * s.dt), 12);
    expect(k.swing).toBeCloseTo(100 * (Ix * (1 + s.angularDamping * s.dt) + 0.25 * m * L * L + c * s.dt * L * L), 12);
    // a thin bone: twist is far softer than swing, as what it turns is far lighter
    expect(k.twist).toBeLessThan(k.swing / 20);
  });

  it('twist stiffness follows the twist inertia (radius²); swing stiffness hardly moves', () => {
    const thin = twoBone(limits, noFloor, 0.03), thick = twoBone(limits, noFloor, 0.06);
    const a = stiffness(thin.world, thin.child), b = stiffness(thick.world, thick.child);
    const Ia = thin.world.physik.Bone.inertia[thin.child * 3 + 1]!, Ib = thick.world.physik.Bone.inertia[thick.child * 3 + 1]!;
    expect(Ib / Ia).toBeCloseTo(4, 9);
    expect(b.twist / a.twist).toBeGreaterThan(3);
    expect(b.swing / a.swing).toBeLessThan(1.1);
  });

  it("the control springs' floor is added to twist as to swing (it stands for the load a limit holds)", () => {
    const floored = twoBone(limits, { limitStiffness: 100, limitControlRatio: 0.05 });
    const bare = twoBone(limits, noFloor);
    const f = stiffness(floored.world, floored.child), n = stiffness(bare.world, bare.child);
    expect(f.twist - n.twist).toBeGreaterThan(0);
    expect(f.twist - n.twist).toBeCloseTo(f.swing - n.swing, 9);
  });

  it('the torque past a twist limit is the twist k × the excess, about the joint y axis', () => {
    const { world, child } = twoBone({ y: [-10, 10] }, noFloor);
    poseChild(world, child, qAxisAngle([0, 1, 0], 25 * DEG));
    damping(world);
    torsionSprings(world);
    const { Bone, AngularLimit } = world.physik;
    const t = v3(Bone.torque, child);
    expect(norm(t)).toBeCloseTo(AngularLimit.k[child * 3 + 1]! * 15 * DEG, 9);
    const axis = qRotate(qMul(q4(Bone.rot, Bone.parent[child]!), q4(Bone.restLocal, child)), [0, 1, 0]);
    expect(dot(t, axis)).toBeLessThan(-0.999999 * norm(t));
  });

  it("the limits' energy sums ½ k e² with each axis' own k", () => {
    const { world, child } = twoBone(limits, noFloor);
    const k = stiffness(world, child);
    const phi = new Float64Array(3);
    jointRotationVector(world, child, phi);
    const ex = phi[0]! - 30 * DEG, ey = phi[1]! - 10 * DEG;
    expect(ex).toBeGreaterThan(0);
    expect(ey).toBeGreaterThan(0);
    const out = new Float64Array(1);
    const rig = world.physik.rigs[0]!;
    limitSpringEnergy(world, rig, child, true, out, 0);
    expect(out[0]).toBeCloseTo(0.5 * k.swing * ex * ex + 0.5 * k.twist * ey * ey, 12);
    limitSpringEnergy(world, rig, child, false, out, 0);
    expect(out[0]).toBeCloseTo(0.5 * k.swing * ex * ex + 0.5 * k.twist * ey * ey, 12);
  });

  it('turned through 180°, the way round the springs take holds the lower weighted energy: no jump, and every reader takes the same way', () => {
    // asymmetric limits on a swing and the twist axis: the two ways round hold the same energy
    // unweighted at 180°, but not weighted by the axes' k (swing ≫ twist), so a choice by the
    // unweighted sum would make the energy jump there
    const { world, child } = twoBone({ x: [-20, 60], y: [-60, 20] }, noFloor);
    const rig = world.physik.rigs[0]!;
    const n: V3 = [Math.SQRT1_2, Math.SQRT1_2, 0];
    const out = new Float64Array(1), seen = new Float64Array(3);
    const { AngularLimit } = world.physik;
    let last = NaN, largest = 0, kx = 0;
    for (let deg = 160; deg <= 200; deg += 0.05) {
      poseChild(world, child, qAxisAngle(n, deg * DEG));
      damping(world);
      torsionSprings(world);
      kx = AngularLimit.k[child * 3]!;
      limitSpringEnergy(world, rig, child, true, out, 0);
      if (!Number.isNaN(last)) largest = Math.max(largest, Math.abs(out[0]! - last));
      last = out[0]!;
      limitRotationVector(world, child, seen);
      for (let a = 0; a < 3; a++) expect(seen[a]).toBeCloseTo(AngularLimit.angle[child * 3 + a]!, 12);
    }
    // a step of 0.05° moves the energy by at most k × (excess ≤ 2.3 rad) × 0.05° on each axis
    expect(largest).toBeLessThan(2 * kx * 2.3 * 0.05 * DEG);
  });
});

describe('the humanoid reach', () => {
  it('every goal within 5 mm at rest, no limit pressed past, the thighs untwisted', () => {
    const r = probeTwist('humanoid');
    expect(r.converged).toBe(true);
    for (const [name, e] of Object.entries(r.targetErrors)) expect(e, name).toBeLessThan(0.005);
    for (const [axis, past] of Object.entries(r.pressed)) expect(past, axis).toBeLessThan(0.1);
    expect(r.maxTwistDeg['thigh.L']!).toBeLessThan(5);
    expect(r.maxTwistDeg['thigh.R']!).toBeLessThan(5);
  });
});
