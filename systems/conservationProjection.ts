/**
 * Conservation projection, after integration and forward kinematics: the integrated velocities
 * are corrected, as little as the rig's mass allows, so that the step keeps the budget
 * systems/momentumBudget.ts recorded (the projection methods of Hairer, Lubich and Wanner,
 * "Geometric Numerical Integration", section IV.4).
 *
 * 1. Momentum, for a rig no external load acts on (systems/momentumBudget.ts says why only
 *    then). A fixed step of the velocity-product terms (centripetal, gyroscopic) changes its
 *    momentum by O(dt²) a step. The smallest correction in the
 *    kinetic-energy metric that restores it is a rigid motion of the whole rig (a linear and
 *    an angular velocity added to every bone), which leaves every joint connected and every
 *    joint's relative motion as it was. A pinned rig gets a rotation about its pin (its linear
 *    momentum is the pin's business).
 * 2. Energy. The effective targets do not move within a step, the springs and limits are
 *    conservative and damping only removes energy, so a step may not end with more mechanical
 *    energy than it began with (beyond a small band for the integrator's wobble, measured from
 *    the lowest energy since the rig was last changed from outside). Explicit velocity-squared
 *    terms can add some at large ω·dt; the excess is taken from the rig's internal motion (its velocities relative to the rigid
 *    motion with the same momentum, scaled down), so momentum is kept. Steps where this acted
 *    and the energy removed are counted in Rig.energyGuardSteps and Rig.energyRemoved.
 *
 * Steps taken in substeps or with clamped speeds are left alone: their budget was for one step
 * (guarding their energy too was tried: an unstable light rig, explicit damping on 0.25 kg
 * bones, then stopped short of its targets instead of reaching them).
 */
import type { PhysikWorld, RigRecord } from '../src/world/world';
import { steppingRigs } from '../src/world/world';
import { addLimitEnergy } from './torsionSprings';
import { controlSpringEnergy } from './controlSprings';
import { measureRig } from './metrics';

/** Measured state of the rig being projected: [M, com(3), P(3), L about the reference(3), KE, I about the reference (6: xx xy xz yy yz zz)]. */
const m = new Float64Array(17);
const energy = new Float64Array(1);
/** Rigid velocity: linear V at the reference point and angular Ω. */
const rigid = new Float64Array(6);
/**
 * The helpers' double arguments, passed in an array (a double passed to a call V8 does not inline
 * is boxed, an allocation): the point measured about (0-2), the rigid motion's centre (3-5), the
 * angular momentum to turn into Ω (6-8), what measure() does to the velocities first (9: 2
 * nothing, 1 add the rigid motion, 0 scale the motion relative to it by args[10]), and whether
 * it measures the inertia tensor too (11).
 */
const args = new Float64Array(12);
const MEASURE = 2, ADD = 1, SCALE = 0;

/**
 * The guard allows the energy this fraction above its reference (systems/momentumBudget.ts): an
 * integrator's energy wobbles by O(dt²) from step to step without drifting.
 */
const ENERGY_BAND = 1e-3;
/**
 * And an absolute floor: the kinetic energy of the whole rig moving at this fraction of the speed
 * under which it counts as static (settleTolerance × height per second).
 */
const REST_FRACTION = 0.1;

