/**
 * massSpring: a position-Verlet particle solver, after the mass-spring section of the IK guide
 * (SpehleonLP, "Inverse Kinematics Guide"): particles at the joints,
 * length constraints relaxed a few times per step, rotations recovered from the particles.
 *
 * Pure core (`Particles`, plain typed arrays):
 * - Particle 0 is the root's head (an anchor: inverse mass 0); particle 1 + i is the tail of
 *   bone i (depth-first index). A bone's head is a combination of at most two particles
 *   ((1 − s)·a + s·b): its parent's tail, its parent's head, or a point between them when it
 *   hangs from the middle of its parent (a bone hanging from the middle of a bone that itself
 *   hangs from the middle of its parent is refused with an Error).
 * - `verletStep`: x ← x + (1 − damping)(x − x_prev) + g·dt² per free particle, the step's
 *   displacement capped at `maxMove` (the rig's height), so no dt can blow it up (the guide's
 *   0.5·g·dt² would be half of gravity for position Verlet).
 * - `satisfyLengths`: one Gauss–Seidel sweep (leaves first) of the bones' length constraints, each split by
 *   inverse mass (the guide's weighted centre uses 1/(m1·m2) where 1/(m1 + m2) is meant and
 *   writes both corrections to the same particle with swapped weights; this is the standard
 *   position-based form, which also handles anchors and combined head points).
 * - `pullPoint`: a goal moves the combination point on its bone toward the target (stiffness
 *   0..1 per relaxation iteration).
 *
 * Solver (registered as 'massSpring'): each step syncs the particles to the current pose
 * (velocities stay as the difference to last step's pose, so limits and other edits act as
 * constraints), does one Verlet step with gravity (`gravity` along −Y) and damping, then up to
 * `ikIterations` relaxations (goals pull, then lengths; stops early when nothing moves). A
 * goal's point is the attachment projected on the bone's axis ((at·L + offset.y)/L along it);
 * its perpendicular offset is taken off the target with the bone's current rotation. Rotations
 * come from the particles root first: the shortest arc from the rest frame carried by the
 * parent's new rotation to the new direction (no accumulated drift, the guide's advice), with
 * hinge joints' parents twisted so the hinge axis is the bend normal (bones with one child);
 * limits are clamped after each bone (so the pose always keeps them; the particles know no
 * limits, so a limited chain may miss, and the solve's note says so: solveNotes.ts). The root's head is the anchor (never moves, also for a floating root). Previous
 * positions are kept per rig in a WeakMap keyed by the RigRecord; a rig reset (its step
 * counter going back) restarts from rest velocity. 'path-independent' restarts every step from
 * the rest pose at zero velocity and relaxes to tolerance (at most ikIterations).
 * Status: converged within ikTolerance × height, settling while particles still move more
 * than that per step, stalled otherwise; diverged (nothing written) if a result is not finite.
 * Per-rig constants (`setMassSpringParams`, not in Settings): damping 0.05 (fraction of the
 * velocity removed per step) and goal stiffness 1; settings worth adding: `massSpringDamping`,
 * `massSpringGoalStiffness`.
 */
import type { PhysikWorld, RigRecord } from '../../src/world/world';
import { STATUS_CONVERGED, STATUS_DIVERGED, STATUS_SETTLING, STATUS_STALLED } from '../../components/Rig';
import { quatRotateArr } from '../../src/math/quat';
import type { SolveResult } from './solver';
import { solved } from './common';
import { AIM, beginPass, endPass, hingeTwist } from './chainPass';
import { boneName, maxGoalError, maxGoalErrorOut } from './goalChains';
import { setSolveNote } from './solveNotes';

const EPS = 1e-12;

// ───────────────────────────── pure core ─────────────────────────────

export interface Particles {
  n: number;
  pos: Float64Array;
  prev: Float64Array;
  invMass: Float64Array;
  /** Constraints (one per bone): head = (1 − s)·x[a] + s·x[b], tail = x[t], rest length len. */
  nc: number;
  a: Int32Array;
  b: Int32Array;
  s: Float64Array;
  t: Int32Array;
  len: Float64Array;
}

