/**
 * Implicit angular limits in joint space: the exact joint solve with each pressed limit's
 * stiffness coupling the two bones it joins.
 *
 * An active limit spring of stiffness k on direction u (torsionSprings.ts) is evaluated at the
 * end of the step: τ = −k (excess + dt ω_rel·u + dt² α_rel·u) on the child, −τ on its parent,
 * α_rel = α_child − α_parent. The first two parts are known at the start of the step; the
 * last, −K α_rel with K = Σ k dt² u uᵀ over the joint's active axes, depends on the solve's
 * own accelerations. Adding k dt² to each bone's inertia (the diagonal stand-in the iterative
 * solve keeps) makes the pair resist turning *together*, which a limit never does: a bone
 * pressed on a limit then drags like a heavy body, and a rig pulled against many limits churns
 * instead of settling. Here K enters as it is: the joint is a ball joint whose relative
 * rotation meets a stiffness, solved with the tree in one sweep up and one down, linear in the
 * number of bones (an articulated-body recursion, Featherstone's, with a compliant joint).
 *
 * Each bone b carries u_b = (a_b, α_b), its centre's linear and its angular acceleration, and
 * G⁻¹ = diag(m I, I_world) (effective mass and inertia). Up the tree, b's subtree with its
 * children eliminated is A_b u_b = g_b + H_bᵀ F_b + E τ_b (F_b its head force, H_b = [I, −[h]ₓ]
 * the acceleration of its head, E = [0; I] the angular rows), starting from A = G⁻¹ and
 * g = G⁻¹ u0 (u0: the free accelerations). A child c at lever r from b's centre (L = [I, −[r]ₓ])
 * with Â = A_c + E K Eᵀ and X = Â⁻¹:
 *   u_c = X (g_c + H_cᵀ F_c + E K α_b)                           (its motion, given b's)
 *   H_c u_c + ω_c×(ω_c×h) = L u_b + ω_b×(ω_b×r)                   (the joint holds)
 * gives F_c = M u_b + m and u_c = T u_b + t, and its reaction on b, −Lᵀ F_c + E K (α_c − α_b),
 * adds Z = Lᵀ M − E K Eᵀ (T − I) to A_b and −Lᵀ m + E K t_α to g_b. Down the tree, the root's
 * head force is zero (floating) or holds its head still (pinned); then each child's force and
 * motion follow from its parent's motion. With K = 0 this is the same system as
 * exact.ts (the tests compare them).
 *
 * Cost: a 6×6 Cholesky solve and a few 6×6 products per joint. interJointSolve runs the
 * articulated-body form of the same equations about each bone's head first (coupledArticulated.ts:
 * a 3×3 inverse and a few 3×3 products per joint, the humanoid's step several times faster than
 * with this form alone; docs/performance.md has the figures) and this one only when that one's
 * result does not hold the joints together (cancellation on rigs mixing 0.1 mm and metre bones;
 * no scene of scenes/, crowd, tree or long chain of the bench needs it). A rig uses the coupled
 * solve from the first step it presses a limit on (every humanoid: its hinges' locked axes are
 * always pressed). The root's 6×6 system is solved by elimination with pivoting.
 * No allocation per step: K, the spring torques and the speculative springs per rig (perRig, a WeakMap
 * keyed by the rig record, grown once), the sweep values in one scratch all rigs share.
 */
import type { PhysikWorld, RigRecord } from '../../src/world/world';
import { solveDense } from '../../src/math/dense';
import { invert3 } from '../../src/math/mat3';
import { doubles, zeroDoubles, type Doubles } from '../../components/doubles';
import { hingeAxisWorld } from '../hinges';
import { perRig, perRigGet, perRigSet } from '../../src/world/perRig';

/**
 * Per rig: K per bone (sym 3×3: xx xy xz yy yz zz) for the joint to its parent, and how many are
 * set; the spring torques of the last solve; the speculative springs. The solves' sweep values
 * (A … zeta) are written before they are read in every solve, so they point at one shared
 * scratch (bindSweep, grown once to the largest rig): a crowd's rigs then share a few kB that
 * stay in cache, where a copy per rig (~1 kB per bone) was read from memory each step.
 */
