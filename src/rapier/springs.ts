/**
 * PhysIK's control springs (section 3.2) as forces on the Rapier mirror's bodies: each active
 * (non-pole) control point pulls its attachment a toward its effective target t with a
 * zero-rest-length spring, r = t − a,
 *   linear        F = k r
 *   capped-linear F = k r when |r| <= c, else k c r/|r| (at most k c)
 * with the control point's own k, kind and cap (or the rig's default cap), exactly as the
 * core's controlSprings. F acts at the attachment, so the bone also gets (a − centre) × F.
 * The effective target is read from the PhysIK world: it is the one PhysIK used this step
 * (its interpolation, eq. 12, runs at the start of the step and may pivot about PhysIK's own
 * centre of mass), so both rigs are pulled toward the same point at every step.
 *
 * With `springImplicit` (the default) PhysIK evaluates the spring at the end of the step,
 * F = k r − k dt v_a − k dt² a_a; the mirror does the same as the core: −k dt v_a as a force,
 * and the dt² part as extra mass 2k dt² and isotropic inertia 2k dt² |a − centre|² plus the
 * geometric term |a − head| k |r| dt², which the mirror folds into the body's mass
 * properties for the step (damping.ts explains how a step starts from them).
 */
import type { PhysikWorld, RigRecord } from '../world/world';
import { SPRING_CAPPED } from '../../components';

/** The mirror's state and outputs, per depth-first index (3 or 4 numbers, or 1 for the extras). */
export interface SpringState {
  rot: Float64Array; centre: Float64Array; vel: Float64Array; angVel: Float64Array;
  force: Float64Array; torque: Float64Array; extraMass: Float64Array; extraInertia: Float64Array;
}

/**
 * Add the springs' forces and torques (about each bone's centre) to `force` and `torque`,
 * and their implicit terms to `extraMass` and `extraInertia`, from the mirror's bone
 * rotations, centres and velocities. `indexOfBone` maps a bone entity to its index.
 */
export function controlSpringForces(world: PhysikWorld, record: RigRecord, indexOfBone: Int32Array, st: SpringState): void {
  const { Bone, ControlPoint } = world.physik;
  const { effective } = ControlPoint;
  const { rot, centre, vel, angVel, force, torque } = st;
  const implicitDt = record.settings.springImplicit ? record.settings.dt : 0;
  for (let ci = 0; ci < record.controlPoints.length; ci++) {
    const cp = record.controlPoints[ci]!;
    if (!ControlPoint.active[cp] || ControlPoint.pole[cp]) continue;
    const c3 = cp * 3;
    const b = ControlPoint.bone[cp]!;
    const i = indexOfBone[b]!, i3 = i * 3, q = i * 4;
    // lever from the centre in the bone frame: head is −L/2 along +Y
    const L = Bone.length[b]!;
    const vx = ControlPoint.offset[c3]!, vy = ControlPoint.at[cp]! * L - 0.5 * L + ControlPoint.offset[c3 + 1]!, vz = ControlPoint.offset[c3 + 2]!;
    const x = rot[q]!, y = rot[q + 1]!, z = rot[q + 2]!, w = rot[q + 3]!;
    const tx = 2 * (y * vz - z * vy), ty = 2 * (z * vx - x * vz), tz = 2 * (x * vy - y * vx);
    const lx = vx + w * tx + (y * tz - z * ty);
    const ly = vy + w * ty + (z * tx - x * tz);
    const lz = vz + w * tz + (x * ty - y * tx);
    const rx = effective[c3]! - (centre[i3]! + lx);
    const ry = effective[c3 + 1]! - (centre[i3 + 1]! + ly);
    const rz = effective[c3 + 2]! - (centre[i3 + 2]! + lz);
    let k = ControlPoint.stiffness[cp]!;
    if (ControlPoint.spring[cp] === SPRING_CAPPED) {
      const cap = ControlPoint.cap[cp]! > 0 ? ControlPoint.cap[cp]! : record.defaultCap;
      const dist = Math.sqrt(rx * rx + ry * ry + rz * rz);
      if (dist > cap) k *= cap / dist;
    }
    let fx = k * rx, fy = k * ry, fz = k * rz;
    if (implicitDt > 0) {
      // −k dt v_a, v_a = v + ω × l (the capped spring's secant stiffness stands in for k)
      const wx = angVel[i3]!, wy = angVel[i3 + 1]!, wz = angVel[i3 + 2]!;
      const kd = k * implicitDt;
      fx -= kd * (vel[i3]! + wy * lz - wz * ly);
      fy -= kd * (vel[i3 + 1]! + wz * lx - wx * lz);
      fz -= kd * (vel[i3 + 2]! + wx * ly - wy * lx);
      const mu2 = 2 * kd * implicitDt;
      st.extraMass[i] = st.extraMass[i]! + mu2;
      // lever from the head: l + R (0, L/2, 0) = attachment − head
      const hy = vy + 0.5 * L;
      const sx = 2 * (y * vz - z * hy), sy = 2 * (z * vx - x * vz), sz = 2 * (x * hy - y * vx);
      const hx2 = vx + w * sx + (y * sz - z * sy), hy2 = hy + w * sy + (z * sx - x * sz), hz2 = vz + w * sz + (x * sy - y * sx);
      const geometric = Math.sqrt(hx2 * hx2 + hy2 * hy2 + hz2 * hz2) * k * Math.sqrt(rx * rx + ry * ry + rz * rz) * implicitDt * implicitDt;
      st.extraInertia[i] = st.extraInertia[i]! + (mu2 * (lx * lx + ly * ly + lz * lz) + geometric);
    }
    force[i3] = force[i3]! + fx; force[i3 + 1] = force[i3 + 1]! + fy; force[i3 + 2] = force[i3 + 2]! + fz;
    torque[i3] = torque[i3]! + (ly * fz - lz * fy);
    torque[i3 + 1] = torque[i3 + 1]! + (lz * fx - lx * fz);
    torque[i3 + 2] = torque[i3 + 2]! + (lx * fy - ly * fx);
  }
}
