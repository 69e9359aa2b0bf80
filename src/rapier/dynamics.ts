/**
 * PhysIK's dynamics, not only its rest pose, against an independent engine: two undamped rigs
 * run for the same simulated time by PhysIK and by Rapier with multibody joints (reduced
 * coordinates, spherical joints, no constraint solver in the loop) at a much smaller step,
 * compared by the path of the rig's tip (the last bone's tail).
 *
 *  - swinging chain: a pinned, bent chain of five links, no damping, no springs, no limits,
 *    each bone started with its own angular velocity (PhysIK has no gravity on its physics:
 *    `gravity` is the mass-spring solver's setting only);
 *  - pulled arm: a pinned two-bone arm pulled by a linear control spring for 0.6 s, then
 *    the control point deactivated and the arm left to swing, undamped.
 *
 * Rapier mirrors each rig exactly: one body per bone with the bone's mass and solid-cylinder
 * inertia read from the PhysIK world (no colliders), a spherical multibody joint at each
 * head and at the pin, no gravity, and the spring as an explicit force F = k (t − a) at the
 * attachment every Rapier step. Rapier's step defaults to 0.001 s, one substep, so it stands
 * for the continuous motion; its own error is reported (the same run at half its step).
 * Multibody links take no velocity set from outside (`setAngvel` is ignored), so the chain's
 * start is given as one step's impulse: each body gets force m v/dt and torque I ω/dt for its
 * first step, whose projection onto the joints is M q̇ for the joints' velocities q̇ of that
 * motion (the bodies' velocities are consistent with the joints), so Rapier leaves the first
 * step with exactly those velocities; `rapierStartError` measures it.
 *
 * Each run of PhysIK (a dt, the centripetal term on or off; every other setting its default
 * except damping, angular damping, interpolation and sleep, all off) is compared at its own step
 * times with the Rapier path interpolated linearly in time: the largest and the root-mean-
 * square tip distance over the run, as fractions of the rig's height (Rig.height).
 *
 * Limits: two small rigs, no limits, no torsion springs, no damping; the spring is linear;
 * dt must divide the release time (0.6 s). Rapier is single precision: differences below
 * ~1e-6 of the height are its rounding. Kinetic energy is compared over the free motion only
 * (for the arm, after the release).
 */
import type * as RapierTypes from '@dimforge/rapier3d-compat';
import { addRig, createPhysikWorld, setControlPointActive, setTarget, step } from '../core';
import { findRig, type PhysikWorld, type RigRecord } from '../world/world';
import type { ControlPointDescription, RigDescription, Settings, Vec3Tuple } from '../scene/types';
import { forwardKinematicsOf } from '../world/forwardKinematics';
import { quatMul, quatRotate } from '../math/quat';
import { loadRapier, type Rapier } from './load';

/** One PhysIK configuration to compare. */
export interface DynamicsRunOptions {
  dt: number;
  /** PhysIK's `centripetal` setting: the ω × (ω × r) term of a point's acceleration in the joint solve. */
  centripetal: boolean;
}

export interface DynamicsCheckOptions {
  /** PhysIK runs (default dt 0.05, 0.01 and 0.002, each with the centripetal term on and off). */
  runs?: DynamicsRunOptions[];
  /** Rapier's step, seconds (default 0.001; at most 0.002). */
  rapierDt?: number;
  /** Simulated seconds (default 2). */
  seconds?: number;
}

export interface DynamicsRun {
  dt: number;
  centripetal: boolean;
  steps: number;
  /** Tip distance to Rapier's path over the run, / height: largest, root mean square, at the end. */
  maxTipDifference: number;
  rmsTipDifference: number;
  finalTipDifference: number;
  /** Relative change of kinetic energy over the free motion (0 for exact undamped dynamics). */
  energyChange: number;
  /** Steps PhysIK's guard refused and redid in substeps. */
  retriedSteps: number;
  finite: boolean;
}

