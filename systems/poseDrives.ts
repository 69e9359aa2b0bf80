/**
 * Pose drives (physics on top of motion; the clip's pose on the rig: src/world/clipPose.ts,
 * sampled each step by systems/poseTargets.ts), a 'forces' system (see setPoseDrive): a
 * pose-space drive per driven bone, a torsion spring toward the clip's rotation of the joint
 * relative to its parent (the target clamped into the joint's limits, axis by axis), stiffness
 * S × the inertia the joint turns (the bone and all it carries, about its head:
 * PoseDriveRecord.inertia) and damping 2ζ√S × that inertia, toward the clip's relative angular
 * velocity. The same on every axis: a bone's twist carries its children's swing (a hip's
 * connector twists when the thigh swings), so a twist scaled by the bone's own thin-rod inertia
 * gave way by tens of degrees. The torque goes to the bone and its negative to the parent. The
 * root's drive holds it in the world: its rotation (S × the rig's inertia about the root's head)
 * and its head (a spring S × the rig's mass at the head). World markers get damping toward the
 * clip point's velocity here (2ζ√S × the rig's mass); their springs are the control springs
 * (stiffness S × the rig's mass, set by poseTargets).
 *
 * Implicit: the springs aim at the clip's pose at the end of the step and are evaluated there
 * (backward Euler, as the limits and control springs are): τ = k (e − dt ω_rel) + c Δω, with
 * (k dt² + c dt) along each axis added to the effective inertia of the bone and its parent
 * (twice each, as the limits' stand-in does). So a stiff drive on a light hand stays stable at
 * the clip's frame time.
 */
import type { PhysikWorld } from '../src/world/world';
import { steppingRigs } from '../src/world/world';
import { POSE_DRIVE, type PoseDriveRecord } from '../components/PoseDrive';
import type { Doubles } from '../components/doubles';
import { activePoseDrives, poseDriveRecords } from '../src/world/clipPose';

/**
 * Tie a rig to a clip (a record from createPoseDriveRecord), or untie it (null). The drives run
 * among the step's 'forces' systems (added with the first record of a world, taken out with
 * the last), so a step retried in substeps (systems/substepRetry.ts) drives each substep too.
 */
export function setPoseDrive(world: PhysikWorld, rig: number, record: PoseDriveRecord | null): void {
  const map = poseDriveRecords(world);
  if (record) map.set(rig, record);
  else map.delete(rig);
  const forces = world.physik.userSystems.forces;
  const at = forces.indexOf(poseDrives);
  if (map.size > 0 && at < 0) forces.push(poseDrives);
  else if (map.size === 0 && at >= 0) forces.splice(at, 1);
}

/**
 * The helpers' double arguments, passed in an array: V8 boxes a double passed to a function it
 * does not inline (an allocation per call). [0] a time, [1] a rate or a length, [2..8] a point,
 * a force and an implicit mass (applyAtPoint), [2] a damping (jointFriction), [2..5] a
 * quaternion (axes).
 */
const args = new Float64Array(9);

// the joint frame's axes in the world (columns), and scratch rotations
const frame = new Float64Array(9);

/** Columns of the rotation matrix of the quaternion in args[2..5] into frame. */
function axes(): void {
  const x = args[2]!, y = args[3]!, z = args[4]!, w = args[5]!;
  frame[0] = 1 - 2 * (y * y + z * z); frame[1] = 2 * (x * y + z * w); frame[2] = 2 * (x * z - y * w);
  frame[3] = 2 * (x * y - z * w); frame[4] = 1 - 2 * (x * x + z * z); frame[5] = 2 * (y * z + x * w);
  frame[6] = 2 * (x * z + y * w); frame[7] = 2 * (y * z - x * w); frame[8] = 1 - 2 * (x * x + y * y);
}

const tgt = new Float64Array(4);
const phi = new Float64Array(3);

/**
 * The clip's rotation of bone b (index i, parent index p) relative to its parent, clamped
 * into the joint's limits (clampToLimits), to tgt.
 */
