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
import type { PhysikWorld, RigRecord } from '../src/core/world';
import { steppingRigs } from '../src/core/world';
import { limitSpringEnergy } from './torsionSprings';
import { controlSpringEnergy } from './controlSprings';

/** Measured state of the rig being projected: [M, com(3), P(3), L about the reference(3), KE, I about the reference (6: xx xy xz yy yz zz)]. */
const m = new Float64Array(17);
const energy = new Float64Array(1);
/** Rigid velocity: linear V at the reference point and angular Ω. */
const rigid = new Float64Array(6);

/**
 * The guard allows the energy this fraction above its reference (systems/momentumBudget.ts): an
 * integrator's energy wobbles by O(dt²) from step to step without drifting.
 */
const ENERGY_BAND = 1e-3;

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
    // 1. momentum: the rigid motion that carries the missing momentum
    measure(world, rig, ox, oy, oz);
    const E = Rig.expectedMomentum;
    let dPx = 0, dPy = 0, dPz = 0;
    if (!pinned) { dPx = E[e6]! - m[4]!; dPy = E[e6 + 1]! - m[5]!; dPz = E[e6 + 2]! - m[6]!; }
    let dLx = E[e6 + 3]! - m[7]!, dLy = E[e6 + 4]! - m[8]!, dLz = E[e6 + 5]! - m[9]!;
    // about the reference: V = ΔP / M at the centre of mass, Ω = I_ref⁻¹ (ΔL − (com − o) × ΔP)
    // with I_ref about the centre of mass for a floating rig (measure's inertia is about o; shift it)
    let cx = 0, cy = 0, cz = 0;
    if (!pinned) {
      cx = m[1]! - ox; cy = m[2]! - oy; cz = m[3]! - oz;
      dLx -= cy * dPz - cz * dPy; dLy -= cz * dPx - cx * dPz; dLz -= cx * dPy - cy * dPx;
      shiftInertiaToCentre(cx, cy, cz);
    }
    const M = m[0]!;
    // the rigid motion's centre: the centre of mass (floating) or the pin
    const px = ox + cx, py = oy + cy, pz = oz + cz;
    if (budget === 1) {
      // (a free rig: see systems/momentumBudget.ts for why a loaded one is not projected)
      if (!solveRigid(dLx, dLy, dLz)) continue;
      rigid[0] = dPx / M; rigid[1] = dPy / M; rigid[2] = dPz / M;
      addRigid(world, rig, px, py, pz, 1, 1);
      measure(world, rig, ox, oy, oz);
    }
    // 2. energy: the guard
    const ke = m[10]!;
    const pe = potentialEnergy(world, rig);
    Rig.energyEnd[r] = ke + pe;
    const excess = ke + pe - Rig.energyReference[r]! * (1 + ENERGY_BAND);
    if (!(excess > 0)) continue;
    // the rigid motion with the rig's momentum and its energy; what is left is internal
    let Lx = m[7]!, Ly = m[8]!, Lz = m[9]!;
    let keRigid = 0;
    if (!pinned) {
      const Px = m[4]!, Py = m[5]!, Pz = m[6]!;
      Lx -= cy * Pz - cz * Py; Ly -= cz * Px - cx * Pz; Lz -= cx * Py - cy * Px;
      shiftInertiaToCentre(cx, cy, cz);
      rigid[0] = Px / M; rigid[1] = Py / M; rigid[2] = Pz / M;
      keRigid = 0.5 * (Px * Px + Py * Py + Pz * Pz) / M;
    } else {
      rigid[0] = 0; rigid[1] = 0; rigid[2] = 0;
    }
    if (!solveRigid(Lx, Ly, Lz)) continue;
    keRigid += 0.5 * (rigid[3]! * Lx + rigid[4]! * Ly + rigid[5]! * Lz);
    const internal = ke - keRigid;
    if (!(internal > 0)) continue;
    const s2 = Math.max(0, (internal - excess) / internal);
    addRigid(world, rig, px, py, pz, 0, Math.sqrt(s2));
    Rig.energyEnd[r] = ke + pe - (1 - s2) * internal;
    Rig.energyGuardSteps[r] += 1;
    Rig.energyRemoved[r] += (1 - s2) * internal;
  }
}

/**
 * Into m: total mass, centre of mass, linear momentum, angular momentum about o, kinetic
 * energy and the inertia tensor about o, from the bones' centres, velocities and rotations.
 */
