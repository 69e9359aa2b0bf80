/**
 * The goal tree: a rig's bones in depth-first order with their goals, the scratch the CCD and
 * Jacobian solvers (ccd.ts, jacobian.ts) share. Goals are the active non-pole control points,
 * sorted by the depth-first index of their bone, so the goals below a bone are one contiguous
 * range; `goalErrors` measures their attachments against their targets. The scratch is made
 * once per rig (a WeakMap by rig record) and rebuilt only when the control points change, so a
 * solve allocates nothing.
 */
import type { PhysikWorld, RigRecord } from '../../src/world/world';
import type { Doubles } from '../../components/doubles';

/** Angle of the colinear bump (radians): small, but large enough to start a bend in a few iterations. */
export const BUMP = 0.05;

export interface IkRig {
  n: number;
  /** rig.controlPointsVersion this was built for. */
  version: number;
  /** Depth-first index of the parent, -1 for the root. */
  parentIndex: Int32Array;
  /** Subtree of bone i is [i, subtreeEnd[i]) in depth-first order. */
  subtreeEnd: Int32Array;
  /** Depth-first bone index of each control point (rig.controlPoints order). */
  cpBone: Int32Array;
  /** This step's goals, in depth-first order of their bones: control point entity, bone index. */
  goalCp: Int32Array;
  goalBone: Int32Array;
  goalCount: number;
  /** Local rotation per bone (parent⁻¹ · world; the root's is its world rotation). */
  local: Float64Array;
  /** Pose at the start of the solve (restored if anything goes non-finite). */
  startRot: Float64Array;
  startCentre: Float64Array;
  /** Goal attachment points this iteration (3 per goal). */
  effector: Float64Array;
  /** Σ |target − attachment|² over the goals, and the largest distance (NaN if non-finite), from the last goalErrors. */
  sumSq: number;
  worst: number;
  /** Lengths below this count as zero (1e-12 × the rig's height), set by the solver each solve. */
  tiny: number;
  /** Pose before the current iteration (undone when an iteration makes things worse). */
  keepRot: Float64Array;
  keepLocal: Float64Array;
  /** 1 on bones that are on a goal's chain (the goal's bone or an ancestor). */
  mark: Uint8Array;
  /**
   * The world's store arrays this solve works on, read once per solve (ikRig): the Bone store
   * has more fields than V8 keeps as fast properties, so every `Bone.x` is a dictionary lookup,
   * and the solvers' inner loops read them per bone and iteration.
   */
  rot: Doubles; head: Doubles; centre: Doubles; length: Doubles;
  restWorld: Doubles; restLocal: Doubles; parent: Int32Array;
  enabled: Uint8Array; lmin: Doubles; lmax: Doubles;
  effective: Doubles; cpBoneEntity: Int32Array; cpAt: Doubles; cpOffset: Doubles;
}

const rigScratch = new WeakMap<RigRecord, IkRig>();

/** The scratch of a rig, built on first use (topology is fixed once a rig is added); its array references refreshed. */
export function ikRig(world: PhysikWorld, rig: RigRecord): IkRig {
  let T = rigScratch.get(rig);
  if (!T || T.n !== rig.bones.length || T.version !== rig.controlPointsVersion) T = buildIkRig(world, rig);
  const { Bone, ControlPoint, AngularLimit } = world.physik;
  T.rot = Bone.rot; T.head = Bone.head; T.centre = Bone.centre; T.length = Bone.length;
  T.restWorld = Bone.restWorld; T.restLocal = Bone.restLocal; T.parent = Bone.parent;
  T.enabled = AngularLimit.enabled; T.lmin = AngularLimit.min; T.lmax = AngularLimit.max;
  T.effective = ControlPoint.effective; T.cpBoneEntity = ControlPoint.bone; T.cpAt = ControlPoint.at; T.cpOffset = ControlPoint.offset;
  return T;
}