function clampedTarget(world: PhysikWorld, rec: PoseDriveRecord, b: number, i: number, p: number): void {
  const B = rec.rotB;
  // local = parent⁻¹ ⊗ bone
  const ax = -B[p * 4]!, ay = -B[p * 4 + 1]!, az = -B[p * 4 + 2]!, aw = B[p * 4 + 3]!;
  const bx = B[i * 4]!, by = B[i * 4 + 1]!, bz = B[i * 4 + 2]!, bw = B[i * 4 + 3]!;
  tgt[0] = aw * bx + ax * bw + ay * bz - az * by;
  tgt[1] = aw * by - ax * bz + ay * bw + az * bx;
  tgt[2] = aw * bz + ax * by - ay * bx + az * bw;
  tgt[3] = aw * bw - ax * bx - ay * by - az * bz;
  clampToLimits(world, b, tgt, 0);
}

/**
 * A rotation of bone b relative to its parent (q[o..o+3]) clamped into the joint's enabled
 * limits, axis by axis: its rotation vector from the rest pose in the joint frame (as the
 * limits measure it) clamped, and back. Unchanged when no limit is passed.
 */
export function clampToLimits(world: PhysikWorld, b: number, q: Doubles, o: number): void {
  const { AngularLimit, Bone } = world.physik;
  const b3 = b * 3;
  if (!(AngularLimit.enabled[b3] || AngularLimit.enabled[b3 + 1] || AngularLimit.enabled[b3 + 2])) return;
  const lx = q[o]!, ly = q[o + 1]!, lz = q[o + 2]!, lw = q[o + 3]!;
  // φ of rest⁻¹ ⊗ local
  const R = Bone.restLocal, r4 = b * 4;
  const rx = -R[r4]!, ry = -R[r4 + 1]!, rz = -R[r4 + 2]!, rw = R[r4 + 3]!;
  let x = rw * lx + rx * lw + ry * lz - rz * ly;
  let y = rw * ly - rx * lz + ry * lw + rz * lx;
  let z = rw * lz + rx * ly - ry * lx + rz * lw;
  let w = rw * lw - rx * lx - ry * ly - rz * lz;
  if (w < 0) { x = -x; y = -y; z = -z; w = -w; }
  const s = Math.sqrt(x * x + y * y + z * z);
  const f = s < 1e-12 ? 2 : (2 * Math.atan2(s, w)) / s;
  phi[0] = x * f; phi[1] = y * f; phi[2] = z * f;
  let clamped = false;
  for (let a = 0; a < 3; a++) {
    if (!AngularLimit.enabled[b3 + a]) continue;
    const lo = AngularLimit.min[b3 + a]!, hi = AngularLimit.max[b3 + a]!;
    if (phi[a]! > hi) { phi[a] = hi; clamped = true; } else if (phi[a]! < lo) { phi[a] = lo; clamped = true; }
  }
  if (!clamped) return;
  // back: local = rest ⊗ exp(φ)
  const angle = Math.sqrt(phi[0]! * phi[0]! + phi[1]! * phi[1]! + phi[2]! * phi[2]!);
  const sh = angle === 0 ? 0.5 : Math.sin(0.5 * angle) / angle;
  const ex = phi[0]! * sh, ey = phi[1]! * sh, ez = phi[2]! * sh, ew = Math.cos(0.5 * angle);
  const qx = -rx, qy = -ry, qz = -rz, qw = rw;
  q[o] = qw * ex + qx * ew + qy * ez - qz * ey;
  q[o + 1] = qw * ey - qx * ez + qy * ew + qz * ex;
  q[o + 2] = qw * ez + qx * ey - qy * ex + qz * ew;
  q[o + 3] = qw * ew - qx * ex - qy * ey - qz * ez;
}