export interface DynamicsCase {
  name: string;
  description: string;
  bones: number;
  height: number;
  /** Seconds the spring pulled before release, or null (no spring). */
  releaseTime: number | null;
  /** The largest distance of the tip from its start during Rapier's run, / height: the scale of the motion. */
  tipExcursion: number;
  rapierSteps: number;
  /** Largest tip distance between Rapier at its step and at half of it, / height: the reference's own error. */
  rapierError: number;
  /** Rapier's relative change of kinetic energy over the free motion. */
  rapierEnergyChange: number;
  /** After the first step's impulse, the largest error of a bone's angular velocity relative to the largest started (chain only, else 0). */
  rapierStartError: number;
  rapierFinite: boolean;
  runs: DynamicsRun[];
}

export interface DynamicsCheckResult {
  seconds: number;
  rapierDt: number;
  cases: DynamicsCase[];
}

interface CaseSpec {
  name: string;
  description: string;
  rig: RigDescription;
  controlPoints: ControlPointDescription[];
  /** World angular velocity of each bone at the start, in the description's order (depth-first: a chain). */
  spin?: Vec3Tuple[];
  /** Target of each control point as an offset from its attachment at rest. */
  pull?: Vec3Tuple[];
  release?: number;
}

const cases: readonly CaseSpec[] = [
  {
    name: 'swinging chain',
    description: 'pinned chain of 5 bent links (0.25-0.4 long, mass 0.6-1.5), each started spinning, undamped, no springs or limits',
    rig: {
      name: 'chain', root: 'pinned',
      bones: [
        { name: 'l0', parent: null, direction: [1, 0, 0], length: 0.4, mass: 1.5, head: [0, 0, 0] },
        { name: 'l1', parent: 'l0', direction: [1, 0.4, 0], length: 0.35, mass: 1.2 },
        { name: 'l2', parent: 'l1', direction: [0.6, 0.3, 0.5], length: 0.3, mass: 1 },
        { name: 'l3', parent: 'l2', direction: [1, -0.3, 0.2], length: 0.3, mass: 0.8 },
        { name: 'l4', parent: 'l3', direction: [0.8, 0, -0.4], length: 0.25, mass: 0.6 },
      ],
    },
    controlPoints: [],
    // a few rad/s about every axis, spin along the bones included (the gyroscopic terms)
    spin: [[0, 0.8, 2.0], [1.2, -0.5, -1.5], [-1.0, 2.0, 0.6], [0.5, 1.5, -2.0], [2.0, -1.0, 1.0]],
  },
  {
    name: 'pulled arm',
    description: 'pinned 2-bone arm (bent at the elbow) pulled at the hand by a linear spring (k 30) for 0.6 s, then released and left to swing, undamped',
    rig: {
      name: 'arm', root: 'pinned',
      bones: [
        { name: 'upper', parent: null, direction: [1, 0, 0], length: 0.3, mass: 2, head: [0, 0, 0] },
        { name: 'forearm', parent: 'upper', direction: [0.8, -0.6, 0], length: 0.28, mass: 1.2 },
      ],
    },
    controlPoints: [{ name: 'grip', bone: 'forearm', at: 1, spring: 'linear', stiffness: 30 }],
    pull: [[-0.05, 0.1, 0.1]],
    release: 0.6,
  },
];

/** PhysIK's settings for a run: undamped, targets at once, never asleep; the rest as defaults. */
function physikSettings(run: DynamicsRunOptions): Partial<Settings> {
  return {
    dt: run.dt, centripetal: run.centripetal,
    damping: 0, dampingAuto: false, angularDamping: 0, angularDampingMode: 'implicit',
    interpolation: 'none', sleepWhenConverged: false,
  };
}

/** The sandbox's dt, a fair one, and a small one (the error halves with dt when the physics agree). */
const defaultRuns: readonly DynamicsRunOptions[] = [0.05, 0.01, 0.002].flatMap((dt) => [{ dt, centripetal: true }, { dt, centripetal: false }]);

