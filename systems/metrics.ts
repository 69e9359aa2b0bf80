/**
 * Metrics of each rig after the step: centre of mass, kinetic energy, target errors, the
 * fastest bone end (rigMeasures, before the conservation projection), the load residual (measureLoads), and rest detection (the rig is at rest
 * when no target is interpolating, the solve did not diverge and every bone end moves slower
 * than restSpeed × height per second; `restSince` is the step the current rest began). A rig
 * at rest is also static (`Rig.static`, what 'converged' and sleep need) when every bone end is
 * slower than settleTolerance × height per second and the load residual is within restLoad of
 * the load it is judged against: slow alone is not static (the turn of a slow swing is slow with
 * its load unbalanced; a creep under restSpeed still moves). Joint gaps and limit violations,
 * which nothing in the step reads, are measured from the pose when read (measureDiagnostics).
 */
import type { PhysikWorld, RigRecord } from '../src/world/world';
import { steppingRigs } from '../src/world/world';
import { STATUS_DIVERGED } from '../components';
import { attachmentPoint } from '../src/world/attachment';
import { limitRotationVector } from './torsionSprings';
import { rotX, rotY, rotZ } from '../src/math/quat';
import { len3 } from '../src/math/vec3';

const phi = new Float64Array(3);

/**
 * The measurements of each rig's new state (measureRig), before the conservation projection:
 * the guard reads the kinetic energy measured here, and the projection measures again only a rig
 * whose velocities it changed.
 */
export function rigMeasures(world: PhysikWorld): void {
  const rigs = steppingRigs(world);
  for (let ri = 0; ri < rigs.length; ri++) measureRig(world, rigs[ri]!);
}

export function metrics(world: PhysikWorld): void {
  const { Rig } = world.physik;
  const rigs = steppingRigs(world);
  for (let ri = 0; ri < rigs.length; ri++) {
    const rig = rigs[ri]!;
    const r = rig.eid;
    const interpolating = Rig.interpolating[r] === 1;
    const step = Rig.step[r]! + 1;
    Rig.step[r] = step;
    measureLoads(world, rig);
    const s = rig.settings, H = Rig.height[r]!, speed = Rig.maxEndSpeed[r]!;
    const resting = !interpolating && Rig.solveStatus[r] !== STATUS_DIVERGED && speed < s.restSpeed * H;
    if (resting) {
      if (!Rig.atRest[r]) { Rig.atRest[r] = 1; Rig.restSince[r] = step; }
    } else {
      Rig.atRest[r] = 0; Rig.restSince[r] = -1;
    }
    Rig.static[r] = resting && speed < s.settleTolerance * H && Rig.loadResidual[r]! <= s.restLoad * Rig.loadScale[r]! ? 1 : 0;
  }
}

/**
 * The measurements of one rig from its current state that the step uses (centre of mass,
 * kinetic energy, end speeds, target errors: everything but the step count, rest detection and
 * the diagnostics); true while a target is still interpolating. Also used after a hybrid
 * finish. The joint gaps and limit violations only report on the pose, and cost more than the
 * rest (a rotation vector per limited joint): they are measured when read (`measureDiagnostics`).
 */