export function conservationProjection(world: PhysikWorld): void {
  const { Rig } = world.physik;
  const rigs = steppingRigs(world);
  for (let ri = 0; ri < rigs.length; ri++) {
    const rig = rigs[ri]!;
    const r = rig.eid;
    const budget = Rig.conserve[r]!;
    if (!budget) continue;
    Rig.conserve[r] = 0;
    // (the budget was for one whole step)
    if (Rig.substeps[r] !== 1 || Rig.speedClamp[r] === 1) continue;
    const pinned = Rig.pinned[r] === 1;
    const r3 = r * 3, e6 = r * 6;
    const ox = Rig.momentumPoint[r3]!, oy = Rig.momentumPoint[r3 + 1]!, oz = Rig.momentumPoint[r3 + 2]!;
    args[0] = ox; args[1] = oy; args[2] = oz;
    args[9] = MEASURE;
    // (the momenta and inertia only where they are needed: the momentum projection, or the
    // guard acting; else the kinetic energy rigMeasures took serves)
    let measured = budget === 1;
    if (measured) { args[11] = 1; measure(world, rig); }
    // the rigid motion's centre: the centre of mass (floating) or the pin
    let cx = 0, cy = 0, cz = 0;
    if (!pinned) { cx = m[1]! - ox; cy = m[2]! - oy; cz = m[3]! - oz; }
    args[3] = ox + cx; args[4] = oy + cy; args[5] = oz + cz;
    let M = m[0]!;
    if (budget === 1) {
      // 1. momentum (a free rig: see systems/momentumBudget.ts for why a loaded one is not
      // projected): the rigid motion that carries the missing momentum, V = ΔP / M at the centre
      // of mass and Ω = I⁻¹ (ΔL − (com − o) × ΔP), I about the centre of mass
      const E = Rig.expectedMomentum;
      const dPx = E[e6]! - m[4]!, dPy = E[e6 + 1]! - m[5]!, dPz = E[e6 + 2]! - m[6]!;
      rigid[0] = dPx / M; rigid[1] = dPy / M; rigid[2] = dPz / M;
      args[6] = E[e6 + 3]! - m[7]! - (cy * dPz - cz * dPy);
      args[7] = E[e6 + 4]! - m[8]! - (cz * dPx - cx * dPz);
      args[8] = E[e6 + 5]! - m[9]! - (cx * dPy - cy * dPx);
      shiftInertiaToCentre();
      if (!solveRigid()) { measureRig(world, rig); continue; }
      args[9] = ADD;
      measure(world, rig);
      measureRig(world, rig);
    }
    // 2. energy: the guard
    let ke = measured ? m[10]! : Rig.kineticEnergy[r]!;
    potentialEnergy(world, rig);
    const pe = energy[0]!;
    Rig.energyEnd[r] = ke + pe;
    // (an absolute floor too: settled, the energy is at round-off, where a relative band is
    // noise; below the floor no motion anyone could see is at stake)
    const H = Rig.height[r]!, vFloor = REST_FRACTION * rig.settings.settleTolerance * H;
    const excess = ke + pe - Rig.energyReference[r]! * (1 + ENERGY_BAND) - 0.5 * Rig.totalMass[r]! * vFloor * vFloor;
    if (!(excess > 0)) {
      // (run anyway, on whatever m holds, results unused: a function V8 sees only when the guard
      // acts would run unoptimised then, where every double is an allocation)
      shiftInertiaToCentre();
      solveRigid();
      continue;
    }
    if (!measured) {
      args[9] = MEASURE; args[11] = 1; measure(world, rig); measured = true;
      M = m[0]!; ke = m[10]!;
      cx = 0; cy = 0; cz = 0;
      if (!pinned) { cx = m[1]! - ox; cy = m[2]! - oy; cz = m[3]! - oz; }
      args[3] = ox + cx; args[4] = oy + cy; args[5] = oz + cz;
    }
    // the rigid motion with the rig's momentum (the least energy that momentum allows) and what
    // is left, the internal motion
    let Lx = m[7]!, Ly = m[8]!, Lz = m[9]!;
    let keRigid = 0;
    if (!pinned) {
      const Px = m[4]!, Py = m[5]!, Pz = m[6]!;
      Lx -= cy * Pz - cz * Py; Ly -= cz * Px - cx * Pz; Lz -= cx * Py - cy * Px;
      shiftInertiaToCentre();
      rigid[0] = Px / M; rigid[1] = Py / M; rigid[2] = Pz / M;
      keRigid = 0.5 * (Px * Px + Py * Py + Pz * Pz) / M;
    } else {
      rigid[0] = 0; rigid[1] = 0; rigid[2] = 0;
    }
    args[6] = Lx; args[7] = Ly; args[8] = Lz;
    if (!solveRigid()) continue;
    keRigid += 0.5 * (rigid[3]! * Lx + rigid[4]! * Ly + rigid[5]! * Lz);
    const internal = ke - keRigid;
    if (!(internal > 0)) continue;
    const s2 = Math.max(0, (internal - excess) / internal);
    args[9] = SCALE; args[10] = Math.sqrt(s2);
    measure(world, rig);
    measureRig(world, rig);
    Rig.energyEnd[r] = m[10]! + pe;
    Rig.energyGuardSteps[r] = Rig.energyGuardSteps[r]! + 1;
    Rig.energyRemoved[r] = Rig.energyRemoved[r]! + (ke - m[10]!);
  }
}