/** Run both cases: Rapier once per case (and once at half its step), PhysIK once per run. */
export async function runDynamicsCheck(options: DynamicsCheckOptions = {}): Promise<DynamicsCheckResult> {
  const seconds = options.seconds ?? 2;
  if (!(Number.isFinite(seconds) && seconds > 0 && seconds <= 60)) throw new Error(`dynamics check: seconds must be in (0, 60], got ${seconds}`);
  const rapierDt = options.rapierDt ?? 0.001;
  if (!(Number.isFinite(rapierDt) && rapierDt > 0 && rapierDt <= 0.002)) throw new Error(`dynamics check: rapierDt must be in (0, 0.002], got ${rapierDt}`);
  const runs = options.runs ?? defaultRuns;
  for (const r of runs) {
    if (!(Number.isFinite(r.dt) && r.dt > 0 && r.dt <= 0.1)) throw new Error(`dynamics check: a run's dt must be in (0, 0.1], got ${r.dt}`);
    for (const c of cases) if (c.release !== undefined) stepsIn(c.release, r.dt, 'dt');
  }
  for (const c of cases) if (c.release !== undefined) stepsIn(c.release, rapierDt, 'rapierDt');
  const R = await loadRapier();
  return {
    seconds, rapierDt,
    cases: cases.map((spec) => {
      const reference = rapierPath(R, spec, rapierDt, seconds);
      const finer = rapierPath(R, spec, rapierDt / 2, seconds);
      const height = reference.height;
      let rapierError = 0, tipExcursion = 0;
      for (let j = 0; j <= reference.steps; j++) {
        rapierError = Math.max(rapierError, distanceAt(finer, j * rapierDt, reference.tip, j));
        tipExcursion = Math.max(tipExcursion, dist(reference.tip, j, reference.tip, 0));
      }
      return {
        name: spec.name, description: spec.description, bones: spec.rig.bones.length, height,
        releaseTime: spec.release ?? null,
        tipExcursion: tipExcursion / height,
        rapierSteps: reference.steps,
        rapierError: rapierError / height,
        rapierEnergyChange: reference.energyChange,
        rapierStartError: reference.startError,
        rapierFinite: reference.finite && finer.finite,
        runs: runs.map((run) => physikRun(spec, run, seconds, reference)),
      };
    }),
  };
}

/** Steps of `dt` in `time`, which must be a whole number of them. */
function stepsIn(time: number, dt: number, what: string): number {
  const n = Math.round(time / dt);
  if (Math.abs(n * dt - time) > 1e-9 * Math.max(1, time)) throw new Error(`dynamics check: ${what} ${dt} does not divide the release time ${time} s`);
  return n;
}

/** A rig as the case describes it, in a new PhysIK world, targets placed and bones spinning. */
function buildPhysik(spec: CaseSpec, settings: Partial<Settings>): { world: PhysikWorld; record: RigRecord; cps: number[] } {
  const world = createPhysikWorld();
  const handle = addRig(world, { rig: spec.rig, controlPoints: spec.controlPoints, settings });
  const record = findRig(world, handle.rig);
  const { Bone, ControlPoint } = world.physik;
  const cps = spec.controlPoints.map((c) => handle.controlPoints[c.name]!);
  cps.forEach((cp, i) => {
    const o = spec.pull![i]!;
    setTarget(world, cp, [ControlPoint.attachment[cp * 3]! + o[0], ControlPoint.attachment[cp * 3 + 1]! + o[1], ControlPoint.attachment[cp * 3 + 2]! + o[2]]);
  });
  if (spec.spin) {
    spec.rig.bones.forEach((bone, i) => {
      const b = handle.bones[bone.name]!;
      for (let a = 0; a < 3; a++) Bone.angVel[b * 3 + a] = spec.spin![i]![a]!;
    });
    forwardKinematicsOf(world, record); // centre velocities from the spins
  }
  return { world, record, cps };
}