export interface LimitCoupling {
  // (K, τ and the fast form's arrays are plain arrays of doubles: components/doubles.ts)
  K: number[];
  active: number;
  /** Spring torque on each bone from its parent's joint, from the last solve (world). */
  tau: number[];
  /** Depth-first index of each bone's parent (−1 for the root). */
  parentIndex: Int32Array;
  /** 1 for a bone welded to its parent this step (welds.ts; the fast form folds it in whole), by depth-first index. */
  welded: Uint8Array;
  /** The free axis (0-2) of a bone hinged to its parent this step (hinges.ts), −1 for any other, by depth-first index. */
  hingeAxis: Int8Array;
  /**
   * The rigid bodies the welds make (composeBodies), by depth-first index: `body` the first bone of
   * each bone's body (itself unless welded), and for each body's first bone i the other bones
   * that make up or hang from its body, bodyPart[bodyStart[i] .. bodyStart[i + 1]): its welded
   * bones and the unwelded bones jointed to any of them, in depth-first order.
   */
  body: Int32Array;
  /** How many bones `welded` flags (as composeBodies last found). */
  welds: number;
  bodyStart: Int32Array;
  bodyPart: Int32Array;
  /**
   * 1 for a bone whose load or joint changed since the fast form last folded it (a limit spring
   * released or caught on its joint or a child's), by depth-first index: refolded with its
   * ancestors only (jointSolve/coupledArticulated.ts), the rest of the tree unchanged.
   */
  dirty: Uint8Array;
  /** What `welded` and `hingeAxis` were last copied from (welds.ts and hinges.ts' records; null: none act): copied again only when it changes. */
  lockedFrom: { welds: object | null; hinges: object | null };
  /** K of the welded and hinged joints while this form holds them stiffly (lockedJointCoupling), 6 per bone. */
  Kheld: Float64Array;
  A: number[]; // 36 per bone
  g: number[]; // 6 per bone
  M: Float64Array; // 18 per bone (3×6)
  m: Float64Array; // 3 per bone
  T: Float64Array; // 36 per bone
  t: Float64Array; // 6 per bone
  /** Each bone's motion from the last solve: its angular acceleration in [3..5] (the linear part depends on the form). */
  u: number[]; // 6 per bone
  /** The articulated-body form's (coupledArticulated.ts): D⁻¹ (9, 6 of them used) and ζ (3) per bone. */
  Dinv: number[];
  zeta: number[];
  /**
   * Speculative limit springs this step (torsionSprings.ts: inside the limit now, past it by the
   * end of the step): per entry the bone's depth-first index, and u (3), τ along u, k dt², θ, the
   * limit, and the side (+1 upper, −1 lower).
   */
  speculativeCount: number;
  speculativeBone: Int32Array;
  speculative: Float64Array;
}
/** Values per speculative entry in LimitCoupling.speculative. */
export const SPECULATIVE_WIDTH = 8;

const couplings = perRig<LimitCoupling>();

/** The rig's coupling scratch if a limit has been pressed on it (else undefined). */
export function existingLimitCoupling(rig: RigRecord): LimitCoupling | undefined {
  const c = perRigGet(couplings, rig);
  return c && c.parentIndex.length === rig.bones.length ? c : undefined;
}

/** The sweep scratch every rig's solve shares (see LimitCoupling), for `bones` bones per rig at most. */
let sweep = makeSweep(32);
function makeSweep(n: number) {
  return {
    bones: n, A: doubles(36 * n), g: doubles(6 * n), M: new Float64Array(18 * n), m: new Float64Array(3 * n),
    T: new Float64Array(36 * n), t: new Float64Array(6 * n), u: doubles(6 * n), Dinv: doubles(9 * n), zeta: doubles(3 * n),
  };
}

/** Point the coupling's sweep arrays at the shared scratch, grown (once) to its rig's bones. */
export function bindSweep(c: LimitCoupling): void {
  const n = c.parentIndex.length + 1; // (coupledArticulated.ts folds the root into a slot after the last bone)
  if (sweep.bones < n) sweep = makeSweep(Math.max(n, 2 * sweep.bones));
  const s = sweep;
  c.A = s.A; c.g = s.g; c.M = s.M; c.m = s.m; c.T = s.T; c.t = s.t; c.u = s.u; c.Dinv = s.Dinv; c.zeta = s.zeta;
}

/** The rig's coupling scratch (created on first use, sized for its bones). */
export function limitCouplingOf(rig: RigRecord): LimitCoupling {
  let c = perRigGet(couplings, rig);
  const n = rig.bones.length;
  if (c && c.parentIndex.length === n) return c;
  const parentIndex = new Int32Array(n).fill(-1);
  for (let i = 0; i < n; i++) {
    for (let k = rig.childStart[i]!; k < rig.childStart[i + 1]!; k++) parentIndex[rig.childIndex[k]!] = i;
  }
  const s = sweep;
  c = {
    K: doubles(6 * n), active: 0, tau: doubles(3 * n), parentIndex, welded: new Uint8Array(n), hingeAxis: new Int8Array(n).fill(-1),
    lockedFrom: { welds: null, hinges: null }, dirty: new Uint8Array(n), Kheld: new Float64Array(6 * n),
    body: new Int32Array(n), welds: 0, bodyStart: new Int32Array(n + 1), bodyPart: new Int32Array(n),
    A: s.A, g: s.g, M: s.M, m: s.m, T: s.T, t: s.t, u: s.u, Dinv: s.Dinv, zeta: s.zeta,
    speculativeCount: 0, speculativeBone: new Int32Array(3 * n), speculative: new Float64Array(3 * n * SPECULATIVE_WIDTH),
  };
  bindSweep(c);
  composeBodies(c);
  perRigSet(couplings, rig, c);
  return c;
}

