/**
 * triangle: the triangle-theorem IK solver for long chains, after E. A. Rosales and
 * L. E. Falcón-Morales, "A new triangle theorem to solve the inverse kinematics problem for
 * characters with highly articulated limbs".
 *
 * Pure core:
 * - `triangleJoint`: the joint J of a two-link triangle O–J–P (|OJ| = l1, |JP| = l2) by the
 *   theorem, with no sine or cosine: along û = OP/|OP| put S1 at l1 from O and S2 at l2 short
 *   of P, m their midpoint; with A = |OP|, B = Om, C = S2S1 (signed, along û) the foot j of the
 *   perpendicular from J satisfies S2j = B·C/A (eq. 16); the perpendicular leg has length
 *   √(l1² − |Oj|²) in the direction of the plane vector made perpendicular to OP (eq. 18).
 *   Equation 17 as printed, √(l2² − |Oj|²), pairs the wrong side with |Oj|: Oj is a leg of the
 *   right triangle O–j–J whose hypotenuse is OJ = l1 (equivalently √(l2² − |jP|²), as eq. 19
 *   has it). The printed form only agrees when l1 = l2; the tests check the corrected one
 *   against the law of cosines. Out of reach, A is clamped into [|l1 − l2|, l1 + l2]: straight
 *   toward P when too far, folded when too close (the closest reach).
 * - `triangleChain`: n links reduced to a triangle by a virtual link from O to the head of the
 *   last link, solved, and repeated on the shortened chain (section 4). The virtual link over
 *   links 1..m keeps the fraction t = |OP| / (chain length) of their total length (eq. 22 with
 *   OPmin = 0; its printed "× 100" makes a percentage and is dropped), minus δ for the spiral
 *   (eq. 23), then clamped so that both the triangle and the remaining sub-chain can be closed
 *   (that keeps every link at its length and the end on target whenever it is reachable).
 *   The spring: each level's plane normal is turned by `turn` radians more about that level's
 *   axis (fig. 13).
 *
 * Solver (registered as 'triangle'): for each active goal, the chain from the root to the
 * goal's bone (zero-length links skipped); the root's head stays fixed (also for a floating
 * root). The plane: a pole control point on the goal's bone (joints on its side); else, in
 * 'path-dependent' mode, last step's plane normal carried by the change of reach direction;
 * else the current bend (sum of d_i × d_{i+1}), the rest bend, and the second link's joint
 * frame z axis signed by `bendDirection`. 'path-independent' restarts from the rest pose and
 * keeps nothing. Bones are aimed by the shortest arc from their rest frame carried by the parent,
 * each clamped to its limits as it is placed; hinge joints (one of x/z ranged, the other locked)
 * get their parent twisted so the hinge axis is the bend normal, and fully locked joints are
 * folded into their parent's link. When a limit turned a link off the construction, the chain is
 * built again within its limits (`buildWithinLimits`): link i aimed where the triangle solution
 * of links i..n−1 from its actual head puts it, clamped, and the links below solved from where
 * it really ends. Proportional virtual links put the joints on a logarithmic spiral (every link
 * meets the radius from O at the same angle), so the bend concentrates near each sub-chain's
 * root: with tight limits the last links may not make up for what the limits took, and the
 * solve's note says so (solveNotes.ts). Bones off the chain keep their rotation relative to
 * their parent; goals sharing bones are solved in control-point order (the last one wins where
 * they overlap, also a note).
 * δ and the turn are not in Settings: per rig with `setTriangleShape` (defaults 0 and 0; δ is a
 * fraction of the chain's mean link length). Settings worth adding: `triangleDelta`,
 * `triangleTurnDeg`.
 */
import type { PhysikWorld, RigRecord } from '../../src/world/world';
import { quatArc, quatRotate, quatRotateArr } from '../../src/math/quat';
import type { SolveResult } from './solver';
import { solved } from './common';
import { attachmentPoint } from '../../src/world/attachment';
import { AIM, beginPass, carriedRest, endPass, hingeTwist, restorePose } from './chainPass';
import { closedFormStatus, goalLinks, refreshEffectorLink, type GoalLinks } from './goalChains';
import { setSolveNote } from './solveNotes';
import { STATUS_STALLED } from '../../components/Rig';

const EPS = 1e-12;

// ───────────────────────────── pure core ─────────────────────────────

