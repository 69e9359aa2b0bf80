/**
 * Integration of the rig's state: world angular velocity and world rotation of every bone,
 * plus the root's centre position and velocity when the root floats. Positions of the other
 * bones come from forward kinematics, so joints stay connected by construction.
 *
 * - semi-implicit (symplectic) Euler, the default: ω ← ω + α dt, then rotate by ω dt.
 * - explicit Euler (the paper): rotate by the old ω dt, then ω ← ω + α dt. It never settled
 *   on the humanoid (docs/physics.md); kept to reproduce the paper.
 * Angular damping mode 'halve' halves ω after the update (the original add-on). Welded bones
 * (welds.ts) take their parent's rotation and angular velocity, hinged bones (hinges.ts) the
 * nearest their hinge allows.
 *
 * Divergence guard: if the joint solve diverged, any acceleration is non-finite, or the step
 * would turn a bone more than a quarter turn or move the root more than the rig's height (a
 * cap on the kinetic energy one step may reach), the rig's state is not written and the step
 * is marked refused (`Rig.substeps` = 0); systems/substepRetry.ts then retries it in
 * substeps. NaN is never written. With `Rig.speedClamp` (set by the retry when substeps do
 * not help) a too-fast step is taken with those speeds clamped to the bound instead, as
 * physics engines cap angular velocity: it only ever removes energy.
 */
import type { PhysikWorld } from '../src/world/world';
import { steppingRigs } from '../src/world/world';
import { quatRotateByVector } from '../src/math/quat';
import { weldsOf, weldsActive } from './welds';
import { hingesOf, hingesActive, projectHinge } from './hinges';
import { STATUS_DIVERGED } from '../components';

