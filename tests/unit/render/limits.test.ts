/**
 * Geometry of the view's angular-limit gizmo and bone picking (src/render/limits.ts): pure
 * maths, no WebGL. The arcs must agree with the angles the torsion springs measure
 * (`jointRotationVector`): a bone turned by θ about one joint axis alone points where the
 * gizmo draws angle θ.
 */
import { describe, expect, it } from 'vitest';
import { Quaternion, Vector3 } from 'three';
import {
  LIMIT_ARC_SEGMENTS, jointFrame, limitDirection, limitFanIndex, limitOutlineIndex,
  raySegmentClosest, writeLimitFan,
} from '../../../src/render/limits';
import { jointRotationVector } from '../../../src/world/jointRotation';
import { forwardKinematics } from '../../../systems/forwardKinematics';
import { build, DEG, dot, norm, q4, qAxisAngle, qMul, qRotate, sub, v3, type V3 } from '../../support/helpers';
import { copyDoubles } from '../../../components/doubles';

const AXES: V3[] = [[1, 0, 0], [0, 1, 0], [0, 0, 1]];
/** The vector each axis's arc sweeps: the bone direction for swing (x, z), the frame's +Z for twist (y). */
const REFERENCE: V3[] = [[0, 1, 0], [0, 0, 1], [0, 1, 0]];

/** Independent reference with three.js: frame · R_axis(angle) · reference. */
function expected(frame: ArrayLike<number>, axis: number, angle: number): V3 {
  const f = new Quaternion(frame[0]!, frame[1]!, frame[2]!, frame[3]!);
  const v = new Vector3(...REFERENCE[axis]!).applyAxisAngle(new Vector3(...AXES[axis]!), angle).applyQuaternion(f);
  return [v.x, v.y, v.z];
}

const close = (a: ArrayLike<number>, b: ArrayLike<number>, eps = 1e-6) => expect(norm(sub(a, b))).toBeLessThan(eps);

describe('limit gizmo geometry', () => {
  const frame = qMul(qAxisAngle([0.3, 1, -0.5], 0.9), qAxisAngle([1, 0.2, 0.1], -0.4));

  it('with the identity frame, each axis sweeps its reference vector about that axis', () => {
    const out = new Float64Array(3);
    const id = [0, 0, 0, 1];
    limitDirection(out, 0, id, 0, 0, 90 * DEG); // +Y about +X by 90° → +Z
    close(out, [0, 0, 1], 1e-12);
    limitDirection(out, 0, id, 0, 2, 90 * DEG); // +Y about +Z by 90° → −X
    close(out, [-1, 0, 0], 1e-12);
    limitDirection(out, 0, id, 0, 1, 90 * DEG); // +Z about +Y by 90° → +X
    close(out, [1, 0, 0], 1e-12);
  });

  for (const axis of [0, 1, 2]) {
    it(`axis ${'xyz'[axis]}: the fan's first and last arc points are the reference turned by min and max, all at the radius, in the plane ⟂ the axis`, () => {
      const min = -35 * DEG, max = 70 * DEG, r = 0.4;
      const centre: V3 = [0.1, 1.2, -0.3];
      const pts = new Float32Array((LIMIT_ARC_SEGMENTS + 2) * 3);
      writeLimitFan(pts, 0, frame, 0, centre[0], centre[1], centre[2], axis, min, max, r);
      close(pts.subarray(0, 3), centre);
      const first = sub(pts.subarray(3, 6), centre);
      const last = sub(pts.subarray((LIMIT_ARC_SEGMENTS + 1) * 3, (LIMIT_ARC_SEGMENTS + 2) * 3), centre);
      close(first, expected(frame, axis, min).map((x) => x * r));
      close(last, expected(frame, axis, max).map((x) => x * r));
      const worldAxis = qRotate(frame, AXES[axis]!);
      for (let i = 0; i <= LIMIT_ARC_SEGMENTS; i++) {
        const v = sub(pts.subarray(3 + i * 3, 6 + i * 3), centre);
        expect(norm(v)).toBeCloseTo(r, 5);
        expect(Math.abs(dot(v, worldAxis))).toBeLessThan(1e-6);
      }
      // the middle of the arc is at the middle angle (the sweep goes min → max, not the long way)
      const mid = sub(pts.subarray(3 + (LIMIT_ARC_SEGMENTS / 2) * 3, 6 + (LIMIT_ARC_SEGMENTS / 2) * 3), centre);
      close(mid, expected(frame, axis, (min + max) / 2).map((x) => x * r));
    });
  }

  it('fan and outline indices cover the arc', () => {
    const fan = limitFanIndex(4);
    expect(Array.from(fan)).toEqual([0, 1, 2, 0, 2, 3, 0, 3, 4, 0, 4, 5]);
    expect(Array.from(limitOutlineIndex(4))).toEqual([0, 1, 2, 3, 4, 5, 0]);
  });

  for (const axis of [0, 1, 2]) {
    it(`agrees with jointRotationVector: a child turned about joint axis ${'xyz'[axis]} alone points where the gizmo draws that angle`, () => {
      const { world, handle } = build({
        rig: {
          name: 'limb',
          root: 'pinned',
          bones: [
            { name: 'parent', parent: null, direction: [0.3, 1, -0.2], length: 1, head: [0.1, 0.2, 0.3] },
            { name: 'child', parent: 'parent', direction: [1, 2, 0.5], length: 0.8 },
          ],
        },
      });
      const child = handle.bones.child!;
      const { Bone } = world.physik;
      const f = new Float64Array(4);
      jointFrame(f, 0, Bone.rot, Bone.restLocal, Bone.parent[child]!, child);
      const theta = 40 * DEG;
      copyDoubles(Bone.rot, child * 4, qMul(f, qAxisAngle(AXES[axis]!, theta)));
      forwardKinematics(world);
      const phi = new Float64Array(3);
      jointRotationVector(world, child, phi);
      expect(phi[axis]).toBeCloseTo(theta, 9);
      const dir = new Float64Array(3);
      limitDirection(dir, 0, f, 0, axis, phi[axis]!);
      // the bone's own reference axis in world: +Y (its direction) for swing, +Z for twist
      close(dir, qRotate(q4(Bone.rot, child), REFERENCE[axis]!), 1e-9);
      if (axis !== 1) {
        const along = sub(v3(Bone.tail, child), v3(Bone.head, child));
        close(dir, along.map((x) => x / norm(along)), 1e-9);
      }
    });
  }
});