/**
 * The joint J of the triangle O–J–P with |OJ| = l1, |JP| = l2, by the triangle theorem, on the
 * side of (vx, vy, vz) (a vector not parallel to OP, eq. 18). Writes J to out[o..o+2]; returns
 * true when the triangle exists (|l1 − l2| ≤ |OP| ≤ l1 + l2), else places J for the closest
 * reach along OP. When P = O, (fx, fy, fz) is used as the direction of OP.
 */
export function triangleJoint(
  out: Float64Array, o: number,
  ox: number, oy: number, oz: number, px: number, py: number, pz: number,
  l1: number, l2: number, vx: number, vy: number, vz: number,
  fx = 1, fy = 0, fz = 0,
): boolean {
  const a = tj;
  a[0] = ox; a[1] = oy; a[2] = oz; a[3] = px; a[4] = py; a[5] = pz; a[6] = l1; a[7] = l2;
  a[8] = vx; a[9] = vy; a[10] = vz; a[11] = fx; a[12] = fy; a[13] = fz;
  return jointOf(out, o, a);
}

const tj = new Float64Array(14);

/** triangleJoint with its inputs in a = [O (3), P (3), l1, l2, v (3), f (3)] (no boxed arguments). */
function jointOf(out: Float64Array, o: number, a: Float64Array): boolean {
  const ox = a[0]!, oy = a[1]!, oz = a[2]!, px = a[3]!, py = a[4]!, pz = a[5]!, l1 = a[6]!, l2 = a[7]!;
  const vx = a[8]!, vy = a[9]!, vz = a[10]!, fx = a[11]!, fy = a[12]!, fz = a[13]!;
  let ux = px - ox, uy = py - oy, uz = pz - oz;
  let A = Math.sqrt(ux * ux + uy * uy + uz * uz);
  if (A > EPS) { ux /= A; uy /= A; uz /= A; } else { const f = Math.sqrt(fx * fx + fy * fy + fz * fz); ux = fx / f; uy = fy / f; uz = fz / f; A = 0; }
  const lo = Math.abs(l1 - l2), hi = l1 + l2;
  const tol = 1e-12 * (hi + 1);
  const valid = A >= lo - tol && A <= hi + tol;
  if (A < lo) A = lo; else if (A > hi) A = hi;
  // n̂ = (OP × v) × OP, normalised (eq. 18)
  const cx = uy * vz - uz * vy, cy = uz * vx - ux * vz, cz = ux * vy - uy * vx;
  let nx = cy * uz - cz * uy, ny = cz * ux - cx * uz, nz = cx * uy - cy * ux;
  const nl = Math.sqrt(nx * nx + ny * ny + nz * nz);
  if (nl > EPS) { nx /= nl; ny /= nl; nz /= nl; } else { nx = 0; ny = 0; nz = 0; }
  if (!(A > EPS)) {
    // O = P and l1 = l2: every point of the circle works; take the side vector
    out[o] = ox + l1 * nx; out[o + 1] = oy + l1 * ny; out[o + 2] = oz + l1 * nz;
    if (nl <= EPS) { out[o] = ox + l1 * ux; out[o + 1] = oy + l1 * uy; out[o + 2] = oz + l1 * uz; }
    return valid;
  }
  // coordinates along û from O: S1 = l1, S2 = A − l2, m = (S1 + S2)/2
  const s1 = l1, s2 = A - l2;
  const Bm = 0.5 * (s1 + s2); // B = |Om| (signed)
  const C = s1 - s2; // C = S2S1 (signed)
  const oj = s2 + (Bm * C) / A; // eq. 16: j = S2 + (B·C/A) û
  const h2 = l1 * l1 - oj * oj; // corrected eq. 17
  const h = h2 > 0 ? Math.sqrt(h2) : 0;
  out[o] = ox + oj * ux + h * nx;
  out[o + 1] = oy + oj * uy + h * ny;
  out[o + 2] = oz + oj * uz + h * nz;
  return valid;
}

/**
 * The n-link chain by virtual links (section 4), spiral (δ) and spring (turn). lengths[0..n-1]
 * from O = origin[oo..]; target T = target[to..]; plane normal N = normal[no..] (the bend from
 * each link to the next is a positive rotation about N; need not be unit or perpendicular).
 * Writes the n + 1 points (O, the joints, the end) to points[0..3n+2]. `work` needs 2n numbers.
 * δ in length units; `turn` in radians per level. Returns true when the target is reachable.
 */
