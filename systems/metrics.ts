/**
 * Metrics of each rig after the step: centre of mass, kinetic energy, target errors, joint
 * gaps, limit violations, the fastest bone end, and rest detection (the rig is at rest when
 * no target is interpolating, the solve did not diverge and every bone end moves slower than
 * restSpeed × height per second; `restSince` is the step the current rest began).
 */
import type { PhysikWorld, RigRecord } from '../src/core/world';
import { steppingRigs } from '../src/core/world';
import { STATUS_DIVERGED } from '../components';
import { attachmentPoint } from '../src/core/rig';
import { limitRotationVector } from './torsionSprings';
import { rotX, rotY, rotZ, len3 } from '../src/math/quat';

const phi = new Float64Array(3);

export function metrics(world: PhysikWorld): void {
  const { Rig } = world.physik;
  const rigs = steppingRigs(world);
  for (let ri = 0; ri < rigs.length; ri++) {
    const rig = rigs[ri]!;
    const r = rig.eid;
    const interpolating = measureRig(world, rig);
    const step = Rig.step[r]! + 1;
    Rig.step[r] = step;
    const resting = !interpolating && Rig.solveStatus[r] !== STATUS_DIVERGED && Rig.maxEndSpeed[r]! < rig.settings.restSpeed * Rig.height[r]!;
    if (resting) {
      if (!Rig.atRest[r]) { Rig.atRest[r] = 1; Rig.restSince[r] = step; }
    } else {
      Rig.atRest[r] = 0; Rig.restSince[r] = -1;
    }
  }
}

/**
 * The measurements of one rig from its current state (everything but the step count and rest
 * detection); true while a target is still interpolating. Also used after a hybrid finish.
 */
export function measureRig(world: PhysikWorld, rig: RigRecord): boolean {
  const { Bone, Rig, ControlPoint, AngularLimit } = world.physik;
  const { mass, centre, vel, headVel, angVel, rot, inertia, head, tail, parent: parentOf, attach } = Bone;
  const r = rig.eid;
  let m = 0, cx = 0, cy = 0, cz = 0, ke = 0, maxSpeed = 0, maxGap = 0, maxViolation = 0;
  for (let bi = 0; bi < rig.bones.length; bi++) {
    const b = rig.bones[bi]!;
    const b3 = b * 3, q = b * 4;
    const mb = mass[b]!;
    m += mb; cx += mb * centre[b3]!; cy += mb * centre[b3 + 1]!; cz += mb * centre[b3 + 2]!;
    const vx = vel[b3]!, vy = vel[b3 + 1]!, vz = vel[b3 + 2]!;
    const wx = angVel[b3]!, wy = angVel[b3 + 1]!, wz = angVel[b3 + 2]!;
    const x = rot[q]!, y = rot[q + 1]!, z = rot[q + 2]!, w = rot[q + 3]!;
    // ½ m v² + ½ ωᵀ I ω, with ω taken into the bone frame
    const lx = rotX(-x, -y, -z, w, wx, wy, wz), ly = rotY(-x, -y, -z, w, wx, wy, wz), lz = rotZ(-x, -y, -z, w, wx, wy, wz);
    ke += 0.5 * mb * (vx * vx + vy * vy + vz * vz) + 0.5 * (inertia[b3]! * lx * lx + inertia[b3 + 1]! * ly * ly + inertia[b3 + 2]! * lz * lz);
    // end speeds: head, and tail = centre + ω × (tail − centre)
    const hs = len3(headVel[b3]!, headVel[b3 + 1]!, headVel[b3 + 2]!);
    const dx = tail[b3]! - centre[b3]!, dy = tail[b3 + 1]! - centre[b3 + 1]!, dz = tail[b3 + 2]! - centre[b3 + 2]!;
    const ts = len3(vx + wy * dz - wz * dy, vy + wz * dx - wx * dz, vz + wx * dy - wy * dx);
    if (hs > maxSpeed) maxSpeed = hs;
    if (ts > maxSpeed) maxSpeed = ts;
    const p = parentOf[b]!;
    if (p >= 0) {
      const pq = p * 4, p3 = p * 3;
      const px = rot[pq]!, py = rot[pq + 1]!, pz = rot[pq + 2]!, pw = rot[pq + 3]!;
      const ox = attach[b3]!, oy = attach[b3 + 1]!, oz = attach[b3 + 2]!;
      const gap = len3(
        head[p3]! + rotX(px, py, pz, pw, ox, oy, oz) - head[b3]!,
        head[p3 + 1]! + rotY(px, py, pz, pw, ox, oy, oz) - head[b3 + 1]!,
        head[p3 + 2]! + rotZ(px, py, pz, pw, ox, oy, oz) - head[b3 + 2]!,
      );
      if (gap > maxGap) maxGap = gap;
      if (AngularLimit.enabled[b3] || AngularLimit.enabled[b3 + 1] || AngularLimit.enabled[b3 + 2]) {
        limitRotationVector(world, b, phi);
        for (let a = 0; a < 3; a++) {
          if (!AngularLimit.enabled[b3 + a]) continue;
          const t = phi[a]!;
          const over = Math.max(t - AngularLimit.max[b3 + a]!, AngularLimit.min[b3 + a]! - t, 0);
          if (over > maxViolation) maxViolation = over;
        }
      }
    }
  }
  const r3 = r * 3;
  Rig.centreOfMass[r3] = cx / m; Rig.centreOfMass[r3 + 1] = cy / m; Rig.centreOfMass[r3 + 2] = cz / m;
  Rig.kineticEnergy[r] = ke;
  Rig.maxEndSpeed[r] = maxSpeed;
  Rig.maxJointGap[r] = maxGap;
  Rig.maxLimitViolation[r] = maxViolation;

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
  return interpolating;
}