export function createParticles(n: number, nc: number): Particles {
  return {
    n, pos: new Float64Array(3 * n), prev: new Float64Array(3 * n), invMass: new Float64Array(n),
    nc, a: new Int32Array(nc), b: new Int32Array(nc), s: new Float64Array(nc), t: new Int32Array(nc), len: new Float64Array(nc),
  };
}

/** One position-Verlet step: returns the largest displacement. */
export function verletStep(ps: Particles, dt: number, gx: number, gy: number, gz: number, damping: number, maxMove: number): number {
  io[0] = dt; io[1] = gx; io[2] = gy; io[3] = gz; io[4] = damping; io[5] = maxMove;
  verlet(ps);
  return io[6]!;
}

// Scalars in and out of the hot helpers (V8 boxes floating-point arguments and results of
// calls it does not inline): verlet: dt, g (3), damping, maxMove → largest move in [6];
// satisfy: largest error in [7]; pull: u, target (3), stiffness in [8..12] → error in [13].
const io = new Float64Array(14);

function verlet(ps: Particles): void {
  const { pos, prev, invMass } = ps;
  const dt = io[0]!, gx = io[1]!, gy = io[2]!, gz = io[3]!, damping = io[4]!, maxMove = io[5]!;
  const keep = 1 - damping, dt2 = dt * dt;
  let largest = 0;
  for (let i = 0; i < ps.n; i++) {
    const i3 = i * 3;
    const x = pos[i3]!, y = pos[i3 + 1]!, z = pos[i3 + 2]!;
    let dx = 0, dy = 0, dz = 0;
    if (invMass[i]! > 0) {
      dx = keep * (x - prev[i3]!) + gx * dt2;
      dy = keep * (y - prev[i3 + 1]!) + gy * dt2;
      dz = keep * (z - prev[i3 + 2]!) + gz * dt2;
      const d = Math.sqrt(dx * dx + dy * dy + dz * dz);
      if (d > maxMove) { const k = maxMove / d; dx *= k; dy *= k; dz *= k; }
      if (!(d <= maxMove) && !(d > maxMove)) { dx = 0; dy = 0; dz = 0; } // NaN: stand still
    }
    prev[i3] = x; prev[i3 + 1] = y; prev[i3 + 2] = z;
    pos[i3] = x + dx; pos[i3 + 1] = y + dy; pos[i3 + 2] = z + dz;
    const d = Math.sqrt(dx * dx + dy * dy + dz * dz);
    if (d > largest) largest = d;
  }
  io[6] = largest;
}

/**
 * One sweep over the length constraints, last first (leaves before their parents: after a goal
 * pulled a tip, the mismatch travels toward the anchored root instead of back to the tip; the
 * root-first order stalled a 50-link chain far from its goal). Returns the largest length
 * error met.
 */
export function satisfyLengths(ps: Particles): number {
  satisfy(ps);
  return io[7]!;
}

function satisfy(ps: Particles): void {
  const { pos, invMass } = ps;
  let worst = 0;
  for (let c = ps.nc - 1; c >= 0; c--) {
    const a = ps.a[c]!, b = ps.b[c]!, s = ps.s[c]!, t = ps.t[c]!;
    const a3 = a * 3, b3 = b * 3, t3 = t * 3;
    const hx = (1 - s) * pos[a3]! + s * pos[b3]!, hy = (1 - s) * pos[a3 + 1]! + s * pos[b3 + 1]!, hz = (1 - s) * pos[a3 + 2]! + s * pos[b3 + 2]!;
    const dx = pos[t3]! - hx, dy = pos[t3 + 1]! - hy, dz = pos[t3 + 2]! - hz;
    const d = Math.sqrt(dx * dx + dy * dy + dz * dz);
    if (!(d > EPS)) continue;
    const C = d - ps.len[c]!;
    if (Math.abs(C) > worst) worst = Math.abs(C);
    const wa = a === b ? invMass[a]! : (1 - s) * (1 - s) * invMass[a]!;
    const wb = a === b ? 0 : s * s * invMass[b]!;
    const denom = invMass[t]! + wa + wb;
    if (!(denom > 0)) continue;
    const lam = C / denom / d; // per unit of d
    const nx = dx * lam, ny = dy * lam, nz = dz * lam;
    const wt = invMass[t]!;
    pos[t3] = pos[t3]! - wt * nx; pos[t3 + 1] = pos[t3 + 1]! - wt * ny; pos[t3 + 2] = pos[t3 + 2]! - wt * nz;
    if (a === b) {
      const w = invMass[a]!;
      pos[a3] = pos[a3]! + w * nx; pos[a3 + 1] = pos[a3 + 1]! + w * ny; pos[a3 + 2] = pos[a3 + 2]! + w * nz;
    } else {
      const w1 = (1 - s) * invMass[a]!, w2 = s * invMass[b]!;
      pos[a3] = pos[a3]! + w1 * nx; pos[a3 + 1] = pos[a3 + 1]! + w1 * ny; pos[a3 + 2] = pos[a3 + 2]! + w1 * nz;
      pos[b3] = pos[b3]! + w2 * nx; pos[b3 + 1] = pos[b3 + 1]! + w2 * ny; pos[b3 + 2] = pos[b3 + 2]! + w2 * nz;
    }
  }
  io[7] = worst;
}

