/**
 * A rig of a PhysIK world mirrored into its own Rapier world: one dynamic body per bone (the
 * bone's mass and solid-cylinder inertia, no collider), a joint at each bone's head (see
 * jointPlan.ts), the root floating or pinned as the rig says, no gravity. Each `step()`
 * applies the rig's control springs toward the effective targets the PhysIK world holds now,
 * the limits Rapier cannot hold as torsion-spring torques, and the damping as Rapier's body
 * damping, then steps Rapier by the rig's dt. So: step the PhysIK world first, then the
 * mirror (stepping the mirror alone holds the targets where PhysIK last left them).
 *
 * Body frames: each body's frame is the bone's frame times its rest rotation⁻¹, so at rest
 * every body frame is the world frame. Then every joint's two local frames coincide at rest
 * with no twist to correct (a revolute joint's angle is PhysIK's joint-frame angle, and a
 * multibody joint, whose links start at zero joint coordinates, starts at the rest pose).
 *
 * Allocation: Rapier's setters wrap every vector in a wasm object; the mirror's own per-step
 * work uses preallocated typed arrays and reuses one vector and one quaternion for getters.
 */
import type * as RapierTypes from '@dimforge/rapier3d-compat';
import { findRig, type PhysikWorld, type RigRecord } from '../world/world';
import { quatMul, quatRotate, quatRotateArr, quatRotateInvArr } from '../math/quat';
import { loadRapier, type Rapier } from './load';
import { planJoints, type JointModel, type JointPlanEntry, jointModels } from './jointPlan';
import { controlSpringForces, type SpringState } from './springs';
import { emulatedTorsion } from './torsion';
import { LimitMotors } from './limitMotors';
import { dampingModel } from './damping';
import { copyDoubles } from '../../components/doubles';

export interface MirrorOptions {
  /** 'impulse' (default) or 'multibody' joints. */
  jointModel?: JointModel;
  /** Constraint-solver iterations per step (Rapier's internal PGS iterations; default 4). */
  solverIterations?: number;
  /**
   * Rapier substeps per step (its `numSolverIterations`; Rapier's own default is 4, each
   * with one solver iteration). Default 1: positions then integrate like PhysIK's
   * semi-implicit Euler, which the mirror's implicit damping assumes (damping.ts).
   */
  substeps?: number;
  /** Gravity along −Y; default 0, as PhysIK has none. */
  gravity?: number;
}

export interface RapierMirror {
  readonly jointModel: JointModel;
  /** The Rapier joint of every bone, depth-first (the rig's bone order). */
  readonly plan: readonly JointPlanEntry[];
  readonly boneNames: readonly string[];
  /** Apply forces from the PhysIK world's targets and settings, then one Rapier step of the rig's dt. */
  step(): void;
  /** Bone tails (tips), 3 per bone in the rig's depth-first order; returns out. */
  tipPositions(out: Float64Array): Float64Array;
  /** Bone heads, 3 per bone; returns out. */
  headPositions(out: Float64Array): Float64Array;
  /** Bone world rotations (x, y, z, w), 4 per bone; returns out. */
  rotations(out: Float64Array): Float64Array;
  /**
   * Fastest bone end (head or tail) over the last step, world units per second, from the
   * change of the ends' positions: Rapier's stored velocities carry its constraint
   * stabilisation's bias (a rig resting on a pressed limit reads millimetres per second
   * while no end moves), so they cannot tell rest.
   */
  maxEndSpeed(): number;
  /** True while every body's position, rotation and velocity is finite. */
  finite(): boolean;
  /** Free the Rapier world (the mirror is unusable afterwards). */
  dispose(): void;
}

/** Build a mirror of `rig` (entity id) in a new Rapier world; loads and initialises Rapier once. */
export async function createRapierMirror(world: PhysikWorld, rig: number, options: MirrorOptions = {}): Promise<RapierMirror> {
  const R = await loadRapier();
  return buildRapierMirror(R, world, rig, options);
}