export function measureRig(world: PhysikWorld, rig: RigRecord): boolean {
  const { Bone, Rig, ControlPoint } = world.physik;
  const { mass, centre, vel, headVel, angVel, rot, inertia, tail } = Bone;
  const r = rig.eid;
  // speeds compared squared, one square root for the fastest (the same bits: sqrt is monotonic)
  let m = 0, cx = 0, cy = 0, cz = 0, ke = 0, maxSpeed2 = 0;
  for (let bi = 0; bi < rig.bones.length; bi++) {
    const b = rig.bones[bi]!;
    const b3 = b * 3, q = b * 4;
    const mb = mass[b]!;
    m += mb; cx += mb * centre[b3]!; cy += mb * centre[b3 + 1]!; cz += mb * centre[b3 + 2]!;
    const vx = vel[b3]!, vy = vel[b3 + 1]!, vz = vel[b3 + 2]!;
    const wx = angVel[b3]!, wy = angVel[b3 + 1]!, wz = angVel[b3 + 2]!;
    const x = rot[q]!, y = rot[q + 1]!, z = rot[q + 2]!, w = rot[q + 3]!;
    // ½ m v² + ½ ωᵀ I ω, with ω taken into the bone frame: q⁻¹ ω q = ω − w t + q × t with
    // t = 2 q × ω (q's vector part q, conjugated)
    const tx0 = 2 * (y * wz - z * wy), ty0 = 2 * (z * wx - x * wz), tz0 = 2 * (x * wy - y * wx);
    const lx = wx - w * tx0 + (y * tz0 - z * ty0), ly = wy - w * ty0 + (z * tx0 - x * tz0), lz = wz - w * tz0 + (x * ty0 - y * tx0);
    ke += 0.5 * mb * (vx * vx + vy * vy + vz * vz) + 0.5 * (inertia[b3]! * lx * lx + inertia[b3 + 1]! * ly * ly + inertia[b3 + 2]! * lz * lz);
    // end speeds: head, and tail = centre + ω × (tail − centre)
    const hx = headVel[b3]!, hy = headVel[b3 + 1]!, hz = headVel[b3 + 2]!;
    const hs2 = hx * hx + hy * hy + hz * hz;
    const dx = tail[b3]! - centre[b3]!, dy = tail[b3 + 1]! - centre[b3 + 1]!, dz = tail[b3 + 2]! - centre[b3 + 2]!;
    const tx = vx + wy * dz - wz * dy, ty = vy + wz * dx - wx * dz, tz = vz + wx * dy - wy * dx;
    const ts2 = tx * tx + ty * ty + tz * tz;
    if (hs2 > maxSpeed2) maxSpeed2 = hs2;
    if (ts2 > maxSpeed2) maxSpeed2 = ts2;
  }
  const r3 = r * 3;
  Rig.totalMass[r] = m;
  Rig.centreOfMass[r3] = cx / m; Rig.centreOfMass[r3 + 1] = cy / m; Rig.centreOfMass[r3 + 2] = cz / m;
  Rig.kineticEnergy[r] = ke;
  Rig.maxEndSpeed[r] = Math.sqrt(maxSpeed2);
  Rig.diagnosed[r] = 0; // the gaps and violations of this pose are measured when read

  let maxErr = 0, sumErr = 0, n = 0, interpolating = false;
  const att = ControlPoint.attachment, tgt = ControlPoint.target;
  for (let ci = 0; ci < rig.controlPoints.length; ci++) {
    const cp = rig.controlPoints[ci]!;
    const c3 = cp * 3;
    attachmentPoint(world, cp, att, c3);
    if (ControlPoint.interpStep[cp]! < ControlPoint.interpSteps[cp]!) interpolating = true;
    if (!ControlPoint.active[cp] || ControlPoint.pole[cp]) continue;
    const e = len3(tgt[c3]! - att[c3]!, tgt[c3 + 1]! - att[c3 + 1]!, tgt[c3 + 2]! - att[c3 + 2]!);
    if (e > maxErr) maxErr = e;
    sumErr += e; n++;
  }
  Rig.maxTargetError[r] = maxErr;
  Rig.meanTargetError[r] = n > 0 ? sumErr / n : 0;
  Rig.interpolating[r] = interpolating ? 1 : 0;
  return interpolating;
}

/**
 * The larger of `residual` and a bone's net load |F| + |τ| / length (measureLoads' measure, from
 * |F|² = f2 and |τ|² = t2), computed only where it can be the larger: it is at most
 * √(2 (|F|² + |τ|² / length²)) (compared times length², with room for rounding). A NaN load
 * is returned. Shared by measureLoads and the fast joint solve, which finds the residual on its
 * way (small enough that V8 inlines it: a double returned from a call it does not inline is boxed).
 */
export function largerLoad(residual: number, f2: number, t2: number, length: number): number {
  const l2 = length * length;
  if (2.000001 * (f2 * l2 + t2) <= residual * residual * l2) return residual;
  const load = Math.sqrt(f2) + Math.sqrt(t2) / length;
  return load <= residual ? residual : load;
}

/**
 * How far the rig is from static balance, from the last joint solve (run by metrics, after the
 * step). A bone's net load is what accelerates it: effMass × acc and effInertiaWorld × angAcc,
 * the joint forces, springs, limit torques and damping included (the effective mass and inertia
 * are the ones the solve used: the implicit terms only scale accelerations). The torque is taken
 * as a force at the bone's length, and `Rig.loadResidual` is the largest |F| + |τ| / length over
 * the bones. The damping forces vanish with speed, so at rest this is the unbalanced spring and
 * limit load. `Rig.springLoad` is the sum of the active control springs' pulls; `Rig.loadScale`
 * what the residual is judged against: the spring load, but at least each spring's pull at
 * settleTolerance × height (a rig that reaches its goals ends with no spring load, and its
 * residual and spring load then shrink together: judged against the spring load alone, it would
 * never be static). Without a spring, the load that would move the whole rig about
 * settleTolerance × height in one step from rest (m_total × settleTolerance × height / dt²): the
 * same distance as the springs' floor, for a rig only its limits and joints hold. A kinematic rig carries no
 * load: all three are 0. A step the guard refused leaves no finite acceleration: the residual
 * stays that of the last good state, which the rig is held at (and a diverged rig is not at rest).
 */
