/**
 * Bézier-curve IK (systems/ik/bezier.ts): the paper's worked example (11 bones of 0.57, its C3
 * and bn) with the correct arc length, the paper's own figures traced to its derivative error,
 * the bones on the curve, and the solver: the user-rotated last bone honoured, out of reach,
 * limits, the neck and humanoid scenes.
 *
 * Numbers (paper's 3-decimal C3 and bn): arc-length λ = 3.8611, first tip (-0.0831, -0.0468,
 * 0.5620) at t = 0.1088; λ closing the 10 chords on C3 = 3.9797, first tip (-0.0772, -0.0427,
 * 0.5631). The paper's λ = 0.801 and first tip (-0.335, -0.251, 0.387) come from its
 * derivative whose C1 coefficient is 3 − 4t + 3t² (should be 3 − 12t + 9t²).
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { build, chainBones, dist, norm, cross, sub, type V3, v3, q4, qAxisAngle, qMul } from '../../../support/helpers';
import { setTarget, step, readMetrics } from '../../../../src/core';
import { loadSceneFile } from '../../../../src/scene/loadFile';
import { runScene } from '../../../../src/scene/run';
import { jointRotationVector } from '../../../../src/world/jointRotation';
import { createBezierProblem, curveLength, lambdaForChain, lambdaForLength, placeBones, setControls } from '../../../../systems/ik/bezierCurve';
import { copyDoubles } from '../../../../components/doubles';

const scenes = join(__dirname, '../../../../scenes');
const C3: V3 = [-3.448, -2.697, 2.657];
const BN: V3 = [-0.227, -0.313, 0.715];
const bones10 = new Float64Array(10).fill(0.57);

/** The paper's arc length: its derivative has 3 − 4t + 3t² for C1 (Simpson, 2000 intervals). */
function paperLength(lambda: number, c3: V3 = C3, bn: V3 = BN): number {
  const p = createBezierProblem([0, 0, 0], [0, 0, 0.57], c3, bn);
  setControls(p, lambda);
  const c = p.ctrl;
  const speed = (t: number) => {
    let s = 0;
    for (let a = 0; a < 3; a++) {
      const d = (-3 + 6 * t - 3 * t * t) * c[a]! + (3 - 4 * t + 3 * t * t) * c[3 + a]! + (6 * t - 9 * t * t) * c[6 + a]! + 3 * t * t * c[9 + a]!;
      s += d * d;
    }
    return Math.sqrt(s);
  };
  const N = 2000;
  let sum = speed(0) + speed(1);
  for (let i = 1; i < N; i++) sum += (i % 2 ? 4 : 2) * speed(i / N);
  return sum / (3 * N);
}