export function triangleChain(
  points: Float64Array, lengths: Float64Array, n: number,
  origin: Float64Array, oo: number, target: Float64Array, to: number, normal: Float64Array, no: number,
  delta: number, turn: number, work: Float64Array,
): boolean {
  const ox = origin[oo]!, oy = origin[oo + 1]!, oz = origin[oo + 2]!;
  points[0] = ox; points[1] = oy; points[2] = oz;
  if (n === 0) return false;
  // prefix sums of links 0..i in work[i], the shortest span of links 0..i in work[n + i]
  // (max(0, 2·longest − total))
  let total = 0, mx = 0;
  for (let i = 0; i < n; i++) {
    total += lengths[i]!;
    if (lengths[i]! > mx) mx = lengths[i]!;
    work[i] = total;
    work[n + i] = Math.max(0, 2 * mx - total);
  }
  let ux = target[to]! - ox, uy = target[to + 1]! - oy, uz = target[to + 2]! - oz;
  let A = Math.sqrt(ux * ux + uy * uy + uz * uz);
  // a direction when the target sits on O: perpendicular to N
  const Nx = normal[no]!, Ny = normal[no + 1]!, Nz = normal[no + 2]!;
  if (A > EPS) { ux /= A; uy /= A; uz /= A; } else {
    perpendicular(vs, 0, normal, no);
    ux = vs[0]!; uy = vs[1]!; uz = vs[2]!; A = 0;
  }
  const lo = work[2 * n - 1]!;
  const valid = A >= lo - 1e-12 * (total + 1) && A <= total * (1 + 1e-12);
  const Ac = A < lo ? lo : A > total ? total : A;
  const t = total > 0 ? Ac / total : 0;
  const e = 3 * n;
  points[e] = ox + Ac * ux; points[e + 1] = oy + Ac * uy; points[e + 2] = oz + Ac * uz;
  if (n === 1) return valid;
  // N made unit and ⟂ û for level 0
  let level = 0;
  for (let m = n; m >= 2; m--, level++) {
    // triangle O – J – T: T = points[m] (end of link m-1), J = points[m-1], |JT| = l_{m-1}
    const Tx = points[3 * m]!, Ty = points[3 * m + 1]!, Tz = points[3 * m + 2]!;
    let ax = Tx - ox, ay = Ty - oy, az = Tz - oz;
    const d = Math.sqrt(ax * ax + ay * ay + az * az);
    if (d > EPS) { ax /= d; ay /= d; az /= d; } else { ax = ux; ay = uy; az = uz; }
    const l = lengths[m - 1]!;
    let V: number;
    const Vmax = work[m - 2]!; // links 0..m-2
    if (m === 2) V = lengths[0]!;
    else {
      V = t * Vmax - delta;
      const vlo = Math.max(Math.abs(d - l), work[n + m - 2]!), vhi = Math.min(d + l, Vmax);
      if (V < vlo) V = vlo;
      if (V > vhi) V = vhi;
    }
    // this level's normal: N ⟂ â turned by level·turn about â; side = â × N_k
    let kx = Nx, ky = Ny, kz = Nz;
    const dn = kx * ax + ky * ay + kz * az;
    kx -= dn * ax; ky -= dn * ay; kz -= dn * az;
    const kl = Math.sqrt(kx * kx + ky * ky + kz * kz);
    if (kl > EPS) { kx /= kl; ky /= kl; kz /= kl; } else {
      vs[3] = ax; vs[4] = ay; vs[5] = az;
      perpendicular(vs, 0, vs, 3); kx = vs[0]!; ky = vs[1]!; kz = vs[2]!;
    }
    if (turn !== 0) {
      const c = Math.cos(level * turn), s = Math.sin(level * turn);
      const bx = ay * kz - az * ky, by = az * kx - ax * kz, bz = ax * ky - ay * kx;
      kx = c * kx + s * bx; ky = c * ky + s * by; kz = c * kz + s * bz;
    }
    const sx = ay * kz - az * ky, sy = az * kx - ax * kz, sz = ax * ky - ay * kx; // â × N_k
    const a = tj;
    a[0] = ox; a[1] = oy; a[2] = oz; a[3] = Tx; a[4] = Ty; a[5] = Tz; a[6] = V; a[7] = l;
    a[8] = sx; a[9] = sy; a[10] = sz; a[11] = ax; a[12] = ay; a[13] = az;
    jointOf(points, 3 * (m - 1), a);
  }
  return valid;
}

