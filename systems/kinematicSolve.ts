/**
 * Kinematic solvers as a system: every rig whose `solver` setting is not 'physik' is posed by
 * its solver (FABRIK, CCD, Jacobian, ...) toward its control points' effective targets, once
 * per step. Angular velocities (and a floating root's velocity) are set from the change of
 * pose over dt, so rest detection, kinetic energy and recording treat every solver alike.
 */
import type { PhysikWorld, RigRecord } from '../src/core/world';
import { quatMulConjA, quatToRotationVector } from '../src/math/quat';
import { kinematicSolvers } from './ik/registry';
import { STATUS_DIVERGED } from '../components';

const before = { rot: new Float64Array(0), centre: new Float64Array(3) };
const dq = new Float64Array(4);
const w = new Float64Array(3);

function grow(n: number): void {
  if (before.rot.length < n * 4) before.rot = new Float64Array(n * 4 * 2);
}

export function kinematicSolve(world: PhysikWorld): void {
  const { Bone, Rig } = world.physik;
  for (let ri = 0; ri < world.physik.rigs.length; ri++) {
    const rig: RigRecord = world.physik.rigs[ri]!;
    if (rig.settings.solver === 'physik') continue;
    const solve = kinematicSolvers[rig.settings.solver];
    if (!solve) throw new Error(`rig "${rig.name}": unknown solver "${rig.settings.solver}"`);
    const n = rig.bones.length;
    grow(n);
    for (let i = 0; i < n; i++) before.rot.set(Bone.rot.subarray(rig.bones[i]! * 4, rig.bones[i]! * 4 + 4), i * 4);
    const root = rig.bones[0]!;
    before.centre.set(Bone.centre.subarray(root * 3, root * 3 + 3));
    const result = solve(world, rig);
    Rig.passes[rig.eid] = result.iterations;
    Rig.mismatch[rig.eid] = 0;
    Rig.solveStatus[rig.eid] = result.status;
    Rig.passesTotal[rig.eid] += result.iterations;
    if (result.iterations > Rig.passesMax[rig.eid]!) Rig.passesMax[rig.eid] = result.iterations;
    Rig.stepsSolved[rig.eid] += 1;
    if (result.status === STATUS_DIVERGED) Rig.diverged[rig.eid] += 1;
    const dt = rig.settings.dt;
    for (let i = 0; i < n; i++) {
      const b = rig.bones[i]!;
      quatMulConjA(dq, 0, before.rot, i * 4, Bone.rot, b * 4); // body-frame change…
      quatToRotationVector(w, 0, dq, 0);
      // …as a world angular velocity: rotate by the old world rotation
      const qx = before.rot[i * 4]!, qy = before.rot[i * 4 + 1]!, qz = before.rot[i * 4 + 2]!, qw = before.rot[i * 4 + 3]!;
      const vx = w[0]! / dt, vy = w[1]! / dt, vz = w[2]! / dt;
      const tx = 2 * (qy * vz - qz * vy), ty = 2 * (qz * vx - qx * vz), tz = 2 * (qx * vy - qy * vx);
      Bone.angVel[b * 3] = vx + qw * tx + (qy * tz - qz * ty);
      Bone.angVel[b * 3 + 1] = vy + qw * ty + (qz * tx - qx * tz);
      Bone.angVel[b * 3 + 2] = vz + qw * tz + (qx * ty - qy * tx);
    }
    if (!Rig.pinned[rig.eid]) {
      for (let a = 0; a < 3; a++) Bone.vel[root * 3 + a] = (Bone.centre[root * 3 + a]! - before.centre[a]!) / dt;
    }
  }
}