export function measureLoads(world: PhysikWorld, rig: RigRecord): void {
  const { Bone, Rig, ControlPoint } = world.physik;
  const r = rig.eid;
  const s = rig.settings;
  if (s.solver !== 'physik') {
    Rig.loadResidual[r] = 0; Rig.springLoad[r] = 0; Rig.loadScale[r] = 0;
    return;
  }
  const { acc, angAcc, effMass, effInertiaWorld: E, length } = Bone;
  // (the joint solve's fast form found it on the way: systems/jointSolve/coupledArticulated.ts)
  let residual = Rig.solvedLoad[r]!;
  Rig.solvedLoad[r] = -1;
  if (!(residual >= 0)) {
    residual = 0;
    for (let bi = 0; bi < rig.bones.length; bi++) {
      const b = rig.bones[bi]!;
      const b3 = b * 3, o = b * 6;
      const m = effMass[b]!;
      const fx = m * acc[b3]!, fy = m * acc[b3 + 1]!, fz = m * acc[b3 + 2]!;
      const ax = angAcc[b3]!, ay = angAcc[b3 + 1]!, az = angAcc[b3 + 2]!;
      // τ = E α, E symmetric: xx xy xz yy yz zz
      const tx = E[o]! * ax + E[o + 1]! * ay + E[o + 2]! * az;
      const ty = E[o + 1]! * ax + E[o + 3]! * ay + E[o + 4]! * az;
      const tz = E[o + 2]! * ax + E[o + 4]! * ay + E[o + 5]! * az;
      residual = largerLoad(residual, fx * fx + fy * fy + fz * fz, tx * tx + ty * ty + tz * tz, length[b]!); // (a refused step's NaN is seen below)
    }
  }
  const H = Rig.height[r]!, tolerance = s.settleTolerance * H;
  const { springForce, stiffness } = ControlPoint;
  let springLoad = 0, pullAtTolerance = 0;
  for (let ci = 0; ci < rig.controlPoints.length; ci++) {
    const cp = rig.controlPoints[ci]!;
    if (!ControlPoint.active[cp] || ControlPoint.pole[cp]) continue;
    const c3 = cp * 3;
    const fx = springForce[c3]!, fy = springForce[c3 + 1]!, fz = springForce[c3 + 2]!;
    springLoad += Math.sqrt(fx * fx + fy * fy + fz * fz);
    pullAtTolerance += stiffness[cp]! * tolerance;
  }
  const floor = pullAtTolerance > 0 ? pullAtTolerance : (Rig.totalMass[r]! * tolerance) / (s.dt * s.dt);
  if (residual < Infinity) Rig.loadResidual[r] = residual;
  Rig.springLoad[r] = springLoad;
  Rig.loadScale[r] = springLoad > floor ? springLoad : floor;
}

/**
 * The diagnostics of the rig's pose, `Rig.maxJointGap` and `Rig.maxLimitViolation`, measured
 * now unless they are up to date (`Rig.diagnosed`: measureRig marks them stale, this measures
 * them once). readMetrics calls it; the step itself never needs them.
 */
export function measureDiagnostics(world: PhysikWorld, rig: RigRecord): void {
  const { Bone, Rig, AngularLimit } = world.physik;
  const r = rig.eid;
  if (Rig.diagnosed[r]) return;
  const { rot, head, parent: parentOf, attach } = Bone;
  const { enabled, min, max } = AngularLimit;
  let maxGap2 = 0, maxViolation = 0;
  for (let bi = 0; bi < rig.bones.length; bi++) {
    const b = rig.bones[bi]!;
    const p = parentOf[b]!;
    if (p < 0) continue;
    const b3 = b * 3, pq = p * 4, p3 = p * 3;
    const px = rot[pq]!, py = rot[pq + 1]!, pz = rot[pq + 2]!, pw = rot[pq + 3]!;
    const ox = attach[b3]!, oy = attach[b3 + 1]!, oz = attach[b3 + 2]!;
    const gx = head[p3]! + rotX(px, py, pz, pw, ox, oy, oz) - head[b3]!;
    const gy = head[p3 + 1]! + rotY(px, py, pz, pw, ox, oy, oz) - head[b3 + 1]!;
    const gz = head[p3 + 2]! + rotZ(px, py, pz, pw, ox, oy, oz) - head[b3 + 2]!;
    const gap2 = gx * gx + gy * gy + gz * gz;
    if (gap2 > maxGap2) maxGap2 = gap2;
    if (enabled[b3] || enabled[b3 + 1] || enabled[b3 + 2]) {
      limitRotationVector(world, b, phi);
      for (let a = 0; a < 3; a++) {
        if (!enabled[b3 + a]) continue;
        const t = phi[a]!;
        const over = Math.max(t - max[b3 + a]!, min[b3 + a]! - t, 0);
        if (over > maxViolation) maxViolation = over;
      }
    }
  }
  Rig.maxJointGap[r] = Math.sqrt(maxGap2);
  Rig.maxLimitViolation[r] = maxViolation;
  Rig.diagnosed[r] = 1;
}