/**
 * The coupling's rigid bodies from its `welded` flags (see LimitCoupling.body): a welded bone
 * belongs to its parent's body; every other bone starts a body of its own. Call after changing
 * `welded`.
 */
export function composeBodies(c: LimitCoupling): void {
  const { welded, parentIndex, body, bodyStart, bodyPart } = c;
  const n = parentIndex.length;
  bodyStart.fill(0);
  c.welds = 0;
  // (bodyStart[i + 1] counts body i's parts first, then the counts become offsets)
  for (let i = 0; i < n; i++) {
    body[i] = i > 0 && welded[i] === 1 ? body[parentIndex[i]!]! : i;
    if (body[i] !== i) c.welds++;
    if (i > 0) { const o = body[parentIndex[i]!]! + 1; bodyStart[o] = bodyStart[o]! + 1; }
  }
  for (let i = 0; i < n; i++) bodyStart[i + 1] = bodyStart[i + 1]! + bodyStart[i]!;
  const next = bodyStart.slice(0, n); // (once per change of welds, not per step)
  for (let i = 1; i < n; i++) { const o = body[parentIndex[i]!]!; bodyPart[next[o]!] = i; next[o] = next[o]! + 1; }
}

// ---------- scratch ----------
const Ahat = new Float64Array(36);
/** Right-hand sides of Â X = [H_cᵀ | g_c | E K]: 6 rows × 7 columns (E K is applied through Xk). */
const RHS = new Float64Array(6 * 7);
const Xk = new Float64Array(18); // 6×3: Â⁻¹ E K
const W = new Float64Array(9);
const V = new Float64Array(18); // 3×6
const f0 = new Float64Array(3);
const cenP = new Float64Array(3);
const cenC = new Float64Array(3);

/** Cholesky factor of the symmetric positive definite 6×6 S (lower triangle used) in place; false if not SPD. */
function cholesky6(S: Float64Array): boolean {
  for (let j = 0; j < 6; j++) {
    let d = S[j * 6 + j]!;
    for (let k = 0; k < j; k++) d -= S[j * 6 + k]! * S[j * 6 + k]!;
    if (!(d > 0)) return false;
    const l = Math.sqrt(d);
    S[j * 6 + j] = l;
    for (let i = j + 1; i < 6; i++) {
      let v = S[i * 6 + j]!;
      for (let k = 0; k < j; k++) v -= S[i * 6 + k]! * S[j * 6 + k]!;
      S[i * 6 + j] = v / l;
    }
  }
  return true;
}

/** Solve L Lᵀ X = B for the w columns of B (6 × w, row-major) in place, L from cholesky6. */
function cholSolve6(L: Float64Array, B: Float64Array, w: number): void {
  for (let c = 0; c < w; c++) {
    for (let i = 0; i < 6; i++) {
      let v = B[i * w + c]!;
      for (let k = 0; k < i; k++) v -= L[i * 6 + k]! * B[k * w + c]!;
      B[i * w + c] = v / L[i * 6 + i]!;
    }
    for (let i = 5; i >= 0; i--) {
      let v = B[i * w + c]!;
      for (let k = i + 1; k < 6; k++) v -= L[k * 6 + i]! * B[k * w + c]!;
      B[i * w + c] = v / L[i * 6 + i]!;
    }
  }
}

/**
 * The levers of centripetal() and loadHeadColumns(), passed in an array: a call with double
 * arguments boxes them (an allocation each) where V8 does not inline.
 */
const lever = new Float64Array(3);

/** ω × (ω × r) of bone b at r = lever (zero when switched off), to out. */
function centripetal(out: Float64Array, angVel: Doubles, b: number, on: boolean): void {
  if (!on) { out[0] = 0; out[1] = 0; out[2] = 0; return; }
  const rx = lever[0]!, ry = lever[1]!, rz = lever[2]!;
  const wx = angVel[b * 3]!, wy = angVel[b * 3 + 1]!, wz = angVel[b * 3 + 2]!;
  const ux = wy * rz - wz * ry, uy = wz * rx - wx * rz, uz = wx * ry - wy * rx;
  out[0] = wy * uz - wz * uy; out[1] = wz * ux - wx * uz; out[2] = wx * uy - wy * ux;
}

