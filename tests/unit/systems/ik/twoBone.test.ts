/**
 * Two-bone IK (systems/ik/twoBone.ts): the 2D closed form (reach, bend direction, validity
 * flag, closest reach, zero-length bones), and the solver on rigs: targets reached in 3D, the
 * bend plane from a pole or from the current bend without flips, hinge limits kept, the error
 * for a goal on the root, and the humanoid scene.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { build, dist, norm, sub, cross, dot, v3, type V3 } from '../../../support/helpers';
import { setTarget, step, readMetrics, readPose } from '../../../../src/core';
import { STATUS_DIVERGED } from '../../../../components/Rig';
import { loadSceneFile } from '../../../../src/scene/loadFile';
import { runScene } from '../../../../src/scene/run';
import { twoBoneSolve } from '../../../../systems/ik/twoBone';
import { twoBoneAngles2D, twoBonePositions3D } from '../../../../systems/ik/twoBoneClosedForm';
import type { BoneDescription, ControlPointDescription, Settings } from '../../../../src/scene/types';

const scenes = join(__dirname, '../../../../scenes');

/** End of the 2D chain for angles a1, a2. */
function end2D(l1: number, l2: number, a1: number, a2: number): [number, number] {
  return [l1 * Math.cos(a1) + l2 * Math.cos(a1 + a2), l1 * Math.sin(a1) + l2 * Math.sin(a1 + a2)];
}

describe('twoBoneAngles2D', () => {
  const out = new Float64Array(2);

  it('reaches reachable targets in every quadrant, bending the asked way', () => {
    for (const [x, y] of [[1.2, 0.5], [-0.9, 0.7], [-0.4, -1.3], [0.8, -0.2], [0, 1]] as const) {
      for (const positive of [true, false]) {
        const valid = twoBoneAngles2D(out, 0, 1, 0.8, x, y, positive);
        expect(valid).toBe(true);
        const [ex, ey] = end2D(1, 0.8, out[0]!, out[1]!);
        expect(Math.hypot(ex - x, ey - y)).toBeLessThan(1e-12);
        expect(Math.sign(out[1]!)).toBe(positive ? 1 : -1);
      }
    }
  });

  it('flags a target too far and points straight at it', () => {
    const valid = twoBoneAngles2D(out, 0, 1, 0.8, 3, 4, true);
    expect(valid).toBe(false);
    expect(out[1]).toBeCloseTo(0, 12);
    expect(out[0]).toBeCloseTo(Math.atan2(4, 3), 12);
    const [ex, ey] = end2D(1, 0.8, out[0]!, out[1]!);
    expect(Math.hypot(ex, ey)).toBeCloseTo(1.8, 12); // closest reach: full extension toward the target
  });

  it('flags a target too close and folds toward it', () => {
    const valid = twoBoneAngles2D(out, 0, 1, 0.4, 0.1, 0.1, false);
    expect(valid).toBe(false);
    expect(Math.abs(out[1]!)).toBeCloseTo(Math.PI, 12);
    const [ex, ey] = end2D(1, 0.4, out[0]!, out[1]!);
    expect(Math.hypot(ex, ey)).toBeCloseTo(0.6, 12); // |l1 − l2|
    expect(Math.atan2(ey, ex)).toBeCloseTo(Math.atan2(0.1, 0.1), 12); // along the target's direction
  });

  it('handles zero-length bones: the reachable set is a circle', () => {
    expect(twoBoneAngles2D(out, 0, 0, 1, 0.6, 0.8, true)).toBe(true);
    expect(out[1]).toBe(0);
    expect(out[0]).toBeCloseTo(Math.atan2(0.8, 0.6), 12);
    expect(twoBoneAngles2D(out, 0, 1, 0, 0.3, 0.4, true)).toBe(false); // |t| = 0.5 ≠ 1
    expect(out[0]).toBeCloseTo(Math.atan2(0.4, 0.3), 12);
    expect(twoBoneAngles2D(out, 0, 0, 0, 0, 0, true)).toBe(true);
    expect(Number.isFinite(out[0]!) && Number.isFinite(out[1]!)).toBe(true);
  });

  it('places the 3D elbow so the bend is a positive rotation about the given normal', () => {
    const o = new Float64Array(6);
    // inputs: S, W, N, fallback direction, l1, l2
    const valid = twoBonePositions3D(o, 0, Float64Array.of(0, 0, 0, 1, 1, 0.5, 0, 0, 1, 1, 0, 0, 1, 1), 0);
    expect(valid).toBe(true);
    const E: V3 = [o[0]!, o[1]!, o[2]!], F: V3 = [o[3]!, o[4]!, o[5]!];
    expect(norm(E)).toBeCloseTo(1, 12);
    expect(dist(E, F)).toBeCloseTo(1, 12);
    expect(dist(F, [1, 1, 0.5])).toBeLessThan(1e-12);
    const n = cross(E, sub(F, E));
    expect(dot(n, [0, 0, 1])).toBeGreaterThan(0);
  });
});