describe('the paper\'s worked example', () => {
  it('λ for the arc length 5.7 and the first bone\'s tip', () => {
    const p = createBezierProblem([0, 0, 0], [0, 0, 0.57], C3, BN);
    const lambda = lambdaForLength(p, 5.7);
    expect(lambda).toBeCloseTo(3.8611, 4);
    expect(curveLength(p, lambda)).toBeCloseTo(5.7, 10);
    const pts = new Float64Array(33), t = new Float64Array(10);
    placeBones(p, lambda, bones10, 10, pts, t);
    expect(t[0]).toBeCloseTo(0.1088, 4);
    expect(pts[3]).toBeCloseTo(-0.0831, 4);
    expect(pts[4]).toBeCloseTo(-0.0468, 4);
    expect(pts[5]).toBeCloseTo(0.5620, 4);
    expect(Math.hypot(pts[3]!, pts[4]!, pts[5]!)).toBeCloseTo(0.57, 12); // on the bone's sphere
  });

  it('closes the chain on C3 with λ = 3.9797 (the chords are shorter than the arc)', () => {
    const p = createBezierProblem([0, 0, 0], [0, 0, 0.57], C3, BN);
    const pts = new Float64Array(33);
    const arc = lambdaForLength(p, 5.7);
    expect(placeBones(p, arc, bones10, 10, pts)).toBeLessThan(0); // at the arc-length λ the chain runs out of curve
    const lambda = lambdaForChain(p, bones10, 10, pts, arc);
    expect(lambda).toBeCloseTo(3.9797, 4);
    expect(Math.abs(placeBones(p, lambda, bones10, 10, pts))).toBeLessThan(1e-9);
    expect(dist([pts[30]!, pts[31]!, pts[32]!], C3)).toBeLessThan(1e-9);
    for (let k = 0; k < 10; k++) expect(dist(pts.subarray(3 * k, 3 * k + 3), pts.subarray(3 * k + 3, 3 * k + 6))).toBeCloseTo(0.57, 10);
    expect(pts[3]).toBeCloseTo(-0.0772, 4);
    expect(pts[4]).toBeCloseTo(-0.0427, 4);
    expect(pts[5]).toBeCloseTo(0.5631, 4);
  });

  it('the paper\'s own figures (length 6.7161 at λ = 2, λ = 0.801, tip (-0.335, -0.251, 0.387)) follow from its derivative error', () => {
    // the precise C3 and bn of the paper's code (IK.py), which its figures were computed from
    const c3: V3 = [-3.44839, -2.69727, 2.65739], bn: V3 = [-0.227075, -0.312513, 0.715447];
    const p = createBezierProblem([0, 0, 0], [0, 0, 0.57], c3, bn);
    expect(curveLength(p, 2)).toBeCloseTo(5.3176, 4); // the true length
    expect(paperLength(2, c3, bn)).toBeCloseTo(6.7161, 4); // the paper's figure
    // λ from the paper's length function, by bisection
    let lo = 0, hi = 2;
    for (let i = 0; i < 60; i++) { const m = (lo + hi) / 2; if (paperLength(m, c3, bn) < 5.7) lo = m; else hi = m; }
    expect(lo).toBeCloseTo(0.801, 3);
    expect(curveLength(p, lo)).toBeCloseTo(5.169, 3); // whose true length is well short of 5.7
    const pts = new Float64Array(33), t = new Float64Array(10);
    placeBones(p, lo, bones10, 10, pts, t);
    expect(t[0]).toBeCloseTo(0.198, 3);
    expect(pts[3]).toBeCloseTo(-0.335, 3);
    expect(pts[4]).toBeCloseTo(-0.251, 3);
    expect(pts[5]).toBeCloseTo(0.387, 3);
    // with the correct length the same data give λ = 3.8579 (3.8611 with the rounded figures)
    expect(lambdaForLength(p, 5.7)).toBeCloseTo(3.8579, 4);
    // and the paper's λ = 2 curve has the signs of 3·C2's x and y flipped: 3·C2 = (-8.846, -6.025, 3.252)
    const q = createBezierProblem([0, 0, 0], [0, 0, 0.57], C3, BN);
    setControls(q, 2);
    expect(3 * q.ctrl[6]!).toBeCloseTo(-8.846, 3);
    expect(3 * q.ctrl[7]!).toBeCloseTo(-6.025, 3);
    expect(3 * q.ctrl[8]!).toBeCloseTo(3.252, 3);
  });

  it('reports the target out of reach when C0C3 is longer than the chain', () => {
    const p = createBezierProblem([0, 0, 0], [0, 0, 0.57], [6, 0, 0], BN);
    expect(lambdaForLength(p, 5.7)).toBe(-1);
  });
});

// ---------- the solver ----------

function neck() {
  // the neck scene's rig: 11 bones of 0.57 up from the origin, no limits
  const b = build({
    rig: { name: 'neck', root: 'pinned', bones: chainBones(11, { length: 0.57 }) },
    controlPoints: [{ name: 'tip', bone: 'b10' }],
    settings: { solver: 'bezier', interpolation: 'none' },
  });
  return b;
}