function measure(world: PhysikWorld, rig: RigRecord, ox: number, oy: number, oz: number): void {
  const { rot, inertia, mass, centre, vel, angVel } = world.physik.Bone;
  const bones = rig.bones;
  let M = 0, cx = 0, cy = 0, cz = 0, px = 0, py = 0, pz = 0, lx = 0, ly = 0, lz = 0, ke = 0;
  let ixx = 0, ixy = 0, ixz = 0, iyy = 0, iyz = 0, izz = 0;
  for (let bi = 0; bi < bones.length; bi++) {
    const b = bones[bi]!, b3 = b * 3, q = b * 4, mb = mass[b]!;
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
    px += mb * vx; py += mb * vy; pz += mb * vz;
    lx += mb * (dy * vz - dz * vy) + r00 * hx + r01 * hy + r02 * hz;
    ly += mb * (dz * vx - dx * vz) + r10 * hx + r11 * hy + r12 * hz;
    lz += mb * (dx * vy - dy * vx) + r20 * hx + r21 * hy + r22 * hz;
    ke += 0.5 * (mb * (vx * vx + vy * vy + vz * vz) + sx * hx + sy * hy + sz * hz);
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
  m[4] = px; m[5] = py; m[6] = pz; m[7] = lx; m[8] = ly; m[9] = lz; m[10] = ke;
  m[11] = ixx; m[12] = ixy; m[13] = ixz; m[14] = iyy; m[15] = iyz; m[16] = izz;
}

/** m's inertia (about o) moved to the centre of mass, c = com − o: I_com = I_o − M (|c|² I − c cᵀ). */
function shiftInertiaToCentre(cx: number, cy: number, cz: number): void {
  const M = m[0]!, c2 = cx * cx + cy * cy + cz * cz;
  m[11] -= M * (c2 - cx * cx); m[12] += M * cx * cy; m[13] += M * cx * cz;
  m[14] -= M * (c2 - cy * cy); m[15] += M * cy * cz; m[16] -= M * (c2 - cz * cz);
}

/** rigid[3..5] = I⁻¹ L with m's inertia; false when it is singular. */
function solveRigid(lx: number, ly: number, lz: number): boolean {
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

/**
 * Every velocity u ← k_rigid · rigid + s (u − rigid) with the rigid motion (V at p, Ω): k = 1,
 * s = 1 adds the rigid motion; k = 0 scales the motion relative to it by s. Written to the
 * state (angular velocities, a floating root's velocity) and to the velocities forward
 * kinematics derived (centres, heads), which are linear in it.
 */
function addRigid(world: PhysikWorld, rig: RigRecord, px: number, py: number, pz: number, add: number, s: number): void {
  const { centre, head, vel, headVel, angVel } = world.physik.Bone;
  const Vx = rigid[0]!, Vy = rigid[1]!, Vz = rigid[2]!, Wx = rigid[3]!, Wy = rigid[4]!, Wz = rigid[5]!;
  const bones = rig.bones;
  for (let bi = 0; bi < bones.length; bi++) {
    const b3 = bones[bi]! * 3;
    if (add === 1) {
      angVel[b3] += Wx; angVel[b3 + 1] += Wy; angVel[b3 + 2] += Wz;
    } else {
      angVel[b3] = Wx + s * (angVel[b3]! - Wx); angVel[b3 + 1] = Wy + s * (angVel[b3 + 1]! - Wy); angVel[b3 + 2] = Wz + s * (angVel[b3 + 2]! - Wz);
    }
    let dx = centre[b3]! - px, dy = centre[b3 + 1]! - py, dz = centre[b3 + 2]! - pz;
    let ux = Vx + Wy * dz - Wz * dy, uy = Vy + Wz * dx - Wx * dz, uz = Vz + Wx * dy - Wy * dx;
    if (add === 1) { vel[b3] += ux; vel[b3 + 1] += uy; vel[b3 + 2] += uz; }
    else { vel[b3] = ux + s * (vel[b3]! - ux); vel[b3 + 1] = uy + s * (vel[b3 + 1]! - uy); vel[b3 + 2] = uz + s * (vel[b3 + 2]! - uz); }
    dx = head[b3]! - px; dy = head[b3 + 1]! - py; dz = head[b3 + 2]! - pz;
    ux = Vx + Wy * dz - Wz * dy; uy = Vy + Wz * dx - Wx * dz; uz = Vz + Wx * dy - Wy * dx;
    if (add === 1) { headVel[b3] += ux; headVel[b3 + 1] += uy; headVel[b3 + 2] += uz; }
    else { headVel[b3] = ux + s * (headVel[b3]! - ux); headVel[b3 + 1] = uy + s * (headVel[b3 + 1]! - uy); headVel[b3 + 2] = uz + s * (headVel[b3 + 2]! - uz); }
  }
}

/** Energy in the rig's control springs and limit springs at its current pose. */
function potentialEnergy(world: PhysikWorld, rig: RigRecord): number {
  const { AngularLimit, Bone } = world.physik;
  let pe = controlSpringEnergy(world, rig, true);
  const bones = rig.bones;
  for (let bi = 0; bi < bones.length; bi++) {
    const b = bones[bi]!, b3 = b * 3;
    if (!(AngularLimit.enabled[b3] || AngularLimit.enabled[b3 + 1] || AngularLimit.enabled[b3 + 2])) continue;
    if (Bone.parent[b]! < 0) continue;
    limitSpringEnergy(world, rig, b, true, energy, 0);
    pe += energy[0]!;
  }
  return pe;
}