/**
 * Move the point (1 − s)·x[a] + s·x[b] toward (tx, ty, tz) by `stiffness` (0..1) of the way,
 * split by inverse mass. Returns the distance before the move.
 */
export function pullPoint(ps: Particles, a: number, b: number, s: number, tx: number, ty: number, tz: number, stiffness: number): number {
  const { pos, invMass } = ps;
  const a3 = a * 3, b3 = b * 3;
  const px = (1 - s) * pos[a3]! + s * pos[b3]!, py = (1 - s) * pos[a3 + 1]! + s * pos[b3 + 1]!, pz = (1 - s) * pos[a3 + 2]! + s * pos[b3 + 2]!;
  const cx = px - tx, cy = py - ty, cz = pz - tz;
  const err = Math.sqrt(cx * cx + cy * cy + cz * cz);
  const wa = a === b ? invMass[a]! : (1 - s) * (1 - s) * invMass[a]!;
  const wb = a === b ? 0 : s * s * invMass[b]!;
  const denom = wa + wb;
  if (!(denom > 0) || !(err > 0)) return err;
  const k = stiffness / denom;
  if (a === b) {
    const w = invMass[a]! * k;
    pos[a3] = pos[a3]! - w * cx; pos[a3 + 1] = pos[a3 + 1]! - w * cy; pos[a3 + 2] = pos[a3 + 2]! - w * cz;
  } else {
    const w1 = (1 - s) * invMass[a]! * k, w2 = s * invMass[b]! * k;
    pos[a3] = pos[a3]! - w1 * cx; pos[a3 + 1] = pos[a3 + 1]! - w1 * cy; pos[a3 + 2] = pos[a3 + 2]! - w1 * cz;
    pos[b3] = pos[b3]! - w2 * cx; pos[b3 + 1] = pos[b3 + 1]! - w2 * cy; pos[b3 + 2] = pos[b3 + 2]! - w2 * cz;
  }
  return err;
}

// ───────────────────────────── the solver ─────────────────────────────

export interface MassSpringParams {
  /** Fraction of the velocity removed per step (0..1). */
  damping: number;
  /** How far (0..1) a goal moves its point per relaxation iteration. */
  goalStiffness: number;
}

const params = new WeakMap<RigRecord, MassSpringParams>();
const defaultParams: Readonly<MassSpringParams> = Object.freeze({ damping: 0.05, goalStiffness: 1 });

/** Per-rig constants of the mass-spring solver (defaults: damping 0.05, goalStiffness 1). */
export function setMassSpringParams(rig: RigRecord, p: Partial<MassSpringParams>): void {
  const next = { ...(params.get(rig) ?? defaultParams), ...p };
  if (!(next.damping >= 0 && next.damping <= 1)) throw new Error(`massSpring solver, rig "${rig.name}": damping must be in [0, 1], got ${next.damping}`);
  if (!(next.goalStiffness >= 0 && next.goalStiffness <= 1)) throw new Error(`massSpring solver, rig "${rig.name}": goalStiffness must be in [0, 1], got ${next.goalStiffness}`);
  params.set(rig, next);
}

interface MassSpringState {
  ps: Particles;
  nBones: number;
  lastStep: number;
  initialised: boolean;
}