/** The same, with Rapier already loaded (`await loadRapier()`), synchronously. */
export function buildRapierMirror(R: Rapier, world: PhysikWorld, rig: number, options: MirrorOptions = {}): RapierMirror {
  const record = findRig(world, rig);
  const jointModel = options.jointModel ?? 'impulse';
  if (!jointModels.includes(jointModel)) throw new Error(`Rapier mirror: jointModel must be one of ${jointModels.join(', ')}, got "${String(jointModel)}"`);
  const iterations = options.solverIterations ?? 4;
  if (!(Number.isInteger(iterations) && iterations >= 1 && iterations <= 1000)) throw new Error(`Rapier mirror: solverIterations must be an integer in [1, 1000], got ${iterations}`);
  const substeps = options.substeps ?? 1;
  if (!(Number.isInteger(substeps) && substeps >= 1 && substeps <= 100)) throw new Error(`Rapier mirror: substeps must be an integer in [1, 100], got ${substeps}`);
  const gravity = options.gravity ?? 0;
  if (!Number.isFinite(gravity)) throw new Error(`Rapier mirror: gravity must be a finite number, got ${gravity}`);
  return new Mirror(R, world, record, jointModel, iterations, substeps, gravity);
}

class Mirror implements RapierMirror {
  readonly jointModel: JointModel;
  readonly plan: readonly JointPlanEntry[];
  readonly boneNames: readonly string[];
  private readonly rworld: RapierTypes.World;
  private readonly bodies: RapierTypes.RigidBody[] = [];
  private readonly n: number;
  private readonly length: Float64Array;
  /** Per depth-first index: parent index, rest world rotation; entity → index. */
  private readonly parentIndex: Int32Array;
  private readonly restWorld: Float64Array;
  private readonly indexOfBone: Int32Array;
  private readonly emulate: Uint8Array;
  /** State after the last step: centre, bone rotation, body rotation, velocities. */
  private readonly centre: Float64Array;
  private readonly rot: Float64Array;
  private readonly bodyRot: Float64Array;
  private readonly vel: Float64Array;
  private readonly angVel: Float64Array;
  private readonly force: Float64Array;
  private readonly torque: Float64Array;
  /** Damping's effective mass and inertia (damping.ts), 4 per index; what the bodies were last given. */
  private readonly model: Float64Array;
  private readonly applied: Float64Array;
  private readonly coefficient: Float64Array;
  /** The control springs' implicit terms this step (springs.ts). */
  private readonly extraMass: Float64Array;
  private readonly extraInertia: Float64Array;
  private readonly springState: SpringState;
  /** Bone ends (head, tail: 6 per index) after the last step, and the fastest end's speed over it. */
  private readonly ends: Float64Array;
  private endSpeed = 0;
  private halving = 0;
  private stepped = false;
  private readonly vec = { x: 0, y: 0, z: 0 };
  private readonly inertia = { x: 0, y: 0, z: 0 };
  private readonly quat = { x: 0, y: 0, z: 0, w: 1 };
  private readonly tmp = new Float64Array(3);
  /** Impulse joints: emulated limits as Rapier motors; multibody: as explicit torques. */
  private readonly motors: LimitMotors | null;
  private disposed = false;