function buildIkRig(world: PhysikWorld, rig: RigRecord): IkRig {
  const { Bone, ControlPoint, AngularLimit } = world.physik;
  const n = rig.bones.length;
  const index = new Map<number, number>();
  for (let i = 0; i < n; i++) index.set(rig.bones[i]!, i);
  const parentIndex = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const p = Bone.parent[rig.bones[i]!]!;
    parentIndex[i] = p < 0 ? -1 : index.get(p)!;
  }
  const subtreeEnd = new Int32Array(n);
  for (let i = 0; i < n; i++) subtreeEnd[i] = i + 1;
  for (let i = n - 1; i > 0; i--) {
    const p = parentIndex[i]!;
    if (subtreeEnd[i]! > subtreeEnd[p]!) subtreeEnd[p] = subtreeEnd[i]!;
  }
  const nc = rig.controlPoints.length;
  const cpBone = new Int32Array(nc);
  for (let c = 0; c < nc; c++) cpBone[c] = index.get(ControlPoint.bone[rig.controlPoints[c]!]!) ?? 0;
  const T: IkRig = {
    n, version: rig.controlPointsVersion, parentIndex, subtreeEnd, cpBone,
    goalCp: new Int32Array(nc), goalBone: new Int32Array(nc), goalCount: 0,
    local: new Float64Array(n * 4), startRot: new Float64Array(n * 4), startCentre: new Float64Array(3),
    effector: new Float64Array(Math.max(1, nc) * 3),
    mark: new Uint8Array(n),
    sumSq: 0, worst: 0, tiny: 0, keepRot: new Float64Array(n * 4), keepLocal: new Float64Array(n * 4),
    rot: Bone.rot, head: Bone.head, centre: Bone.centre, length: Bone.length,
    restWorld: Bone.restWorld, restLocal: Bone.restLocal, parent: Bone.parent,
    enabled: AngularLimit.enabled, lmin: AngularLimit.min, lmax: AngularLimit.max,
    effective: ControlPoint.effective, cpBoneEntity: ControlPoint.bone, cpAt: ControlPoint.at, cpOffset: ControlPoint.offset,
  };
  rigScratch.set(rig, T);
  return T;
}

/** Active, non-pole control points sorted (stably) by the depth-first index of their bone. */
export function collectGoals(world: PhysikWorld, rig: RigRecord, T: IkRig): number {
  const { ControlPoint } = world.physik;
  let g = 0;
  for (let c = 0; c < rig.controlPoints.length; c++) {
    const cp = rig.controlPoints[c]!;
    if (!ControlPoint.active[cp] || ControlPoint.pole[cp]) continue;
    const bone = T.cpBone[c]!;
    let k = g++;
    while (k > 0 && T.goalBone[k - 1]! > bone) {
      T.goalBone[k] = T.goalBone[k - 1]!; T.goalCp[k] = T.goalCp[k - 1]!; k--;
    }
    T.goalBone[k] = bone; T.goalCp[k] = cp;
  }
  T.goalCount = g;
  return g;
}

/** T.mark ← 1 on every bone that is a goal's bone or an ancestor of one. */
export function markChains(T: IkRig): void {
  T.mark.fill(0);
  for (let g = 0; g < T.goalCount; g++) {
    for (let i = T.goalBone[g]!; i >= 0 && !T.mark[i]; i = T.parentIndex[i]!) T.mark[i] = 1;
  }
}

/** True when every goal's effective target is finite. */
export function goalsFinite(world: PhysikWorld, T: IkRig): boolean {
  const eff = T.effective;
  for (let g = 0; g < T.goalCount; g++) {
    const c3 = T.goalCp[g]! * 3;
    if (!Number.isFinite(eff[c3]!) || !Number.isFinite(eff[c3 + 1]!) || !Number.isFinite(eff[c3 + 2]!)) return false;
  }
  return true;
}

/**
 * Attachment points of all goals into T.effector; the largest distance to a target (NaN if
 * non-finite) into T.worst and Σ|e|² into T.sumSq (fields, not a returned number: V8 boxes a
 * returned double, an allocation per call).
 */