/** A_i = G⁻¹ = diag(m I, I_world) and g_i = G⁻¹ u0 (the free accelerations) of bone b at depth-first index i. */
function loadBody(Bone: PhysikWorld['physik']['Bone'], coupling: LimitCoupling, b: number, i: number): void {
  const { effMass, effInertiaWorld: I, acc, angAcc } = Bone;
  const { A, g } = coupling;
  const b3 = b * 3, b6 = b * 6, a36 = i * 36, g6 = i * 6;
  const mass = effMass[b]!;
  const ixx = I[b6]!, ixy = I[b6 + 1]!, ixz = I[b6 + 2]!, iyy = I[b6 + 3]!, iyz = I[b6 + 4]!, izz = I[b6 + 5]!;
  A.fill(0, a36, a36 + 36);
  A[a36] = mass; A[a36 + 7] = mass; A[a36 + 14] = mass;
  A[a36 + 21] = ixx; A[a36 + 22] = ixy; A[a36 + 23] = ixz;
  A[a36 + 27] = ixy; A[a36 + 28] = iyy; A[a36 + 29] = iyz;
  A[a36 + 33] = ixz; A[a36 + 34] = iyz; A[a36 + 35] = izz;
  const ax = angAcc[b3]!, ay = angAcc[b3 + 1]!, az = angAcc[b3 + 2]!;
  g[g6] = mass * acc[b3]!; g[g6 + 1] = mass * acc[b3 + 1]!; g[g6 + 2] = mass * acc[b3 + 2]!;
  g[g6 + 3] = ixx * ax + ixy * ay + ixz * az;
  g[g6 + 4] = ixy * ax + iyy * ay + iyz * az;
  g[g6 + 5] = ixz * ax + iyz * ay + izz * az;
}

/**
 * Writes Bone.jointForce for every bone of the rig and the coupling's spring torques `tau`
 * (the −K α_rel part of each pressed limit, on the child; its negative acts on the parent).
 * Returns false (nothing trustworthy written) when a matrix is not positive definite.
 */
export function coupledJointForces(world: PhysikWorld, rig: RigRecord, coupling: LimitCoupling): boolean {
  const { Bone, Rig } = world.physik;
  const { head, centre, angVel, jointForce } = Bone;
  const { bones, childStart, childIndex } = rig;
  bindSweep(coupling);
  const { K, A, g, M, m, T, t, u, tau, parentIndex } = coupling;
  const on = rig.settings.centripetal;
  const n = bones.length;

  // Up: A and g of every bone with its subtree folded in; M, m, T, t of every child.
  for (let i = n - 1; i >= 0; i--) {
    loadBody(Bone, coupling, bones[i]!, i);
    for (let k = childStart[i]!; k < childStart[i + 1]!; k++) {
      if (!foldChild(Bone, on, coupling, rig, i, childIndex[k]!)) return false;
    }
  }

  // Down: the root's head force and motion, then each child's from its parent's motion.
  // A_root [X | x] = [Hᵀ | g] by elimination with pivoting (A is positive definite in exact
  // arithmetic, but rigs mixing 0.1 mm and 1 km bones make it too ill-conditioned for a Cholesky
  // factor: fuzzing found rigs frozen by it), so u_root = x + X F.
  const root = bones[0]!, r3 = root * 3;
  for (let e = 0; e < 36; e++) Ahat[e] = A[e]!;
  let fx = 0, fy = 0, fz = 0;
  const hx = head[r3]! - centre[r3]!, hy = head[r3 + 1]! - centre[r3 + 1]!, hz = head[r3 + 2]! - centre[r3 + 2]!;
  lever[0] = hx; lever[1] = hy; lever[2] = hz;
  loadHeadColumns(g, 0);
  solveDense(Ahat, RHS, 6, 7);
  if (Rig.pinned[rig.eid]) {
    // H (x + X F) + ω×(ω×h) = 0
    const Phi = V; // scratch 3×3 in V[0..8]
    for (let c = 0; c < 4; c++) {
      const lx = RHS[c]!, ly = RHS[7 + c]!, lz = RHS[14 + c]!, wx = RHS[21 + c]!, wy = RHS[28 + c]!, wz = RHS[35 + c]!;
      const px = lx - (hy * wz - hz * wy), py = ly - (hz * wx - hx * wz), pz = lz - (hx * wy - hy * wx);
      if (c < 3) { Phi[c] = px; Phi[3 + c] = py; Phi[6 + c] = pz; } else { f0[0] = px; f0[1] = py; f0[2] = pz; }
    }
    centripetal(cenC, angVel, root, on);
    if (!invert3(W, 0, Phi, 0)) return false;
    const bx = -(f0[0]! + cenC[0]!), by = -(f0[1]! + cenC[1]!), bz = -(f0[2]! + cenC[2]!);
    fx = W[0]! * bx + W[1]! * by + W[2]! * bz;
    fy = W[3]! * bx + W[4]! * by + W[5]! * bz;
    fz = W[6]! * bx + W[7]! * by + W[8]! * bz;
  }
  jointForce[r3] = fx; jointForce[r3 + 1] = fy; jointForce[r3 + 2] = fz;
  for (let r = 0; r < 6; r++) u[r] = RHS[r * 7 + 3]! + RHS[r * 7]! * fx + RHS[r * 7 + 1]! * fy + RHS[r * 7 + 2]! * fz;
  if (!(Number.isFinite(u[0]!) && Number.isFinite(u[3]!))) return false;
  tau[0] = 0; tau[1] = 0; tau[2] = 0;
  for (let i = 1; i < n; i++) {
    const c = bones[i]!, c3 = c * 3, p = parentIndex[i]!;
    const o18 = i * 18, o36 = i * 36, i6 = i * 6, p6 = p * 6;
    for (let r = 0; r < 3; r++) {
      let v = m[i * 3 + r]!;
      for (let k = 0; k < 6; k++) v += M[o18 + r * 6 + k]! * u[p6 + k]!;
      jointForce[c3 + r] = v;
    }
    for (let r = 0; r < 6; r++) {
      let v = t[i6 + r]!;
      for (let k = 0; k < 6; k++) v += T[o36 + r * 6 + k]! * u[p6 + k]!;
      u[i6 + r] = v;
    }
    // τ = −K (α_c − α_p)
    const k6 = i * 6;
    const dx = u[i6 + 3]! - u[p6 + 3]!, dy = u[i6 + 4]! - u[p6 + 4]!, dz = u[i6 + 5]! - u[p6 + 5]!;
    tau[i * 3] = -(K[k6]! * dx + K[k6 + 1]! * dy + K[k6 + 2]! * dz);
    tau[i * 3 + 1] = -(K[k6 + 1]! * dx + K[k6 + 3]! * dy + K[k6 + 4]! * dz);
    tau[i * 3 + 2] = -(K[k6 + 2]! * dx + K[k6 + 4]! * dy + K[k6 + 5]! * dz);
  }
  return true;
}

