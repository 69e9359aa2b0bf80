/**
 * Control springs (PhysIK section 3.2): each active control point pulls its attachment a
 * toward its effective target t with a zero-rest-length spring, r = t − a:
 *   linear        F = k r
 *   capped-linear F = k r when |r| <= c, else k c r/|r| (at most k c)
 * The force acts at the attachment, so the bone also gets the torque (a − centre) × F.
 * The cap defaults to a fraction of the rig's height (the original fixed c = 1 unit,
 * which made the law depend on the rig's scale).
 */
import type { PhysikWorld } from '../src/core/world';
import { SPRING_CAPPED } from '../components';
import { attachmentPoint } from '../src/core/rig';
import { len3 } from '../src/math/quat';

export function controlSprings(world: PhysikWorld): void {
  const { Bone, ControlPoint } = world.physik;
  const { force, torque, centre } = Bone;
  const { attachment, effective, springForce } = ControlPoint;
  for (let ri = 0; ri < world.physik.rigs.length; ri++) {
    const rig = world.physik.rigs[ri]!;
    if (rig.settings.solver !== 'physik') continue; // posed by its kinematic solver
    for (let ci = 0; ci < rig.controlPoints.length; ci++) {
      const cp = rig.controlPoints[ci]!;
      const c3 = cp * 3;
      attachmentPoint(world, cp, attachment, c3);
      if (!ControlPoint.active[cp] || ControlPoint.pole[cp]) {
        springForce[c3] = 0; springForce[c3 + 1] = 0; springForce[c3 + 2] = 0;
        continue;
      }
      const rx = effective[c3]! - attachment[c3]!;
      const ry = effective[c3 + 1]! - attachment[c3 + 1]!;
      const rz = effective[c3 + 2]! - attachment[c3 + 2]!;
      let k = ControlPoint.stiffness[cp]!;
      if (ControlPoint.spring[cp] === SPRING_CAPPED) {
        const cap = ControlPoint.cap[cp]! > 0 ? ControlPoint.cap[cp]! : rig.defaultCap;
        const dist = len3(rx, ry, rz);
        if (dist > cap) k *= cap / dist;
      }
      const fx = k * rx, fy = k * ry, fz = k * rz;
      springForce[c3] = fx; springForce[c3 + 1] = fy; springForce[c3 + 2] = fz;
      const b = ControlPoint.bone[cp]!, b3 = b * 3;
      force[b3] += fx; force[b3 + 1] += fy; force[b3 + 2] += fz;
      const lx = attachment[c3]! - centre[b3]!, ly = attachment[c3 + 1]! - centre[b3 + 1]!, lz = attachment[c3 + 2]! - centre[b3 + 2]!;
      torque[b3] += ly * fz - lz * fy;
      torque[b3 + 1] += lz * fx - lx * fz;
      torque[b3 + 2] += lx * fy - ly * fx;
    }
  }
}
