/**
 * Pose targets (physics on top of motion; src/world/clipPose.ts): for each rig playing a clip,
 * plays the record's mode changes that are due, samples the clip at the step's start, end and
 * the step after (each bone's local rotation slerped between the two frames around the time, the
 * root's head interpolated linearly, the clip pose placed on the rig's own bones), and moves each
 * world marker's control point onto the clip's point at the step's end (active in drive mode,
 * off otherwise). The clip holds its last frame after its end.
 */
import type { PhysikWorld, RigRecord } from '../src/world/world';
import { steppingRigs } from '../src/world/world';
import { wakeRig } from '../src/world/wake';
import { activePoseDrives, clipTime, posePoint, samplePose } from '../src/world/clipPose';
import { POSE_DRIVE, POSE_FOLLOW, type PoseDriveRecord } from '../components/PoseDrive';
import type { Doubles } from '../components/doubles';

/** The helpers' double arguments, passed in an array (V8 boxes a double argument it does not inline): [1] a rate or a half length. */
const args = new Float64Array(2);

const pointA = new Float64Array(3), pointC = new Float64Array(3), centreB = new Float64Array(3);

/** Centre of bone i (args[1]: half its length along its +Y) on a pose, to out. */
function boneCentre(rot: Doubles, head: Doubles, i: number, out: Float64Array): void {
  const half = args[1]!;
  const x = rot[i * 4]!, y = rot[i * 4 + 1]!, z = rot[i * 4 + 2]!, w = rot[i * 4 + 3]!;
  out[0] = head[i * 3]! + 2 * (x * y - z * w) * half;
  out[1] = head[i * 3 + 1]! + (1 - 2 * (x * x + z * z)) * half;
  out[2] = head[i * 3 + 2]! + 2 * (y * z + x * w) * half;
}

/** World angular velocity taking bone i from rotation A to B in 1/args[1] seconds (rotation vector of B ⊗ A⁻¹ × args[1]), to out[o]. */
function angularVelocity(A: Doubles, B: Doubles, i: number, out: Doubles, o: number): void {
  const inv = args[1]!;
  const o4 = i * 4;
  const ax = -A[o4]!, ay = -A[o4 + 1]!, az = -A[o4 + 2]!, aw = A[o4 + 3]!;
  const bx = B[o4]!, by = B[o4 + 1]!, bz = B[o4 + 2]!, bw = B[o4 + 3]!;
  let x = bw * ax + bx * aw + by * az - bz * ay;
  let y = bw * ay - bx * az + by * aw + bz * ax;
  let z = bw * az + bx * ay - by * ax + bz * aw;
  let w = bw * aw - bx * ax - by * ay - bz * az;
  if (w < 0) { x = -x; y = -y; z = -z; w = -w; }
  const s = Math.sqrt(x * x + y * y + z * z);
  const f = (s < 1e-12 ? 2 : (2 * Math.atan2(s, w)) / s) * inv;
  out[o] = x * f; out[o + 1] = y * f; out[o + 2] = z * f;
}