  constructor(R: Rapier, private readonly world: PhysikWorld, private readonly record: RigRecord, jointModel: JointModel, iterations: number, substeps: number, gravity: number) {
    const { Bone, Rig } = world.physik;
    this.jointModel = jointModel;
    const n = (this.n = record.bones.length);
    this.boneNames = record.boneNames.slice();
    this.plan = planJoints(world, record, jointModel);
    this.length = Float64Array.from(record.bones, (b) => Bone.length[b]!);
    let maxEid = 0;
    for (const b of record.bones) maxEid = Math.max(maxEid, b);
    this.indexOfBone = new Int32Array(maxEid + 1).fill(-1);
    record.bones.forEach((b, i) => (this.indexOfBone[b] = i));
    this.parentIndex = Int32Array.from(record.bones, (b, i) => (i === 0 ? -1 : this.indexOfBone[Bone.parent[b]!]!));
    this.restWorld = new Float64Array(4 * n);
    record.bones.forEach((b, i) => copyDoubles(this.restWorld, i * 4, Bone.restWorld, b * 4, 4));
    this.emulate = new Uint8Array(3 * n);
    for (const e of this.plan) for (const a of e.emulated) this.emulate[e.index * 3 + 'xyz'.indexOf(a)] = 1;
    this.centre = new Float64Array(3 * n);
    this.rot = new Float64Array(4 * n);
    this.bodyRot = new Float64Array(4 * n);
    this.vel = new Float64Array(3 * n);
    this.angVel = new Float64Array(3 * n);
    this.force = new Float64Array(3 * n);
    this.torque = new Float64Array(3 * n);
    this.model = new Float64Array(4 * n);
    this.applied = new Float64Array(4 * n);
    this.coefficient = new Float64Array(n);
    this.extraMass = new Float64Array(n);
    this.extraInertia = new Float64Array(n);
    this.ends = new Float64Array(6 * n);
    this.springState = {
      rot: this.rot, centre: this.centre, vel: this.vel, angVel: this.angVel,
      force: this.force, torque: this.torque, extraMass: this.extraMass, extraInertia: this.extraInertia,
    };

    const rw = (this.rworld = new R.World({ x: 0, y: -gravity, z: 0 }));
    rw.timestep = record.settings.dt;
    rw.numSolverIterations = substeps;
    rw.numInternalPgsIterations = iterations;
    dampingModel(world, record, this.model, this.coefficient);
    const q = new Float64Array(4);
    for (let i = 0; i < n; i++) {
      const b = record.bones[i]!;
      // body frame = bone frame · restWorld⁻¹ (the world frame at rest)
      quatMul(q, 0, Bone.rot, b * 4, conj(this.restWorld, i * 4), 0);
      const M = this.model, o = i * 4;
      const desc = R.RigidBodyDesc.dynamic()
        .setTranslation(Bone.centre[b * 3]!, Bone.centre[b * 3 + 1]!, Bone.centre[b * 3 + 2]!)
        .setRotation({ x: q[0]!, y: q[1]!, z: q[2]!, w: q[3]! })
        // principal axes of the cylinder are the bone's axes: restWorld in the body frame
        // damping as effective mass and inertia (damping.ts), so Rapier's own damping stays 0
        .setAdditionalMassProperties(M[o]!, { x: 0, y: 0, z: 0 }, { x: M[o + 1]!, y: M[o + 2]!, z: M[o + 3]! }, quatObj(this.restWorld, i * 4))
        .setLinvel(Bone.vel[b * 3]!, Bone.vel[b * 3 + 1]!, Bone.vel[b * 3 + 2]!)
        .setAngvel({ x: Bone.angVel[b * 3]!, y: Bone.angVel[b * 3 + 1]!, z: Bone.angVel[b * 3 + 2]! })
        .setCanSleep(false);
      this.bodies.push(rw.createRigidBody(desc));
      for (let k = 0; k < 4; k++) this.applied[o + k] = M[o + k]!;
    }
    const create = (data: RapierTypes.JointData, a: RapierTypes.RigidBody, b: RapierTypes.RigidBody) =>
      jointModel === 'impulse' ? rw.createImpulseJoint(data, a, b, true) : rw.createMultibodyJoint(data, a, b, true);

    // pinned root: a spherical joint to a fixed body at the pin
    const headLocal = (i: number) => this.bodyLocal(i, -0.5 * this.length[i]!);
    if (Rig.pinned[record.eid]) {
      const ground = rw.createRigidBody(R.RigidBodyDesc.fixed());
      const pin = { x: Rig.pin[record.eid * 3]!, y: Rig.pin[record.eid * 3 + 1]!, z: Rig.pin[record.eid * 3 + 2]! };
      create(R.JointData.spherical(pin, headLocal(0)), ground, this.bodies[0]!);
    }
    const identity = { x: 0, y: 0, z: 0, w: 1 };
    const joints: (RapierTypes.ImpulseJoint | RapierTypes.MultibodyJoint | null)[] = new Array(n).fill(null);
    for (const e of this.plan) {
      const i = e.index;
      if (i === 0) continue;
      const b = record.bones[i]!, pi = this.parentIndex[i]!;
      // the parent point the head sits on, in the parent's body frame
      const anchor1 = this.bodyLocal(pi, Bone.attach[b * 3 + 1]! - 0.5 * this.length[pi]!, Bone.attach[b * 3]!, Bone.attach[b * 3 + 2]!);
      const anchor2 = headLocal(i);
      let data: RapierTypes.JointData;
      if (e.kind === 'fixed') data = R.JointData.fixed(anchor1, identity, anchor2, identity);
      else if (e.kind === 'revolute') {
        // joint-frame axis a at rest = restWorld of this bone · e_a, the same in both body frames
        quatRotate(this.tmp, 0, this.restWorld, i * 4, e.axis === 0 ? 1 : 0, e.axis === 1 ? 1 : 0, e.axis === 2 ? 1 : 0);
        data = R.JointData.revolute(anchor1, anchor2, { x: this.tmp[0]!, y: this.tmp[1]!, z: this.tmp[2]! });
      } else if (e.kind === 'generic') {
        // (impulse only) frames set to the joint frame below, so the locked axis is the joint-frame axis
        data = R.JointData.generic(anchor1, anchor2, { x: 1, y: 0, z: 0 }, LOCK_LINEAR | [R.JointAxesMask.AngX, R.JointAxesMask.AngY, R.JointAxesMask.AngZ][e.axis]!);
      } else data = R.JointData.spherical(anchor1, anchor2);
      const joint = (joints[i] = create(data, this.bodies[pi]!, this.bodies[i]!));
      if ((e.kind === 'spherical' || e.kind === 'generic') && jointModel === 'impulse') {
        // local frames = the PhysIK joint frame (rest frame of this bone), so motor axes are limit axes
        const frame = quatObj(this.restWorld, i * 4);
        (joint as RapierTypes.ImpulseJoint).setLocalFrame1(anchor1, frame);
        (joint as RapierTypes.ImpulseJoint).setLocalFrame2(anchor2, frame);
      }
      if (e.kind === 'revolute' && e.enforced.includes('xyz'[e.axis] as 'x')) {
        const a3 = b * 3 + e.axis;
        (joint as RapierTypes.RevoluteImpulseJoint).setLimits(world.physik.AngularLimit.min[a3]!, world.physik.AngularLimit.max[a3]!);
      }
    }
    this.motors = jointModel === 'impulse'
      ? new LimitMotors(R, rw, world, record, this.parentIndex, this.emulate, (i) => joints[i] as RapierTypes.ImpulseJoint)
      : null;
    this.readState();
  }

