/**
 * Torsion springs for angular limits (PhysIK section 3.2, fig. 3): a bone rotated past a
 * limit about a joint axis gets a torque along that axis that turns it back, and its parent
 * gets the opposite torque; inside the limits nothing happens. Poses are set directly in
 * `Bone.rot` (then forward kinematics), with zero velocities, and the torques are read from
 * `Bone.torque` after damping + torsionSprings.
 */
import { describe, expect, it } from 'vitest';
import { addRig, createPhysikWorld, readMetrics, setSettings, setTarget, step, type PhysikWorld } from '../../../src/core';
import type { BoneDescription } from '../../../src/scene/types';
import { damping } from '../../../systems/damping';
import { limitRotationVector, torsionSprings } from '../../../systems/torsionSprings';
import { jointRotationVector } from '../../../src/world/jointRotation';
import { forwardKinematics } from '../../../systems/forwardKinematics';
import { rigMeasures, metrics } from '../../../systems/metrics';
import { build, cross, DEG, dot, norm, q4, qAxisAngle, qMul, qRotate, scale, sub, v3, type Q, type V3 } from '../../support/helpers';
import { copyDoubles } from '../../../components/doubles';

type Limits = NonNullable<BoneDescription['limits']>;

/**
 * Pinned 2-bone chain: a tilted parent and a child whose rest direction is not the parent's,
 * so the joint frame is not the world frame.
 */
function twoBone(limits: Limits, opts: { parentDirection?: V3; childDirection?: V3; settings?: object; limitStiffness?: number } = {}) {
  const child: BoneDescription = { name: 'child', parent: 'parent', direction: opts.childDirection ?? [1, 2, 0.5], length: 0.8, limits };
  if (opts.limitStiffness !== undefined) child.limitStiffness = opts.limitStiffness;
  const built = build({
    rig: {
      name: 'limb',
      root: 'pinned',
      bones: [{ name: 'parent', parent: null, direction: opts.parentDirection ?? [0.3, 1, -0.2], length: 1, head: [0.1, 0.2, 0.3] }, child],
    },
    // the spring law alone: the hard stop past its band is tested on its own below
    settings: { limitHardStop: false, ...(opts.settings ?? {}) },
  });
  return { ...built, parent: built.handle.bones.parent!, child: built.handle.bones.child! };
}

/** The joint frame of `child` in world: parent world rotation · child rest local rotation. */
function jointFrame(world: PhysikWorld, child: number): Q {
  const { Bone } = world.physik;
  return qMul(q4(Bone.rot, Bone.parent[child]!), q4(Bone.restLocal, child));
}

/** Pose the child at rotation `rel` (in the joint frame, relative to rest) and recompute positions. */
function poseChild(world: PhysikWorld, child: number, rel: Q): void {
  const { Bone } = world.physik;
  copyDoubles(Bone.rot, child * 4, qMul(jointFrame(world, child), rel));
  forwardKinematics(world);
}

/** Torques after damping (clears forces; zero velocities give zero damping) and torsion springs. */
function torsionTorques(world: PhysikWorld, parent: number, child: number): { child: V3; parent: V3 } {
  damping(world);
  torsionSprings(world);
  const { Bone } = world.physik;
  return { child: v3(Bone.torque, child), parent: v3(Bone.torque, parent) };
}

const AXES: Record<'x' | 'y' | 'z', V3> = { x: [1, 0, 0], y: [0, 1, 0], z: [0, 0, 1] };

/** World direction of joint-frame axis `a` of `child`. */
const jointAxis = (world: PhysikWorld, child: number, a: 'x' | 'y' | 'z'): V3 => qRotate(jointFrame(world, child), AXES[a]);

function expectAlong(t: V3, axis: V3, sign: 1 | -1): void {
  expect(norm(t)).toBeGreaterThan(0);
  // parallel to the axis (no component off it) ...
  expect(norm(cross(t, axis))).toBeLessThan(1e-9 * norm(t));
  // ... and pointing the stated way
  expect(Math.sign(dot(t, axis))).toBe(sign);
}