const states = new WeakMap<RigRecord, MassSpringState>();

/** Build the particle layout of a rig (allocates: once per rig). */
function build(world: PhysikWorld, rig: RigRecord): MassSpringState {
  const { Bone } = world.physik;
  const n = rig.bones.length;
  const ps = createParticles(n + 1, n);
  const mass = new Float64Array(n + 1);
  for (let i = 0; i < n; i++) {
    const b = rig.bones[i]!, p = Bone.parent[b]!;
    ps.t[i] = 1 + i;
    ps.len[i] = Bone.length[b]!;
    if (p < 0) { ps.a[i] = 0; ps.b[i] = 0; ps.s[i] = 0; } else {
      const pi = rig.bones.indexOf(p);
      const Lp = Bone.length[p]!;
      const f = Lp > EPS ? Bone.attach[b * 3 + 1]! / Lp : 1;
      const pa = ps.a[pi]!, pb = ps.b[pi]!, psv = ps.s[pi]!;
      if (f >= 1 - 1e-12) { ps.a[i] = 1 + pi; ps.b[i] = 1 + pi; ps.s[i] = 0; } else if (f <= 1e-12) {
        ps.a[i] = pa; ps.b[i] = pb; ps.s[i] = psv;
      } else {
        const single = pa === pb || psv === 0 || psv === 1;
        if (!single) {
          throw new Error(`massSpring solver, rig "${rig.name}": bone "${boneName(rig, b)}" hangs from the middle of "${boneName(rig, p)}", which itself hangs from the middle of its parent; not supported`);
        }
        ps.a[i] = psv === 1 ? pb : pa; ps.b[i] = 1 + pi; ps.s[i] = f;
      }
    }
    // half the bone's mass at each end (the head's half split over its particles)
    const m = Bone.mass[b]! > 0 ? Bone.mass[b]! : 1;
    mass[1 + i] = mass[1 + i]! + 0.5 * m;
    if (ps.a[i] === ps.b[i]) mass[ps.a[i]!] = mass[ps.a[i]!]! + 0.5 * m; else { mass[ps.a[i]!] = mass[ps.a[i]!]! + 0.5 * m * (1 - ps.s[i]!); mass[ps.b[i]!] = mass[ps.b[i]!]! + 0.5 * m * ps.s[i]!; }
  }
  let total = 0;
  for (let k = 0; k <= n; k++) total += mass[k]!;
  for (let k = 0; k <= n; k++) ps.invMass[k] = 1 / Math.max(mass[k]!, 1e-9 * total);
  ps.invMass[0] = 0; // the root's head is the anchor
  return { ps, nBones: n, lastStep: -1, initialised: false };
}

/** Particles ← the current pose (heads and tails). */
function syncFromPose(world: PhysikWorld, rig: RigRecord, out: Float64Array): void {
  const { Bone } = world.physik;
  const root = rig.bones[0]!;
  out[0] = Bone.head[root * 3]!; out[1] = Bone.head[root * 3 + 1]!; out[2] = Bone.head[root * 3 + 2]!;
  for (let i = 0; i < rig.bones.length; i++) {
    const b = rig.bones[i]!;
    out[3 + 3 * i] = Bone.tail[b * 3]!; out[4 + 3 * i] = Bone.tail[b * 3 + 1]!; out[5 + 3 * i] = Bone.tail[b * 3 + 2]!;
  }
}

const hs = new Float64Array(6);

/** Rest pose positions from the current root head (restWorld rotations). */
function restPositions(world: PhysikWorld, rig: RigRecord, ps: Particles, out: Float64Array): void {
  const { Bone } = world.physik;
  const root = rig.bones[0]!;
  out[0] = Bone.head[root * 3]!; out[1] = Bone.head[root * 3 + 1]!; out[2] = Bone.head[root * 3 + 2]!;
  for (let i = 0; i < rig.bones.length; i++) {
    const b = rig.bones[i]!;
    const a3 = ps.a[i]! * 3, b3 = ps.b[i]! * 3, s = ps.s[i]!;
    hs[3] = 0; hs[4] = Bone.length[b]!; hs[5] = 0;
    quatRotateArr(hs, 0, Bone.restWorld, b * 4, hs, 3);
    for (let k = 0; k < 3; k++) out[3 + 3 * i + k] = (1 - s) * out[a3 + k]! + s * out[b3 + k]! + hs[k]!;
  }
}