  /** A point at (x, y, z) of bone i's frame (y along the bone, from its centre), in its body frame. */
  private bodyLocal(i: number, y: number, x = 0, z = 0): { x: number; y: number; z: number } {
    quatRotate(this.tmp, 0, this.restWorld, i * 4, x, y, z);
    return { x: this.tmp[0]!, y: this.tmp[1]!, z: this.tmp[2]! };
  }

  private readState(): void {
    const { vec, quat } = this;
    for (let i = 0; i < this.n; i++) {
      const body = this.bodies[i]!;
      const i3 = i * 3, i4 = i * 4;
      body.translation(vec as RapierTypes.Vector);
      this.centre[i3] = vec.x; this.centre[i3 + 1] = vec.y; this.centre[i3 + 2] = vec.z;
      body.linvel(vec as RapierTypes.Vector);
      this.vel[i3] = vec.x; this.vel[i3 + 1] = vec.y; this.vel[i3 + 2] = vec.z;
      body.angvel(vec as RapierTypes.Vector);
      // the paper's 'halve' mode halves ω after every step, as the core's integrator does
      const h = this.record.settings.angularDampingMode === 'halve' ? 0.5 : 1;
      this.angVel[i3] = h * vec.x; this.angVel[i3 + 1] = h * vec.y; this.angVel[i3 + 2] = h * vec.z;
      body.rotation(quat as RapierTypes.Rotation);
      this.bodyRot[i4] = quat.x; this.bodyRot[i4 + 1] = quat.y; this.bodyRot[i4 + 2] = quat.z; this.bodyRot[i4 + 3] = quat.w;
      // bone frame = body frame · restWorld
      quatMul(this.rot, i4, this.bodyRot, i4, this.restWorld, i4);
    }
    // end speeds from the ends' displacement over the step
    const e = this.ends, tmp = this.tmp;
    let max = 0;
    for (let i = 0; i < this.n; i++) {
      for (let side = 0; side < 2; side++) {
        quatRotate(tmp, 0, this.rot, i * 4, 0, (side - 0.5) * this.length[i]!, 0);
        const o = i * 6 + side * 3;
        const x = this.centre[i * 3]! + tmp[0]!, y = this.centre[i * 3 + 1]! + tmp[1]!, z = this.centre[i * 3 + 2]! + tmp[2]!;
        const d = Math.sqrt((x - e[o]!) ** 2 + (y - e[o + 1]!) ** 2 + (z - e[o + 2]!) ** 2);
        if (d > max) max = d;
        e[o] = x; e[o + 1] = y; e[o + 2] = z;
      }
    }
    this.endSpeed = this.stepped ? max / this.record.settings.dt : 0;
    this.stepped = true;
  }