/**
 * Into m: total mass, centre of mass, linear momentum, angular momentum about o = args[0..2],
 * kinetic energy and the inertia tensor about o, from the bones' centres, velocities and
 * rotations; first, as args[9] says, the rigid motion (V at p = args[3..5], Ω; `rigid`) added to
 * every velocity, or every velocity's part relative to it scaled by s = args[10]:
 * u ← rigid + s (u − rigid). Written to the state (angular velocities, a floating root's
 * velocity) and to the velocities forward kinematics derived (centres, heads), which are linear
 * in it. (One function for both, run every step, so that V8 optimises the rarely used part too.)
 */
function measure(world: PhysikWorld, rig: RigRecord): void {
  const { rot, inertia, mass, centre, head, vel, headVel, angVel } = world.physik.Bone;
  const ox = args[0]!, oy = args[1]!, oz = args[2]!;
  const mode = args[9]!, s = args[10]!, withInertia = args[11] === 1;
  const px = args[3]!, py = args[4]!, pz = args[5]!;
  const Vx = rigid[0]!, Vy = rigid[1]!, Vz = rigid[2]!, Wx = rigid[3]!, Wy = rigid[4]!, Wz = rigid[5]!;
  const bones = rig.bones;
  let M = 0, cx = 0, cy = 0, cz = 0, lpx = 0, lpy = 0, lpz = 0, lx = 0, ly = 0, lz = 0, ke = 0;
  let ixx = 0, ixy = 0, ixz = 0, iyy = 0, iyz = 0, izz = 0;
  for (let bi = 0; bi < bones.length; bi++) {
    const b = bones[bi]!, b3 = b * 3, q = b * 4, mb = mass[b]!;
    if (mode !== MEASURE) {
      const add = mode === ADD;
      // ω, and the velocity of the centre and of the head: the rigid motion's there, u_r
      const ax = centre[b3]! - px, ay = centre[b3 + 1]! - py, az = centre[b3 + 2]! - pz;
      const hx = head[b3]! - px, hy = head[b3 + 1]! - py, hz = head[b3 + 2]! - pz;
      const ux = Vx + Wy * az - Wz * ay, uy = Vy + Wz * ax - Wx * az, uz = Vz + Wx * ay - Wy * ax;
      const gx = Vx + Wy * hz - Wz * hy, gy = Vy + Wz * hx - Wx * hz, gz = Vz + Wx * hy - Wy * hx;
      if (add) {
        angVel[b3] = angVel[b3]! + Wx; angVel[b3 + 1] = angVel[b3 + 1]! + Wy; angVel[b3 + 2] = angVel[b3 + 2]! + Wz;
        vel[b3] = vel[b3]! + ux; vel[b3 + 1] = vel[b3 + 1]! + uy; vel[b3 + 2] = vel[b3 + 2]! + uz;
        headVel[b3] = headVel[b3]! + gx; headVel[b3 + 1] = headVel[b3 + 1]! + gy; headVel[b3 + 2] = headVel[b3 + 2]! + gz;
      } else {
        angVel[b3] = Wx + s * (angVel[b3]! - Wx); angVel[b3 + 1] = Wy + s * (angVel[b3 + 1]! - Wy); angVel[b3 + 2] = Wz + s * (angVel[b3 + 2]! - Wz);
        vel[b3] = ux + s * (vel[b3]! - ux); vel[b3 + 1] = uy + s * (vel[b3 + 1]! - uy); vel[b3 + 2] = uz + s * (vel[b3 + 2]! - uz);
        headVel[b3] = gx + s * (headVel[b3]! - gx); headVel[b3 + 1] = gy + s * (headVel[b3 + 1]! - gy); headVel[b3 + 2] = gz + s * (headVel[b3 + 2]! - gz);
      }
    }
    const x = rot[q]!, y = rot[q + 1]!, z = rot[q + 2]!, w = rot[q + 3]!;
    const r00 = 1 - 2 * (y * y + z * z), r01 = 2 * (x * y - z * w), r02 = 2 * (x * z + y * w);
    const r10 = 2 * (x * y + z * w), r11 = 1 - 2 * (x * x + z * z), r12 = 2 * (y * z - x * w);
    const r20 = 2 * (x * z - y * w), r21 = 2 * (y * z + x * w), r22 = 1 - 2 * (x * x + y * y);
    const ex = inertia[b3]!, ey = inertia[b3 + 1]!, ez = inertia[b3 + 2]!;
    const dx = centre[b3]! - ox, dy = centre[b3 + 1]! - oy, dz = centre[b3 + 2]! - oz;
    const vx = vel[b3]!, vy = vel[b3 + 1]!, vz = vel[b3 + 2]!;
    const wx = angVel[b3]!, wy = angVel[b3 + 1]!, wz = angVel[b3 + 2]!;
    const sx = r00 * wx + r10 * wy + r20 * wz, sy = r01 * wx + r11 * wy + r21 * wz, sz = r02 * wx + r12 * wy + r22 * wz;
    const hx = ex * sx, hy = ey * sy, hz = ez * sz;
    M += mb; cx += mb * dx; cy += mb * dy; cz += mb * dz;
    lpx += mb * vx; lpy += mb * vy; lpz += mb * vz;
    lx += mb * (dy * vz - dz * vy) + r00 * hx + r01 * hy + r02 * hz;
    ly += mb * (dz * vx - dx * vz) + r10 * hx + r11 * hy + r12 * hz;
    lz += mb * (dx * vy - dy * vx) + r20 * hx + r21 * hy + r22 * hz;
    ke += 0.5 * (mb * (vx * vx + vy * vy + vz * vz) + sx * hx + sy * hy + sz * hz);
    if (!withInertia) continue;
    // R diag(e) Rᵀ + m (|d|² I − d dᵀ)
    const d2 = dx * dx + dy * dy + dz * dz;
    ixx += r00 * r00 * ex + r01 * r01 * ey + r02 * r02 * ez + mb * (d2 - dx * dx);
    ixy += r00 * r10 * ex + r01 * r11 * ey + r02 * r12 * ez - mb * dx * dy;
    ixz += r00 * r20 * ex + r01 * r21 * ey + r02 * r22 * ez - mb * dx * dz;
    iyy += r10 * r10 * ex + r11 * r11 * ey + r12 * r12 * ez + mb * (d2 - dy * dy);
    iyz += r10 * r20 * ex + r11 * r21 * ey + r12 * r22 * ez - mb * dy * dz;
    izz += r20 * r20 * ex + r21 * r21 * ey + r22 * r22 * ez + mb * (d2 - dz * dz);
  }
  m[0] = M; m[1] = ox + cx / M; m[2] = oy + cy / M; m[3] = oz + cz / M;
  m[4] = lpx; m[5] = lpy; m[6] = lpz; m[7] = lx; m[8] = ly; m[9] = lz; m[10] = ke;
  m[11] = ixx; m[12] = ixy; m[13] = ixz; m[14] = iyy; m[15] = iyz; m[16] = izz;
}