/** The 'massSpring' kinematic solver (see the header). */
const NOTE_LIMITS = 'the particles know no joint limits: clamped when turned into rotations, the chain ends short of the goal';

export function massSpringSolve(world: PhysikWorld, rig: RigRecord): SolveResult {
  const { Bone, ControlPoint, Rig } = world.physik;
  let state = states.get(rig);
  if (!state || state.nBones !== rig.bones.length) { state = build(world, rig); states.set(rig, state); }
  const ps = state.ps;
  const step = Rig.step[rig.eid]!;
  const s = rig.settings;
  const height = Rig.height[rig.eid]!;
  const tol = s.ikTolerance * height;
  const prm = params.get(rig) ?? defaultParams;
  const independent = s.ikMode === 'path-independent';
  if (independent) {
    restPositions(world, rig, ps, ps.pos);
    ps.prev.set(ps.pos);
  } else {
    syncFromPose(world, rig, ps.pos);
    if (!state.initialised || step <= state.lastStep) ps.prev.set(ps.pos); // start (or reset): at rest
  }
  state.initialised = true;
  state.lastStep = step;
  io[0] = s.dt; io[1] = 0; io[2] = -s.gravity; io[3] = 0; io[4] = independent ? 0 : prm.damping; io[5] = height;
  verlet(ps);
  const moved = io[6]!;

  // relaxation: goals pull, then lengths
  let iterations = 0;
  for (let it = 0; it < s.ikIterations; it++) {
    iterations++;
    let goalErr = 0;
    for (let ci = 0; ci < rig.controlPoints.length; ci++) {
      const cp = rig.controlPoints[ci]!;
      if (!ControlPoint.active[cp] || ControlPoint.pole[cp]) continue;
      const b = ControlPoint.bone[cp]!;
      const i = rig.bones.indexOf(b);
      const L = Bone.length[b]!;
      const c3 = cp * 3;
      // point on the axis at u; target less the perpendicular offset (current rotation)
      const u = L > EPS ? ControlPoint.at[cp]! + ControlPoint.offset[c3 + 1]! / L : 0;
      hs[3] = ControlPoint.offset[c3]!; hs[4] = 0; hs[5] = ControlPoint.offset[c3 + 2]!;
      quatRotateArr(hs, 0, Bone.rot, b * 4, hs, 3);
      const tx = ControlPoint.effective[c3]! - hs[0]!, ty = ControlPoint.effective[c3 + 1]! - hs[1]!, tz = ControlPoint.effective[c3 + 2]! - hs[2]!;
      if (!Number.isFinite(tx + ty + tz)) continue;
      // (1 − u)·head + u·tail, head = (1 − s)·a + s·b
      io[8] = u; io[9] = tx; io[10] = ty; io[11] = tz; io[12] = prm.goalStiffness;
      pullHeadTail(ps, i);
      const e1 = io[13]!;
      if (e1 > goalErr) goalErr = e1;
    }
    satisfy(ps);
    const lenErr = io[7]!;
    if (goalErr <= 0.01 * tol && lenErr <= 0.01 * tol) break;
  }

  // rotations from the particles, root first, limits clamped after each bone
  let finite = true;
  for (let k = 0; k < 3 * ps.n; k++) if (!Number.isFinite(ps.pos[k]!)) { finite = false; break; }
  if (!finite) {
    state.initialised = false; // restart from the pose next step
    return solved(iterations, STATUS_DIVERGED);
  }
  const pass = beginPass(world, rig);
  const pos = ps.pos;
  for (let i = 0; i < rig.bones.length; i++) {
    const a3 = ps.a[i]! * 3, b3 = ps.b[i]! * 3, sv = ps.s[i]!, t3 = ps.t[i]! * 3;
    pass.mark[i] = AIM;
    pass.vec[i * 3] = 0; pass.vec[i * 3 + 1] = 1; pass.vec[i * 3 + 2] = 0;
    for (let k = 0; k < 3; k++) pass.dir[i * 3 + k] = pos[t3 + k]! - ((1 - sv) * pos[a3 + k]! + sv * pos[b3 + k]!);
  }
  // hinge joints: twist a single-child parent so the hinge axis is the bend normal
  for (let i = 1; i < rig.bones.length; i++) {
    const b = rig.bones[i]!, p = Bone.parent[b]!;
    const pi = rig.bones.indexOf(p);
    if (rig.childStart[pi + 1]! - rig.childStart[pi]! !== 1) continue;
    const ax = pass.dir[pi * 3]!, ay = pass.dir[pi * 3 + 1]!, az = pass.dir[pi * 3 + 2]!;
    const bx = pass.dir[i * 3]!, by = pass.dir[i * 3 + 1]!, bz = pass.dir[i * 3 + 2]!;
    const nx = ay * bz - az * by, ny = az * bx - ax * bz, nz = ax * by - ay * bx;
    const nl = Math.sqrt(nx * nx + ny * ny + nz * nz);
    const la = Math.sqrt(ax * ax + ay * ay + az * az), lb = Math.sqrt(bx * bx + by * by + bz * bz);
    if (nl > 1e-6 * la * lb) {
      hs[0] = nx / nl; hs[1] = ny / nl; hs[2] = nz / nl;
      hingeTwist(world, pass, pi, b, hs, 0);
    }
  }
  const ok = endPass(world, rig, pass);
  maxGoalError(world, rig);
  const err = maxGoalErrorOut[0]!;
  let status: number;
  if (!ok || !Number.isFinite(err)) status = STATUS_DIVERGED;
  else if (err <= tol) status = STATUS_CONVERGED;
  else status = moved > tol ? STATUS_SETTLING : STATUS_STALLED;
  setSolveNote(rig, 'massSpring', pass.clamped && status !== STATUS_CONVERGED ? NOTE_LIMITS : '');
  return solved(iterations, status);
}