/** RHS (6×7) = [H_ᵀ | g[go..go+5] | 0 0 0] for a head lever h: Hᵀ = [I; [h]ₓ]. */
function loadHeadColumns(gv: number[], go: number): void {
  const hx = lever[0]!, hy = lever[1]!, hz = lever[2]!;
  RHS.fill(0);
  RHS[0] = 1; RHS[8] = 1; RHS[16] = 1;
  // rows 3..5: [h]ₓ = [[0, −hz, hy], [hz, 0, −hx], [−hy, hx, 0]]
  RHS[21 + 1] = -hz; RHS[21 + 2] = hy;
  RHS[28] = hz; RHS[28 + 2] = -hx;
  RHS[35] = -hy; RHS[35 + 1] = hx;
  for (let r = 0; r < 6; r++) RHS[r * 7 + 3] = gv[go + r]!;
}

/**
 * Fold child j (depth-first index) of bone i into A_i, g_i, and keep its M, m, T, t.
 * Returns false when Â_j or Φ̂ is singular.
 */
function foldChild(Bone: PhysikWorld['physik']['Bone'], on: boolean, coupling: LimitCoupling, rig: RigRecord, i: number, j: number): boolean {
  const { head, centre, angVel } = Bone;
  const { K, A, g, M, m, T, t } = coupling;
  const b = rig.bones[i]!, c = rig.bones[j]!, b3 = b * 3, c3 = c * 3;
  const j36 = j * 36, j6 = j * 6, k6 = j * 6;
  const k00 = K[k6]!, k01 = K[k6 + 1]!, k02 = K[k6 + 2]!, k11 = K[k6 + 3]!, k12 = K[k6 + 4]!, k22 = K[k6 + 5]!;
  // Â = A_j + E K Eᵀ
  for (let e = 0; e < 36; e++) Ahat[e] = A[j36 + e]!;
  Ahat[21] = Ahat[21]! + k00; Ahat[22] = Ahat[22]! + k01; Ahat[23] = Ahat[23]! + k02;
  Ahat[27] = Ahat[27]! + k01; Ahat[28] = Ahat[28]! + k11; Ahat[29] = Ahat[29]! + k12;
  Ahat[33] = Ahat[33]! + k02; Ahat[34] = Ahat[34]! + k12; Ahat[35] = Ahat[35]! + k22;
  if (!cholesky6(Ahat)) return false;
  // columns: Hᵀ (3), g (1), E K (3)
  const hx = head[c3]! - centre[c3]!, hy = head[c3 + 1]! - centre[c3 + 1]!, hz = head[c3 + 2]! - centre[c3 + 2]!;
  lever[0] = hx; lever[1] = hy; lever[2] = hz;
  loadHeadColumns(g, j6);
  RHS[3 * 7 + 4] = k00; RHS[3 * 7 + 5] = k01; RHS[3 * 7 + 6] = k02;
  RHS[4 * 7 + 4] = k01; RHS[4 * 7 + 5] = k11; RHS[4 * 7 + 6] = k12;
  RHS[5 * 7 + 4] = k02; RHS[5 * 7 + 5] = k12; RHS[5 * 7 + 6] = k22;
  cholSolve6(Ahat, RHS, 7);
  // H · column: linear rows − h × angular rows
  // Φ̂ = H Xh (3×3) into V[0..8] (scratch), then W = Φ̂⁻¹
  const Phi = V;
  for (let col = 0; col < 3; col++) {
    const lx = RHS[col]!, ly = RHS[7 + col]!, lz = RHS[14 + col]!, wx = RHS[21 + col]!, wy = RHS[28 + col]!, wz = RHS[35 + col]!;
    Phi[col] = lx - (hy * wz - hz * wy); Phi[3 + col] = ly - (hz * wx - hx * wz); Phi[6 + col] = lz - (hx * wy - hy * wx);
  }
  if (!invert3(W, 0, Phi, 0)) return false;
  // H xg and H Xk
  const gxl = RHS[3]!, gyl = RHS[10]!, gzl = RHS[17]!, gxa = RHS[24]!, gya = RHS[31]!, gza = RHS[38]!;
  const hgx = gxl - (hy * gza - hz * gya), hgy = gyl - (hz * gxa - hx * gza), hgz = gzl - (hx * gya - hy * gxa);
  for (let col = 0; col < 3; col++) {
    for (let r = 0; r < 6; r++) Xk[r * 3 + col] = RHS[r * 7 + 4 + col]!;
  }
  // lever of the joint from the parent's centre
  const rx = head[c3]! - centre[b3]!, ry = head[c3 + 1]! - centre[b3 + 1]!, rz = head[c3 + 2]! - centre[b3 + 2]!;
  // V = L − H Xk Eᵀ: [I | −[r]ₓ − H Xk]
  V.fill(0);
  V[0] = 1; V[7] = 1; V[14] = 1;
  V[4] = rz; V[5] = -ry; V[9] = -rz; V[11] = rx; V[15] = ry; V[16] = -rx; // −[r]ₓ
  for (let col = 0; col < 3; col++) {
    const lx = Xk[col]!, ly = Xk[3 + col]!, lz = Xk[6 + col]!, wx = Xk[9 + col]!, wy = Xk[12 + col]!, wz = Xk[15 + col]!;
    V[3 + col] = V[3 + col]! - (lx - (hy * wz - hz * wy));
    V[9 + col] = V[9 + col]! - (ly - (hz * wx - hx * wz));
    V[15 + col] = V[15 + col]! - (lz - (hx * wy - hy * wx));
  }
  // f0 = ω_b×(ω_b×r) − ω_c×(ω_c×h) − H xg
  lever[0] = rx; lever[1] = ry; lever[2] = rz;
  centripetal(cenP, angVel, b, on);
  lever[0] = hx; lever[1] = hy; lever[2] = hz;
  centripetal(cenC, angVel, c, on);
  f0[0] = cenP[0]! - cenC[0]! - hgx; f0[1] = cenP[1]! - cenC[1]! - hgy; f0[2] = cenP[2]! - cenC[2]! - hgz;
  // M = W V, m = W f0
  const o18 = j * 18;
  for (let r = 0; r < 3; r++) {
    const w0 = W[r * 3]!, w1 = W[r * 3 + 1]!, w2 = W[r * 3 + 2]!;
    for (let col = 0; col < 6; col++) M[o18 + r * 6 + col] = w0 * V[col]! + w1 * V[6 + col]! + w2 * V[12 + col]!;
    m[j * 3 + r] = w0 * f0[0]! + w1 * f0[1]! + w2 * f0[2]!;
  }
  // T = Xh M + [0 | Xk], t = Xh m + xg
  for (let r = 0; r < 6; r++) {
    const x0 = RHS[r * 7]!, x1 = RHS[r * 7 + 1]!, x2 = RHS[r * 7 + 2]!;
    for (let col = 0; col < 6; col++) {
      let v = x0 * M[o18 + col]! + x1 * M[o18 + 6 + col]! + x2 * M[o18 + 12 + col]!;
      if (col >= 3) v += Xk[r * 3 + col - 3]!;
      T[j36 + r * 6 + col] = v;
    }
    t[j6 + r] = x0 * m[j * 3]! + x1 * m[j * 3 + 1]! + x2 * m[j * 3 + 2]! + RHS[r * 7 + 3]!;
  }
  // A_i += Lᵀ M − E K Eᵀ (T − I); g_i += −Lᵀ m + E K t_α. Lᵀ = [I; [r]ₓ]: Lᵀ v = (v, r × v)
  const i36 = i * 36, i6 = i * 6;
  for (let col = 0; col < 6; col++) {
    const vx = M[o18 + col]!, vy = M[o18 + 6 + col]!, vz = M[o18 + 12 + col]!;
    A[i36 + col] = A[i36 + col]! + vx; A[i36 + 6 + col] = A[i36 + 6 + col]! + vy; A[i36 + 12 + col] = A[i36 + 12 + col]! + vz;
    A[i36 + 18 + col] = A[i36 + 18 + col]! + (ry * vz - rz * vy); A[i36 + 24 + col] = A[i36 + 24 + col]! + (rz * vx - rx * vz); A[i36 + 30 + col] = A[i36 + 30 + col]! + (rx * vy - ry * vx);
    // (T − I) angular rows
    const tx = T[j36 + 18 + col]! - (col === 3 ? 1 : 0), ty = T[j36 + 24 + col]! - (col === 4 ? 1 : 0), tz = T[j36 + 30 + col]! - (col === 5 ? 1 : 0);
    A[i36 + 18 + col] = A[i36 + 18 + col]! - (k00 * tx + k01 * ty + k02 * tz);
    A[i36 + 24 + col] = A[i36 + 24 + col]! - (k01 * tx + k11 * ty + k12 * tz);
    A[i36 + 30 + col] = A[i36 + 30 + col]! - (k02 * tx + k12 * ty + k22 * tz);
  }
  const mx = m[j * 3]!, my = m[j * 3 + 1]!, mz = m[j * 3 + 2]!;
  const tax = t[j6 + 3]!, tay = t[j6 + 4]!, taz = t[j6 + 5]!;
  g[i6] = g[i6]! - mx; g[i6 + 1] = g[i6 + 1]! - my; g[i6 + 2] = g[i6 + 2]! - mz;
  g[i6 + 3] = g[i6 + 3]! - (ry * mz - rz * my); g[i6 + 4] = g[i6 + 4]! - (rz * mx - rx * mz); g[i6 + 5] = g[i6 + 5]! - (rx * my - ry * mx);
  g[i6 + 3] = g[i6 + 3]! + (k00 * tax + k01 * tay + k02 * taz);
  g[i6 + 4] = g[i6 + 4]! + (k01 * tax + k11 * tay + k12 * taz);
  g[i6 + 5] = g[i6 + 5]! + (k02 * tax + k12 * tay + k22 * taz);
  return true;
}