export function poseDrives(world: PhysikWorld): void {
  const map = activePoseDrives(world);
  if (!map) return;
  const { Bone, ControlPoint } = world.physik;
  const { rot, angVel, torque, force, effInertiaWorld, restLocal, centre, head, headVel, vel } = Bone;
  const rigs = steppingRigs(world);
  for (let ri = 0; ri < rigs.length; ri++) {
    const rig = rigs[ri]!;
    const rec = map.get(rig.eid);
    if (rec === undefined || rig.settings.solver !== 'physik') continue;
    const dt = rig.settings.dt;
    const S = rec.stiffness, zeta = rec.dampingRatio, sqrtS = Math.sqrt(S);
    const parent = rec.parent;
    const n = rig.bones.length;
    const friction = rec.jointDamping;
    for (let i = 0; i < n; i++) {
      if (rec.follow[i]) continue;
      if (rec.mode[i] !== POSE_DRIVE) {
        if (friction > 0 && parent[i]! >= 0) {
          args[1] = dt; args[2] = friction * rec.inertia[i]!;
          jointFriction(world, rig.bones[i]!, rig.bones[parent[i]!]!);
        }
        continue;
      }
      const b = rig.bones[i]!, b3 = b * 3, b4 = b * 4, b6 = b * 6, p = parent[i]!;
      const kS = S * rec.stiffnessScale[i]!, cS = 2 * zeta * sqrtS * rec.dampingScale[i]!;
      // the desired world rotation D and the joint frame
      let dx: number, dy: number, dz: number, dw: number;
      let wrx: number, wry: number, wrz: number; // clip's relative angular velocity minus the bone's (world)
      let pb = -1;
      let kSwing: number, kTwist: number, cSwing: number, cTwist: number;
      if (p < 0) {
        dx = rec.rotB[0]!; dy = rec.rotB[1]!; dz = rec.rotB[2]!; dw = rec.rotB[3]!;
        wrx = rec.omega[0]! - angVel[b3]!; wry = rec.omega[1]! - angVel[b3 + 1]!; wrz = rec.omega[2]! - angVel[b3 + 2]!;
        args[2] = rot[b4]!; args[3] = rot[b4 + 1]!; args[4] = rot[b4 + 2]!; args[5] = rot[b4 + 3]!;
        axes();
        kSwing = kS * rec.inertia[i]!; kTwist = kSwing;
        cSwing = cS * rec.inertia[i]!; cTwist = cSwing;
      } else {
        pb = rig.bones[p]!;
        const p4 = pb * 4, p3 = pb * 3;
        clampedTarget(world, rec, b, i, p);
        const px = rot[p4]!, py = rot[p4 + 1]!, pz = rot[p4 + 2]!, pw = rot[p4 + 3]!;
        dx = pw * tgt[0]! + px * tgt[3]! + py * tgt[2]! - pz * tgt[1]!;
        dy = pw * tgt[1]! - px * tgt[2]! + py * tgt[3]! + pz * tgt[0]!;
        dz = pw * tgt[2]! + px * tgt[1]! - py * tgt[0]! + pz * tgt[3]!;
        dw = pw * tgt[3]! - px * tgt[0]! - py * tgt[1]! - pz * tgt[2]!;
        // the clip's relative angular velocity, carried from the clip's parent frame to the
        // bone's parent's: C = P ⊗ Pclip⁻¹ applied to (ω_clip,b − ω_clip,p)
        const P4 = p * 4;
        const cx0 = -rec.rotB[P4]!, cy0 = -rec.rotB[P4 + 1]!, cz0 = -rec.rotB[P4 + 2]!, cw0 = rec.rotB[P4 + 3]!;
        const cx = pw * cx0 + px * cw0 + py * cz0 - pz * cy0;
        const cy = pw * cy0 - px * cz0 + py * cw0 + pz * cx0;
        const cz = pw * cz0 + px * cy0 - py * cx0 + pz * cw0;
        const cw = pw * cw0 - px * cx0 - py * cy0 - pz * cz0;
        const ox = rec.omega[i * 3]! - rec.omega[p * 3]!, oy = rec.omega[i * 3 + 1]! - rec.omega[p * 3 + 1]!, oz = rec.omega[i * 3 + 2]! - rec.omega[p * 3 + 2]!;
        const tx = 2 * (cy * oz - cz * oy), ty = 2 * (cz * ox - cx * oz), tz = 2 * (cx * oy - cy * ox);
        wrx = ox + cw * tx + (cy * tz - cz * ty) - (angVel[b3]! - angVel[p3]!);
        wry = oy + cw * ty + (cz * tx - cx * tz) - (angVel[b3 + 1]! - angVel[p3 + 1]!);
        wrz = oz + cw * tz + (cx * ty - cy * tx) - (angVel[b3 + 2]! - angVel[p3 + 2]!);
        // joint frame: parent ⊗ rest local
        const lx = restLocal[b4]!, ly = restLocal[b4 + 1]!, lz = restLocal[b4 + 2]!, lw = restLocal[b4 + 3]!;
        args[2] = pw * lx + px * lw + py * lz - pz * ly; args[3] = pw * ly - px * lz + py * lw + pz * lx;
        args[4] = pw * lz + px * ly - py * lx + pz * lw; args[5] = pw * lw - px * lx - py * ly - pz * lz;
        axes();
        kSwing = kS * rec.inertia[i]!; kTwist = kSwing; cSwing = cS * rec.inertia[i]!; cTwist = cSwing;
      }
      // error E = D ⊗ Q⁻¹ as a rotation vector (world)
      const qx = -rot[b4]!, qy = -rot[b4 + 1]!, qz = -rot[b4 + 2]!, qw = rot[b4 + 3]!;
      let ex = dw * qx + dx * qw + dy * qz - dz * qy;
      let ey = dw * qy - dx * qz + dy * qw + dz * qx;
      let ez = dw * qz + dx * qy - dy * qx + dz * qw;
      let ew = dw * qw - dx * qx - dy * qy - dz * qz;
      if (ew < 0) { ex = -ex; ey = -ey; ez = -ez; ew = -ew; }
      const s = Math.sqrt(ex * ex + ey * ey + ez * ez);
      const f = s < 1e-12 ? 2 : (2 * Math.atan2(s, ew)) / s;
      ex *= f; ey *= f; ez *= f;
      // the bone's own relative angular velocity (for the implicit −k dt ω_rel)
      let rwx = angVel[b3]!, rwy = angVel[b3 + 1]!, rwz = angVel[b3 + 2]!;
      if (pb >= 0) { rwx -= angVel[pb * 3]!; rwy -= angVel[pb * 3 + 1]!; rwz -= angVel[pb * 3 + 2]!; }
      let tx = 0, ty = 0, tz = 0;
      let ixx = 0, ixy = 0, ixz = 0, iyy = 0, iyz = 0, izz = 0;
      for (let a = 0; a < 3; a++) {
        const ux = frame[a * 3]!, uy = frame[a * 3 + 1]!, uz = frame[a * 3 + 2]!;
        const k = a === 1 ? kTwist : kSwing, c = a === 1 ? cTwist : cSwing;
        const e = ex * ux + ey * uy + ez * uz;
        const tau = k * (e - dt * (rwx * ux + rwy * uy + rwz * uz)) + c * (wrx * ux + wry * uy + wrz * uz);
        tx += tau * ux; ty += tau * uy; tz += tau * uz;
        const sI = 2 * (k * dt + c) * dt;
        ixx += sI * ux * ux; ixy += sI * ux * uy; ixz += sI * ux * uz;
        iyy += sI * uy * uy; iyz += sI * uy * uz; izz += sI * uz * uz;
      }
      // the implicit terms resist every acceleration, the clip's too: give the clip's back
      // (feed-forward), so a bone that follows the clip exactly feels no drag from them
      const sI = 2 * (kSwing * dt + cSwing) * dt;
      torque[b3] = torque[b3]! + (tx + sI * rec.alpha[i * 3]!);
      torque[b3 + 1] = torque[b3 + 1]! + (ty + sI * rec.alpha[i * 3 + 1]!);
      torque[b3 + 2] = torque[b3 + 2]! + (tz + sI * rec.alpha[i * 3 + 2]!);
      effInertiaWorld[b6] = effInertiaWorld[b6]! + ixx; effInertiaWorld[b6 + 1] = effInertiaWorld[b6 + 1]! + ixy; effInertiaWorld[b6 + 2] = effInertiaWorld[b6 + 2]! + ixz;
      effInertiaWorld[b6 + 3] = effInertiaWorld[b6 + 3]! + iyy; effInertiaWorld[b6 + 4] = effInertiaWorld[b6 + 4]! + iyz; effInertiaWorld[b6 + 5] = effInertiaWorld[b6 + 5]! + izz;
      if (pb >= 0) {
        const p3 = pb * 3, p6 = pb * 6;
        torque[p3] = torque[p3]! + (sI * rec.alpha[p * 3]! - tx);
        torque[p3 + 1] = torque[p3 + 1]! + (sI * rec.alpha[p * 3 + 1]! - ty);
        torque[p3 + 2] = torque[p3 + 2]! + (sI * rec.alpha[p * 3 + 2]! - tz);
        effInertiaWorld[p6] = effInertiaWorld[p6]! + ixx; effInertiaWorld[p6 + 1] = effInertiaWorld[p6 + 1]! + ixy; effInertiaWorld[p6 + 2] = effInertiaWorld[p6 + 2]! + ixz;
        effInertiaWorld[p6 + 3] = effInertiaWorld[p6 + 3]! + iyy; effInertiaWorld[p6 + 4] = effInertiaWorld[p6 + 4]! + iyz; effInertiaWorld[p6 + 5] = effInertiaWorld[p6 + 5]! + izz;
      } else {
        // the root's head held at the clip's: F = k (h_clip − h − dt v) + c (v_clip − v) at the head
        const kL = kS * rec.mass, cL = cS * rec.mass;
        const hvx = headVel[b3]!, hvy = headVel[b3 + 1]!, hvz = headVel[b3 + 2]!;
        const fx = kL * (rec.headB[0]! - head[b3]! - dt * hvx) + cL * (rec.rootVel[0]! - hvx);
        const fy = kL * (rec.headB[1]! - head[b3 + 1]! - dt * hvy) + cL * (rec.rootVel[1]! - hvy);
        const fz = kL * (rec.headB[2]! - head[b3 + 2]! - dt * hvz) + cL * (rec.rootVel[2]! - hvz);
        const mu = 2 * (kL * dt + cL) * dt;
        args[2] = head[b3]!; args[3] = head[b3 + 1]!; args[4] = head[b3 + 2]!;
        args[5] = fx + mu * rec.rootAcc[0]!; args[6] = fy + mu * rec.rootAcc[1]!; args[7] = fz + mu * rec.rootAcc[2]!; args[8] = mu;
        applyAtPoint(world, b);
      }
    }
    // world markers' damping toward the clip point's velocity
    for (let m = 0; m < rec.markerCp.length; m++) {
      if (rec.markerMode[m] !== POSE_DRIVE) continue;
      const cp = rec.markerCp[m]!, c3 = cp * 3, m3 = m * 3;
      const b = ControlPoint.bone[cp]!, b3 = b * 3;
      const c = 2 * zeta * sqrtS * Math.sqrt(rec.markerStiffnessScale[m]!) * rec.markerDampingScale[m]! * rec.mass;
      const ax = ControlPoint.attachment[c3]!, ay = ControlPoint.attachment[c3 + 1]!, az = ControlPoint.attachment[c3 + 2]!;
      const lx = ax - centre[b3]!, ly = ay - centre[b3 + 1]!, lz = az - centre[b3 + 2]!;
      const wx = angVel[b3]!, wy = angVel[b3 + 1]!, wz = angVel[b3 + 2]!;
      const vx = vel[b3]! + wy * lz - wz * ly, vy = vel[b3 + 1]! + wz * lx - wx * lz, vz = vel[b3 + 2]! + wx * ly - wy * lx;
      const mu = 2 * c * dt;
      args[2] = ax; args[3] = ay; args[4] = az;
      args[5] = c * (rec.pointVel[m3]! - vx); args[6] = c * (rec.pointVel[m3 + 1]! - vy); args[7] = c * (rec.pointVel[m3 + 2]! - vz); args[8] = mu;
      applyAtPoint(world, b);
      // the implicit point masses (this damping's and the control spring's 2 k dt²,
      // controlSprings.ts) resist the clip's motion too: on the mass μ and on the inertia
      // μ |l|², so give back μ × the clip's centre acceleration and μ |l|² × its angular one
      const ff = mu + 2 * ControlPoint.stiffness[cp]! * dt * dt, fl = ff * (lx * lx + ly * ly + lz * lz), i3 = rec.markerBone[m]! * 3;
      force[b3] = force[b3]! + ff * rec.centreAcc[m3]!; force[b3 + 1] = force[b3 + 1]! + ff * rec.centreAcc[m3 + 1]!; force[b3 + 2] = force[b3 + 2]! + ff * rec.centreAcc[m3 + 2]!;
      torque[b3] = torque[b3]! + fl * rec.alpha[i3]!; torque[b3 + 1] = torque[b3 + 1]! + fl * rec.alpha[i3 + 1]!; torque[b3 + 2] = torque[b3 + 2]! + fl * rec.alpha[i3 + 2]!;
    }
  }
}