  step(): void {
    if (this.disposed) throw new Error('Rapier mirror: step() after dispose()');
    const { world, record, force, torque, vec } = this;
    const s = record.settings;
    if (this.rworld.timestep !== Math.fround(s.dt)) this.rworld.timestep = s.dt;
    // damping follows the rig's settings (and the core's per-bone damping) when they change
    const explicit = dampingModel(world, record, this.model, this.coefficient);
    force.fill(0);
    torque.fill(0);
    this.extraMass.fill(0);
    this.extraInertia.fill(0);
    if (explicit) this.explicitDamping();
    controlSpringForces(world, record, this.indexOfBone, this.springState);
    if (this.motors) this.motors.update(this.rot);
    else emulatedTorsion(world, record, this.parentIndex, this.emulate, this.rot, this.angVel, torque, this.extraInertia);
    const { Bone } = world.physik;
    const M = this.model, A = this.applied;
    const dt = s.dt;
    // 'halve': the body holds ω' = 2 ω₀; a torque −I_tot ω₀/dt starts its step from ω₀
    this.halving = s.angularDampingMode === 'halve' ? 1 / dt : 0;
    for (let i = 0; i < this.n; i++) {
      const body = this.bodies[i]!, b = record.bones[i]!, o = i * 4, i3 = i * 3, i4 = i * 4;
      const mu = this.extraMass[i]!, J = this.extraInertia[i]!;
      const mass = M[o]! + mu, Ix = M[o + 1]! + J, Iy = M[o + 2]! + J, Iz = M[o + 3]! + J;
      if (mass !== A[o] || Ix !== A[o + 1] || Iy !== A[o + 2] || Iz !== A[o + 3]) {
        this.quat.x = this.restWorld[i4]!; this.quat.y = this.restWorld[i4 + 1]!; this.quat.z = this.restWorld[i4 + 2]!; this.quat.w = this.restWorld[i4 + 3]!;
        vec.x = 0; vec.y = 0; vec.z = 0;
        this.inertia.x = Ix; this.inertia.y = Iy; this.inertia.z = Iz;
        body.setAdditionalMassProperties(mass, vec, this.inertia, this.quat, false);
        A[o] = mass; A[o + 1] = Ix; A[o + 2] = Iy; A[o + 3] = Iz;
      }
      // implicit damping: the effective mass carries its −dt·D a part, the explicit part −D v₀
      // is a force (D = (m_eff − m)/dt = 2c, per bone-frame axis (I_eff − I)/dt = βI + c L²/2),
      // so (m_eff + μ) v₁ = m v₀ + μ v₀ + dt F as in PhysIK (damping.ts)
      const dm = (M[o]! - Bone.mass[b]!) / dt;
      force[i3] = force[i3]! - dm * this.vel[i3]!; force[i3 + 1] = force[i3 + 1]! - dm * this.vel[i3 + 1]!; force[i3 + 2] = force[i3 + 2]! - dm * this.vel[i3 + 2]!;
      quatRotateInvArr(this.tmp, 0, this.rot, i4, this.angVel, i3);
      const halving = this.halving;
      this.tmp[0] = -((M[o + 1]! - Bone.inertia[b * 3]!) / dt + halving * Ix) * this.tmp[0]!;
      this.tmp[1] = -((M[o + 2]! - Bone.inertia[b * 3 + 1]!) / dt + halving * Iy) * this.tmp[1]!;
      this.tmp[2] = -((M[o + 3]! - Bone.inertia[b * 3 + 2]!) / dt + halving * Iz) * this.tmp[2]!;
      quatRotateArr(this.tmp, 0, this.rot, i4, this.tmp, 0);
      torque[i3] = torque[i3]! + this.tmp[0]!; torque[i3 + 1] = torque[i3 + 1]! + this.tmp[1]!; torque[i3 + 2] = torque[i3 + 2]! + this.tmp[2]!;
      // user forces persist in Rapier until reset; resetForces leaves torques (call both)
      body.resetForces(false);
      body.resetTorques(false);
      vec.x = force[i3]!; vec.y = force[i3 + 1]!; vec.z = force[i3 + 2]!;
      if (vec.x !== 0 || vec.y !== 0 || vec.z !== 0) body.addForce(vec, false);
      vec.x = torque[i3]!; vec.y = torque[i3 + 1]!; vec.z = torque[i3 + 2]!;
      if (vec.x !== 0 || vec.y !== 0 || vec.z !== 0) body.addTorque(vec, false);
    }
    this.rworld.step();
    this.readState();
  }