export function integrate(world: PhysikWorld): void {
  const { Bone, Rig } = world.physik;
  const { rot, angVel, acc, angAcc, vel, centre } = Bone;
  const rigs = steppingRigs(world);
  for (let ri = 0; ri < rigs.length; ri++) {
    const rig = rigs[ri]!;
    if (rig.settings.solver !== 'physik') continue; // posed by its kinematic solver
    const s = rig.settings;
    const dt = s.dt;
    // the guard: a non-finite solve is always refused; a step too fast (a quarter turn, the
    // root moving the rig's height) is refused, or with Rig.speedClamp taken at that speed
    const clamp = Rig.speedClamp[rig.eid] === 1;
    const maxTurn = (0.5 * Math.PI) / dt;
    const maxMove = Rig.height[rig.eid]! / dt;
    let finite = Rig.solveStatus[rig.eid] !== STATUS_DIVERGED;
    let fast = false;
    // (spins compared squared: no square root per bone)
    const maxTurn2 = maxTurn * maxTurn;
    for (let i = 0; finite && i < rig.bones.length; i++) {
      const b3 = rig.bones[i]! * 3;
      const x = angVel[b3]! + angAcc[b3]! * dt, y = angVel[b3 + 1]! + angAcc[b3 + 1]! * dt, z = angVel[b3 + 2]! + angAcc[b3 + 2]! * dt;
      const spin2 = x * x + y * y + z * z;
      finite = Number.isFinite(spin2) && Number.isFinite(acc[b3]! + acc[b3 + 1]! + acc[b3 + 2]!);
      if (spin2 > maxTurn2) fast = true;
    }
    if (finite && !Rig.pinned[rig.eid]) {
      const r3 = rig.bones[0]! * 3;
      const vx = vel[r3]! + acc[r3]! * dt, vy = vel[r3 + 1]! + acc[r3 + 1]! * dt, vz = vel[r3 + 2]! + acc[r3 + 2]! * dt;
      // (written out: a call V8 does not inline here boxes its double arguments, an allocation)
      if (vx * vx + vy * vy + vz * vz > maxMove * maxMove) fast = true;
    }
    if (!finite || (fast && !clamp)) {
      Rig.substeps[rig.eid] = 0; // refused: nothing written
      continue;
    }
    Rig.substeps[rig.eid] = 1;
    const explicit = s.integrator === 'explicit';
    const halve = s.angularDampingMode === 'halve';
    const welds = weldsOf(world, rig);
    const welded = welds.count > 0 && weldsActive(rig) ? welds.flag : null;
    const hinges = hingesOf(world, rig);
    const hinged = hinges.count > 0 && hingesActive(rig) ? hinges.axis : null;
    // parents first (depth-first order), so a bone's parent has its final rotation when it is reached
    for (let bi = 0; bi < rig.bones.length; bi++) {
      const b = rig.bones[bi]!;
      const b3 = b * 3;
      if (welded !== null && welded[bi] === 1) {
        // a welded bone turns with its parent: the solve gave it its parent's acceleration, this
        // keeps rounding from opening the weld
        // rot_b = rot_p · local (quatMul written out: a shared helper sees every kind of array)
        const p = Bone.parent[b]!, pq = p * 4, lq = bi * 4, bq = b * 4, local = welds.local;
        const ax = rot[pq]!, ay = rot[pq + 1]!, az = rot[pq + 2]!, aw = rot[pq + 3]!;
        const lx = local[lq]!, ly = local[lq + 1]!, lz = local[lq + 2]!, lw = local[lq + 3]!;
        rot[bq] = aw * lx + ax * lw + ay * lz - az * ly;
        rot[bq + 1] = aw * ly - ax * lz + ay * lw + az * lx;
        rot[bq + 2] = aw * lz + ax * ly - ay * lx + az * lw;
        rot[bq + 3] = aw * lw - ax * lx - ay * ly - az * lz;
        angVel[b3] = angVel[p * 3]!; angVel[b3 + 1] = angVel[p * 3 + 1]!; angVel[b3 + 2] = angVel[p * 3 + 2]!;
        continue;
      }
      const wx = angVel[b3]!, wy = angVel[b3 + 1]!, wz = angVel[b3 + 2]!;
      let nx = wx + angAcc[b3]! * dt, ny = wy + angAcc[b3 + 1]! * dt, nz = wz + angAcc[b3 + 2]! * dt;
      if (fast) {
        const spin = Math.sqrt(nx * nx + ny * ny + nz * nz);
        if (spin > maxTurn) { const f = maxTurn / spin; nx *= f; ny *= f; nz *= f; }
      }
      if (explicit) quatRotateByVector(rot, b * 4, wx * dt, wy * dt, wz * dt);
      else quatRotateByVector(rot, b * 4, nx * dt, ny * dt, nz * dt);
      const f = halve ? 0.5 : 1;
      angVel[b3] = nx * f; angVel[b3 + 1] = ny * f; angVel[b3 + 2] = nz * f;
      // a hinged bone turns about its free axis only (hinges.ts)
      if (hinged !== null && hinged[bi]! >= 0) projectHinge(Bone, b, hinged[bi]!);
    }
    const root = rig.bones[0]!, r3 = root * 3;
    if (!Rig.pinned[rig.eid]) {
      let f = 1;
      if (fast) {
        const vx = vel[r3]! + acc[r3]! * dt, vy = vel[r3 + 1]! + acc[r3 + 1]! * dt, vz = vel[r3 + 2]! + acc[r3 + 2]! * dt;
        const speed = Math.sqrt(vx * vx + vy * vy + vz * vz);
        if (speed > maxMove) f = maxMove / speed;
      }
      for (let a = 0; a < 3; a++) {
        const v = vel[r3 + a]!, nv = (v + acc[r3 + a]! * dt) * f;
        centre[r3 + a] = centre[r3 + a]! + (explicit ? v : nv) * dt;
        vel[r3 + a] = nv;
      }
    }
    if (fast) Rig.clampedSteps[rig.eid] = Rig.clampedSteps[rig.eid]! + 1;
  }
}