/** m's inertia (about o = args[0..2]) moved to the centre of mass, c = com − o: I_com = I_o − M (|c|² I − c cᵀ). */
function shiftInertiaToCentre(): void {
  const cx = m[1]! - args[0]!, cy = m[2]! - args[1]!, cz = m[3]! - args[2]!;
  const M = m[0]!, c2 = cx * cx + cy * cy + cz * cz;
  m[11] = m[11]! - M * (c2 - cx * cx); m[12] = m[12]! + M * cx * cy; m[13] = m[13]! + M * cx * cz;
  m[14] = m[14]! - M * (c2 - cy * cy); m[15] = m[15]! + M * cy * cz; m[16] = m[16]! - M * (c2 - cz * cz);
}

/** rigid[3..5] = I⁻¹ L, L = args[6..8], with m's inertia; false when it is singular. */
function solveRigid(): boolean {
  const lx = args[6]!, ly = args[7]!, lz = args[8]!;
  const a = m[11]!, b = m[12]!, c = m[13]!, d = m[14]!, e = m[15]!, f = m[16]!;
  const A = d * f - e * e, B = c * e - b * f, C = b * e - c * d;
  const det = a * A + b * B + c * C;
  if (!(det > 0) || !Number.isFinite(det)) return false;
  const s = 1 / det;
  rigid[3] = (A * lx + B * ly + C * lz) * s;
  rigid[4] = (B * lx + (a * f - c * c) * ly + (b * c - a * e) * lz) * s;
  rigid[5] = (C * lx + (b * c - a * e) * ly + (a * d - b * b) * lz) * s;
  return true;
}

/** Energy in the rig's control springs and limit springs at its current pose, to energy[0]. */
function potentialEnergy(world: PhysikWorld, rig: RigRecord): void {
  // (the attachments at the current pose: rigMeasures measured them, systems/metrics.ts measureRig)
  controlSpringEnergy(world, rig, false, energy, 0);
  addLimitEnergy(world, rig, true, energy, 0);
}