/** Kinetic energy of the rig from the PhysIK stores (true masses and inertias). */
function physikEnergy(world: PhysikWorld, record: RigRecord): number {
  const { Bone } = world.physik;
  const w = new Float64Array(3);
  let e = 0;
  for (const b of record.bones) {
    const b3 = b * 3;
    e += 0.5 * Bone.mass[b]! * (Bone.vel[b3]! ** 2 + Bone.vel[b3 + 1]! ** 2 + Bone.vel[b3 + 2]! ** 2);
    // ω in the bone frame: Rᵀ ω, with the conjugate rotation
    const q = Bone.rot, o = b * 4;
    quatRotate(w, 0, Float64Array.of(-q[o]!, -q[o + 1]!, -q[o + 2]!, q[o + 3]!), 0, Bone.angVel[b3]!, Bone.angVel[b3 + 1]!, Bone.angVel[b3 + 2]!);
    e += 0.5 * (Bone.inertia[b3]! * w[0]! ** 2 + Bone.inertia[b3 + 1]! * w[1]! ** 2 + Bone.inertia[b3 + 2]! * w[2]! ** 2);
  }
  return e;
}

interface Path {
  /** Tip position (x, y, z) at every step from 0. */
  tip: Float64Array;
  steps: number;
  dt: number;
  height: number;
  energyChange: number;
  startError: number;
  finite: boolean;
}

/** The tip's position on `path` at time t, linearly interpolated, against point j of `tip`. */
function distanceAt(path: Path, t: number, tip: Float64Array, j: number): number {
  const u = Math.min(t / path.dt, path.steps);
  let i = Math.floor(u), f = u - i;
  if (f > 1 - 1e-9) { i += 1; f = 0; }
  if (i >= path.steps) { i = path.steps; f = 0; }
  const p = path.tip, a = i * 3, b = Math.min(i + 1, path.steps) * 3;
  return Math.hypot(
    p[a]! + f * (p[b]! - p[a]!) - tip[j * 3]!,
    p[a + 1]! + f * (p[b + 1]! - p[a + 1]!) - tip[j * 3 + 1]!,
    p[a + 2]! + f * (p[b + 2]! - p[a + 2]!) - tip[j * 3 + 2]!,
  );
}

function dist(a: Float64Array, i: number, b: Float64Array, j: number): number {
  return Math.hypot(a[i * 3]! - b[j * 3]!, a[i * 3 + 1]! - b[j * 3 + 1]!, a[i * 3 + 2]! - b[j * 3 + 2]!);
}

/** One PhysIK run of the case, compared with the reference path at every step. */
function physikRun(spec: CaseSpec, run: DynamicsRunOptions, seconds: number, reference: Path): DynamicsRun {
  const { world, record, cps } = buildPhysik(spec, physikSettings(run));
  const { Bone, Rig } = world.physik;
  const tipBone = record.bones[record.bones.length - 1]!;
  const steps = Math.round(seconds / run.dt);
  const release = spec.release !== undefined ? stepsIn(spec.release, run.dt, 'dt') : 0;
  const tip = new Float64Array(3);
  let max = 0, sum = 0, last = 0, finite = true;
  let e0 = release === 0 ? physikEnergy(world, record) : NaN;
  for (let s = 1; s <= steps; s++) {
    if (s === release + 1) for (const cp of cps) setControlPointActive(world, cp, false);
    step(world, 1);
    if (s === release) e0 = physikEnergy(world, record);
    for (let a = 0; a < 3; a++) tip[a] = Bone.tail[tipBone * 3 + a]!;
    const d = distanceAt(reference, s * run.dt, tip, 0);
    if (!Number.isFinite(d)) finite = false;
    max = Math.max(max, d);
    sum += d * d;
    last = d;
  }
  const H = reference.height;
  return {
    dt: run.dt, centripetal: run.centripetal, steps,
    maxTipDifference: finite ? max / H : NaN,
    rmsTipDifference: finite ? Math.sqrt(sum / Math.max(1, steps)) / H : NaN,
    finalTipDifference: last / H,
    energyChange: physikEnergy(world, record) / e0 - 1,
    retriedSteps: Rig.retriedSteps[record.eid]!,
    finite,
  };
}

