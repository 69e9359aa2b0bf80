/**
 * Target interpolation (PhysIK section 3.3): advances each moving control point's effective
 * target one step toward its target. Linear moves at constant speed; polar moves on an arc
 * about a pivot (the bone's head or the rig's centre of mass) at a constant angular rate,
 * with the distance to the pivot blended linearly (eq. 12, alpha_i = 1/(i_max - i)).
 * Falls back to a linear step when either point is within epsilon of the pivot.
 */
import type { PhysikWorld } from '../src/world/world';
import { steppingRigs } from '../src/world/world';

// The pivot (interpolationPivot in src/world/targets.ts) and the lengths (len3) are written out
// here: V8 did not inline those calls into this function, and a call that passes or returns a
// floating-point number boxes it (the heap profiler found it allocating every step while moving;
// docs/performance.md has how much).

export function targetInterpolation(world: PhysikWorld): void {
  const { ControlPoint, Rig, Bone } = world.physik;
  const eff = ControlPoint.effective, tgt = ControlPoint.target;
  const rigs = steppingRigs(world);
  for (let ri = 0; ri < rigs.length; ri++) {
    const rig = rigs[ri]!;
    const s = rig.settings;
    const polar = s.interpolation === 'polar-head' || s.interpolation === 'polar-com';
    const aboutCom = s.interpolation === 'polar-com';
    const eps = s.interpolationEpsilon;
    for (let ci = 0; ci < rig.controlPoints.length; ci++) {
      const cp = rig.controlPoints[ci]!;
      const i = ControlPoint.interpStep[cp]!, iMax = ControlPoint.interpSteps[cp]!;
      if (i >= iMax) continue;
      const alpha = 1 / (iMax - i);
      const c3 = cp * 3;
      let done = false;
      if (polar) {
        // the pivot: the rig's centre of mass, or the head of the point's bone
        const src = aboutCom ? Rig.centreOfMass : Bone.head, o3 = aboutCom ? rig.eid * 3 : ControlPoint.bone[cp]! * 3;
        const ox = src[o3]!, oy = src[o3 + 1]!, oz = src[o3 + 2]!;
        const ax = eff[c3]! - ox, ay = eff[c3 + 1]! - oy, az = eff[c3 + 2]! - oz;
        const bx = tgt[c3]! - ox, by = tgt[c3 + 1]! - oy, bz = tgt[c3 + 2]! - oz;
        const ra = Math.sqrt(ax * ax + ay * ay + az * az), rb = Math.sqrt(bx * bx + by * by + bz * bz);
        if (ra > eps && rb > eps) {
          // n_i = a × b, theta_i = angle(a, b); rotate the unit a by alpha·theta about n.
          let nx = ay * bz - az * by, ny = az * bx - ax * bz, nz = ax * by - ay * bx;
          const sinPart = Math.sqrt(nx * nx + ny * ny + nz * nz);
          const theta = Math.atan2(sinPart, ax * bx + ay * by + az * bz);
          if (sinPart < 1e-12 * ra * rb) {
            // parallel or opposite: any axis normal to a will do (deterministic choice)
            if (Math.abs(ax) < 0.9 * ra) { nx = 0; ny = az; nz = -ay; } else { nx = -az; ny = 0; nz = ax; }
          }
          const nn = Math.sqrt(nx * nx + ny * ny + nz * nz);
          nx /= nn; ny /= nn; nz /= nn;
          const phi = alpha * theta;
          const c = Math.cos(phi), sn = Math.sin(phi);
          const ux = ax / ra, uy = ay / ra, uz = az / ra;
          // Rodrigues: u' = u cos + (n × u) sin + n (n·u)(1 − cos); n ⟂ u so the last term is 0
          const rx = ux * c + (ny * uz - nz * uy) * sn;
          const ry = uy * c + (nz * ux - nx * uz) * sn;
          const rz = uz * c + (nx * uy - ny * ux) * sn;
          const r = (1 - alpha) * ra + alpha * rb;
          eff[c3] = ox + r * rx; eff[c3 + 1] = oy + r * ry; eff[c3 + 2] = oz + r * rz;
          done = true;
        }
      }
      if (!done) {
        // linear: t_{i+1} = t_i + alpha (t_new − t_i), the recurrence form of constant speed
        eff[c3] = eff[c3]! + alpha * (tgt[c3]! - eff[c3]!);
        eff[c3 + 1] = eff[c3 + 1]! + alpha * (tgt[c3 + 1]! - eff[c3 + 1]!);
        eff[c3 + 2] = eff[c3 + 2]! + alpha * (tgt[c3 + 2]! - eff[c3 + 2]!);
      }
      ControlPoint.interpStep[cp] = i + 1;
      if (i + 1 >= iMax) {
        // land exactly on the target
        eff[c3] = tgt[c3]!; eff[c3 + 1] = tgt[c3 + 1]!; eff[c3 + 2] = tgt[c3 + 2]!;
      }
    }
  }
}