  /** The paper's explicit end damping: −2c v and −2c d × (ω × d), |d| = L/2, as forces. */
  private explicitDamping(): void {
    const { force, torque } = this;
    for (let i = 0; i < this.n; i++) {
      const i3 = i * 3, c = this.coefficient[i]!;
      force[i3] = force[i3]! - 2 * c * this.vel[i3]!; force[i3 + 1] = force[i3 + 1]! - 2 * c * this.vel[i3 + 1]!; force[i3 + 2] = force[i3 + 2]! - 2 * c * this.vel[i3 + 2]!;
      quatRotate(this.tmp, 0, this.rot, i * 4, 0, 0.5 * this.length[i]!, 0);
      const dx = this.tmp[0]!, dy = this.tmp[1]!, dz = this.tmp[2]!;
      const wx = this.angVel[i3]!, wy = this.angVel[i3 + 1]!, wz = this.angVel[i3 + 2]!;
      const ux = wy * dz - wz * dy, uy = wz * dx - wx * dz, uz = wx * dy - wy * dx;
      torque[i3] = torque[i3]! - 2 * c * (dy * uz - dz * uy); torque[i3 + 1] = torque[i3 + 1]! - 2 * c * (dz * ux - dx * uz); torque[i3 + 2] = torque[i3 + 2]! - 2 * c * (dx * uy - dy * ux);
    }
  }

  tipPositions(out: Float64Array): Float64Array {
    return this.endPositions(out, 0.5);
  }

  headPositions(out: Float64Array): Float64Array {
    return this.endPositions(out, -0.5);
  }

  private endPositions(out: Float64Array, side: number): Float64Array {
    this.checkOut(out, 3);
    for (let i = 0; i < this.n; i++) {
      quatRotate(out, i * 3, this.rot, i * 4, 0, side * this.length[i]!, 0);
      out[i * 3] = out[i * 3]! + this.centre[i * 3]!; out[i * 3 + 1] = out[i * 3 + 1]! + this.centre[i * 3 + 1]!; out[i * 3 + 2] = out[i * 3 + 2]! + this.centre[i * 3 + 2]!;
    }
    return out;
  }

  rotations(out: Float64Array): Float64Array {
    this.checkOut(out, 4);
    out.set(this.rot.subarray(0, 4 * this.n));
    return out;
  }

  maxEndSpeed(): number {
    return this.endSpeed;
  }

  finite(): boolean {
    for (let i = 0; i < 3 * this.n; i++) {
      if (!Number.isFinite(this.centre[i]! + this.vel[i]! + this.angVel[i]!)) return false;
    }
    for (let i = 0; i < 4 * this.n; i++) if (!Number.isFinite(this.rot[i]!)) return false;
    return true;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.rworld.free();
  }

  private checkOut(out: Float64Array, width: number): void {
    if (this.disposed) throw new Error('Rapier mirror: read after dispose()');
    if (out.length < width * this.n) throw new Error(`Rapier mirror: output array holds ${out.length} numbers, needs ${width * this.n} (${width} per bone, ${this.n} bones)`);
  }
}

/** JointAxesMask.LinX | LinY | LinZ: a joint's three translations locked. */
const LOCK_LINEAR = 1 | 2 | 4;

function conj(q: Float64Array, o: number): Float64Array {
  return Float64Array.of(-q[o]!, -q[o + 1]!, -q[o + 2]!, q[o + 3]!);
}

function quatObj(q: Float64Array, o: number): { x: number; y: number; z: number; w: number } {
  return { x: q[o]!, y: q[o + 1]!, z: q[o + 2]!, w: q[o + 3]! };
}

