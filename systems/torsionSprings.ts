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
 * Stiffness: k = κ × I, with I the bone's effective inertia about its head, so a limit
 * behaves alike on light hands and heavy thighs (an absolute stiffness, the paper's, explodes
 * light hands and feet; `limitStiffnessAbsolute` keeps it).
 *
 * Implicit (default): an active spring is evaluated at the end of the step,
 * τ = −k (excess + dt ω_rel·v + dt² α_rel·v); the dt² part is added (twice, see below) to the
 * inertia of the bone and of its parent along v, the dt part is a damping torque. This keeps stiff limits on light bones stable at any dt. `limitImplicit: false` is
 * the paper's explicit spring.
 *
 * Hard stop (\`limitHardStop\`, not in the paper): more than \`limitHardStopDeg\` past a limit
 * the spring is HARD_STOP_FACTOR times stiffer, so a strong pull on a light bone (the paper's
 * exploding hand) presses only a little further. It stays a spring, implicit like the rest:
 * no position is projected, so a pressed rig still comes to rest. (A projection after the
 * integration was tried first: it bounded the angle exactly but leaked the pull's reaction
 * into the parent, so pressed arms crept or spun instead of resting.)
 */
import type { PhysikWorld } from '../src/core/world';
import { steppingRigs } from '../src/core/world';
import { quatMul, quatMulConjA, quatToRotationVector } from '../src/math/quat';

const qRel = new Float64Array(4);
const qFrame = new Float64Array(4);
const phi = new Float64Array(3);
const DEG = Math.PI / 180;
/** Stiffness multiplier of a limit's spring past its hard-stop band (`limitHardStop`). */
export const HARD_STOP_FACTOR = 50;

/** Joint-frame rotation vector of bone b relative to its parent and rest pose, to out. */
export function jointRotationVector(world: PhysikWorld, b: number, out: Float64Array): void {
  const { Bone } = world.physik;
  const p = Bone.parent[b]!;
  quatMulConjA(qRel, 0, Bone.rot, p * 4, Bone.rot, b * 4); // local = parent⁻¹ · world
  quatMulConjA(qRel, 0, Bone.restLocal, b * 4, qRel, 0); // relative to rest
  quatToRotationVector(out, 0, qRel, 0);
}

/** Add s · u uᵀ to the symmetric 3×3 at m[o], with u = su[0..2] and s = su[3]. */
function addOuter(m: Float64Array, o: number, su: Float64Array): void {
  const ux = su[0]!, uy = su[1]!, uz = su[2]!, s = su[3]!;
  m[o] += s * ux * ux; m[o + 1] += s * ux * uy; m[o + 2] += s * ux * uz;
  m[o + 3] += s * uy * uy; m[o + 4] += s * uy * uz; m[o + 5] += s * uz * uz;
}

const dir = new Float64Array(3);

/**
 * Direction in the joint frame of the torque of a limit on axis a at rotation vector φ, to
 * out. The paper's axis torque is e_a; the conservative one (the gradient of the spring energy
 * over the joint rotation) is J⁻ᵀ e_a = e_a + ½ φ×e_a + g2 (φ φ_a − θ² e_a), with J the left
 * Jacobian of the rotation vector. With the axis torque the off-axis coupling at large bends
 * is circulatory and can pump energy (flutter). Shared with the Rapier mirror's emulated limits.
 */
export function limitTorqueDirection(out: Float64Array, phi: Float64Array, a: number, conservative: boolean): void {
  const px = phi[0]!, py = phi[1]!, pz = phi[2]!, theta = phi[a]!;
  const th2 = px * px + py * py + pz * pz;
  let half = 0, g2 = 0;
  if (conservative) {
    half = 0.5;
    if (th2 < 1e-6) g2 = 1 / 12 + th2 / 720;
    else {
      const th = Math.sqrt(th2);
      g2 = 1 / th2 - (1 + Math.cos(th)) / (2 * th * Math.sin(th));
    }
  }
  let e0 = g2 * px * theta, e1 = g2 * py * theta, e2 = g2 * pz * theta;
  if (a === 0) { e0 += 1 - g2 * th2; e1 += half * pz; e2 -= half * py; }
  else if (a === 1) { e1 += 1 - g2 * th2; e0 -= half * pz; e2 += half * px; }
  else { e2 += 1 - g2 * th2; e0 += half * py; e1 -= half * px; }
  out[0] = e0; out[1] = e1; out[2] = e2;
}

// axis and scale for addOuter (arrays, not arguments: V8 boxes floating-point arguments)
const scaledAxis = new Float64Array(4);

export function torsionSprings(world: PhysikWorld): void {
  const { Bone, AngularLimit } = world.physik;
  const { enabled, min, max, angle, k: kUsed } = AngularLimit;
  const { torque, angVel, effInertiaWorld, parent: parentOf } = Bone;
  const rigs = steppingRigs(world);
  for (let ri = 0; ri < rigs.length; ri++) {
    const rig = rigs[ri]!;
    if (rig.settings.solver !== 'physik') continue; // posed by its kinematic solver
    const s = rig.settings;
    const tol = s.limitTolerance;
    const capped = s.limitSpring === 'capped';
    const capAngle = s.limitCapDeg * DEG;
    const implicit = s.limitImplicit;
    const conservative = s.limitTorque !== 'axis';
    const hardBand = s.limitHardStop ? s.limitHardStopDeg * DEG : -1;
    const dt = s.dt;
    for (let bi = 0; bi < rig.bones.length; bi++) {
      const b = rig.bones[bi]!;
      const b3 = b * 3;
      if (!(enabled[b3] || enabled[b3 + 1] || enabled[b3 + 2])) continue;
      const p = parentOf[b]!, p3 = p * 3;
      jointRotationVector(world, b, phi);
      quatMul(qFrame, 0, Bone.rot, p * 4, Bone.restLocal, b * 4); // joint frame in world
      const fx = qFrame[0]!, fy = qFrame[1]!, fz = qFrame[2]!, fw = qFrame[3]!;
      // columns of the joint frame's rotation matrix (its x, y, z axes in world)
      const c0x = 1 - 2 * (fy * fy + fz * fz), c0y = 2 * (fx * fy + fz * fw), c0z = 2 * (fx * fz - fy * fw);
      const c1x = 2 * (fx * fy - fz * fw), c1y = 1 - 2 * (fx * fx + fz * fz), c1z = 2 * (fy * fz + fx * fw);
      const c2x = 2 * (fx * fz + fy * fw), c2y = 2 * (fy * fz - fx * fw), c2z = 1 - 2 * (fx * fx + fy * fy);
      const kappa = AngularLimit.stiffness[b]! >= 0 ? AngularLimit.stiffness[b]! : s.limitStiffness;
      const k = kappa * (s.limitStiffnessAbsolute ? 1 : Bone.limitInertia[b]!); // one expression: a ternary of two doubles was boxed
      const rwx = angVel[b3]! - angVel[p3]!, rwy = angVel[b3 + 1]! - angVel[p3 + 1]!, rwz = angVel[b3 + 2]! - angVel[p3 + 2]!;
      let tx = 0, ty = 0, tz = 0;
      for (let a = 0; a < 3; a++) {
        const theta = phi[a]!;
        angle[b3 + a] = theta;
        kUsed[b3 + a] = enabled[b3 + a] ? k : 0;
        if (!enabled[b3 + a]) continue;
        const band = tol * (max[b3 + a]! - min[b3 + a]!);
        const hi = max[b3 + a]! - band, lo = min[b3 + a]! + band;
        let excess = 0;
        if (theta > hi) excess = theta - hi;
        else if (theta < lo) excess = theta - lo;
        if (excess === 0) continue;
        limitTorqueDirection(dir, phi, a, conservative);
        const e0 = dir[0]!, e1 = dir[1]!, e2 = dir[2]!;
        // in world
        const ux = c0x * e0 + c1x * e1 + c2x * e2;
        const uy = c0y * e0 + c1y * e1 + c2y * e2;
        const uz = c0z * e0 + c1z * e1 + c2z * e2;
        let tau = -k * excess;
        // hard stop: past the band the spring is HARD_STOP_FACTOR times stiffer
        let kk = k, over = 0;
        if (hardBand >= 0) {
          if (theta > max[b3 + a]! + hardBand) over = theta - max[b3 + a]! - hardBand;
          else if (theta < min[b3 + a]! - hardBand) over = theta - min[b3 + a]! + hardBand;
          if (over !== 0) { kk = HARD_STOP_FACTOR * k; tau -= (HARD_STOP_FACTOR - 1) * k * over; }
        }
        let stiffInertia = 0;
        if (implicit) {
          tau -= kk * dt * (rwx * ux + rwy * uy + rwz * uz);
          // 2 k dt² on each side: the pair's relative mode then carries at least k dt²
          // even when both bones are light (k dt² each would leave it marginally unstable).
          stiffInertia = 2 * kk * dt * dt;
        }
        if (capped && over === 0) {
          const limit = k * capAngle;
          if (tau > limit || tau < -limit) { tau = tau > 0 ? limit : -limit; stiffInertia = 0; }
        }
        tx += tau * ux; ty += tau * uy; tz += tau * uz;
        if (stiffInertia > 0) {
          scaledAxis[0] = ux; scaledAxis[1] = uy; scaledAxis[2] = uz; scaledAxis[3] = stiffInertia;
          addOuter(effInertiaWorld, b * 6, scaledAxis);
          addOuter(effInertiaWorld, p * 6, scaledAxis);
        }
      }
      if (tx === 0 && ty === 0 && tz === 0) continue;
      torque[b3] += tx; torque[b3 + 1] += ty; torque[b3 + 2] += tz;
      torque[p3] -= tx; torque[p3 + 1] -= ty; torque[p3 + 2] -= tz;
    }
  }
}