describe('torsion springs', () => {
  it('past the max about x: torque on the child along the joint x axis, turning it back; the parent gets the negative', () => {
    const { world, parent, child } = twoBone({ x: [-30, 45] });
    poseChild(world, child, qAxisAngle([1, 0, 0], 60 * DEG));
    const t = torsionTorques(world, parent, child);
    const axis = jointAxis(world, child, 'x');
    expectAlong(t.child, axis, -1);
    expect(norm(sub(t.parent, scale(t.child, -1)))).toBeLessThan(1e-12 * norm(t.child));
    // magnitude: k × excess (k is the stiffness reported for the axis)
    const { AngularLimit } = world.physik;
    expect(AngularLimit.angle[child * 3]).toBeCloseTo(60 * DEG, 12);
    const k = AngularLimit.k[child * 3]!;
    expect(k).toBeGreaterThan(0);
    expect(norm(t.child)).toBeCloseTo(k * 15 * DEG, 9);
  });

  it('past the min about x: the torque points the other way', () => {
    const { world, parent, child } = twoBone({ x: [-30, 45] });
    poseChild(world, child, qAxisAngle([1, 0, 0], -50 * DEG));
    const t = torsionTorques(world, parent, child);
    expectAlong(t.child, jointAxis(world, child, 'x'), 1);
    expect(norm(sub(t.parent, scale(t.child, -1)))).toBeLessThan(1e-12 * norm(t.child));
    expect(norm(t.child)).toBeCloseTo(world.physik.AngularLimit.k[child * 3]! * 20 * DEG, 9);
  });

  it('with an absolute stiffness the torque is exactly kappa × excess', () => {
    const { world, parent, child } = twoBone({ x: [-30, 45] }, { settings: { limitStiffnessAbsolute: true, limitStiffness: 7 } });
    poseChild(world, child, qAxisAngle([1, 0, 0], 55 * DEG));
    const t = torsionTorques(world, parent, child);
    expect(norm(t.child)).toBeCloseTo(7 * 10 * DEG, 12);
    // a per-bone stiffness overrides the rig's
    const b = twoBone({ x: [-30, 45] }, { settings: { limitStiffnessAbsolute: true, limitStiffness: 7 }, limitStiffness: 3 });
    poseChild(b.world, b.child, qAxisAngle([1, 0, 0], 55 * DEG));
    expect(norm(torsionTorques(b.world, b.parent, b.child).child)).toBeCloseTo(3 * 10 * DEG, 12);
  });

  it('hard stop: past the limit + limitHardStopDeg the torque grows 50 times as steeply', () => {
    const settings = { limitStiffnessAbsolute: true, limitStiffness: 7, limitHardStop: true, limitHardStopDeg: 5 };
    const torqueAt = (deg: number) => {
      const { world, parent, child } = twoBone({ x: [-30, 45] }, { settings });
      poseChild(world, child, qAxisAngle([1, 0, 0], deg * DEG));
      return norm(torsionTorques(world, parent, child).child);
    };
    expect(torqueAt(48)).toBeCloseTo(7 * 3 * DEG, 12); // inside the band: the spring alone
    expect(torqueAt(55)).toBeCloseTo(7 * 10 * DEG + 49 * 7 * 5 * DEG, 10);
    expect(torqueAt(56) - torqueAt(55)).toBeCloseTo(50 * 7 * DEG, 10);
  });

  it('the torque turns the bone back: stepping from past the limit returns it to the limit', () => {
    // y and z fixed, so the joint is a hinge about x (with free axes the bone may wander off in them)
    // the paper's damping (with automatic damping the light bone bounces a little way back in)
    const { world, child } = twoBone({ x: [-30, 45], y: [0, 0], z: [0, 0] }, { settings: { damping: 20 } });
    poseChild(world, child, qAxisAngle([1, 0, 0], 70 * DEG));
    const angles: number[] = [];
    const phi = new Float64Array(3);
    for (let i = 0; i < 40; i++) {
      step(world);
      jointRotationVector(world, child, phi);
      angles.push(phi[0]!);
    }
    expect(angles[0]!).toBeLessThan(70 * DEG);
    // monotonic return, no overshoot back through the range
    for (let i = 1; i < angles.length; i++) expect(angles[i]!).toBeLessThanOrEqual(angles[i - 1]! + 1e-9);
    expect(angles[39]!).toBeLessThan(45 * DEG + 1 * DEG);
    expect(angles[39]!).toBeGreaterThan(44 * DEG);
    expect(readMetrics(world, world.physik.rigs[0]!.eid).maxLimitViolationDeg).toBeLessThan(2);
  });

  it('inside the limits the torque is zero', () => {
    const { world, parent, child } = twoBone({ x: [-30, 45], y: [-10, 10], z: [-20, 20] });
    // rotation vector (40°, -8°, 15°) in the joint frame: every component inside its range
    const phi: V3 = [40 * DEG, -8 * DEG, 15 * DEG];
    poseChild(world, child, qAxisAngle(phi, norm(phi)));
    const t = torsionTorques(world, parent, child);
    const { AngularLimit } = world.physik;
    for (let a = 0; a < 3; a++) expect(AngularLimit.angle[child * 3 + a]).toBeCloseTo(phi[a]!, 12);
    expect(norm(t.child)).toBe(0);
    expect(norm(t.parent)).toBe(0);
  });

  it('a fixed axis ([0, 0]) pushes back from either side', () => {
    for (const sign of [1, -1] as const) {
      const { world, parent, child } = twoBone({ z: [0, 0] });
      poseChild(world, child, qAxisAngle([0, 0, 1], sign * 5 * DEG));
      const t = torsionTorques(world, parent, child);
      expectAlong(t.child, jointAxis(world, child, 'z'), sign === 1 ? -1 : 1);
      expect(norm(sub(t.parent, scale(t.child, -1)))).toBeLessThan(1e-12 * norm(t.child));
      expect(norm(t.child)).toBeCloseTo(world.physik.AngularLimit.k[child * 3 + 2]! * 5 * DEG, 9);
    }
  });

  it('only the limited axis is pushed: a rotation about a free axis adds nothing', () => {
    const { world, parent, child } = twoBone({ z: [0, 0] });
    poseChild(world, child, qAxisAngle([1, 0, 0], 80 * DEG));
    expect(norm(torsionTorques(world, parent, child).child)).toBeLessThan(1e-12);
  });

  for (const restDeg of [179, -179]) {
    it(`a rest rotation of ${restDeg}° about z, turned 2° further, reads as a 2° excess (not ∓358°)`, () => {
      const s = Math.sign(restDeg);
      // limit on the far side of the rest pose: [-10, 0] for +179, [0, 10] for -179
      const limits: Limits = { z: s > 0 ? [-10, 0] : [0, 10] };
      const r = restDeg * DEG;
      // rest direction: +Y turned by restDeg about z (the parent points along +Y)
      const { world, parent, child } = twoBone(limits, { parentDirection: [0, 1, 0], childDirection: [-Math.sin(r), Math.cos(r), 0] });
      const { Bone, AngularLimit } = world.physik;
      const restLocal = q4(Bone.restLocal, child);
      // the rest local rotation is restDeg about z
      const restAngle = 2 * Math.atan2(Math.hypot(restLocal[0], restLocal[1], restLocal[2]), restLocal[3]);
      expect(restAngle).toBeCloseTo(179 * DEG, 9);
      expect(Math.sign(restLocal[2] * restLocal[3])).toBe(s);

      poseChild(world, child, qAxisAngle([0, 0, 1], s * 2 * DEG));
      const t = torsionTorques(world, parent, child);
      expect(AngularLimit.angle[child * 3 + 2]).toBeCloseTo(s * 2 * DEG, 9);
      expectAlong(t.child, jointAxis(world, child, 'z'), s > 0 ? -1 : 1);
      expect(norm(t.child)).toBeCloseTo(AngularLimit.k[child * 3 + 2]! * 2 * DEG, 9);
      rigMeasures(world);
      metrics(world);
      expect(readMetrics(world, world.physik.rigs[0]!.eid).maxLimitViolationDeg).toBeCloseTo(2, 6);
    });
  }

  it("capped spring ('capped'): the torque is at most k × limitCapDeg, and equals the linear one below the cap", () => {
    const torqueAt = (spring: 'linear' | 'capped', deg: number) => {
      const { world, parent, child } = twoBone({ x: [-30, 45] }, { settings: { limitSpring: spring, limitCapDeg: 30 } });
      poseChild(world, child, qAxisAngle([1, 0, 0], deg * DEG));
      const t = torsionTorques(world, parent, child);
      return { t, k: world.physik.AngularLimit.k[child * 3]!, axis: jointAxis(world, child, 'x') };
    };
    // 70° past the max
    const lin = torqueAt('linear', 115), cap = torqueAt('capped', 115);
    expect(norm(lin.t.child)).toBeCloseTo(lin.k * 70 * DEG, 9);
    expect(norm(cap.t.child)).toBeCloseTo(cap.k * 30 * DEG, 9);
    expectAlong(cap.t.child, cap.axis, -1);
    expect(norm(sub(cap.t.parent, scale(cap.t.child, -1)))).toBeLessThan(1e-12 * norm(cap.t.child));
    // 10° past: under the cap, same as linear
    const lin10 = torqueAt('linear', 55), cap10 = torqueAt('capped', 55);
    expect(norm(cap10.t.child)).toBeCloseTo(norm(lin10.t.child), 12);
    expect(norm(cap10.t.child)).toBeCloseTo(cap10.k * 10 * DEG, 9);
  });

  it('limit held in simulation: an elbow pulled to bend past its limit stays within a few degrees', () => {
    const arm = (spring: 'linear' | 'capped') => {
      const built = build({
        rig: {
          name: 'arm',
          root: 'pinned',
          bones: [
            { name: 'upper', parent: null, direction: [0, 1, 0], length: 1, head: [0, 0, 0] },
            { name: 'lower', parent: 'upper', direction: [0, 1, 0], length: 1, limits: { x: [0, 0], y: [0, 0], z: [0, 90] } },
          ],
        },
        controlPoints: [{ name: 'hand', bone: 'lower', spring }],
        // the paper's damping: with automatic damping the arm, its elbow pressed, takes longer
        // than 400 steps to stop turning about the shoulder (a nearly neutral direction)
        settings: { damping: 20 },
      });
      // the hand 0.5 from the shoulder needs a 151° bend; the limit allows 90°
      setTarget(built.world, built.handle.controlPoints.hand!, [-0.3, 0.4, 0]);
      let peak = 0;
      for (let i = 0; i < 400; i++) {
        step(built.world);
        peak = Math.max(peak, readMetrics(built.world, built.rig).maxLimitViolationDeg);
      }
      const bend = built.world.physik.AngularLimit.angle[built.handle.bones.lower! * 3 + 2]! / DEG;
      return { peak, final: readMetrics(built.world, built.rig), bend };
    };
    const capped = arm('capped');
    expect(capped.bend).toBeGreaterThan(85); // the limit is really being pushed
    expect(capped.final.maxLimitViolationDeg).toBeGreaterThan(0);
    expect(capped.final.maxLimitViolationDeg).toBeLessThan(6);
    expect(capped.peak).toBeLessThan(6);
    expect(capped.final.atRest).toBe(true);
    // the paper's fig. 6: a linear control spring stresses the limit more than a capped one
    const linear = arm('linear');
    expect(linear.final.maxLimitViolationDeg).toBeGreaterThan(capped.final.maxLimitViolationDeg);
    expect(linear.peak).toBeLessThan(10);
  });

  it('raising the limit stiffness holds the limit tighter', () => {
    const violation = (kappa: number) => {
      const built = build({
        rig: {
          name: 'arm',
          root: 'pinned',
          bones: [
            { name: 'upper', parent: null, direction: [0, 1, 0], length: 1, head: [0, 0, 0] },
            { name: 'lower', parent: 'upper', direction: [0, 1, 0], length: 1, limits: { z: [0, 90] } },
          ],
        },
        controlPoints: [{ name: 'hand', bone: 'lower' }],
      });
      setSettings(built.world, built.rig, { limitStiffness: kappa });
      setTarget(built.world, built.handle.controlPoints.hand!, [-0.3, 0.4, 0]);
      step(built.world, 400);
      return readMetrics(built.world, built.rig).maxLimitViolationDeg;
    };
    expect(violation(400)).toBeLessThan(violation(100));
  });
});

