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
 * Stiffness: k = κ × I per axis, with I the bone's effective inertia about that axis of the
 * joint (Bone.limitInertia: about its head for swing, x and z; about its own axis for twist,
 * y), so a limit behaves alike on light hands and heavy thighs and on twist as on swing (an
 * absolute stiffness, the paper's, explodes light hands and feet; `limitStiffnessAbsolute`
 * keeps it).
 *
 * Implicit (default): an active spring is evaluated at the end of the step,
 * τ = −k (excess + dt ω_rel·v + dt² α_rel·v); the dt part is a damping torque. With the exact
 * joint solve the dt² part couples the two bones in the solve (K = Σ k dt² v vᵀ per joint,
 * jointSolve/coupledCompliance.ts), so a pressed limit resists only the joint's own bending; with the
 * iterative solve it is added (twice, see below) to the inertia of the bone and of its parent
 * along v, a stand-in that also makes the pair resist turning together (on random fuzz rigs it
 * left far more churning against their limits at the end of a run than the coupling does;
 * docs/robustness.md has the figures). Either keeps stiff limits on light bones stable at any dt.
 * `limitImplicit: false` is the paper's explicit spring.
 *
 * Speculative (implicit springs with the exact solve): a joint inside its limits but moving fast
 * enough to pass one within the step, θ + dt u·ω_rel beyond it, gets the implicit spring from the
 * start of the step, τ = −k (θ + dt ω_rel·u + dt² α_rel·u − limit), as physics engines treat
 * contacts about to happen; the solve takes it back when it would pull the joint toward the limit
 * instead of stopping it (jointSolve/coupledCompliance.ts, releaseStickyLimits). Without it a
 * light finger flicked shut passed its limit by a whole step's travel before any spring acted;
 * with it the scenes' peak violations drop (docs/robustness.md has the figures). The hard stop is
 * not brought forward the same way: on the 50-link spiral that made links whip round.
 *
 * Past ±180°: φ is taken on the w >= 0 hemisphere, so where |φ| passes π it jumps to the
 * other side and a limit on one axis could see its angle jump with it (a free axis turning
 * through 180° flips the others' components): energy from nowhere. The springs take, of φ and
 * the same rotation the long way round, φ (θ − 2π) / θ, the one their energy is lower for, so
 * the limits' energy is continuous (a kink, not a jump, where the choice changes). Their
 * energy, each axis weighted by its own k: compared unweighted, a twist axis (its k a few
 * times below swing's) could pick the way that holds more energy, and the energy would jump.
 *
 * Caught (implicit springs with the exact solve): a joint the start of the step saw no reason to
 * spring, yet which the solved step would carry past a limit (flung by its parent), gets its
 * speculative spring after the solve and the step is solved again (catchMissedLimits, below).
 *
 * Hard stop (\`limitHardStop\`, not in the paper): more than \`limitHardStopDeg\` past a limit
 * the spring is HARD_STOP_FACTOR times stiffer, so a strong pull on a light bone (the paper's
 * exploding hand) presses only a little further. It stays a spring, implicit like the rest:
 * no position is projected, so a pressed rig still comes to rest. (A projection after the
 * integration was tried first: it bounded the angle exactly but leaked the pull's reaction
 * into the parent, so pressed arms crept or spun instead of resting.)
 */
import type { PhysikWorld, RigRecord } from '../src/world/world';
import { steppingRigs } from '../src/world/world';
import { jointRotationVector } from '../src/world/jointRotation';
import { limitCouplingOf, existingLimitCoupling, SPECULATIVE_WIDTH, type LimitCoupling } from './jointSolve/coupledCompliance';
import { quatMul, quatRotateArr } from '../src/math/quat';
import { weldsOf, weldsActive } from './welds';
import { hingesOf, hingesActive } from './hinges';
import { zeroDoubles } from '../components/doubles';

const DEG = Math.PI / 180;
/** Stiffness multiplier of a limit's spring past its hard-stop band (`limitHardStop`). */
export const HARD_STOP_FACTOR = 50;

/**
 * The joint's rotation vector as its limits see it, to out: jointRotationVector, or the same
 * rotation the long way round, φ (θ − 2π) / θ, when that one lies closer to the limits (by the
 * squared excess over the limited axes weighted by each axis' stiffness, the linear spring's
 * energy). Measurements of limit violation use this, as the springs do (with their own band
 * and stiffness), so a joint turned past ±180° through an axis its limits leave free is not
 * counted as violating the others.
 */
export function limitRotationVector(world: PhysikWorld, b: number, out: Float64Array): void {
  jointRotationVector(world, b, out);
  const x = out[0]!, y = out[1]!, z = out[2]!;
  const turn = Math.sqrt(x * x + y * y + z * z);
  if (!(turn > ALT_MIN_TURN)) return;
  const g = (turn - 2 * Math.PI) / turn;
  springParams[0] = 0; springParams[1] = -1; springParams[2] = -1; springParams[3] = g; // the linear spring, no band
  energyPhi[0] = x; energyPhi[1] = y; energyPhi[2] = z;
  // the stiffness ratio of the axes, as the springs weigh them: the k of the last pass, or
  // before any pass the limit inertias (the same ratio unless the stiffness is absolute)
  const L = world.physik.AngularLimit, b3 = b * 3;
  if (L.k[b3]! > 0 || L.k[b3 + 1]! > 0 || L.k[b3 + 2]! > 0) {
    energyK[0] = L.k[b3]!; energyK[1] = L.k[b3 + 1]!; energyK[2] = L.k[b3 + 2]!;
  } else {
    const I = world.physik.Bone.limitInertia;
    energyK[0] = I[b * 2]!; energyK[1] = I[b * 2 + 1]!; energyK[2] = I[b * 2]!;
  }
  if (longWayLower(L, b3)) { out[0] = x * g; out[1] = y * g; out[2] = z * g; }
}

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

/**
 * The long way round is only considered for joints turned more than this (so its rotation
 * vector, of length 2π − θ, stays clear of 2π, where its direction is undefined).
 */
const ALT_MIN_TURN = 0.1 * Math.PI;

/**
 * The spring parameters and the rotation vector rigLimitEnergy() reads, in arrays: calls with
 * double arguments or a double result box them (an allocation each) where V8 does not inline.
 * springParams: band tolerance, hard-stop band (< 0: none), cap angle (< 0: linear).
 */
const springParams = new Float64Array(4); // [3]: the long way's scale (θ − 2π) / θ
const energyPhi = new Float64Array(3);
/** Stiffness k of each axis x, y, z (swing, twist, swing) of the bone being measured. */
const energyK = new Float64Array(3);
const energyOut = new Float64Array(1);

/**
 * Σ over bone b's limited axes of k_a × the spring energy / k at energyPhi (× springParams[3]
 * the long way), k_a = energyK[a], to energyOut[0]: band, hard stop and cap as torsionSprings
 * applies them, the integral of the spring's torque. (One function, no double arguments or
 * result: see above.)
 */
function rigLimitEnergy(L: PhysikWorld['physik']['AngularLimit'], b3: number, longWay: boolean): void {
  const tol = springParams[0]!, hardBand = springParams[1]!, capAngle = springParams[2]!;
  const scale = longWay ? springParams[3]! : 1;
  let energy = 0;
  for (let a = 0; a < 3; a++) {
    if (!L.enabled[b3 + a] || energyK[a] === 0) continue; // (no spring on this axis: no energy)
    const theta = energyPhi[a]! * scale, mn = L.min[b3 + a]!, mx = L.max[b3 + a]!;
    const band = tol * (mx - mn);
    let e = 0;
    if (theta > mx - band) e = theta - mx + band;
    else if (theta < mn + band) e = mn + band - theta;
    else continue;
    const eh = hardBand >= 0 ? hardBand + band : Number.POSITIVE_INFINITY; // where the hard stop starts
    const e1 = e < eh ? e : eh;
    let ea = capAngle >= 0 && e1 > capAngle ? capAngle * e1 - 0.5 * capAngle * capAngle : 0.5 * e1 * e1;
    if (e > eh) ea += 0.5 * (e * e - eh * eh) + 0.5 * (HARD_STOP_FACTOR - 1) * (e - eh) * (e - eh);
    energy += energyK[a]! * ea;
  }
  energyOut[0] = energy;
}

/** True when bone b's limits hold less energy at energyPhi × springParams[3] than at energyPhi. */
function longWayLower(L: PhysikWorld['physik']['AngularLimit'], b3: number): boolean {
  rigLimitEnergy(L, b3, false);
  const e = energyOut[0]!;
  if (!(e > 0)) return false; // inside every limit (most joints): nothing is lower
  rigLimitEnergy(L, b3, true);
  return energyOut[0]! < e;
}

/**
 * Energy held by bone b's limit springs, to out[o]: at the joint angles the last torsionSprings
 * pass measured (AngularLimit.angle, with the stiffness of each axis AngularLimit.k), or at the
 * current pose when `current` (the rotation vector and its long-way choice as torsionSprings
 * takes them; the same per-axis k). Band, hard stop and cap as the springs apply them (the
 * integral of their torque).
 */
export function limitSpringEnergy(world: PhysikWorld, rig: RigRecord, b: number, current: boolean, out: Float64Array, o: number): void {
  const L = world.physik.AngularLimit;
  const b3 = b * 3;
  const s = rig.settings;
  springParams[0] = s.limitTolerance;
  springParams[1] = s.limitHardStop ? s.limitHardStopDeg * DEG : -1;
  springParams[2] = s.limitSpring === 'capped' ? s.limitCapDeg * DEG : -1;
  energyK[0] = L.k[b3]!; energyK[1] = L.k[b3 + 1]!; energyK[2] = L.k[b3 + 2]!;
  if (current) {
    jointRotationVector(world, b, energyPhi);
    const x = energyPhi[0]!, y = energyPhi[1]!, z = energyPhi[2]!;
    const turn = Math.sqrt(x * x + y * y + z * z);
    if (turn > ALT_MIN_TURN) {
      const g = (turn - 2 * Math.PI) / turn;
      springParams[3] = g;
      if (longWayLower(L, b3)) { energyPhi[0] = x * g; energyPhi[1] = y * g; energyPhi[2] = z * g; }
    }
  } else {
    energyPhi[0] = L.angle[b3]!; energyPhi[1] = L.angle[b3 + 1]!; energyPhi[2] = L.angle[b3 + 2]!;
  }
  rigLimitEnergy(L, b3, false);
  out[o] = energyOut[0]!;
}

const boneEnergy = new Float64Array(1);

/**
 * The energy held by the rig's limit springs, added to out[o]: limitSpringEnergy of each limited
 * joint the last torsionSprings pass found near a limit (the others, and joints with no stiffness
 * on any axis, free or welded, hold none), at the angles it measured or, when `current`, at the
 * current pose (a joint not near a limit at the step's start is taken as not pressed at its end).
 */
export function addLimitEnergy(world: PhysikWorld, rig: RigRecord, current: boolean, out: Float64Array, o: number): void {
  const L = world.physik.AngularLimit;
  const bones = rig.bones, limited = hingesOf(world, rig).limited;
  for (let li = 0; li < limited.length; li++) {
    const b = bones[limited[li]!]!, b3 = b * 3;
    if (L.near[b] === 0) continue;
    if (L.k[b3] === 0 && L.k[b3 + 1] === 0 && L.k[b3 + 2] === 0) continue;
    limitSpringEnergy(world, rig, b, current, boneEnergy, 0);
    out[o] = out[o]! + boneEnergy[0]!;
  }
}

export function torsionSprings(world: PhysikWorld): void {
  const { Bone, AngularLimit } = world.physik;
  const { enabled, min, max, angle, k: kUsed } = AngularLimit;
  const { torque, angVel, effInertiaWorld, parent: parentOf, rot, restLocal, limitInertia } = Bone;
  const stiffnessOf = AngularLimit.stiffness;
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
    const absolute = s.limitStiffnessAbsolute;
    const rigStiffness = s.limitStiffness;
    springParams[0] = tol; springParams[1] = hardBand; springParams[2] = capped ? capAngle : -1;
    const dt = s.dt;
    // limits that will be passed within the step act from its start (with the coupled solve,
    // which can take back a spring that would pull: jointSolve/coupledCompliance.ts releaseStickyLimits)
    const speculative = implicit && s.interJoint === 'exact';
    const bones = rig.bones;
    // the exact solve takes each pressed limit's dt² stiffness as a coupling between the two
    // bones (jointSolve/coupledCompliance.ts); the iterative one gets the diagonal stand-in below
    const coupled = implicit && s.interJoint === 'exact';
    let coupling = existingLimitCoupling(rig);
    if (coupling && coupling.active > 0) { zeroDoubles(coupling.K, 0, coupling.K.length); coupling.active = 0; }
    if (coupling) coupling.speculativeCount = 0;
    // a welded bone's limits are not springs: the weld holds it (welds.ts)
    const welds = weldsOf(world, rig);
    const welded = welds.count > 0 && weldsActive(rig) ? welds.flag : null;
    // nor are a hinge's locked axes: the hinge holds them (hinges.ts); its free axis keeps its spring
    const hinges = hingesOf(world, rig);
    const hinged = hinges.count > 0 && hingesActive(rig) ? hinges.axis : null;
    // (the limited bones only: hinges.ts keeps their list)
    const limited = hinges.limited;
    for (let li = 0; li < limited.length; li++) {
      const bi = limited[li]!, b = bones[bi]!;
      const b3 = b * 3;
      const on0 = enabled[b3]!, on1 = enabled[b3 + 1]!, on2 = enabled[b3 + 2]!;
      AngularLimit.near[b] = 0;
      if (welded !== null && welded[bi] === 1) {
        // (no angle measured, no stiffness: its limits hold no energy)
        angle[b3] = 0; angle[b3 + 1] = 0; angle[b3 + 2] = 0;
        kUsed[b3] = 0; kUsed[b3 + 1] = 0; kUsed[b3 + 2] = 0;
        continue;
      }
      const free = hinged !== null ? hinged[bi]! : -1;
      const p = parentOf[b]!, p3 = p * 3, pq = p * 4, bq = b * 4;
      const kappa = stiffnessOf[b]! >= 0 ? stiffnessOf[b]! : rigStiffness;
      // φ = jointRotationVector(b), written out (the same arithmetic in the same order, so the
      // same bits): qRel = parent⁻¹ · world, then rest⁻¹ · qRel, then its rotation vector
      const px = rot[pq]!, py = rot[pq + 1]!, pz = rot[pq + 2]!, pw = rot[pq + 3]!;
      const lx = restLocal[bq]!, ly = restLocal[bq + 1]!, lz = restLocal[bq + 2]!, lw = restLocal[bq + 3]!;
      let phi0 = 0, phi1 = 0, phi2 = 0;
      // cot(|φ|/2) = w / |v| (negated the long way round: cot(π − t/2) = −cot(t/2)), for the
      // conservative torque's g2 without a cosine and a sine
      let cotHalf = 0;
      {
        let ax = -px, ay = -py, az = -pz, aw = pw;
        const bx = rot[bq]!, by = rot[bq + 1]!, bz = rot[bq + 2]!, bw = rot[bq + 3]!;
        const r0 = aw * bx + ax * bw + ay * bz - az * by;
        const r1 = aw * by - ax * bz + ay * bw + az * bx;
        const r2 = aw * bz + ax * by - ay * bx + az * bw;
        const r3 = aw * bw - ax * bx - ay * by - az * bz;
        ax = -lx; ay = -ly; az = -lz; aw = lw;
        let x = aw * r0 + ax * r3 + ay * r2 - az * r1;
        let y = aw * r1 - ax * r2 + ay * r3 + az * r0;
        let z = aw * r2 + ax * r1 - ay * r0 + az * r3;
        let w = aw * r3 - ax * r0 - ay * r1 - az * r2;
        if (w < 0) { x = -x; y = -y; z = -z; w = -w; }
        const sn = Math.sqrt(x * x + y * y + z * z);
        if (sn < 1e-12) { phi0 = 2 * x; phi1 = 2 * y; phi2 = 2 * z; }
        else {
          const turn = 2 * Math.atan2(sn, w), inv = 1 / sn;
          const f = turn * inv;
          phi0 = x * f; phi1 = y * f; phi2 = z * f;
          cotHalf = w * inv;
          // the same rotation the long way round, φ (θ − 2π) / θ, when its springs hold less
          // energy: the limits' energy is then continuous where |φ| passes π (see header)
          if (turn > ALT_MIN_TURN) {
            energyPhi[0] = phi0; energyPhi[1] = phi1; energyPhi[2] = phi2;
            // each axis' energy weighed by its k: swing on x and z, twist on y
            energyK[0] = kappa * (absolute ? 1 : limitInertia[b * 2]!);
            energyK[1] = kappa * (absolute ? 1 : limitInertia[b * 2 + 1]!);
            energyK[2] = energyK[0]!;
            // (a hinge's locked axes are held, not sprung: only its free axis' energy counts)
            if (free >= 0) { for (let a = 0; a < 3; a++) if (a !== free) energyK[a] = 0; }
            const g = (turn - 2 * Math.PI) / turn;
            springParams[3] = g;
            if (longWayLower(AngularLimit, b3)) { phi0 *= g; phi1 *= g; phi2 *= g; cotHalf = -cotHalf; }
          }
        }
      }
      // the joint frame's axes, computed when a spring first acts (most limited bones sit
      // inside their limits: no torque, so no frame)
      let frame = false;
      let c0x = 0, c0y = 0, c0z = 0, c1x = 0, c1y = 0, c1z = 0, c2x = 0, c2y = 0, c2z = 0;
      // the joint's relative angular velocity, and how far its angles may move this step
      const rwx = angVel[b3]! - angVel[p3]!, rwy = angVel[b3 + 1]! - angVel[p3 + 1]!, rwz = angVel[b3 + 2]! - angVel[p3 + 2]!;
      // (squared: no square root per bone)
      const reach2 = 4 * dt * dt * (rwx * rwx + rwy * rwy + rwz * rwz);
      // limitTorqueDirection's terms that depend on φ only (the same for every axis of the bone)
      let th2 = 0, half = 0, g2 = 0;
      let tx = 0, ty = 0, tz = 0;
      let slack = Number.MAX_VALUE; // (no spring acts: no limit to reach; finite, as every stored value)
      // each axis' angle, and its stiffness where its spring acts: swing (x, z) or twist (y)
      const onX = on0 === 1 && (free < 0 || free === 0), onY = on1 === 1 && (free < 0 || free === 1), onZ = on2 === 1 && (free < 0 || free === 2);
      const kSwing = kappa * (absolute ? 1 : limitInertia[b * 2]!), kTwist = kappa * (absolute ? 1 : limitInertia[b * 2 + 1]!);
      angle[b3] = phi0; angle[b3 + 1] = phi1; angle[b3 + 2] = phi2;
      kUsed[b3] = onX ? kSwing : 0; kUsed[b3 + 1] = onY ? kTwist : 0; kUsed[b3 + 2] = onZ ? kSwing : 0;
      for (let a = 0; a < 3; a++) {
        if (!(a === 0 ? onX : a === 1 ? onY : onZ)) continue;
        const theta = angle[b3 + a]!, k = kUsed[b3 + a]!;
        const mx = max[b3 + a]!, mn = min[b3 + a]!;
        const band = tol * (mx - mn);
        const hi = mx - band, lo = mn + band;
        let excess = 0;
        if (theta > hi) excess = theta - hi;
        else if (theta < lo) excess = theta - lo;
        // inside, and too far from both limits to reach one this step: nothing to do (the
        // angle's rate |u·ω_rel| is below 2 |ω_rel| while |φ| < 0.8π; a joint turned further
        // may be missed here, and then meets its spring a step late, as without this)
        const up = hi - theta, down = theta - lo;
        if (up < slack) slack = up;
        if (down < slack) slack = down;
        const reachable = up < 0 || up * up < reach2 || down < 0 || down * down < reach2;
        if (excess !== 0 || reachable) AngularLimit.near[b] = 1;
        if (excess === 0 && !(speculative && reachable)) continue;
        if (!frame) {
          frame = true;
          // joint frame in world: rot[p] · restLocal[b] (quatMul written out)
          const fx = pw * lx + px * lw + py * lz - pz * ly;
          const fy = pw * ly - px * lz + py * lw + pz * lx;
          const fz = pw * lz + px * ly - py * lx + pz * lw;
          const fw = pw * lw - px * lx - py * ly - pz * lz;
          // columns of the joint frame's rotation matrix (its x, y, z axes in world)
          c0x = 1 - 2 * (fy * fy + fz * fz); c0y = 2 * (fx * fy + fz * fw); c0z = 2 * (fx * fz - fy * fw);
          c1x = 2 * (fx * fy - fz * fw); c1y = 1 - 2 * (fx * fx + fz * fz); c1z = 2 * (fy * fz + fx * fw);
          c2x = 2 * (fx * fz + fy * fw); c2y = 2 * (fy * fz - fx * fw); c2z = 1 - 2 * (fx * fx + fy * fy);
          th2 = phi0 * phi0 + phi1 * phi1 + phi2 * phi2;
          if (conservative) {
            half = 0.5;
            // limitTorqueDirection's g2 = 1/θ² − (1 + cos θ) / (2θ sin θ), with
            // (1 + cos θ) / sin θ = cot(θ/2) from the quaternion (exact, and no 0/0 near π)
            if (th2 < 1e-6) g2 = 1 / 12 + th2 / 720;
            else g2 = 1 / th2 - cotHalf / (2 * Math.sqrt(th2));
          }
        }
        // the torque's direction: limitTorqueDirection(dir, φ, a, conservative) written out
        let e0 = g2 * phi0 * theta, e1 = g2 * phi1 * theta, e2 = g2 * phi2 * theta;
        if (a === 0) { e0 += 1 - g2 * th2; e1 += half * phi2; e2 -= half * phi1; }
        else if (a === 1) { e1 += 1 - g2 * th2; e0 -= half * phi2; e2 += half * phi0; }
        else { e2 += 1 - g2 * th2; e0 += half * phi1; e1 -= half * phi0; }
        // in world
        const ux = c0x * e0 + c1x * e1 + c2x * e2;
        const uy = c0y * e0 + c1y * e1 + c2y * e2;
        const uz = c0z * e0 + c1z * e1 + c2z * e2;
        // the angle at the end of the step if nothing else acts (dθ/dt = u · ω_rel: u is the
        // gradient of θ over the joint rotation)
        const next = theta + dt * (rwx * ux + rwy * uy + rwz * uz);
        let side = 0;
        if (excess === 0) {
          // speculative: inside now, past a limit by the end of the step; the implicit spring
          // then acts from now, so a fast joint stops at its limit instead of a step beyond
          if (next > hi) { excess = theta - hi; side = 1; }
          else if (next < lo) { excess = theta - lo; side = -1; }
          else continue;
        }
        let tau = -k * excess;
        // hard stop: past the band the spring is HARD_STOP_FACTOR times stiffer
        let kk = k, over = 0;
        if (hardBand >= 0) {
          if (theta > mx + hardBand) over = theta - mx - hardBand;
          else if (theta < mn - hardBand) over = theta - mn + hardBand;
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
        if (side !== 0) {
          // remembered so the solve can take it back if it would pull (see above)
          if (!coupling) coupling = limitCouplingOf(rig);
          const e = coupling.speculativeCount++, o = e * SPECULATIVE_WIDTH, S = coupling.speculative;
          coupling.speculativeBone[e] = bi;
          S[o] = ux; S[o + 1] = uy; S[o + 2] = uz; S[o + 3] = tau; S[o + 4] = 0.5 * stiffInertia;
          S[o + 5] = theta; S[o + 6] = side > 0 ? hi : lo; S[o + 7] = side;
        }
        if (stiffInertia > 0 && coupled) {
          // K += k dt² u uᵀ for the joint
          if (!coupling) coupling = limitCouplingOf(rig);
          const kd = 0.5 * stiffInertia, K = coupling.K, o = bi * 6;
          K[o] = K[o]! + kd * ux * ux; K[o + 1] = K[o + 1]! + kd * ux * uy; K[o + 2] = K[o + 2]! + kd * ux * uz;
          K[o + 3] = K[o + 3]! + kd * uy * uy; K[o + 4] = K[o + 4]! + kd * uy * uz; K[o + 5] = K[o + 5]! + kd * uz * uz;
          coupling.active++;
        } else if (stiffInertia > 0) {
          // s u uᵀ on the bone and on its parent (addOuter written out)
          const xx = stiffInertia * ux * ux, xy = stiffInertia * ux * uy, xz = stiffInertia * ux * uz;
          const yy = stiffInertia * uy * uy, yz = stiffInertia * uy * uz, zz = stiffInertia * uz * uz;
          const b6 = b * 6, p6 = p * 6;
          effInertiaWorld[b6] = effInertiaWorld[b6]! + xx; effInertiaWorld[b6 + 1] = effInertiaWorld[b6 + 1]! + xy; effInertiaWorld[b6 + 2] = effInertiaWorld[b6 + 2]! + xz;
          effInertiaWorld[b6 + 3] = effInertiaWorld[b6 + 3]! + yy; effInertiaWorld[b6 + 4] = effInertiaWorld[b6 + 4]! + yz; effInertiaWorld[b6 + 5] = effInertiaWorld[b6 + 5]! + zz;
          effInertiaWorld[p6] = effInertiaWorld[p6]! + xx; effInertiaWorld[p6 + 1] = effInertiaWorld[p6 + 1]! + xy; effInertiaWorld[p6 + 2] = effInertiaWorld[p6 + 2]! + xz;
          effInertiaWorld[p6 + 3] = effInertiaWorld[p6 + 3]! + yy; effInertiaWorld[p6 + 4] = effInertiaWorld[p6 + 4]! + yz; effInertiaWorld[p6 + 5] = effInertiaWorld[p6 + 5]! + zz;
        }
      }
      AngularLimit.slack[b] = slack;
      if (tx === 0 && ty === 0 && tz === 0) continue;
      torque[b3] = torque[b3]! + tx; torque[b3 + 1] = torque[b3 + 1]! + ty; torque[b3 + 2] = torque[b3 + 2]! + tz;
      torque[p3] = torque[p3]! - tx; torque[p3 + 1] = torque[p3 + 1]! - ty; torque[p3 + 2] = torque[p3 + 2]! - tz;
    }
  }
}

const catchPhi = new Float64Array(3);
const catchDir = new Float64Array(3);
const catchWorld = new Float64Array(3);
const catchFrame = new Float64Array(4);

/**
 * After a coupled solve: the limits the step would pass that no spring held. A joint inside its
 * limit, not moving toward it fast enough at the step's start for a speculative spring
 * (torsionSprings), can still be flung past it within the step by what its parent does (a light
 * toe on a foot a marker yanks went 4° past its limit in one step of 1/120 s). With the solved
 * accelerations its angle at the step's end is θ + dt u·(ω_rel + dt α_rel); where that passes a
 * limit the speculative spring is added now, as torsionSprings would have, and the caller solves
 * again (releaseStickyLimits then takes back any that would pull). `fromSolve`: α from the coupled
 * solve's own result (existing.u, before any Newton-Euler pass), else from Bone.angAcc. Marks the
 * joints it changes dirty for the refold (coupledArticulated.ts). Returns how many were added.
 */
export function catchMissedLimits(world: PhysikWorld, rig: RigRecord, existing: LimitCoupling | undefined, fromSolve: boolean): number {
  const { Bone, AngularLimit: L } = world.physik;
  const { angVel, angAcc, torque, rot, restLocal, parent: parentOf } = Bone;
  // the angular accelerations: the coupled solve's own (its u, by depth-first index), before any
  // Newton-Euler pass, or the bones' (Bone.angAcc)
  const u = fromSolve && existing ? existing.u : null, parentIndex = existing ? existing.parentIndex : null;
  // (a rig that has pressed no limit yet has no coupling: made on the first limit caught)
  let coupling = existing;
  const welded = coupling ? coupling.welded : null, hingeAxis = coupling ? coupling.hingeAxis : null;
  const s = rig.settings;
  const dt = s.dt, tol = s.limitTolerance, conservative = s.limitTorque !== 'axis';
  const capped = s.limitSpring === 'capped', capAngle = s.limitCapDeg * DEG;
  let added = 0;
  const limited = hingesOf(world, rig).limited;
  for (let li = 0; li < limited.length; li++) {
    const i = limited[li]!;
    if (welded !== null && welded[i] === 1) continue;
    const b = rig.bones[i]!, b3 = b * 3, p = parentOf[b]!, p3 = p * 3;
    const hinge = hingeAxis !== null ? hingeAxis[i]! : -1;
    if (!(L.k[b3]! > 0 || L.k[b3 + 1]! > 0 || L.k[b3 + 2]! > 0)) continue;
    // the joint's relative angular velocity now and at the step's end
    const rwx = angVel[b3]! - angVel[p3]!, rwy = angVel[b3 + 1]! - angVel[p3 + 1]!, rwz = angVel[b3 + 2]! - angVel[p3 + 2]!;
    let ewx: number, ewy: number, ewz: number;
    if (u !== null) {
      const i6 = i * 6, p6 = parentIndex![i]! * 6;
      ewx = rwx + dt * (u[i6 + 3]! - u[p6 + 3]!); ewy = rwy + dt * (u[i6 + 4]! - u[p6 + 4]!); ewz = rwz + dt * (u[i6 + 5]! - u[p6 + 5]!);
    } else {
      ewx = rwx + dt * (angAcc[b3]! - angAcc[p3]!); ewy = rwy + dt * (angAcc[b3 + 1]! - angAcc[p3 + 1]!); ewz = rwz + dt * (angAcc[b3 + 2]! - angAcc[p3 + 2]!);
    }
    // how far its angles may move this step (as torsionSprings bounds it), squared
    const reach2 = 4 * dt * dt * (ewx * ewx + ewy * ewy + ewz * ewz);
    // (every angle further inside its limit's band than that, which torsionSprings measured: none to catch)
    const slack = L.slack[b]!;
    if (slack > 0 && slack * slack >= reach2) continue;
    let frame = false;
    for (let a = 0; a < 3; a++) {
      const k = L.k[b3 + a]!;
      if (!(k > 0) || (hinge >= 0 && a !== hinge)) continue;
      const theta = L.angle[b3 + a]!, mx = L.max[b3 + a]!, mn = L.min[b3 + a]!, band = tol * (mx - mn);
      const hi = mx - band, lo = mn + band;
      // (outside already: its spring acts; out of reach of both: nothing to catch)
      if (theta > hi || theta < lo || ((hi - theta) * (hi - theta) >= reach2 && (theta - lo) * (theta - lo) >= reach2)) continue;
      if (!frame) {
        frame = true;
        catchPhi[0] = L.angle[b3]!; catchPhi[1] = L.angle[b3 + 1]!; catchPhi[2] = L.angle[b3 + 2]!;
        quatMul(catchFrame, 0, rot, p * 4, restLocal, b * 4); // the joint frame in the world
      }
      limitTorqueDirection(catchDir, catchPhi, a, conservative);
      quatRotateArr(catchWorld, 0, catchFrame, 0, catchDir, 0);
      const ux = catchWorld[0]!, uy = catchWorld[1]!, uz = catchWorld[2]!;
      const rate = rwx * ux + rwy * uy + rwz * uz;
      const start = theta + dt * rate; // (past a limit: torsionSprings' speculative spring holds it)
      if (start > hi || start < lo) continue;
      const end = theta + dt * (ewx * ux + ewy * uy + ewz * uz);
      let side = 0, excess = 0;
      if (end > hi) { side = 1; excess = theta - hi; } else if (end < lo) { side = -1; excess = theta - lo; } else continue;
      let tau = -k * excess - k * dt * rate;
      let kd = k * dt * dt;
      if (capped) {
        const limit = k * capAngle;
        if (tau > limit || tau < -limit) { tau = tau > 0 ? limit : -limit; kd = 0; }
      }
      if (!coupling) coupling = limitCouplingOf(rig);
      const K = coupling.K;
      coupling.dirty[i] = 1; coupling.dirty[coupling.parentIndex[i]!] = 1;
      torque[b3] = torque[b3]! + tau * ux; torque[b3 + 1] = torque[b3 + 1]! + tau * uy; torque[b3 + 2] = torque[b3 + 2]! + tau * uz;
      torque[p3] = torque[p3]! - tau * ux; torque[p3 + 1] = torque[p3 + 1]! - tau * uy; torque[p3 + 2] = torque[p3 + 2]! - tau * uz;
      if (kd > 0) {
        const o = i * 6;
        K[o] = K[o]! + kd * ux * ux; K[o + 1] = K[o + 1]! + kd * ux * uy; K[o + 2] = K[o + 2]! + kd * ux * uz;
        K[o + 3] = K[o + 3]! + kd * uy * uy; K[o + 4] = K[o + 4]! + kd * uy * uz; K[o + 5] = K[o + 5]! + kd * uz * uz;
        coupling.active++;
      }
      if (coupling.speculativeCount < coupling.speculativeBone.length) {
        const e = coupling.speculativeCount++, o = e * SPECULATIVE_WIDTH, S = coupling.speculative;
        coupling.speculativeBone[e] = i;
        S[o] = ux; S[o + 1] = uy; S[o + 2] = uz; S[o + 3] = tau; S[o + 4] = kd;
        S[o + 5] = theta; S[o + 6] = side > 0 ? hi : lo; S[o + 7] = side;
      }
      L.near[b] = 1;
      added++;
    }
  }
  return added;
}
