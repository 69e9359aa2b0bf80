/**
 * Torsion springs for angular limits (PhysIK section 3.2, fig. 3). For each limited bone,
 * the rotation relative to its parent and its rest pose is taken as a rotation vector φ in
 * the joint frame (the bone's rest frame carried by the parent; y along the bone). φ comes
 * from the relative quaternion on the w >= 0 hemisphere, so each component lies in [-π, π]
 * and rest rotations near ±π need no special case. Per limited axis v with angle θ = φ_v:
 *   L(θ) = −k (θ − max) above the limit, −k (θ − min) below, 0 inside
 *   linear: τ_v = L v;  capped: |L| is at most k × limitCapDeg
 * The torque goes to the bone and its negative to the parent. An axis limited to [0, 0] is
 * a fixed axis. An optional tolerance band starts the spring that fraction of the range
 * inside each limit (the original add-on used 10%).
 *
 * Stiffness: k = κ × I, with I the reduced inertia of bone and parent about the joint axis
 * (effective inertias, including the implicit damping terms), so the limit's natural
 * frequency is √κ whatever the bones weigh; an absolute stiffness (the paper) explodes
 * light hands and feet. `limitStiffnessAbsolute` gives k = κ.
 */
import type { PhysikWorld } from '../src/core/world';
import { quatMul, quatMulConjA, quatToRotationVector, rotInvX, rotInvY, rotInvZ, rotX, rotY, rotZ } from '../src/math/quat';

const qRel = new Float64Array(4);
const qFrame = new Float64Array(4);
const phi = new Float64Array(3);
const DEG = Math.PI / 180;

/** Effective moment of inertia of bone b about world axis u through point p (p − centre = r). */
function inertiaAbout(world: PhysikWorld, b: number, ux: number, uy: number, uz: number, rx: number, ry: number, rz: number): number {
  const { Bone } = world.physik;
  const q = b * 4, b3 = b * 3;
  const x = Bone.rot[q]!, y = Bone.rot[q + 1]!, z = Bone.rot[q + 2]!, w = Bone.rot[q + 3]!;
  const lx = rotInvX(x, y, z, w, ux, uy, uz), ly = rotInvY(x, y, z, w, ux, uy, uz), lz = rotInvZ(x, y, z, w, ux, uy, uz);
  const I = Bone.effInertia[b3]! * lx * lx + Bone.effInertia[b3 + 1]! * ly * ly + Bone.effInertia[b3 + 2]! * lz * lz;
  // parallel axis: m |r × u|²
  const cx = ry * uz - rz * uy, cy = rz * ux - rx * uz, cz = rx * uy - ry * ux;
  return I + Bone.effMass[b]! * (cx * cx + cy * cy + cz * cz);
}

/** Joint-frame rotation vector of bone b relative to its parent and rest pose, to out. */
export function jointRotationVector(world: PhysikWorld, b: number, out: Float64Array): void {
  const { Bone } = world.physik;
  const p = Bone.parent[b]!;
  quatMulConjA(qRel, 0, Bone.rot, p * 4, Bone.rot, b * 4); // local = parent⁻¹ · world
  quatMulConjA(qRel, 0, Bone.restLocal, b * 4, qRel, 0); // relative to rest
  quatToRotationVector(out, 0, qRel, 0);
}

export function torsionSprings(world: PhysikWorld): void {
  const { Bone, AngularLimit } = world.physik;
  const { enabled, min, max, angle, k: kUsed } = AngularLimit;
  const { torque, head, centre, parent: parentOf } = Bone;
  for (const rig of world.physik.rigs) {
    const s = rig.settings;
    const tol = s.limitTolerance;
    const capped = s.limitSpring === 'capped';
    const capAngle = s.limitCapDeg * DEG;
    for (const b of rig.bones) {
      const b3 = b * 3;
      if (!(enabled[b3] || enabled[b3 + 1] || enabled[b3 + 2])) continue;
      const p = parentOf[b]!;
      jointRotationVector(world, b, phi);
      quatMul(qFrame, 0, Bone.rot, p * 4, Bone.restLocal, b * 4); // joint frame in world
      const fx = qFrame[0]!, fy = qFrame[1]!, fz = qFrame[2]!, fw = qFrame[3]!;
      const kappa = AngularLimit.stiffness[b]! >= 0 ? AngularLimit.stiffness[b]! : s.limitStiffness;
      let tlx = 0, tly = 0, tlz = 0;
      for (let a = 0; a < 3; a++) {
        const theta = phi[a]!;
        angle[b3 + a] = theta;
        if (!enabled[b3 + a]) continue;
        const band = tol * (max[b3 + a]! - min[b3 + a]!);
        const hi = max[b3 + a]! - band, lo = min[b3 + a]! + band;
        let L = 0;
        if (theta > hi) L = hi - theta;
        else if (theta < lo) L = lo - theta;
        let k = kappa;
        if (!s.limitStiffnessAbsolute) {
          // joint axis in world, and the reduced inertia of child and parent about it
          const ex = a === 0 ? 1 : 0, ey = a === 1 ? 1 : 0, ez = a === 2 ? 1 : 0;
          const ux = rotX(fx, fy, fz, fw, ex, ey, ez), uy = rotY(fx, fy, fz, fw, ex, ey, ez), uz = rotZ(fx, fy, fz, fw, ex, ey, ez);
          const Ic = inertiaAbout(world, b, ux, uy, uz, head[b3]! - centre[b3]!, head[b3 + 1]! - centre[b3 + 1]!, head[b3 + 2]! - centre[b3 + 2]!);
          const p3 = p * 3;
          const Ip = inertiaAbout(world, p, ux, uy, uz, head[b3]! - centre[p3]!, head[b3 + 1]! - centre[p3 + 1]!, head[b3 + 2]! - centre[p3 + 2]!);
          k = (kappa * Ic * Ip) / (Ic + Ip);
        }
        kUsed[b3 + a] = k;
        if (L === 0) continue;
        let tau = k * L;
        if (capped) {
          const limit = k * capAngle;
          if (tau > limit) tau = limit;
          else if (tau < -limit) tau = -limit;
        }
        if (a === 0) tlx = tau; else if (a === 1) tly = tau; else tlz = tau;
      }
      if (tlx === 0 && tly === 0 && tlz === 0) continue;
      const tx = rotX(fx, fy, fz, fw, tlx, tly, tlz), ty = rotY(fx, fy, fz, fw, tlx, tly, tlz), tz = rotZ(fx, fy, fz, fw, tlx, tly, tlz);
      const p3 = p * 3;
      torque[b3] += tx; torque[b3 + 1] += ty; torque[b3 + 2] += tz;
      torque[p3] -= tx; torque[p3 + 1] -= ty; torque[p3 + 2] -= tz;
    }
  }
}
