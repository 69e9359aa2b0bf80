/**
 * Goal chains: the links from the root to a goal that the closed-form and particle solvers
 * (twoBone, triangle, bezier, massSpring) reach with, with joints locked on every axis folded
 * into their parent's link; a goal's attachment in its bone's frame; the largest goal error
 * and the status of a closed-form solve; bone and control point names for messages.
 */
import type { PhysikWorld, RigRecord } from '../../src/world/world';
import { STATUS_CONVERGED, STATUS_DIVERGED, STATUS_STALLED } from '../../components/Rig';
import { quatFromAxisAngle, quatMul, quatRotate } from '../../src/math/quat';
import { attachmentPoint } from '../../src/world/attachment';

const EPS = 1e-12;
const hv = new Float64Array(3); // scratch (a vector)

/** The goal's attachment in bone cp's frame: (offset x, at·L + offset y, offset z), into out[o]. */
export function effectorLocal(world: PhysikWorld, cp: number, out: Float64Array, o: number): void {
  const { Bone, ControlPoint } = world.physik;
  const b = ControlPoint.bone[cp]!, c3 = cp * 3;
  out[o] = ControlPoint.offset[c3]!;
  out[o + 1] = ControlPoint.at[cp]! * Bone.length[b]! + ControlPoint.offset[c3 + 1]!;
  out[o + 2] = ControlPoint.offset[c3 + 2]!;
}

/**
 * The largest distance of an active goal's attachment to its effective target (NaN if
 * non-finite), into maxGoalErrorOut[0]: a returned double would be boxed, an allocation per call.
 */
export const maxGoalErrorOut = new Float64Array(1);
export function maxGoalError(world: PhysikWorld, rig: RigRecord): void {
  const { ControlPoint } = world.physik;
  let worst = 0;
  for (let i = 0; i < rig.controlPoints.length; i++) {
    const cp = rig.controlPoints[i]!;
    if (!ControlPoint.active[cp] || ControlPoint.pole[cp]) continue;
    attachmentPoint(world, cp, hv, 0);
    const c3 = cp * 3;
    const ex = hv[0]! - ControlPoint.effective[c3]!, ey = hv[1]! - ControlPoint.effective[c3 + 1]!, ez = hv[2]! - ControlPoint.effective[c3 + 2]!;
    const e = Math.sqrt(ex * ex + ey * ey + ez * ez);
    if (!(e <= worst)) worst = e; // NaN propagates as "worst"
  }
  maxGoalErrorOut[0] = worst;
}

/** Status of a closed-form solve: converged within tolerance, else stalled; diverged if something was not finite. */
export function closedFormStatus(world: PhysikWorld, rig: RigRecord, failed: boolean): number {
  if (failed) return STATUS_DIVERGED;
  const tol = rig.settings.ikTolerance * world.physik.Rig.height[rig.eid]!;
  maxGoalError(world, rig);
  const e = maxGoalErrorOut[0]!;
  if (!Number.isFinite(e)) return STATUS_DIVERGED;
  return e <= tol ? STATUS_CONVERGED : STATUS_STALLED;
}

/** Name of a control point for messages. */
export function controlPointName(rig: RigRecord, cp: number): string {
  const i = rig.controlPoints.indexOf(cp);
  return i >= 0 ? rig.controlPointNames[i]! : `#${cp}`;
}

/** Name of a bone for messages. */
export function boneName(rig: RigRecord, b: number): string {
  const i = rig.bones.indexOf(b);
  return i >= 0 ? rig.boneNames[i]! : `#${b}`;
}

/**
 * The links of the chain from the root to a goal: bones whose rotation moves the goal, each
 * with its link vector in its own frame (to the next chain bone's head; the last one to the
 * goal's attachment, or with `toParent` the chain ends at the goal bone's parent and the last
 * link reaches the goal bone's head). Zero-length links are left out (those bones are carried).
 * A bone whose joint is locked on all three axes (min = max) cannot turn relative to its
 * parent: its link is folded into its parent's link (through the locked rotation), or, when
 * nothing above it moves in this chain, it is left out (fixed), so chains start at the first
 * bone that can move. `chain` lists every bone of the chain root first; `index` holds the
 * links' depth-first indices.
 */
export interface GoalLinks { n: number; bones: Int32Array; index: Int32Array; local: Float64Array; length: Float64Array; chain: Int32Array; goalIndex: number }

/** Whether bone b's joint is locked on all three axes. */
export function isLocked(world: PhysikWorld, b: number): boolean {
  const { AngularLimit, Bone } = world.physik;
  if (Bone.parent[b]! < 0) return false;
  for (let a = 0; a < 3; a++) {
    if (!AngularLimit.enabled[b * 3 + a] || AngularLimit.max[b * 3 + a]! - AngularLimit.min[b * 3 + a]! > 1e-9) return false;
  }
  return true;
}