// ---------- the solver on rigs ----------

function arm(limits?: BoneDescription['limits'], settings: Partial<Settings> = {}, extra: ControlPointDescription[] = []) {
  const b = build({
    rig: {
      name: 'arm', root: 'pinned', bones: [
        { name: 'upper', parent: null, direction: [1, 0, 0], length: 0.3, head: [0, 0, 0] },
        { name: 'forearm', parent: 'upper', direction: [1, 0, 0], length: 0.28, ...(limits ? { limits } : {}) },
      ],
    },
    controlPoints: [{ name: 'hand', bone: 'forearm', at: 1 }, ...extra],
    settings: { solver: 'twoBone', interpolation: 'none', ...settings },
  });
  return b;
}

const elbowOf = (world: ReturnType<typeof arm>['world'], h: ReturnType<typeof arm>['handle']) => v3(world.physik.Bone.head, h.bones['forearm']!);
const handOf = (world: ReturnType<typeof arm>['world'], h: ReturnType<typeof arm>['handle']) => v3(world.physik.Bone.tail, h.bones['forearm']!);

describe('twoBone solver', () => {
  it('reaches reachable 3D targets in one step and reports converged', () => {
    const { world, handle, rig } = arm();
    for (const t of [[0.35, 0.3, 0.2], [0.1, 0.3, 0.35], [-0.2, 0.1, 0.3], [0, -0.4, 0.1]] as V3[]) {
      setTarget(world, handle.controlPoints['hand']!, t);
      step(world, 1);
      expect(dist(handOf(world, handle), t)).toBeLessThan(1e-9);
      expect(readMetrics(world, rig).solveStatus).toBe('converged');
      expect(readMetrics(world, rig).maxJointGap).toBeLessThan(1e-12);
    }
  });

  it('bends the other way with bendDirection negative', () => {
    const pos = arm(), neg = arm(undefined, { bendDirection: 'negative' });
    for (const a of [pos, neg]) { setTarget(a.world, a.handle.controlPoints['hand']!, [0.3, 0.2, 0]); step(a.world, 1); }
    const ep = elbowOf(pos.world, pos.handle), en = elbowOf(neg.world, neg.handle);
    expect(dist(handOf(pos.world, pos.handle), [0.3, 0.2, 0])).toBeLessThan(1e-9);
    expect(dist(handOf(neg.world, neg.handle), [0.3, 0.2, 0])).toBeLessThan(1e-9);
    // mirror images about the shoulder–hand line
    const u = [0.3 / Math.hypot(0.3, 0.2), 0.2 / Math.hypot(0.3, 0.2), 0];
    const side = (e: V3) => sub(e, [u[0]! * dot(e, u), u[1]! * dot(e, u), 0]);
    expect(dot(side(ep), side(en))).toBeLessThan(0);
  });

  it('points straight at an unreachable target and reports stalled', () => {
    const { world, handle, rig } = arm();
    setTarget(world, handle.controlPoints['hand']!, [1, 1, 0]);
    step(world, 1);
    const e = elbowOf(world, handle), h = handOf(world, handle);
    expect(norm(h)).toBeCloseTo(0.58, 9);
    expect(norm(cross(h, [1, 1, 0]))).toBeLessThan(1e-9);
    expect(norm(cross(e, [1, 1, 0]))).toBeLessThan(1e-9);
    expect(readMetrics(world, rig).solveStatus).toBe('stalled');
  });

  it('keeps a hinge elbow inside its limits and still reaches (the arm scene targets)', () => {
    const { world, handle, rig } = arm({ x: [0, 0], y: [0, 0], z: [0, 150] });
    for (const t of [[0.35, 0.3, 0.2], [0.1, 0.3, 0.35], [-0.2, 0.1, 0.3]] as V3[]) {
      setTarget(world, handle.controlPoints['hand']!, t);
      step(world, 1);
      const m = readMetrics(world, rig);
      expect(m.maxLimitViolationDeg).toBeLessThan(1e-6);
      expect(dist(handOf(world, handle), t)).toBeLessThan(1e-9);
    }
  });

  it('bends toward a pole, and does not flip when the target crosses the pole axis', () => {
    const { world, handle } = arm(undefined, {}, [{ name: 'pole', bone: 'forearm', role: 'pole', target: [0.2, 0, 1] }]);
    const cp = handle.controlPoints['hand']!;
    // target moves along x through the pole axis (the line shoulder → pole, direction (0.2, 0, 1))
    let lastSide: V3 | null = null;
    let maxTurnDeg = 0;
    const path: V3[] = [];
    for (let k = 0; k <= 40; k++) path.push([0.1 + 0.3 * (k / 40) - 0.15, 0, 0.4]); // x from -0.05 to 0.25, crosses x = 0.08
    for (const t of path) {
      setTarget(world, cp, t);
      step(world, 1);
      expect(dist(handOf(world, handle), t)).toBeLessThan(1e-9);
      const e = elbowOf(world, handle);
      const u = sub(t, [0, 0, 0]), un = norm(u);
      const side = sub(e, [u[0] * dot(e, u) / un / un, u[1] * dot(e, u) / un / un, u[2] * dot(e, u) / un / un]);
      const s = side.map((x) => x / norm(side)) as V3;
      if (lastSide) maxTurnDeg = Math.max(maxTurnDeg, (Math.acos(Math.min(1, dot(s, lastSide))) * 180) / Math.PI);
      else {
        // first pose: the elbow is on the pole's side of the reach line
        const pole: V3 = [0.2, 0, 1];
        const pside = sub(pole, [u[0] * dot(pole, u) / un / un, u[1] * dot(pole, u) / un / un, u[2] * dot(pole, u) / un / un]);
        expect(dot(s, pside)).toBeGreaterThan(0);
      }
      lastSide = s;
    }
    expect(maxTurnDeg).toBeLessThan(20); // a flip would be ~180°
    // the pole's side reversed as the target crossed its axis; the elbow stayed where it was
    const t = path[path.length - 1]!, un = norm(t), pole: V3 = [0.2, 0, 1];
    const pside = sub(pole, t.map((x) => (x * dot(pole, t)) / un / un) as V3);
    expect(dot(lastSide!, pside)).toBeLessThan(0);
  });

  it('keeps a stable default plane (no flip) as the target circles the shoulder', () => {
    const { world, handle } = arm();
    const cp = handle.controlPoints['hand']!;
    let last: V3 | null = null, maxTurn = 0;
    for (let k = 0; k <= 120; k++) {
      const a = (k / 120) * 2 * Math.PI;
      const t: V3 = [0.4 * Math.cos(a), 0.4 * Math.sin(a), 0.1 * Math.sin(2 * a)];
      setTarget(world, cp, t);
      step(world, 1);
      expect(dist(handOf(world, handle), t)).toBeLessThan(1e-9);
      const e = elbowOf(world, handle), h = handOf(world, handle);
      const n = cross(e, sub(h, e));
      const nn = n.map((x) => x / norm(n)) as V3;
      if (last) maxTurn = Math.max(maxTurn, Math.acos(Math.min(1, dot(nn, last))));
      last = nn;
    }
    expect((maxTurn * 180) / Math.PI).toBeLessThan(15);
  });

  describe('a target exactly on the reversed reach (the reach turns by 180 degrees)', () => {
    /** An arm of two bones along d1 and d2 from the origin, the hand at the forearm's tail. */
    const rig = (d1: V3, d2: V3, settings: Partial<Settings> = {}, extra: ControlPointDescription[] = []) => build({
      rig: {
        name: 'arm', root: 'pinned', bones: [
          { name: 'upper', parent: null, direction: d1, length: 0.3, head: [0, 0, 0] },
          { name: 'forearm', parent: 'upper', direction: d2, length: 0.28 },
        ],
      },
      controlPoints: [{ name: 'hand', bone: 'forearm', at: 1 }, ...extra],
      settings: { solver: 'twoBone', interpolation: 'none', ...settings },
    });
    type Arm = ReturnType<typeof rig>;
    const bendNormal = (a: Arm): V3 => {
      const e = elbowOf(a.world, a.handle), n = cross(e, sub(handOf(a.world, a.handle), e));
      return n.map((x) => x / norm(n)) as V3;
    };
    /** Target 0.4 from the shoulder opposite the current hand, turned by `turn` rad about `axis`. */
    const reversed = (a: Arm, axis: V3, turn = 0): V3 => {
      const h = handOf(a.world, a.handle), s = -0.4 / norm(h);
      const t: V3 = [h[0] * s, h[1] * s, h[2] * s];
      const c = Math.cos(turn), sn = Math.sin(turn), k = cross(axis, t), kd = dot(axis, t);
      return turn === 0 ? t : (t.map((x, i) => x * c + k[i]! * sn + axis[i]! * kd * (1 - c)) as V3);
    };
    /** Solve for the reversed target (turned by `turn` in the bend plane) and return the bend normal. */
    const solveReversed = (make: () => Arm, first: V3 | null, axis: (a: Arm) => V3, turn: number): V3 => {
      const a = make();
      const cp = a.handle.controlPoints['hand']!;
      if (first) { setTarget(a.world, cp, first); step(a.world, 1); }
      const t = reversed(a, axis(a), turn);
      setTarget(a.world, cp, t);
      step(a.world, 1);
      expect(dist(handOf(a.world, a.handle), t)).toBeLessThan(1e-9);
      return bendNormal(a);
    };

    it('bends the way bendDirection asks from a straight arm, as for targets just beside it', () => {
      const z: V3 = [0, 0, 1];
      for (const dir of [[1, 0, 0], [1, 1, 0]] as V3[]) {
        for (const bendDirection of ['positive', 'negative'] as const) {
          const make = () => rig(dir, dir, { bendDirection });
          const sigma = bendDirection === 'positive' ? 1 : -1;
          for (const turn of [1e-5, -1e-5]) expect(dot(solveReversed(make, null, () => z, turn), z)).toBeCloseTo(sigma, 9);
          expect(dot(solveReversed(make, null, () => z, 0), z), `${dir} ${bendDirection}`).toBeCloseTo(sigma, 9);
        }
      }
    });

    it('keeps a bent arm\'s bend plane and sense', () => {
      for (const d2 of [[0, 0, 1], [0, 1, 0]] as V3[]) {
        const make = () => rig([1, 0, 0], d2);
        const n0 = bendNormal(make());
        expect(dot(solveReversed(make, null, () => n0, 0), n0), `forearm along ${d2}`).toBeCloseTo(1, 9);
      }
    });

    it('keeps the elbow on the pole\'s side', () => {
      const make = () => rig([1, 0, 0], [1, 0, 0], {}, [{ name: 'pole', bone: 'forearm', role: 'pole', target: [0.2, 0.5, 1] }]);
      for (const first of [[0.3, 0, 0.3], [0.25, 0.1, 0.2]] as V3[]) {
        const a = make();
        setTarget(a.world, a.handle.controlPoints['hand']!, first);
        step(a.world, 1);
        const n0 = bendNormal(a);
        expect(dot(solveReversed(make, first, () => n0, 0), n0), `first target ${first}`).toBeCloseTo(1, 9);
      }
    });
  });

  it('handles a goal at the head of the second bone (a zero-length second link)', () => {
    const { world, handle } = build({
      rig: { name: 'leg', root: 'pinned', bones: [
        { name: 'thigh', parent: null, direction: [0, -1, 0], length: 0.45, head: [0, 1, 0] },
        { name: 'shin', parent: 'thigh', direction: [0, -1, 0], length: 0.43 },
      ] },
      controlPoints: [{ name: 'knee', bone: 'shin', at: 0 }],
      settings: { solver: 'twoBone', interpolation: 'none' },
    });
    setTarget(world, handle.controlPoints['knee']!, [0.3, 0.8, 0.1]);
    step(world, 1);
    const knee = v3(world.physik.Bone.head, handle.bones['shin']!);
    // the thigh points at the target: the closest reach
    expect(norm(cross(sub(knee, [0, 1, 0]), sub([0.3, 0.8, 0.1], [0, 1, 0])))).toBeLessThan(1e-9);
    expect(dist(knee, [0, 1, 0])).toBeCloseTo(0.45, 9);
  });

  it('gives the same pose for the same target in path-independent mode, whatever came before', () => {
    const a = arm(undefined, { ikMode: 'path-independent' }), b = arm(undefined, { ikMode: 'path-independent' });
    setTarget(a.world, a.handle.controlPoints['hand']!, [-0.2, 0.3, 0.1]);
    step(a.world, 1);
    for (const w of [a, b]) { setTarget(w.world, w.handle.controlPoints['hand']!, [0.3, 0.1, -0.2]); step(w.world, 1); }
    const pa = readPose(a.world, a.rig), pb = readPose(b.world, b.rig);
    for (const k of ['upper', 'forearm']) for (let i = 0; i < 3; i++) expect(pa[k]!.tail[i]).toBeCloseTo(pb[k]!.tail[i]!, 12);
  });

  it('throws a clear error naming the rig and bone for a goal on the root', () => {
    const { world } = build({
      rig: { name: 'stick', root: 'pinned', bones: [{ name: 'only', parent: null, direction: [0, 1, 0], length: 1 }] },
      controlPoints: [{ name: 'tip', bone: 'only' }],
      settings: { solver: 'twoBone' },
    });
    expect(() => twoBoneSolve(world, world.physik.rigs[0]!)).toThrow(/rig "stick".*goal "tip".*bone "only".*no parent/);
    expect(() => step(world, 1)).toThrow(/two-bone solver/);
  });

  it('runs the humanoid scene finite (goals on feet and hand use each bone and its parent)', () => {
    const summary = runScene(loadSceneFile(join(scenes, 'humanoid.json')), { settings: { solver: 'twoBone' } });
    expect(summary.finite).toBe(true);
    expect(summary.divergedSteps).toBe(0);
    expect(summary.targetErrors['footL']).toBeLessThan(1e-9);
    expect(summary.targetErrors['footR']).toBeLessThan(1e-9);
    // the hand goal poses forearm + hand only (0.37 of reach for a target 0.53 away): out of reach
    expect(summary.targetErrors['handR']).toBeGreaterThan(0.1);
    expect(summary.maxLimitViolationDeg).toBeLessThan(1e-6);
  });

  it('fails with the clear error on a scene with a goal on the root (sit)', () => {
    expect(() => runScene(loadSceneFile(join(scenes, 'sit.json')), { settings: { solver: 'twoBone' } })).toThrow(/goal "pelvis" is on bone "torso", the root/);
  });

  it('writes nothing non-finite for a NaN target (status diverged)', () => {
    const { world, handle, rig } = arm();
    const before = readPose(world, rig);
    world.physik.ControlPoint.effective[handle.controlPoints['hand']! * 3] = NaN;
    world.physik.ControlPoint.target[handle.controlPoints['hand']! * 3] = NaN;
    const r = twoBoneSolve(world, world.physik.rigs[0]!);
    expect(r.status).toBe(STATUS_DIVERGED);
    expect(readPose(world, rig)).toEqual(before);
  });
});