/** A unit vector perpendicular to v[vo..] into out[o] (v × the least aligned world axis). */
function perpendicular(out: Float64Array, o: number, v: Float64Array, vo: number): void {
  const x = v[vo]!, y = v[vo + 1]!, z = v[vo + 2]!;
  const ax = Math.abs(x), ay = Math.abs(y), az = Math.abs(z);
  let px: number, py: number, pz: number;
  if (ax <= ay && ax <= az) { px = 0; py = z; pz = -y; } else if (ay <= az) { px = -z; py = 0; pz = x; } else { px = y; py = -x; pz = 0; }
  const n = Math.sqrt(px * px + py * py + pz * pz);
  if (n > 0) { out[o] = px / n; out[o + 1] = py / n; out[o + 2] = pz / n; } else { out[o] = 1; out[o + 1] = 0; out[o + 2] = 0; }
}

const vs = new Float64Array(6);

// ───────────────────────────── the solver ─────────────────────────────

export interface TriangleShape {
  /** Spiral: how much every virtual link is shortened, as a fraction of the chain's mean link length (eq. 23). */
  delta: number;
  /** Spring: degrees the plane turns per level (fig. 13). */
  turnDeg: number;
}

const shapes = new WeakMap<RigRecord, TriangleShape>();

/** Per-rig spiral/spring constants of the triangle solver (defaults: delta 0, turnDeg 0). */
export function setTriangleShape(rig: RigRecord, shape: Partial<TriangleShape>): void {
  const s = { ...(shapes.get(rig) ?? { delta: 0, turnDeg: 0 }), ...shape };
  if (!(Number.isFinite(s.delta) && s.delta >= 0)) throw new Error(`triangle solver, rig "${rig.name}": delta must be a finite number ≥ 0, got ${s.delta}`);
  if (!Number.isFinite(s.turnDeg)) throw new Error(`triangle solver, rig "${rig.name}": turnDeg must be finite, got ${s.turnDeg}`);
  shapes.set(rig, s);
}

interface TriangleCache {
  nCp: number;
  version: number;
  nBones: number;
  lastStep: number;
  links: (GoalLinks | null)[];
  normal: Float64Array;
  hasNormal: Uint8Array;
  points: Float64Array;
  work: Float64Array;
  /** The lengths of a sub-chain (buildWithinLimits). */
  sub: Float64Array;
}

const caches = new WeakMap<RigRecord, TriangleCache>();

function cacheOf(world: PhysikWorld, rig: RigRecord): TriangleCache {
  let c = caches.get(rig);
  const step = world.physik.Rig.step[rig.eid]!;
  if (!c || c.version !== rig.controlPointsVersion || c.nCp !== rig.controlPoints.length || c.nBones !== rig.bones.length) {
    const nCp = rig.controlPoints.length, n = rig.bones.length + 1;
    c = {
      nCp, version: rig.controlPointsVersion, nBones: rig.bones.length, lastStep: -1, links: new Array<GoalLinks | null>(nCp).fill(null),
      normal: new Float64Array(nCp * 3), hasNormal: new Uint8Array(nCp),
      points: new Float64Array(3 * (n + 1)), work: new Float64Array(2 * n), sub: new Float64Array(n),
    };
    caches.set(rig, c);
  } else if (step <= c.lastStep) c.hasNormal.fill(0); // reset: forget the planes
  c.lastStep = step;
  return c;
}

const v = new Float64Array(24);
const q = new Float64Array(8);