export function goalLinks(world: PhysikWorld, rig: RigRecord, cp: number, toParent: boolean): GoalLinks {
  const { Bone, ControlPoint, AngularLimit } = world.physik;
  const B = ControlPoint.bone[cp]!;
  const chain: number[] = [];
  for (let b = toParent ? Bone.parent[B]! : B; b >= 0; b = Bone.parent[b]!) chain.push(b);
  chain.reverse();
  const bones: number[] = [], local: number[] = [];
  // per chain position: the link it belongs to (-1: not moved by this chain), and its rotation relative to that link's bone
  const foldInto: number[] = [];
  const foldRot: Float64Array[] = [];
  const q = new Float64Array(4), r = new Float64Array(4), vec = new Float64Array(3);
  for (let i = 0; i < chain.length; i++) {
    const b = chain[i]!;
    const next = i + 1 < chain.length ? chain[i + 1]! : toParent ? B : -1;
    if (next >= 0) { vec[0] = Bone.attach[next * 3]!; vec[1] = Bone.attach[next * 3 + 1]!; vec[2] = Bone.attach[next * 3 + 2]!; } else effectorLocal(world, cp, vec, 0);
    const parentPos = i - 1;
    let into = -1;
    let rel = new Float64Array([0, 0, 0, 1]);
    let regular = true;
    if (isLocked(world, b) && parentPos >= 0) {
      regular = false;
      const pb = chain[parentPos]!;
      const k = bones.length > 0 && bones[bones.length - 1] === pb ? bones.length - 1 : -1;
      // locked rotation relative to the parent: restLocal · exp(φ0)
      const b3 = b * 3;
      const px = AngularLimit.min[b3]!, py = AngularLimit.min[b3 + 1]!, pz = AngularLimit.min[b3 + 2]!;
      const ang = Math.sqrt(px * px + py * py + pz * pz);
      if (ang > 0) quatFromAxisAngle(q, 0, px / ang, py / ang, pz / ang, ang); else { q[0] = 0; q[1] = 0; q[2] = 0; q[3] = 1; }
      quatMul(q, 0, Bone.restLocal, b * 4, q, 0);
      if (k >= 0) { into = k; rel = Float64Array.from(q); } else if (foldInto[parentPos]! >= 0) {
        into = foldInto[parentPos]!; quatMul(r, 0, foldRot[parentPos]!, 0, q, 0); rel = Float64Array.from(r);
      } else if (bones.length === 0) {
        into = -1; // nothing above moves: fixed
      } else regular = true; // hangs from a free zero-length bone below a link: treat as a link
    }
    foldInto.push(regular ? -1 : into);
    foldRot.push(rel);
    const l = Math.sqrt(vec[0]! ** 2 + vec[1]! ** 2 + vec[2]! ** 2);
    if (!regular) {
      if (into >= 0 && l > EPS) {
        quatRotate(r, 0, rel, 0, vec[0]!, vec[1]!, vec[2]!);
        local[into * 3] = local[into * 3]! + r[0]!; local[into * 3 + 1] = local[into * 3 + 1]! + r[1]!; local[into * 3 + 2] = local[into * 3 + 2]! + r[2]!;
      }
      continue;
    }
    if (!(l > EPS)) continue;
    bones.push(b); local.push(vec[0]!, vec[1]!, vec[2]!);
  }
  const length = bones.map((_, i) => Math.sqrt(local[i * 3]! ** 2 + local[i * 3 + 1]! ** 2 + local[i * 3 + 2]! ** 2));
  // drop links that folding made zero
  const keep = bones.map((_, i) => length[i]! > EPS);
  const kb = bones.filter((_, i) => keep[i]), kl = local.filter((_, j) => keep[Math.floor(j / 3)]), kL = length.filter((_, i) => keep[i]);
  return {
    n: kb.length, bones: Int32Array.from(kb), index: Int32Array.from(kb, (b) => rig.bones.indexOf(b)),
    local: Float64Array.from(kl), length: Float64Array.from(kL), chain: Int32Array.from(chain), goalIndex: rig.bones.indexOf(B),
  };
}

/** Refresh the goal link (the last one, when the chain ends at the goal's attachment) from the control point. */
export function refreshEffectorLink(world: PhysikWorld, cp: number, links: GoalLinks): void {
  const n = links.n;
  if (n === 0 || links.bones[n - 1] !== world.physik.ControlPoint.bone[cp]) return;
  effectorLocal(world, cp, links.local, (n - 1) * 3);
  const x = links.local[(n - 1) * 3]!, y = links.local[(n - 1) * 3 + 1]!, z = links.local[(n - 1) * 3 + 2]!;
  links.length[n - 1] = Math.sqrt(x * x + y * y + z * z);
}
