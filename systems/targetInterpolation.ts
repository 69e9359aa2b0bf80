/**
 * Target interpolation (PhysIK section 3.3): advances each moving control point's effective
 * target one step toward its target. Linear moves at constant speed; polar moves on an arc
 * about a pivot (the bone's head or the rig's centre of mass) at a constant angular rate,
 * with the distance to the pivot blended linearly (eq. 12, alpha_i = 1/(i_max - i)).
 * Falls back to a linear step when either point is within epsilon of the pivot.
 */
import type { PhysikWorld } from '../src/core/world';
import { interpolationPivot } from '../src/core/targets';
import { len3 } from '../src/math/quat';

const pivot = new Float64Array(3);

export function targetInterpolation(world: PhysikWorld): void {
  const { ControlPoint } = world.physik;
  const eff = ControlPoint.effective, tgt = ControlPoint.target;
  for (let ri = 0; ri < world.physik.rigs.length; ri++) {
    const rig = world.physik.rigs[ri]!;
    const s = rig.settings;
    const polar = s.interpolation === 'polar-head' || s.interpolation === 'polar-com';
    const eps = s.interpolationEpsilon;
    for (let ci = 0; ci < rig.controlPoints.length; ci++) {
      const cp = rig.controlPoints[ci]!;
      const i = ControlPoint.interpStep[cp]!, iMax = ControlPoint.interpSteps[cp]!;
      if (i >= iMax) continue;
      const alpha = 1 / (iMax - i);
      const c3 = cp * 3;
      let done = false;
      if (polar) {
        interpolationPivot(world, rig, cp, pivot);
        const ox = pivot[0]!, oy = pivot[1]!, oz = pivot[2]!;
        const ax = eff[c3]! - ox, ay = eff[c3 + 1]! - oy, az = eff[c3 + 2]! - oz;
        const bx = tgt[c3]! - ox, by = tgt[c3 + 1]! - oy, bz = tgt[c3 + 2]! - oz;
        const ra = len3(ax, ay, az), rb = len3(bx, by, bz);
        if (ra > eps && rb > eps) {
          // n_i = a × b, theta_i = angle(a, b); rotate the unit a by alpha·theta about n.
          let nx = ay * bz - az * by, ny = az * bx - ax * bz, nz = ax * by - ay * bx;
          const sinPart = len3(nx, ny, nz);
          const theta = Math.atan2(sinPart, ax * bx + ay * by + az * bz);
          if (sinPart < 1e-12 * ra * rb) {
            // parallel or opposite: any axis normal to a will do (deterministic choice)
            if (Math.abs(ax) < 0.9 * ra) { nx = 0; ny = az; nz = -ay; } else { nx = -az; ny = 0; nz = ax; }
          }
          const nn = len3(nx, ny, nz);
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