/** A free joint's damping: τ = −c (ω_b − ω_p) on bone b, its negative on parent p, implicit (2 c dt on both inertias); dt and c in args[1], args[2]. */
function jointFriction(world: PhysikWorld, b: number, p: number): void {
  const dt = args[1]!, c = args[2]!;
  const { angVel, torque, effInertiaWorld } = world.physik.Bone;
  const b3 = b * 3, p3 = p * 3;
  const tx = -c * (angVel[b3]! - angVel[p3]!), ty = -c * (angVel[b3 + 1]! - angVel[p3 + 1]!), tz = -c * (angVel[b3 + 2]! - angVel[p3 + 2]!);
  torque[b3] = torque[b3]! + tx; torque[b3 + 1] = torque[b3 + 1]! + ty; torque[b3 + 2] = torque[b3 + 2]! + tz;
  torque[p3] = torque[p3]! - tx; torque[p3 + 1] = torque[p3 + 1]! - ty; torque[p3 + 2] = torque[p3 + 2]! - tz;
  const s = 2 * c * dt, b6 = b * 6, p6 = p * 6;
  effInertiaWorld[b6] = effInertiaWorld[b6]! + s; effInertiaWorld[b6 + 3] = effInertiaWorld[b6 + 3]! + s; effInertiaWorld[b6 + 5] = effInertiaWorld[b6 + 5]! + s;
  effInertiaWorld[p6] = effInertiaWorld[p6]! + s; effInertiaWorld[p6 + 3] = effInertiaWorld[p6 + 3]! + s; effInertiaWorld[p6 + 5] = effInertiaWorld[p6 + 5]! + s;
}