/** The 'triangle' kinematic solver (see the header). */
export function triangleSolve(world: PhysikWorld, rig: RigRecord): SolveResult {
  const { Bone, ControlPoint } = world.physik;
  const cache = cacheOf(world, rig);
  const independent = rig.settings.ikMode === 'path-independent';
  const bendSign = rig.settings.bendDirection === 'negative' ? -1 : 1;
  const shape = shapes.get(rig);
  let failed = false, limitsMet = false, shared = false;
  if (independent) restorePose(world, rig);
  for (let ci = 0; ci < rig.controlPoints.length; ci++) {
    const cp = rig.controlPoints[ci]!;
    if (!ControlPoint.active[cp] || ControlPoint.pole[cp]) continue;
    let links = cache.links[ci]!;
    if (!links) links = cache.links[ci] = goalLinks(world, rig, cp, false);
    refreshEffectorLink(world, cp, links);
    const n = links.n;
    if (n === 0) continue; // nothing moves this goal (e.g. a pin at the root's head)
    const first = links.bones[0]!;
    // O = head of the first link bone; target; current effector
    v[0] = Bone.head[first * 3]!; v[1] = Bone.head[first * 3 + 1]!; v[2] = Bone.head[first * 3 + 2]!;
    const c3 = cp * 3;
    v[3] = ControlPoint.effective[c3]!; v[4] = ControlPoint.effective[c3 + 1]!; v[5] = ControlPoint.effective[c3 + 2]!;
    if (!Number.isFinite(v[3]! + v[4]! + v[5]!)) { failed = true; continue; }
    attachmentPoint(world, cp, v, 6);
    let ux = v[3]! - v[0]!, uy = v[4]! - v[1]!, uz = v[5]! - v[2]!;
    const A = Math.sqrt(ux * ux + uy * uy + uz * uz);
    let cx = v[6]! - v[0]!, cy = v[7]! - v[1]!, cz = v[8]! - v[2]!;
    const cl = Math.sqrt(cx * cx + cy * cy + cz * cz);
    if (cl > EPS) { cx /= cl; cy /= cl; cz /= cl; } else {
      quatRotateArr(v, 9, Bone.rot, first * 4, links.local, 0);
      const l = links.length[0]!; cx = v[9]! / l; cy = v[10]! / l; cz = v[11]! / l;
    }
    if (A > EPS) { ux /= A; uy /= A; uz /= A; } else { ux = cx; uy = cy; uz = cz; }

    // plane normal N (v[12..14])
    let found = false;
    const pole = poleOn(world, rig, ControlPoint.bone[cp]!);
    if (pole >= 0) {
      const p3 = pole * 3;
      const wx = ControlPoint.effective[p3]! - v[0]!, wy = ControlPoint.effective[p3 + 1]! - v[1]!, wz = ControlPoint.effective[p3 + 2]! - v[2]!;
      // N = w × û puts the joints on the pole's side (side = û × N = w⊥)
      const nx = wy * uz - wz * uy, ny = wz * ux - wx * uz, nz = wx * uy - wy * ux;
      const nl = Math.sqrt(nx * nx + ny * ny + nz * nz);
      if (nl > 1e-6 * Math.sqrt(wx * wx + wy * wy + wz * wz)) { v[12] = nx / nl; v[13] = ny / nl; v[14] = nz / nl; found = true; }
    }
    if (!found) {
      let rx = 0, ry = 0, rz = 0, ref = false;
      if (!independent && cache.hasNormal[ci]) {
        rx = cache.normal[ci * 3]!; ry = cache.normal[ci * 3 + 1]!; rz = cache.normal[ci * 3 + 2]!; ref = true;
      }
      // current bend (in path-independent mode the pose is the rest pose)
      if (!ref && n >= 2) {
        for (let i = 0; i + 1 < n; i++) {
          const a = links.bones[i]!, b = links.bones[i + 1]!;
          quatRotateArr(v, 15, Bone.rot, a * 4, links.local, i * 3);
          quatRotateArr(v, 18, Bone.rot, b * 4, links.local, i * 3 + 3);
          const la = links.length[i]!, lb = links.length[i + 1]!;
          rx += (v[16]! * v[20]! - v[17]! * v[19]!) / (la * lb);
          ry += (v[17]! * v[18]! - v[15]! * v[20]!) / (la * lb);
          rz += (v[15]! * v[19]! - v[16]! * v[18]!) / (la * lb);
        }
        ref = Math.sqrt(rx * rx + ry * ry + rz * rz) > 1e-9;
      }
      if (!ref && n >= 2) {
        rx = 0; ry = 0; rz = 0;
        for (let i = 0; i + 1 < n; i++) {
          const a = links.bones[i]!, b = links.bones[i + 1]!;
          quatRotateArr(v, 15, Bone.restWorld, a * 4, links.local, i * 3);
          quatRotateArr(v, 18, Bone.restWorld, b * 4, links.local, i * 3 + 3);
          rx += v[16]! * v[20]! - v[17]! * v[19]!;
          ry += v[17]! * v[18]! - v[15]! * v[20]!;
          rz += v[15]! * v[19]! - v[16]! * v[18]!;
        }
        ref = Math.sqrt(rx * rx + ry * ry + rz * rz) > 1e-9 * links.length[0]! * links.length[1]!;
      }
      if (!ref) {
        // the joint frame z axis of the second link bone (or the first's), signed by bendDirection
        carriedRest(world, links.bones[n >= 2 ? 1 : 0]!, q, 0);
        quatRotate(v, 15, q, 0, 0, 0, 1);
        rx = bendSign * v[15]!; ry = bendSign * v[16]!; rz = bendSign * v[17]!;
      }
      // carry from the current reach to the new one, then ⟂ û
      v[15] = cx; v[16] = cy; v[17] = cz; v[18] = ux; v[19] = uy; v[20] = uz; v[21] = rx; v[22] = ry; v[23] = rz;
      quatArc(q, 4, v, 15, v, 18);
      quatRotateArr(v, 12, q, 4, v, 21);
    }
    {
      const dn = v[12]! * ux + v[13]! * uy + v[14]! * uz;
      let nx = v[12]! - dn * ux, ny = v[13]! - dn * uy, nz = v[14]! - dn * uz;
      let nl = Math.sqrt(nx * nx + ny * ny + nz * nz);
      if (!(nl > 1e-9)) { v[18] = ux; v[19] = uy; v[20] = uz; perpendicular(v, 12, v, 18); nx = v[12]!; ny = v[13]!; nz = v[14]!; nl = 1; }
      v[12] = nx / nl; v[13] = ny / nl; v[14] = nz / nl;
      if (!independent && !found) {
        cache.normal[ci * 3] = v[12]!; cache.normal[ci * 3 + 1] = v[13]!; cache.normal[ci * 3 + 2] = v[14]!; cache.hasNormal[ci] = 1;
      }
    }

    let mean = 0;
    for (let i = 0; i < n; i++) mean += links.length[i]!;
    mean /= n;
    const delta = (shape?.delta ?? 0) * mean;
    const turn = ((shape?.turnDeg ?? 0) * Math.PI) / 180;
    if (sharesBones(cache, ci, links)) shared = true;
    triangleChain(cache.points, links.length, n, v, 0, v, 3, v, 12, delta, turn, cache.work);
    let finite = true;
    for (let i = 0; i <= 3 * n + 2; i++) if (!Number.isFinite(cache.points[i]!)) { finite = false; break; }
    if (!finite) { failed = true; continue; }
    const P = cache.points;
    const pass = beginPass(world, rig);
    for (let i = 0; i < n; i++) {
      const k = links.index[i]!;
      pass.mark[k] = AIM;
      pass.vec[k * 3] = links.local[i * 3]!; pass.vec[k * 3 + 1] = links.local[i * 3 + 1]!; pass.vec[k * 3 + 2] = links.local[i * 3 + 2]!;
      pass.dir[k * 3] = P[3 * i + 3]! - P[3 * i]!; pass.dir[k * 3 + 1] = P[3 * i + 4]! - P[3 * i + 1]!; pass.dir[k * 3 + 2] = P[3 * i + 5]! - P[3 * i + 2]!;
    }
    // hinges: twist each link so the next joint's hinge axis is the bend normal there
    for (let i = 0; i + 1 < n; i++) {
      const a = links.bones[i]!, b = links.bones[i + 1]!;
      if (world.physik.Bone.parent[b] !== a) continue;
      const k = links.index[i]!, j = links.index[i + 1]!;
      const ax = pass.dir[k * 3]!, ay = pass.dir[k * 3 + 1]!, az = pass.dir[k * 3 + 2]!;
      const bx = pass.dir[j * 3]!, by = pass.dir[j * 3 + 1]!, bz = pass.dir[j * 3 + 2]!;
      let nx = ay * bz - az * by, ny = az * bx - ax * bz, nz = ax * by - ay * bx;
      const nl = Math.sqrt(nx * nx + ny * ny + nz * nz);
      if (nl > 1e-9 * links.length[i]! * links.length[i + 1]!) { nx /= nl; ny /= nl; nz /= nl; } else { nx = v[12]!; ny = v[13]!; nz = v[14]!; }
      v[15] = nx; v[16] = ny; v[17] = nz;
      hingeTwist(world, pass, k, b, v, 15);
    }
    if (!endPass(world, rig, pass)) { failed = true; continue; }
    if (pass.clamped) {
      // a limit turned a link off the construction: build again with the limits inside it
      if (!buildWithinLimits(world, rig, cache, links, delta, turn)) failed = true;
      if (buildClamped) limitsMet = true;
    }
  }
  const status = closedFormStatus(world, rig, failed);
  setSolveNote(rig, 'triangle', status !== STATUS_STALLED ? '' : limitsMet ? NOTE_LIMITS : shared ? NOTE_SHARED : '');
  return solved(1, status);
}