describe('limits the step would pass', () => {
  it('a light toe on a foot swung hard stays within its stiff limit: the step catches what its start did not see', () => {
    // (the captured walk's case: a joint just inside its limit, not moving toward it, flung
    // past it within one step by its parent; 52° past without the catch, measured)
    const world = createPhysikWorld();
    const h = addRig(world, {
      rig: { name: 'leg', root: 'pinned', bones: [
        { name: 'shin', parent: null, direction: [0, -1, 0], length: 0.4, head: [0, 0, 0] },
        { name: 'foot', parent: 'shin', direction: [0, -0.3, 1], length: 0.2 },
        { name: 'toe', parent: 'foot', direction: [0, 0, 1], length: 0.05, mass: 0.01, limits: { x: [-30, 30], y: [-5, 5], z: [-10, 10] } },
      ] },
      controlPoints: [{ name: 'heel', bone: 'foot', at: 1, stiffness: 3000, spring: 'linear' }],
      settings: { dt: 1 / 120, limitStiffness: 1e5, sleepWhenConverged: false, interpolation: 'none', dampingAuto: false, damping: 0 },
    });
    const phi = new Float64Array(3), L = world.physik.AngularLimit, toe = h.bones.toe!;
    let worst = 0;
    for (let i = 0; i < 600; i++) {
      const t = i / 120;
      setTarget(world, h.controlPoints.heel!, [0.08 * Math.sin(5 * t), -0.45 + 0.05 * Math.cos(4 * t), 0.1 * Math.cos(5 * t)]);
      step(world);
      limitRotationVector(world, toe, phi);
      for (let a = 0; a < 3; a++) worst = Math.max(worst, Math.max(phi[a]! - L.max[toe * 3 + a]!, L.min[toe * 3 + a]! - phi[a]!, 0) / DEG);
    }
    // measured 0.28°
    expect(worst).toBeLessThan(1);
  });
});
