/**
 * Checks of a solved step shared by the joint-solve tests (they use vitest's expect, so they
 * live apart from helpers.ts, which the benchmarks import too).
 */
import { expect } from 'vitest';
import type { PhysikWorld } from '../../src/core';
import { add, cross, matVec, norm, quatMatrix, rotatedDiag, scale, sub, symFull, v3, type V3 } from './helpers';

/**
 * Acceleration of bone b's material point at world point p from the stores:
 * a + α × r + ω × (ω × r), r = p − centre (the centripetal part unless the rig leaves it out).
 */
export function pointAcc(world: PhysikWorld, b: number, p: V3): V3 {
  const { Bone } = world.physik;
  const r = sub(p, v3(Bone.centre, b));
  const a = add(v3(Bone.acc, b), cross(v3(Bone.angAcc, b), r));
  const rig = world.physik.rigs.find((x) => x.bones.includes(b));
  if (rig && !rig.settings.centripetal) return a;
  const w = v3(Bone.angVel, b);
  return add(a, cross(w, cross(w, r)));
}

/**
 * Recompute every bone's linear and angular acceleration from Newton-Euler (paper eq. 1) with
 * its external force and torque and the joint forces (its own at its head, minus each
 * child's at the child's head); compare with `Bone.acc` / `Bone.angAcc`. Mass and inverse
 * inertia are the step's effective ones (`Bone.effMass`, `Bone.invInertiaWorld`: the implicit
 * terms live there). The torque holds the gyroscopic torque (`Bone.gyroTorque`); with the
 * explicit form it must be −ω × Iω with the bone's true inertia, which is checked too.
 */
export function checkNewton(world: PhysikWorld, bones: Int32Array, pinned: boolean): void {
  const { Bone } = world.physik;
  for (const b of bones) {
    const c = v3(Bone.centre, b);
    let F = v3(Bone.force, b);
    let T = v3(Bone.torque, b);
    const hasHeadJoint = Bone.parent[b]! >= 0 || pinned;
    if (hasHeadJoint) {
      const jf = v3(Bone.jointForce, b);
      F = add(F, jf);
      T = add(T, cross(sub(v3(Bone.head, b), c), jf));
    }
    for (const k of bones) {
      if (Bone.parent[k] !== b) continue;
      const jf = scale(v3(Bone.jointForce, k), -1);
      F = add(F, jf);
      T = add(T, cross(sub(v3(Bone.head, k), c), jf));
    }
    const rig = world.physik.rigs.find((x) => x.bones.includes(b))!;
    if (rig.settings.gyroscopic === 'explicit') {
      const R = quatMatrix(Bone.rot, b * 4);
      const I = rotatedDiag(R, v3(Bone.inertia, b));
      const w = v3(Bone.angVel, b);
      const gyro = cross(w, matVec(I, w));
      expect(norm(add(gyro, v3(Bone.gyroTorque, b))), `gyroscopic torque of bone ${b}`).toBeLessThan(1e-12 * (norm(gyro) + 1));
    }
    // the inverse effective inertia the step uses (implicit damping and limit terms included)
    const Jeff = symFull(Bone.invInertiaWorld, b * 6);
    const acc = scale(F, 1 / Bone.effMass[b]!);
    const angAcc = matVec(Jeff, T);
    const sizeA = norm(acc) + norm(v3(Bone.force, b)) / Bone.effMass[b]! + 1;
    const sizeW = norm(angAcc) + norm(matVec(Jeff, T)) + 1;
    expect(norm(sub(acc, v3(Bone.acc, b))), `linear acceleration of bone ${b}`).toBeLessThan(1e-9 * sizeA);
    expect(norm(sub(angAcc, v3(Bone.angAcc, b))), `angular acceleration of bone ${b}`).toBeLessThan(1e-9 * sizeW);
  }
}

/** Largest disagreement of accelerations at any joint (and of a pinned head from zero). */
export function jointMismatch(world: PhysikWorld, bones: Int32Array, pinned: boolean): number {
  const { Bone } = world.physik;
  let worst = 0;
  for (const b of bones) {
    const p = Bone.parent[b]!;
    const h = v3(Bone.head, b);
    if (p < 0) {
      if (pinned) worst = Math.max(worst, norm(pointAcc(world, b, h)));
      continue;
    }
    worst = Math.max(worst, norm(sub(pointAcc(world, b, h), pointAcc(world, p, h))));
    // siblings sharing the joint agree with each other directly too
    for (const s of bones) {
      if (s !== b && Bone.joint[s] === Bone.joint[b]) worst = Math.max(worst, norm(sub(pointAcc(world, b, h), pointAcc(world, s, h))));
    }
  }
  return worst;
}