/** Pull the point (1 − u)·head + u·tail of bone i (head a combination) toward the target (inputs in io[8..12], error to io[13]). */
function pullHeadTail(ps: Particles, i: number): void {
  const u = io[8]!, tx = io[9]!, ty = io[10]!, tz = io[11]!, stiffness = io[12]!;
  // the point is Σ c_k x_k over up to three particles: head parts (1 − u)(1 − s), (1 − u)s and the tail u
  const { pos, invMass } = ps;
  const a = ps.a[i]!, b = ps.b[i]!, s = ps.s[i]!, t = ps.t[i]!;
  const ca = (1 - u) * (a === b ? 1 : 1 - s), cb = a === b ? 0 : (1 - u) * s, ct = u;
  const a3 = a * 3, b3 = b * 3, t3 = t * 3;
  const px = ca * pos[a3]! + cb * pos[b3]! + ct * pos[t3]!;
  const py = ca * pos[a3 + 1]! + cb * pos[b3 + 1]! + ct * pos[t3 + 1]!;
  const pz = ca * pos[a3 + 2]! + cb * pos[b3 + 2]! + ct * pos[t3 + 2]!;
  const cx = px - tx, cy = py - ty, cz = pz - tz;
  const err = Math.sqrt(cx * cx + cy * cy + cz * cz);
  const denom = ca * ca * invMass[a]! + cb * cb * invMass[b]! + ct * ct * invMass[t]!;
  io[13] = err;
  if (!(denom > 0) || !(err > 0)) return;
  const k = stiffness / denom;
  const wa = ca * invMass[a]! * k, wb = cb * invMass[b]! * k, wt = ct * invMass[t]! * k;
  pos[a3] = pos[a3]! - wa * cx; pos[a3 + 1] = pos[a3 + 1]! - wa * cy; pos[a3 + 2] = pos[a3 + 2]! - wa * cz;
  if (cb !== 0) { pos[b3] = pos[b3]! - wb * cx; pos[b3 + 1] = pos[b3 + 1]! - wb * cy; pos[b3 + 2] = pos[b3 + 2]! - wb * cz; }
  pos[t3] = pos[t3]! - wt * cx; pos[t3 + 1] = pos[t3 + 1]! - wt * cy; pos[t3 + 2] = pos[t3 + 2]! - wt * cz;
}
