/**
 * Control springs (PhysIK section 3.2): each active control point pulls its attachment a
 * toward its effective target t with a zero-rest-length spring, r = t − a:
 *   linear        F = k r
 *   capped-linear F = k r when |r| <= c, else k c r/|r| (at most k c)
 * The force acts at the attachment, so the bone also gets the torque (a − centre) × F.
 * The cap defaults to a fraction of the rig's height (the original fixed c = 1 unit,
 * which made the law depend on the rig's scale).
 *
 * Implicit springs (`springImplicit`, the default): the spring is evaluated at the end of the
 * step (backward Euler), F = k r − k dt v_a − k dt² a_a, so a stiff spring on a light bone
 * cannot fling it round in one step. The −k dt² a_a part is added to the bone's effective mass
 * and inertia as a point mass μ = k dt² at the attachment, taken as 2μ on the mass and 2μ|d|²
 * on every inertia axis (d = attachment − centre), which bounds the exact point-mass matrix
 * from above without coupling terms. A force F at a lever ℓ from the bone's head also turns
 * the bone like a pendulum of rotational stiffness up to ℓ|F| (its geometric stiffness; a
 * capped spring on a hand is mostly this), so ℓ|F| dt² is added to every inertia axis too.
 * These terms vanish at rest (they only scale accelerations), so the pose a rig settles in is
 * the same as with the explicit spring (the paper's).
 */
import type { PhysikWorld, RigRecord } from '../src/world/world';
import { steppingRigs } from '../src/world/world';
import { SPRING_CAPPED } from '../components';
import { attachmentPoint } from '../src/world/attachment';
import { len3 } from '../src/math/vec3';

export function controlSprings(world: PhysikWorld): void {
  const { Bone, ControlPoint } = world.physik;
  const { force, torque, centre, head, vel, angVel, effMass, effInertiaWorld } = Bone;
  const { attachment, effective, springForce } = ControlPoint;
  const rigs = steppingRigs(world);
  for (let ri = 0; ri < rigs.length; ri++) {
    const rig = rigs[ri]!;
    if (rig.settings.solver !== 'physik') continue; // posed by its kinematic solver
    const implicitDt = rig.settings.springImplicit ? rig.settings.dt : 0;
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
      const b = ControlPoint.bone[cp]!, b3 = b * 3;
      const lx = attachment[c3]! - centre[b3]!, ly = attachment[c3 + 1]! - centre[b3 + 1]!, lz = attachment[c3 + 2]! - centre[b3 + 2]!;
      let fx = k * rx, fy = k * ry, fz = k * rz;
      springForce[c3] = fx; springForce[c3 + 1] = fy; springForce[c3 + 2] = fz;
      if (implicitDt > 0) {
        // −k dt v_a, v_a = v + ω × d (the capped spring's secant stiffness stands in for k)
        const wx = angVel[b3]!, wy = angVel[b3 + 1]!, wz = angVel[b3 + 2]!;
        const kd = k * implicitDt;
        fx -= kd * (vel[b3]! + wy * lz - wz * ly);
        fy -= kd * (vel[b3 + 1]! + wz * lx - wx * lz);
        fz -= kd * (vel[b3 + 2]! + wx * ly - wy * lx);
        const mu2 = 2 * kd * implicitDt;
        effMass[b] = effMass[b]! + mu2;
        const hx = attachment[c3]! - head[b3]!, hy = attachment[c3 + 1]! - head[b3 + 1]!, hz = attachment[c3 + 2]! - head[b3 + 2]!;
        const geometric = len3(hx, hy, hz) * k * len3(rx, ry, rz) * implicitDt * implicitDt;
        const inertia = mu2 * (lx * lx + ly * ly + lz * lz) + geometric;
        const b6 = b * 6; // symmetric 3×3: xx xy xz yy yz zz
        effInertiaWorld[b6] = effInertiaWorld[b6]! + inertia; effInertiaWorld[b6 + 3] = effInertiaWorld[b6 + 3]! + inertia; effInertiaWorld[b6 + 5] = effInertiaWorld[b6 + 5]! + inertia;
      }
      force[b3] = force[b3]! + fx; force[b3 + 1] = force[b3 + 1]! + fy; force[b3 + 2] = force[b3 + 2]! + fz;
      torque[b3] = torque[b3]! + (ly * fz - lz * fy);
      torque[b3 + 1] = torque[b3 + 1]! + (lz * fx - lx * fz);
      torque[b3 + 2] = torque[b3 + 2]! + (lx * fy - ly * fx);
    }
  }
}

/** Energy of a zero-length spring of stiffness k stretched by d: linear, or capped at c (c < 0: none); for tests and tools. */
export function springEnergy(k: number, c: number, d: number): number {
  return c >= 0 && d > c ? k * c * (d - c) + 0.5 * k * c * c : 0.5 * k * d * d;
}

/**
 * Energy held by the rig's active control springs, toward their effective targets, to out[o]:
 * from the attachment points controlSprings last measured, or measured anew at the current pose
 * when `current`. (Written to an array: a returned double is boxed, an allocation per call.)
 */
export function controlSpringEnergy(world: PhysikWorld, rig: RigRecord, current: boolean, out: Float64Array, o: number): void {
  const { ControlPoint } = world.physik;
  const { attachment, effective } = ControlPoint;
  let energy = 0;
  for (let ci = 0; ci < rig.controlPoints.length; ci++) {
    const cp = rig.controlPoints[ci]!;
    if (!ControlPoint.active[cp] || ControlPoint.pole[cp]) continue;
    const c3 = cp * 3;
    if (current) attachmentPoint(world, cp, attachment, c3);
    const rx = effective[c3]! - attachment[c3]!, ry = effective[c3 + 1]! - attachment[c3 + 1]!, rz = effective[c3 + 2]! - attachment[c3 + 2]!;
    const cap = ControlPoint.spring[cp] === SPRING_CAPPED ? (ControlPoint.cap[cp]! > 0 ? ControlPoint.cap[cp]! : rig.defaultCap) : -1;
    const k = ControlPoint.stiffness[cp]!, d = Math.sqrt(rx * rx + ry * ry + rz * rz);
    energy += cap >= 0 && d > cap ? k * cap * (d - cap) + 0.5 * k * cap * cap : 0.5 * k * d * d; // springEnergy
  }
  out[o] = energy;
}