/**
 * Add the coupling's spring torques to the bones' torques and accelerations: τ and J_c τ on
 * each child, −τ and −J_p τ on its parent (so Bone.torque holds all a limit applied this step).
 */
export function applyCouplingTorques(world: PhysikWorld, rig: RigRecord, coupling: LimitCoupling): void {
  const { invInertiaWorld: J, angAcc, torque } = world.physik.Bone;
  const { tau, parentIndex } = coupling;
  const bones = rig.bones;
  for (let i = 1; i < bones.length; i++) {
    const tx = tau[i * 3]!, ty = tau[i * 3 + 1]!, tz = tau[i * 3 + 2]!;
    if (tx === 0 && ty === 0 && tz === 0) continue;
    for (let side = 0; side < 2; side++) {
      const b = side === 0 ? bones[i]! : bones[parentIndex[i]!]!;
      const s = side === 0 ? 1 : -1, j = b * 6, b3 = b * 3;
      torque[b3] = torque[b3]! + s * tx; torque[b3 + 1] = torque[b3 + 1]! + s * ty; torque[b3 + 2] = torque[b3 + 2]! + s * tz;
      angAcc[b3] = angAcc[b3]! + s * (J[j]! * tx + J[j + 1]! * ty + J[j + 2]! * tz);
      angAcc[b3 + 1] = angAcc[b3 + 1]! + s * (J[j + 1]! * tx + J[j + 3]! * ty + J[j + 4]! * tz);
      angAcc[b3 + 2] = angAcc[b3 + 2]! + s * (J[j + 2]! * tx + J[j + 4]! * ty + J[j + 5]! * tz);
    }
  }
}