/** Set by buildWithinLimits when a limit turned a link away from where the construction put it. */
let buildClamped = false;
const NOTE_LIMITS = 'the triangle construction put joints past their limits: built within them, the links below could not make up for it';
const NOTE_SHARED = 'goals whose chains share bones are solved one after another: the last one moves the shared bones';

/**
 * The chain built root first with its limits inside the construction: link i is aimed where
 * the triangle solution of links i..n−1, from link i's actual head to the target in the bend
 * plane, puts it (its next joint's hinge turned onto the plane), and clamped to its joint's
 * limits before link i + 1 is solved from where link i really ends. So every joint is within
 * its limits as it is placed, and the links below make up for what a limit took from the ones
 * above; a target the limits put out of reach is missed by the last links. Uses v[0..14] as
 * set by the caller (O, target, plane normal).
 */
function buildWithinLimits(world: PhysikWorld, rig: RigRecord, cache: TriangleCache, links: GoalLinks, delta: number, turn: number): boolean {
  const { Bone } = world.physik;
  buildClamped = false;
  const n = links.n, P = cache.points, sub = cache.sub;
  for (let i = 0; i < n; i++) {
    const m = n - i, bi = links.bones[i]!;
    for (let k = 0; k < m; k++) sub[k] = links.length[i + k]!;
    v[0] = Bone.head[bi * 3]!; v[1] = Bone.head[bi * 3 + 1]!; v[2] = Bone.head[bi * 3 + 2]!;
    triangleChain(P, sub, m, v, 0, v, 3, v, 12, delta, turn, cache.work);
    for (let k = 0; k < 3 * m + 3; k++) if (!Number.isFinite(P[k]!)) return false;
    const pass = beginPass(world, rig);
    const ki = links.index[i]!;
    pass.mark[ki] = AIM;
    pass.vec[ki * 3] = links.local[i * 3]!; pass.vec[ki * 3 + 1] = links.local[i * 3 + 1]!; pass.vec[ki * 3 + 2] = links.local[i * 3 + 2]!;
    pass.dir[ki * 3] = P[3]! - P[0]!; pass.dir[ki * 3 + 1] = P[4]! - P[1]!; pass.dir[ki * 3 + 2] = P[5]! - P[2]!;
    if (m >= 2 && Bone.parent[links.bones[i + 1]!] === bi) {
      // the next joint's hinge onto the bend normal there
      const ax = P[3]! - P[0]!, ay = P[4]! - P[1]!, az = P[5]! - P[2]!;
      const bx = P[6]! - P[3]!, by = P[7]! - P[4]!, bz = P[8]! - P[5]!;
      let nx = ay * bz - az * by, ny = az * bx - ax * bz, nz = ax * by - ay * bx;
      const nl = Math.sqrt(nx * nx + ny * ny + nz * nz);
      if (nl > 1e-9 * sub[0]! * sub[1]!) { nx /= nl; ny /= nl; nz /= nl; } else { nx = v[12]!; ny = v[13]!; nz = v[14]!; }
      v[15] = nx; v[16] = ny; v[17] = nz;
      hingeTwist(world, pass, ki, links.bones[i + 1]!, v, 15);
    }
    if (!endPass(world, rig, pass)) return false;
    if (pass.clamped) buildClamped = true;
  }
  return true;
}

/** Whether goal ci's chain shares a moving bone with an earlier active goal's chain. */
function sharesBones(cache: TriangleCache, ci: number, links: GoalLinks): boolean {
  for (let cj = 0; cj < ci; cj++) {
    const other = cache.links[cj];
    if (!other) continue;
    for (let a = 0; a < links.n; a++) for (let b = 0; b < other.n; b++) if (links.bones[a] === other.bones[b]) return true;
  }
  return false;
}

function poleOn(world: PhysikWorld, rig: RigRecord, b: number): number {
  const { ControlPoint } = world.physik;
  for (let i = 0; i < rig.controlPoints.length; i++) {
    const cp = rig.controlPoints[i]!;
    if (ControlPoint.active[cp] && ControlPoint.pole[cp] && ControlPoint.bone[cp] === b) return cp;
  }
  return -1;
}