describe('bezier solver', () => {
  it('reaches the target with the last bone as the user left it', () => {
    const { world, handle, rig } = neck();
    const { Bone } = world.physik;
    const last = handle.bones['b10']!;
    // the animator turns the last bone (the paper's bn direction, Y-up), then moves its tip
    const q = qMul(qAxisAngle([1, 0, 0.4], 1.1), q4(Bone.rot, last));
    copyDoubles(Bone.rot, last * 4, q);
    const target: V3 = [-3.448, 2.657, 2.697];
    setTarget(world, handle.controlPoints['tip']!, target);
    step(world, 1);
    expect(dist(v3(Bone.tail, last), target)).toBeLessThan(1e-9);
    const after = q4(Bone.rot, last);
    for (let i = 0; i < 4; i++) expect(after[i]).toBeCloseTo(q[i]!, 12);
    const m = readMetrics(world, rig);
    expect(m.solveStatus).toBe('converged');
    expect(m.maxJointGap).toBeLessThan(1e-12);
    // a smooth curve: no joint bends more than 40°
    for (let i = 1; i < 10; i++) {
      const a = sub(v3(Bone.tail, handle.bones[`b${i - 1}`]!), v3(Bone.head, handle.bones[`b${i - 1}`]!));
      const b = sub(v3(Bone.tail, handle.bones[`b${i}`]!), v3(Bone.head, handle.bones[`b${i}`]!));
      expect(Math.atan2(norm(cross(a, b)), a[0] * b[0] + a[1] * b[1] + a[2] * b[2])).toBeLessThan((40 * Math.PI) / 180);
    }
  });

  it('follows a new manual rotation of the last bone on the next step', () => {
    const { world, handle } = neck();
    const { Bone } = world.physik;
    const last = handle.bones['b10']!;
    const target: V3 = [-2, 3, 1.5];
    setTarget(world, handle.controlPoints['tip']!, target);
    step(world, 1);
    const firstTip = v3(Bone.tail, handle.bones['b0']!);
    const q = qAxisAngle([0, 0, 1], 1.2);
    copyDoubles(Bone.rot, last * 4, q);
    step(world, 1);
    expect(dist(v3(Bone.tail, last), target)).toBeLessThan(1e-9);
    expect(q4(Bone.rot, last).map((x, i) => Math.abs(x - q[i]!)).every((d) => d < 1e-12)).toBe(true);
    expect(dist(v3(Bone.tail, handle.bones['b0']!), firstTip)).toBeGreaterThan(1e-3); // the chain re-fitted
  });

  it('points the chain straight at a head target out of reach (stalled)', () => {
    const { world, handle, rig } = neck();
    const { Bone } = world.physik;
    setTarget(world, handle.controlPoints['tip']!, [8, 0.57, 0]);
    step(world, 1);
    const headOfLast = v3(Bone.head, handle.bones['b10']!);
    expect(norm(headOfLast)).toBeCloseTo(5.7, 9);
    expect(norm(cross(headOfLast, sub([8, 0.57, 0], [0, 0.57, 0])))).toBeLessThan(1e-6);
    expect(readMetrics(world, rig).solveStatus).toBe('stalled');
  });

  it('meets the neck scene (with its limits) and runs the humanoid scene finite', () => {
    const neckRun = runScene(loadSceneFile(join(scenes, 'neck.json')), { settings: { solver: 'bezier' } });
    expect(neckRun.finite).toBe(true);
    expect(neckRun.targetErrors['tip']).toBeLessThan(1e-6);
    const human = runScene(loadSceneFile(join(scenes, 'humanoid.json')), { settings: { solver: 'bezier' } });
    expect(human.finite).toBe(true);
    expect(human.divergedSteps).toBe(0);
    expect(human.maxTargetError).toBeLessThan(0.01);
  });

  it('clamps the fitted chain to its limits', () => {
    const { world, handle, rig } = build({
      rig: { name: 'neck', root: 'pinned', bones: chainBones(11, { length: 0.57, limits: { x: [-10, 10], y: [0, 0], z: [-10, 10] } }) },
      controlPoints: [{ name: 'tip', bone: 'b10' }],
      settings: { solver: 'bezier', interpolation: 'none' },
    });
    setTarget(world, handle.controlPoints['tip']!, [-3, 2, 1]);
    step(world, 1);
    const m = readMetrics(world, rig);
    // every fitted bone is within its limits (the last bone, kept as rotated, is not clamped)
    const phi = new Float64Array(3);
    for (let i = 1; i <= 9; i++) {
      jointRotationVector(world, handle.bones[`b${i}`]!, phi);
      expect(Math.abs(phi[0]!)).toBeLessThanOrEqual((10 * Math.PI) / 180 + 1e-9);
      expect(Math.abs(phi[1]!)).toBeLessThanOrEqual(1e-9);
      expect(Math.abs(phi[2]!)).toBeLessThanOrEqual((10 * Math.PI) / 180 + 1e-9);
    }
    expect(m.solveStatus).toBe('stalled');
  });
});
