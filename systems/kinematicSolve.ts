/**
 * Kinematic solvers as a system: every rig whose `solver` setting is not 'physik' is posed by
 * its solver (FABRIK, CCD, Jacobian, ...) toward its control points' effective targets, once
 * per step. Angular velocities (and a floating root's velocity) are set from the change of
 * pose over dt, so rest detection, kinetic energy and recording treat every solver alike.
 *
 * No allocation: the pose before the solve goes to scratch grown once per rig size (it was
 * copied through subarray views, one allocation per bone and step).
 */
import type { PhysikWorld, RigRecord } from '../src/world/world';
import { steppingRigs } from '../src/world/world';
import { quatMulConjA, quatToRotationVector } from '../src/math/quat';
import { kinematicSolvers } from './ik/registry';
import { STATUS_DIVERGED } from '../components';

let beforeRot = new Float64Array(0);
const beforeCentre = new Float64Array(3);
const dq = new Float64Array(4);
const w = new Float64Array(3);

export function kinematicSolve(world: PhysikWorld): void {
  const { Bone, Rig } = world.physik;
  const rigs = steppingRigs(world);
  for (let ri = 0; ri < rigs.length; ri++) {
    const rig: RigRecord = rigs[ri]!;
    if (rig.settings.solver === 'physik') continue;
    const solve = kinematicSolvers[rig.settings.solver];
    if (!solve) throw new Error(`rig "${rig.name}": unknown solver "${rig.settings.solver}"`);
    const n = rig.bones.length;
    if (beforeRot.length < n * 4) beforeRot = new Float64Array(n * 4 * 2);
    const rot = Bone.rot, centre = Bone.centre;
    for (let i = 0; i < n; i++) {
      const q = rig.bones[i]! * 4;
      beforeRot[i * 4] = rot[q]!; beforeRot[i * 4 + 1] = rot[q + 1]!; beforeRot[i * 4 + 2] = rot[q + 2]!; beforeRot[i * 4 + 3] = rot[q + 3]!;
    }
    const root = rig.bones[0]!;
    beforeCentre[0] = centre[root * 3]!; beforeCentre[1] = centre[root * 3 + 1]!; beforeCentre[2] = centre[root * 3 + 2]!;
    const result = solve(world, rig);
    const iterations = result.iterations, status = result.status;
    const r = rig.eid;
    Rig.passes[r] = iterations;
    Rig.mismatch[r] = 0;
    Rig.solveStatus[r] = status;
    Rig.passesTotal[r] = Rig.passesTotal[r]! + iterations;
    if (iterations > Rig.passesMax[r]!) Rig.passesMax[r] = iterations;
    Rig.stepsSolved[r] = Rig.stepsSolved[r]! + 1;
    if (status === STATUS_DIVERGED) Rig.diverged[r] = Rig.diverged[r]! + 1;
    const dt = rig.settings.dt;
    const angVel = Bone.angVel;
    for (let i = 0; i < n; i++) {
      const b = rig.bones[i]!;
      quatMulConjA(dq, 0, beforeRot, i * 4, rot, b * 4); // body-frame change…
      quatToRotationVector(w, 0, dq, 0);
      // …as a world angular velocity: rotate by the old world rotation
      const qx = beforeRot[i * 4]!, qy = beforeRot[i * 4 + 1]!, qz = beforeRot[i * 4 + 2]!, qw = beforeRot[i * 4 + 3]!;
      const vx = w[0]! / dt, vy = w[1]! / dt, vz = w[2]! / dt;
      const tx = 2 * (qy * vz - qz * vy), ty = 2 * (qz * vx - qx * vz), tz = 2 * (qx * vy - qy * vx);
      angVel[b * 3] = vx + qw * tx + (qy * tz - qz * ty);
      angVel[b * 3 + 1] = vy + qw * ty + (qz * tx - qx * tz);
      angVel[b * 3 + 2] = vz + qw * tz + (qx * ty - qy * tx);
    }
    if (!Rig.pinned[r]) {
      const vel = Bone.vel;
      for (let a = 0; a < 3; a++) vel[root * 3 + a] = (centre[root * 3 + a]! - beforeCentre[a]!) / dt;
    }
  }
}