export function goalErrors(world: PhysikWorld, T: IkRig): void {
  const eff = T.effective, rot = T.rot, head = T.head, effector = T.effector;
  let worst = 0, sum = 0;
  for (let g = 0; g < T.goalCount; g++) {
    const cp = T.goalCp[g]!, c3 = cp * 3, g3 = g * 3;
    {
      // attachmentPoint (src/world/attachment.ts) written out over T's arrays, the same arithmetic:
      // head + at·(tail − head) + R·offset, as head + R (offset + (0, at·L, 0))
      const b = T.cpBoneEntity[cp]!, q = b * 4, b3 = b * 3;
      const x = rot[q]!, y = rot[q + 1]!, z = rot[q + 2]!, w = rot[q + 3]!;
      const vx = T.cpOffset[c3]!, vy = T.cpAt[cp]! * T.length[b]! + T.cpOffset[c3 + 1]!, vz = T.cpOffset[c3 + 2]!;
      const tx = 2 * (y * vz - z * vy), ty = 2 * (z * vx - x * vz), tz = 2 * (x * vy - y * vx);
      effector[g3] = head[b3]! + vx + w * tx + (y * tz - z * ty);
      effector[g3 + 1] = head[b3 + 1]! + vy + w * ty + (z * tx - x * tz);
      effector[g3 + 2] = head[b3 + 2]! + vz + w * tz + (x * ty - y * tx);
    }
    const dx = eff[c3]! - effector[g3]!, dy = eff[c3 + 1]! - effector[g3 + 1]!, dz = eff[c3 + 2]! - effector[g3 + 2]!;
    const d2 = dx * dx + dy * dy + dz * dz, d = Math.sqrt(d2);
    sum += d2;
    if (!(d <= worst)) worst = d; // NaN propagates
  }
  T.sumSq = sum;
  T.worst = worst;
}

/** Column a of the rotation matrix of quaternion q[o] (the frame's axis a in world), to out[oo]. */
export function frameAxis(q: Doubles, o: number, a: number, out: Doubles, oo: number): void {
  const x = q[o]!, y = q[o + 1]!, z = q[o + 2]!, w = q[o + 3]!;
  if (a === 0) { out[oo] = 1 - 2 * (y * y + z * z); out[oo + 1] = 2 * (x * y + z * w); out[oo + 2] = 2 * (x * z - y * w); }
  else if (a === 1) { out[oo] = 2 * (x * y - z * w); out[oo + 1] = 1 - 2 * (x * x + z * z); out[oo + 2] = 2 * (y * z + x * w); }
  else { out[oo] = 2 * (x * z + y * w); out[oo + 1] = 2 * (y * z - x * w); out[oo + 2] = 1 - 2 * (x * x + y * y); }
}

/** restartMask's result: 1 for each bone (depth-first index) a restart turns. */
export let restartBones = new Uint8Array(0);

/**
 * Restarts of CCD and the Jacobian solvers: the bones a restart turns are those on the chains of
 * goals missed by more than `tol` (T.effector against the targets) and on no chain of a goal
 * already met, so a restart does not undo the goals that were reached (with four limbs' goals,
 * turning every chain at once rarely met all four); every chain bone (`mark`) when that leaves
 * none. Into restartBones.
 */
export function restartMask(T: IkRig, mark: Uint8Array, tol: number): void {
  if (restartBones.length < T.n) restartBones = new Uint8Array(Math.max(T.n, 2 * restartBones.length));
  const out = restartBones, eff = T.effective, E = T.effector;
  out.fill(0, 0, T.n);
  // 1: on a missed goal's chain; 2: on a met goal's chain (wins)
  for (let pass = 0; pass < 2; pass++) {
    for (let g = 0; g < T.goalCount; g++) {
      const c3 = T.goalCp[g]! * 3, g3 = g * 3;
      const dx = eff[c3]! - E[g3]!, dy = eff[c3 + 1]! - E[g3 + 1]!, dz = eff[c3 + 2]! - E[g3 + 2]!;
      const missed = !(dx * dx + dy * dy + dz * dz <= tol * tol);
      if (missed !== (pass === 0)) continue;
      for (let i = T.goalBone[g]!; i >= 0; i = T.parentIndex[i]!) out[i] = pass + 1;
    }
  }
  let any = false;
  for (let i = 1; i < T.n; i++) { if (out[i] === 1 && mark[i]) any = true; out[i] = out[i] === 1 ? 1 : 0; }
  if (!any) for (let i = 1; i < T.n; i++) out[i] = mark[i]!;
}