/** Undo applyCouplingTorques on the bones' torques (before the step's solve is done again). */
export function removeCouplingTorques(world: PhysikWorld, rig: RigRecord, coupling: LimitCoupling): void {
  const { torque } = world.physik.Bone;
  const { tau, parentIndex } = coupling;
  const bones = rig.bones;
  for (let i = 1; i < bones.length; i++) {
    const tx = tau[i * 3]!, ty = tau[i * 3 + 1]!, tz = tau[i * 3 + 2]!;
    const b3 = bones[i]! * 3, p3 = bones[parentIndex[i]!]! * 3;
    torque[b3] = torque[b3]! - tx; torque[b3 + 1] = torque[b3 + 1]! - ty; torque[b3 + 2] = torque[b3 + 2]! - tz;
    torque[p3] = torque[p3]! + tx; torque[p3 + 1] = torque[p3 + 1]! + ty; torque[p3 + 2] = torque[p3 + 2]! + tz;
  }
}

/**
 * After a coupled solve: drop each speculative limit spring whose joint, with the solved
 * accelerations, would end the step inside its limit, θ + dt (ω_rel + dt α_rel)·u short of it.
 * Such a spring pulled the joint toward the limit (it is one-sided: it may only stop a joint,
 * as a contact may only push); its torque comes off Bone.torque and its stiffness off K, and the
 * caller solves again. One round: a spring left sticky by the second solve stays (measured rare).
 * Returns how many were dropped.
 */