export function poseTargets(world: PhysikWorld): void {
  const map = activePoseDrives(world);
  if (!map) return;
  const { Rig, ControlPoint } = world.physik;
  const rigs = steppingRigs(world);
  for (let ri = 0; ri < rigs.length; ri++) {
    const rig = rigs[ri]!;
    const rec = map.get(rig.eid);
    if (rec === undefined) continue;
    const step = Rig.step[rig.eid]!;
    // mode changes due
    let changed = rec.followDirty;
    while (rec.cursor < rec.events.length && rec.events[rec.cursor]!.step <= step) {
      const ev = rec.events[rec.cursor++]!;
      for (let k = 0; k < ev.bones.length; k++) rec.mode[ev.bones[k]!] = ev.mode;
      for (let k = 0; k < ev.markers.length; k++) rec.markerMode[ev.markers[k]!] = ev.mode;
      changed = true;
    }
    // (with the modes, which bones' clip rates are read: sampled afresh, every rate read computed)
    if (changed) { updateFollow(world, rig, rec); rec.followDirty = false; rec.sampledStep = -1; }
    const dt = rig.settings.dt;
    const t0 = rec.start + step * dt;
    const n = rig.bones.length;
    const inv = 1 / dt;
    if (rec.sampledStep === step - 1 && rec.sampledDt === dt) {
      // the step after the last: its B and C are this step's A and B (the arrays rotate, C is new)
      const rA = rec.rotA, hA = rec.headA, w = rec.omega;
      rec.rotA = rec.rotB; rec.headA = rec.headB; rec.rotB = rec.rotC; rec.headB = rec.headC; rec.rotC = rA; rec.headC = hA;
      rec.omega = rec.omegaNext; rec.omegaNext = w;
      clipTime[0] = t0 + 2 * dt; samplePose(world, rig, rec, rec.rotC, rec.headC);
    } else {
      clipTime[0] = t0; samplePose(world, rig, rec, rec.rotA, rec.headA);
      clipTime[0] = t0 + dt; samplePose(world, rig, rec, rec.rotB, rec.headB);
      clipTime[0] = t0 + 2 * dt; samplePose(world, rig, rec, rec.rotC, rec.headC);
      args[1] = inv;
      for (let i = 0; i < n; i++) if (rec.rates[i] === 1) angularVelocity(rec.rotA, rec.rotB, i, rec.omega, i * 3);
    }
    rec.sampledStep = step; rec.sampledDt = dt;
    // (past the clip's end it holds still: no acceleration is taken from the stop)
    const accel = t0 + 2 * dt <= (rec.track.frameCount - 1) / rec.track.fps + 1e-9 * dt ? inv : 0;
    for (let i = 0; i < n; i++) {
      if (rec.rates[i] === 0) continue; // (read by no drive and no follow)
      // ω over this step (A → B) and the next (B → C); α from one to the other
      args[1] = inv;
      angularVelocity(rec.rotB, rec.rotC, i, rec.omegaNext, i * 3);
      for (let c = 0; c < 3; c++) rec.alpha[i * 3 + c] = (rec.omegaNext[i * 3 + c]! - rec.omega[i * 3 + c]!) * accel;
    }
    for (let c = 0; c < 3; c++) {
      rec.rootVel[c] = (rec.headB[c]! - rec.headA[c]!) * inv;
      rec.rootAcc[c] = ((rec.headC[c]! - rec.headB[c]!) * inv - rec.rootVel[c]!) * accel;
    }
    // world markers: the control point's target is the clip's point at the step's end
    const k = rec.stiffness * rec.mass;
    for (let m = 0; m < rec.markerCp.length; m++) {
      const cp = rec.markerCp[m]!, i = rec.markerBone[m]!, m3 = m * 3, c3 = cp * 3;
      posePoint(world, cp, i, rec.rotA, rec.headA, pointA, 0);
      posePoint(world, cp, i, rec.rotC, rec.headC, pointC, 0);
      posePoint(world, cp, i, rec.rotB, rec.headB, rec.pointB, m3);
      for (let c = 0; c < 3; c++) {
        const v = (rec.pointB[m3 + c]! - pointA[c]!) * inv;
        rec.pointVel[m3 + c] = v;
        rec.pointAcc[m3 + c] = ((pointC[c]! - rec.pointB[m3 + c]!) * inv - v) * accel;
        ControlPoint.target[c3 + c] = rec.pointB[m3 + c]!;
        ControlPoint.effective[c3 + c] = rec.pointB[m3 + c]!;
      }
      // the bone's centre in the clip at A, B and C: its acceleration
      args[1] = 0.5 * world.physik.Bone.length[rig.bones[i]!]!;
      boneCentre(rec.rotA, rec.headA, i, pointA);
      boneCentre(rec.rotC, rec.headC, i, pointC);
      boneCentre(rec.rotB, rec.headB, i, centreB);
      for (let c = 0; c < 3; c++) rec.centreAcc[m3 + c] = (pointC[c]! - 2 * centreB[c]! + pointA[c]!) * inv * accel;
      ControlPoint.interpStep[cp] = 0; ControlPoint.interpSteps[cp] = 0;
      ControlPoint.active[cp] = rec.markerMode[m] === POSE_DRIVE ? 1 : 0;
      ControlPoint.stiffness[cp] = k * rec.markerStiffnessScale[m]!;
    }
    wakeRig(world, rig.eid); // the clip moves on: the rig is never at rest while it plays
  }
}

/** Which bones are set kinematically (followed bones, and a followed world marker's bone with its ancestors), and whose clip rates are read. */
function updateFollow(world: PhysikWorld, rig: RigRecord, rec: PoseDriveRecord): void {
  void world; void rig;
  const parent = rec.parent;
  const follow = rec.follow;
  for (let i = 0; i < follow.length; i++) follow[i] = rec.mode[i] === POSE_FOLLOW ? 1 : 0;
  for (let m = 0; m < rec.markerBone.length; m++) {
    if (rec.markerMode[m] !== POSE_FOLLOW) continue;
    for (let i = rec.markerBone[m]!; i >= 0 && follow[i] !== 2; i = parent[i]!) follow[i] = 2;
  }
  for (let i = 0; i < follow.length; i++) if (follow[i] === 2) follow[i] = 1;
  // rates read: poseFollow's (a followed bone's ω), poseDrives' (a driven bone's ω and α and its
  // parent's, and a driven world marker's bone's α)
  const rates = rec.rates;
  rates.fill(0);
  for (let i = 0; i < follow.length; i++) {
    if (follow[i] === 1) rates[i] = 1;
    else if (rec.mode[i] === POSE_DRIVE) { rates[i] = 1; if (parent[i]! >= 0) rates[parent[i]!] = 1; }
  }
  for (let m = 0; m < rec.markerBone.length; m++) if (rec.markerMode[m] === POSE_DRIVE) rates[rec.markerBone[m]!] = 1;
}