/**
 * Rapier's mass unit, in PhysIK's: Rapier gives every free angular coordinate of a multibody
 * joint a fixed damping of 0.1 (torque per rad/s; `default_damping` in its multibody_joint.rs,
 * not settable from JavaScript), taken implicitly, so it also adds 0.1 dt to the mass matrix.
 * Undamped motion does not change with the mass unit, so the bodies' masses, inertias and the
 * forces on them are scaled up until that damping is nothing: unscaled, it took much of the
 * cross-check chain's and arm's kinetic energy; from 1e6 up, what they lose is Rapier's own step
 * error alike, and the tips agree (docs/physics.md has the figures).
 */
const MASS_SCALE = 1e6;

/**
 * The case in Rapier: bodies and spherical multibody joints built from a PhysIK world of the
 * same rig (so masses, inertias, attachments and targets are the ones PhysIK uses), stepped
 * at `dt` for `seconds`. After a step Rapier's multibody links report the velocities the step
 * started from (positions are the step's own), so velocities are paired with the rotations
 * saved one step earlier.
 */
function rapierPath(R: Rapier, spec: CaseSpec, dt: number, seconds: number): Path {
  const { world, record, cps } = buildPhysik(spec, physikSettings({ dt: 0.01, centripetal: true }));
  const { Bone, ControlPoint, Rig } = world.physik;
  const n = record.bones.length;
  const S = MASS_SCALE;
  const rw = new R.World({ x: 0, y: 0, z: 0 });
  try {
    rw.timestep = dt;
    rw.numSolverIterations = 1; // one substep: Rapier's step is dt (no constraints to iterate on)
    const rest = new Float64Array(4 * n);
    const bodies: RapierTypes.RigidBody[] = [];
    const index = new Map<number, number>();
    const tmp = new Float64Array(4);
    /** A point of bone i's frame (from its centre), in its body's frame: restWorld · p. */
    const local = (i: number, x: number, y: number, z: number) => {
      quatRotate(tmp, 0, rest, i * 4, x, y, z);
      return { x: tmp[0]!, y: tmp[1]!, z: tmp[2]! };
    };
    record.bones.forEach((b, i) => {
      index.set(b, i);
      for (let k = 0; k < 4; k++) rest[i * 4 + k] = Bone.restWorld[b * 4 + k]!;
      // body frame = bone frame · restWorld⁻¹, the world frame at rest, so a multibody joint's
      // zero coordinates are the rest pose (as in mirror.ts)
      quatMul(tmp, 0, Bone.rot, b * 4, Float64Array.of(-rest[i * 4]!, -rest[i * 4 + 1]!, -rest[i * 4 + 2]!, rest[i * 4 + 3]!), 0);
      const desc = R.RigidBodyDesc.dynamic()
        .setTranslation(Bone.centre[b * 3]!, Bone.centre[b * 3 + 1]!, Bone.centre[b * 3 + 2]!)
        .setRotation({ x: tmp[0]!, y: tmp[1]!, z: tmp[2]!, w: tmp[3]! })
        // the cylinder's principal axes are the bone's: restWorld in the body frame
        .setAdditionalMassProperties(S * Bone.mass[b]!, { x: 0, y: 0, z: 0 },
          { x: S * Bone.inertia[b * 3]!, y: S * Bone.inertia[b * 3 + 1]!, z: S * Bone.inertia[b * 3 + 2]! },
          { x: rest[i * 4]!, y: rest[i * 4 + 1]!, z: rest[i * 4 + 2]!, w: rest[i * 4 + 3]! })
        .setCanSleep(false);
      bodies.push(rw.createRigidBody(desc));
    });
    const ground = rw.createRigidBody(R.RigidBodyDesc.fixed());
    const pin = { x: Rig.pin[record.eid * 3]!, y: Rig.pin[record.eid * 3 + 1]!, z: Rig.pin[record.eid * 3 + 2]! };
    rw.createMultibodyJoint(R.JointData.spherical(pin, local(0, 0, -0.5 * Bone.length[record.bones[0]!]!, 0)), ground, bodies[0]!, true);
    record.bones.forEach((b, i) => {
      if (i === 0) return;
      const p = index.get(Bone.parent[b]!)!, pb = record.bones[p]!;
      const anchor1 = local(p, Bone.attach[b * 3]!, Bone.attach[b * 3 + 1]! - 0.5 * Bone.length[pb]!, Bone.attach[b * 3 + 2]!);
      rw.createMultibodyJoint(R.JointData.spherical(anchor1, local(i, 0, -0.5 * Bone.length[b]!, 0)), bodies[p]!, bodies[i]!, true);
    });
    const springs = cps.map((cp) => {
      const b = ControlPoint.bone[cp]!, i = index.get(b)!, L = Bone.length[b]!;
      const o = cp * 3;
      return {
        body: bodies[i]!, k: S * ControlPoint.stiffness[cp]!,
        target: [ControlPoint.effective[o]!, ControlPoint.effective[o + 1]!, ControlPoint.effective[o + 2]!],
        at: local(i, ControlPoint.offset[o]!, ControlPoint.at[cp]! * L - 0.5 * L + ControlPoint.offset[o + 1]!, ControlPoint.offset[o + 2]!),
      };
    });
    const tipIndex = n - 1, tipLocal = local(tipIndex, 0, 0.5 * Bone.length[record.bones[tipIndex]!]!, 0);
    const steps = Math.round(seconds / dt);
    const release = spec.release !== undefined ? stepsIn(spec.release, dt, 'rapierDt') : 0;
    const tip = new Float64Array(3 * (steps + 1));
    const q = new Float64Array(4), v = new Float64Array(3);
    const vec = { x: 0, y: 0, z: 0 }, rot = { x: 0, y: 0, z: 0, w: 1 };
    /** Body rotations after the step before the last (they go with the velocities read now). */
    const lagged = new Float64Array(4 * n), current = new Float64Array(4 * n);
    const readRotations = (out: Float64Array) => bodies.forEach((body, i) => {
      body.rotation(rot as RapierTypes.Rotation);
      out[i * 4] = rot.x; out[i * 4 + 1] = rot.y; out[i * 4 + 2] = rot.z; out[i * 4 + 3] = rot.w;
    });
    readRotations(current);
    /** Body's point p (body frame) in the world, into v. */
    const worldPoint = (body: RapierTypes.RigidBody, p: { x: number; y: number; z: number }) => {
      body.rotation(rot as RapierTypes.Rotation);
      q[0] = rot.x; q[1] = rot.y; q[2] = rot.z; q[3] = rot.w;
      quatRotate(v, 0, q, 0, p.x, p.y, p.z);
      body.translation(vec as RapierTypes.Vector);
      v[0] = v[0]! + vec.x; v[1] = v[1]! + vec.y; v[2] = v[2]! + vec.z;
    };
    const recordTip = (j: number) => {
      worldPoint(bodies[tipIndex]!, tipLocal);
      tip.set(v, j * 3);
    };
    /** Kinetic energy (PhysIK's units) of the state one step back: the velocities read now, the lagged rotations. */
    const energy = () => {
      let e = 0;
      bodies.forEach((body, i) => {
        const b = record.bones[i]!;
        body.linvel(vec as RapierTypes.Vector);
        e += 0.5 * Bone.mass[b]! * (vec.x ** 2 + vec.y ** 2 + vec.z ** 2);
        // ω into the bone frame: (body · restWorld)⁻¹ ω
        quatMul(tmp, 0, lagged, i * 4, rest, i * 4);
        body.angvel(vec as RapierTypes.Vector);
        quatRotate(v, 0, Float64Array.of(-tmp[0]!, -tmp[1]!, -tmp[2]!, tmp[3]!), 0, vec.x, vec.y, vec.z);
        e += 0.5 * (Bone.inertia[b * 3]! * v[0]! ** 2 + Bone.inertia[b * 3 + 1]! * v[1]! ** 2 + Bone.inertia[b * 3 + 2]! * v[2]! ** 2);
      });
      return e;
    };
    recordTip(0);
    // the start's spin as one step's impulse (see the header): force m v/dt, torque I_world ω/dt
    if (spec.spin) {
      bodies.forEach((body, i) => {
        const b = record.bones[i]!, b3 = b * 3, m = S * Bone.mass[b]!;
        body.addForce({ x: m * Bone.vel[b3]! / dt, y: m * Bone.vel[b3 + 1]! / dt, z: m * Bone.vel[b3 + 2]! / dt }, true);
        // I_world ω = R diag(I) Rᵀ ω, R the bone's rotation
        const o = b * 4, r = Bone.rot;
        quatRotate(v, 0, Float64Array.of(-r[o]!, -r[o + 1]!, -r[o + 2]!, r[o + 3]!), 0, Bone.angVel[b3]!, Bone.angVel[b3 + 1]!, Bone.angVel[b3 + 2]!);
        quatRotate(v, 0, r, o, Bone.inertia[b3]! * v[0]!, Bone.inertia[b3 + 1]! * v[1]!, Bone.inertia[b3 + 2]! * v[2]!);
        body.addTorque({ x: S * v[0]! / dt, y: S * v[1]! / dt, z: S * v[2]! / dt }, true);
      });
    }
    // the free motion starts after the kick (step 1) or at the release
    const free = spec.spin ? 1 : release;
    let e0 = 0, startError = 0, finite = true;
    // one step more than recorded: its read-out holds the last recorded step's velocities
    for (let s = 1; s <= steps + 1; s++) {
      for (const sp of springs) {
        sp.body.resetForces(false);
        sp.body.resetTorques(false);
        if (s > release) continue;
        // F = k (t − a) at the attachment a, and (a − centre) × F
        worldPoint(sp.body, sp.at);
        const fx = sp.k * (sp.target[0]! - v[0]!), fy = sp.k * (sp.target[1]! - v[1]!), fz = sp.k * (sp.target[2]! - v[2]!);
        sp.body.translation(vec as RapierTypes.Vector);
        const lx = v[0]! - vec.x, ly = v[1]! - vec.y, lz = v[2]! - vec.z;
        sp.body.addForce({ x: fx, y: fy, z: fz }, false);
        sp.body.addTorque({ x: ly * fz - lz * fy, y: lz * fx - lx * fz, z: lx * fy - ly * fx }, false);
      }
      rw.step();
      if (s === 1 && spec.spin) for (const body of bodies) { body.resetForces(false); body.resetTorques(false); }
      lagged.set(current);
      readRotations(current);
      // the read-out now is the state after step s − 1
      if (s - 1 === free) {
        e0 = energy();
        if (spec.spin) {
          // how exactly the impulse started the spins
          let worst = 0, largest = 0;
          bodies.forEach((body, i) => {
            const b3 = record.bones[i]! * 3;
            body.angvel(vec as RapierTypes.Vector);
            worst = Math.max(worst, Math.hypot(vec.x - Bone.angVel[b3]!, vec.y - Bone.angVel[b3 + 1]!, vec.z - Bone.angVel[b3 + 2]!));
            largest = Math.max(largest, Math.hypot(Bone.angVel[b3]!, Bone.angVel[b3 + 1]!, Bone.angVel[b3 + 2]!));
          });
          startError = worst / largest;
        }
      }
      if (s > steps) break;
      recordTip(s);
      if (!Number.isFinite(tip[s * 3]! + tip[s * 3 + 1]! + tip[s * 3 + 2]!)) { finite = false; break; }
    }
    return { tip, steps, dt, height: Rig.height[record.eid]!, energyChange: energy() / e0 - 1, startError, finite };
  } finally {
    rw.free();
  }
}