export function releaseStickyLimits(world: PhysikWorld, rig: RigRecord, coupling: LimitCoupling): number {
  const { angVel, torque } = world.physik.Bone;
  const { speculative: S, speculativeBone, parentIndex, u, K } = coupling;
  const dt = rig.settings.dt;
  let released = 0;
  for (let e = 0; e < coupling.speculativeCount; e++) {
    const i = speculativeBone[e]!, pi = parentIndex[i]!, o = e * SPECULATIVE_WIDTH;
    const b = rig.bones[i]!, p = rig.bones[pi]!, b3 = b * 3, p3 = p * 3;
    const ux = S[o]!, uy = S[o + 1]!, uz = S[o + 2]!;
    const wx = angVel[b3]! - angVel[p3]! + dt * (u[i * 6 + 3]! - u[pi * 6 + 3]!);
    const wy = angVel[b3 + 1]! - angVel[p3 + 1]! + dt * (u[i * 6 + 4]! - u[pi * 6 + 4]!);
    const wz = angVel[b3 + 2]! - angVel[p3 + 2]! + dt * (u[i * 6 + 5]! - u[pi * 6 + 5]!);
    const end = S[o + 5]! + dt * (wx * ux + wy * uy + wz * uz);
    const side = S[o + 7]!;
    if ((end - S[o + 6]!) * side >= 0) continue; // it stops at or past the limit: a push
    const tau = S[o + 3]!, kd = S[o + 4]!;
    coupling.dirty[i] = 1; coupling.dirty[pi] = 1;
    torque[b3] = torque[b3]! - tau * ux; torque[b3 + 1] = torque[b3 + 1]! - tau * uy; torque[b3 + 2] = torque[b3 + 2]! - tau * uz;
    torque[p3] = torque[p3]! + tau * ux; torque[p3 + 1] = torque[p3 + 1]! + tau * uy; torque[p3 + 2] = torque[p3 + 2]! + tau * uz;
    if (kd > 0) {
      const k6 = i * 6;
      K[k6] = K[k6]! - kd * ux * ux; K[k6 + 1] = K[k6 + 1]! - kd * ux * uy; K[k6 + 2] = K[k6 + 2]! - kd * ux * uz;
      K[k6 + 3] = K[k6 + 3]! - kd * uy * uy; K[k6 + 4] = K[k6 + 4]! - kd * uy * uz; K[k6 + 5] = K[k6 + 5]! - kd * uz * uz;
      coupling.active--;
    }
    released++;
  }
  coupling.speculativeCount = 0;
  if (released > 0 && coupling.active === 0) zeroDoubles(K, 0, K.length); // no residue of the subtractions
  return released;
}


/**
 * A welded or hinged joint's locked axes in this form, relative to the rig's inertia: the joint
 * then turns on them by about this fraction of what it would free (the fast form holds them exactly).
 */
export const LOCK_STIFFNESS = 1e6;
const lockAxis = new Float64Array(3);

/**
 * Welds and hinges (welds.ts, hinges.ts) in this form, which knows only ball joints with limit
 * springs: `hold` true adds to K, for every welded joint LOCK_STIFFNESS × κ on all three axes and
 * for every hinged one on the two it locks (κ: the rig's largest bone inertia about its head),
 * so the solve passes the torque that holds them and they barely turn within the step (the
 * integrator then puts them back on their weld or hinge exactly); `hold` false puts K back as it
 * was, bit for bit. Without it a step this form solves (the fast form's check failed) treats
 * welded and hinged bones as free: a captured walk forced through this form drifted off its
 * markers by a third of its height.
 */
export function lockedJointCoupling(world: PhysikWorld, rig: RigRecord, coupling: LimitCoupling, hold: boolean): void {
  const { K, Kheld, welded, hingeAxis } = coupling;
  const n = rig.bones.length;
  if (!hold) {
    for (let i = 1; i < n; i++) {
      if (welded[i] !== 1 && hingeAxis[i]! < 0) continue;
      for (let e = 0; e < 6; e++) K[i * 6 + e] = Kheld[i * 6 + e]!;
    }
    return;
  }
  const { effMass, effInertiaWorld: E, length, rot } = world.physik.Bone;
  let kappa = 0;
  for (let i = 0; i < n; i++) {
    const b = rig.bones[i]!, l = length[b]!;
    const about = E[b * 6]! + E[b * 6 + 3]! + E[b * 6 + 5]! + effMass[b]! * l * l;
    if (about > kappa) kappa = about;
  }
  kappa *= LOCK_STIFFNESS;
  for (let i = 1; i < n; i++) {
    const f = hingeAxis[i]!;
    if (welded[i] !== 1 && f < 0) continue;
    const o = i * 6;
    for (let e = 0; e < 6; e++) Kheld[o + e] = K[o + e]!;
    // κ (I − s sᵀ) for a hinge of free axis s, κ I for a weld
    let sx = 0, sy = 0, sz = 0;
    if (welded[i] !== 1) { hingeAxisWorld(rot, rig.bones[i]!, f, lockAxis); sx = lockAxis[0]!; sy = lockAxis[1]!; sz = lockAxis[2]!; }
    K[o] = K[o]! + kappa * (1 - sx * sx); K[o + 1] = K[o + 1]! - kappa * sx * sy; K[o + 2] = K[o + 2]! - kappa * sx * sz;
    K[o + 3] = K[o + 3]! + kappa * (1 - sy * sy); K[o + 4] = K[o + 4]! - kappa * sy * sz; K[o + 5] = K[o + 5]! + kappa * (1 - sz * sz);
  }
}