/**
 * Force F at world point a on bone b, with mu as the implicit point mass there (on the mass, and
 * mu |a − centre|² on every inertia axis): a, F and mu in args[2..8].
 */
function applyAtPoint(world: PhysikWorld, b: number): void {
  const ax = args[2]!, ay = args[3]!, az = args[4]!, fx = args[5]!, fy = args[6]!, fz = args[7]!, mu = args[8]!;
  const { centre, force, torque, effMass, effInertiaWorld } = world.physik.Bone;
  const b3 = b * 3, b6 = b * 6;
  const lx = ax - centre[b3]!, ly = ay - centre[b3 + 1]!, lz = az - centre[b3 + 2]!;
  force[b3] = force[b3]! + fx; force[b3 + 1] = force[b3 + 1]! + fy; force[b3 + 2] = force[b3 + 2]! + fz;
  torque[b3] = torque[b3]! + (ly * fz - lz * fy);
  torque[b3 + 1] = torque[b3 + 1]! + (lz * fx - lx * fz);
  torque[b3 + 2] = torque[b3 + 2]! + (lx * fy - ly * fx);
  effMass[b] = effMass[b]! + mu;
  const inertia = mu * (lx * lx + ly * ly + lz * lz);
  effInertiaWorld[b6] = effInertiaWorld[b6]! + inertia; effInertiaWorld[b6 + 3] = effInertiaWorld[b6 + 3]! + inertia; effInertiaWorld[b6 + 5] = effInertiaWorld[b6 + 5]! + inertia;
}