describe('ray to bone axis (picking)', () => {
  const out = new Float64Array(3);

  /** Brute force over a fine grid of s, with t the best non-negative for each. */
  function brute(o: V3, d: V3, a: V3, b: V3): number {
    let best = Infinity;
    for (let i = 0; i <= 20000; i++) {
      const s = i / 20000;
      const x: V3 = [a[0] + s * (b[0] - a[0]), a[1] + s * (b[1] - a[1]), a[2] + s * (b[2] - a[2])];
      const t = Math.max(0, dot(sub(x, o), d));
      const r = sub(x, [o[0] + t * d[0], o[1] + t * d[1], o[2] + t * d[2]]);
      best = Math.min(best, dot(r, r));
    }
    return best;
  }

  const call = (o: V3, d: V3, a: V3, b: V3) => raySegmentClosest(...o, ...d, ...a, ...b, out);

  it('a ray crossing the middle of a bone: distance 0, at = 0.5', () => {
    call([0, 0.5, 5], [0, 0, -1], [0, 0, 0], [0, 1, 0]);
    expect(out[0]).toBeCloseTo(0, 12);
    expect(out[1]).toBeCloseTo(5, 12);
    expect(out[2]).toBeCloseTo(0.5, 12);
  });

  it('a ray passing beyond the tail clamps to the tail', () => {
    call([0.2, 1.5, 5], [0, 0, -1], [0, 0, 0], [0, 1, 0]);
    expect(out[2]).toBe(1);
    expect(out[0]).toBeCloseTo(0.2 * 0.2 + 0.5 * 0.5, 12);
  });

  it('a bone behind the camera is measured from the ray origin (t = 0)', () => {
    call([0, 0, 0], [0, 0, 1], [1, 0, -2], [1, 1, -2]);
    expect(out[1]).toBe(0);
    expect(out[2]).toBe(0);
    expect(out[0]).toBeCloseTo(5, 12);
  });

  it('matches brute force on skew cases', () => {
    const cases: [V3, V3, V3, V3][] = [
      [[0, 0, 0], [0.6, 0, 0.8], [1, -1, 2], [0.5, 2, 1]],
      [[1, 2, 3], [0, -0.6, -0.8], [0.3, 0, 0], [0.9, 0.1, 0.2]],
      [[0, 0, 0], [1, 0, 0], [2, 1, 0], [5, 1, 0]], // parallel
      [[0, 0, 0], [0, 0, 1], [0.3, 0.1, -1], [0.2, 0.4, 0.5]],
    ];
    for (const [o, d, a, b] of cases) {
      call(o, d, a, b);
      expect(out[0]).toBeCloseTo(brute(o, d, a, b), 6);
    }
  });
});
