/**
 * A clip (SourceMotion) on a rig: every rig bone's rotation relative to its parent bone and the
 * root's head, per frame (a PoseTrack, what systems/poseTargets.ts plays).
 *
 * Which joint moves a bone: the joint the importer says the bone carries (the deepest one when
 * several were merged into it, whose children the bone reaches), else the joint of the bone's
 * name; a bone with neither (a connector the importer added) moves rigidly with its parent's.
 * A bone turns with its joint from the rest pose: Q_bone(t) = U R_joint(t) R_joint,rest⁻¹ U⁻¹
 * Q_bone,rest, so any rest frame the importer gave the bone (its own +Y along the bone) is kept.
 *
 * The clip's axes and units to the rig's: the importer may have scaled the file and turned it
 * from Z-up to Y-up. Rather than assume its options, the rest positions of the joints named like
 * bones are fitted to the bones' rest heads: a scale s, a turn U (none, or Z-up to Y-up) and an
 * offset, whichever turn fits best. A fit worse than 1% of the rig's height means the clip is
 * not of this rig's skeleton: an error naming the worst joint.
 */
import type { PhysikWorld } from '../core';
import { findRig, type RigRecord } from '../world/world';
import type { PoseTrack } from '../../components/PoseDrive';
import type { SourceMotion } from './source';
import { quatMul as mul } from '../math/quat';

export interface BoundClip {
  track: PoseTrack;
  /** Per rig bone (depth-first): the clip joint moving it. */
  carriers: string[];
  /** The fitted map from the clip's space to the rig's: scale, turn ('y' none, 'z' Z-up to Y-up), residual ÷ height. */
  fit: { scale: number; up: 'y' | 'z'; residual: number };
  notes: string[];
}

/** The rig's rest heads (root at its pin) and world rotations, depth-first. */
export function restPose(world: PhysikWorld, rig: RigRecord): { heads: Float64Array; rots: Float64Array } {
  const { Bone, Rig } = world.physik;
  const n = rig.bones.length;
  const heads = new Float64Array(n * 3), rots = new Float64Array(n * 4);
  const index = new Map<number, number>();
  for (let i = 0; i < n; i++) {
    const b = rig.bones[i]!;
    index.set(b, i);
    for (let c = 0; c < 4; c++) rots[i * 4 + c] = Bone.restWorld[b * 4 + c]!;
    const p = Bone.parent[b]!;
    if (p < 0) {
      for (let c = 0; c < 3; c++) heads[c] = Rig.pin[rig.eid * 3 + c]!;
      continue;
    }
    const pi = index.get(p)!;
    const x = rots[pi * 4]!, y = rots[pi * 4 + 1]!, z = rots[pi * 4 + 2]!, w = rots[pi * 4 + 3]!;
    const vx = Bone.attach[b * 3]!, vy = Bone.attach[b * 3 + 1]!, vz = Bone.attach[b * 3 + 2]!;
    const tx = 2 * (y * vz - z * vy), ty = 2 * (z * vx - x * vz), tz = 2 * (x * vy - y * vx);
    heads[i * 3] = heads[pi * 3]! + vx + w * tx + (y * tz - z * ty);
    heads[i * 3 + 1] = heads[pi * 3 + 1]! + vy + w * ty + (z * tx - x * tz);
    heads[i * 3 + 2] = heads[pi * 3 + 2]! + vz + w * tz + (x * ty - y * tx);
  }
  return { heads, rots };
}

type V = [number, number, number];
const turnY = (p: V): V => p;
const turnZ = (p: V): V => [p[0], p[2], -p[1]];
/** The turn (x, y, z) → (x, z, −y) as a quaternion: −90° about X. */
const QZ = [-Math.SQRT1_2, 0, 0, Math.SQRT1_2] as const;

function conj(out: Float64Array, o: number, a: ArrayLike<number>, ao: number): void {
  out[o] = -a[ao]!; out[o + 1] = -a[ao + 1]!; out[o + 2] = -a[ao + 2]!; out[o + 3] = a[ao + 3]!;
}
function rotate(q: ArrayLike<number>, qo: number, v: V): V {
  const x = q[qo]!, y = q[qo + 1]!, z = q[qo + 2]!, w = q[qo + 3]!;
  const tx = 2 * (y * v[2] - z * v[1]), ty = 2 * (z * v[0] - x * v[2]), tz = 2 * (x * v[1] - y * v[0]);
  return [v[0] + w * tx + (y * tz - z * ty), v[1] + w * ty + (z * tx - x * tz), v[2] + w * tz + (x * ty - y * tx)];
}

/** Bind a clip to rig `rig` of the world (see the header). Throws naming what does not match. */
export function bindClip(world: PhysikWorld, rig: number, source: SourceMotion): BoundClip {
  const record = findRig(world, rig);
  const { Rig } = world.physik;
  const n = record.bones.length, J = source.joints.length;
  const names = record.boneNames;
  const notes: string[] = [];
  // joint depth (parents come first)
  const depth = new Int32Array(J);
  for (let j = 0; j < J; j++) {
    const p = source.joints[j]!.parent;
    if (p >= j) throw new Error(`clip "${source.name}": joint ${j} "${source.joints[j]!.name}" comes before its parent ${p}`);
    depth[j] = p < 0 ? 0 : depth[p]! + 1;
  }
  const byBone = new Map<string, number>(), byName = new Map<string, number>();
  source.joints.forEach((jt, j) => {
    byName.set(jt.name, j);
    if (jt.bone !== undefined) {
      const had = byBone.get(jt.bone);
      if (had === undefined || depth[j]! > depth[had]!) byBone.set(jt.bone, j);
    }
  });
  const index = new Map<number, number>();
  record.bones.forEach((b, i) => index.set(b, i));
  const carrier = new Int32Array(n).fill(-1);
  let matched = 0;
  for (let i = 0; i < n; i++) {
    const c = byBone.get(names[i]!) ?? byName.get(names[i]!);
    if (c !== undefined) { carrier[i] = c; matched++; continue; }
    const p = world.physik.Bone.parent[record.bones[i]!]!;
    carrier[i] = p < 0 ? -1 : carrier[index.get(p)!]!;
  }
  if (carrier[0]! < 0) {
    throw new Error(`clip "${source.name}" does not fit rig "${record.name}": no joint moves its root bone "${names[0]}" (clip joints: ${source.joints.slice(0, 8).map((j) => j.name).join(', ')}${J > 8 ? ', ...' : ''})`);
  }
  if (matched < n) notes.push(`${n - matched} of ${n} bones have no joint of their own in the clip and move with their parent`);

  // fit the clip's rest positions to the rig's rest heads
  const rest = restPose(world, record);
  const pairs: { i: number; j: number }[] = [];
  for (let i = 0; i < n; i++) {
    const j = byName.get(names[i]!);
    if (j !== undefined) pairs.push({ i, j });
  }
  const height = Rig.height[rig]! > 0 ? Rig.height[rig]! : 1;
  const P = (j: number): V => [source.restPositions[j * 3]!, source.restPositions[j * 3 + 1]!, source.restPositions[j * 3 + 2]!];
  const H = (i: number): V => [rest.heads[i * 3]!, rest.heads[i * 3 + 1]!, rest.heads[i * 3 + 2]!];
  let best: { up: 'y' | 'z'; s: number; t: V; residual: number; worst: number } | undefined;
  for (const up of ['y', 'z'] as const) {
    const turn = up === 'y' ? turnY : turnZ;
    const pm: V = [0, 0, 0], hm: V = [0, 0, 0];
    for (const { i, j } of pairs) {
      const p = turn(P(j)), h = H(i);
      for (let c = 0; c < 3; c++) { pm[c]! += p[c]! / pairs.length; hm[c]! += h[c]! / pairs.length; }
    }
    let num = 0, den = 0;
    for (const { i, j } of pairs) {
      const p = turn(P(j)), h = H(i);
      for (let c = 0; c < 3; c++) { num += (p[c]! - pm[c]!) * (h[c]! - hm[c]!); den += (p[c]! - pm[c]!) ** 2; }
    }
    const s = pairs.length > 1 && den > 0 && num > 0 ? num / den : 1;
    const t: V = [hm[0] - s * pm[0], hm[1] - s * pm[1], hm[2] - s * pm[2]];
    let residual = 0, worst = -1;
    for (const { i, j } of pairs) {
      const p = turn(P(j)), h = H(i);
      const d = Math.hypot(s * p[0] + t[0] - h[0], s * p[1] + t[1] - h[1], s * p[2] + t[2] - h[2]);
      if (d > residual) { residual = d; worst = i; }
    }
    if (!best || residual < best.residual) best = { up, s, t, residual, worst };
  }
  const fit = best!;
  if (fit.residual > 0.01 * height) {
    throw new Error(`clip "${source.name}" does not fit rig "${record.name}": joint "${names[fit.worst]}" sits ${(fit.residual / height * 100).toPrecision(3)}% of the rig's height from its bone's head at rest (at most 1%): the clip is of another skeleton`);
  }
  if (Math.abs(fit.s - 1) > 1e-9) notes.push(`clip scaled by ${Number(fit.s.toPrecision(6))} to the rig's units`);
  if (fit.up === 'z') notes.push('clip turned from Z-up to Y-up');

  // the track
  const F = source.frameCount;
  const U = new Float64Array(fit.up === 'z' ? QZ : [0, 0, 0, 1]);
  const Ui = new Float64Array(4); conj(Ui, 0, U, 0);
  // per bone: B_i = R_rest,J⁻¹ U⁻¹ Q_rest,i, so Q_i(t) = U R_J(t) B_i
  const Bq = new Float64Array(n * 4), tmp = new Float64Array(4);
  for (let i = 0; i < n; i++) {
    conj(tmp, 0, source.restRotations, carrier[i]! * 4);
    mul(tmp, 0, tmp, 0, Ui, 0);
    mul(Bq, i * 4, tmp, 0, rest.rots, i * 4);
  }
  const parentIndex = Array.from(record.bones, (b) => { const p = world.physik.Bone.parent[b]!; return p < 0 ? -1 : index.get(p)!; });
  // the root's rest head in the clip's space, relative to its joint's rest frame
  const r = carrier[0]!;
  const h0 = H(0);
  const turnInv = (p: V): V => (fit.up === 'z' ? [p[0], -p[2], p[1]] : p);
  const h0src = turnInv([(h0[0] - fit.t[0]) / fit.s, (h0[1] - fit.t[1]) / fit.s, (h0[2] - fit.t[2]) / fit.s]);
  conj(tmp, 0, source.restRotations, r * 4);
  const lever = rotate(tmp, 0, [h0src[0] - source.restPositions[r * 3]!, h0src[1] - source.restPositions[r * 3 + 1]!, h0src[2] - source.restPositions[r * 3 + 2]!]);
  const track: PoseTrack = { fps: source.fps, frameCount: F, bones: n, local: new Float64Array(F * n * 4), rootHead: new Float64Array(F * 3) };
  const world4 = new Float64Array(n * 4), local = new Float64Array(4);
  for (let f = 0; f < F; f++) {
    for (let i = 0; i < n; i++) {
      mul(tmp, 0, U, 0, source.rotations, (f * J + carrier[i]!) * 4);
      mul(world4, i * 4, tmp, 0, Bq, i * 4);
      const p = parentIndex[i]!;
      if (p < 0) local.set(world4.subarray(i * 4, i * 4 + 4));
      else { conj(tmp, 0, world4, p * 4); mul(local, 0, tmp, 0, world4, i * 4); }
      // continuous signs from frame to frame
      const o = (f * n + i) * 4;
      if (f > 0) {
        const prev = ((f - 1) * n + i) * 4;
        const d = local[0]! * track.local[prev]! + local[1]! * track.local[prev + 1]! + local[2]! * track.local[prev + 2]! + local[3]! * track.local[prev + 3]!;
        if (d < 0) for (let c = 0; c < 4; c++) local[c] = -local[c]!;
      }
      track.local.set(local, o);
    }
    // root head: the clip joint's position plus its turned lever, in the rig's space
    const a = rotate(source.rotations, (f * J + r) * 4, lever);
    const p = turn3(fit.up, [source.positions[(f * J + r) * 3]! + a[0], source.positions[(f * J + r) * 3 + 1]! + a[1], source.positions[(f * J + r) * 3 + 2]! + a[2]]);
    track.rootHead[f * 3] = fit.s * p[0] + fit.t[0];
    track.rootHead[f * 3 + 1] = fit.s * p[1] + fit.t[1];
    track.rootHead[f * 3 + 2] = fit.s * p[2] + fit.t[2];
  }
  for (let k = 0; k < track.local.length; k++) {
    if (!Number.isFinite(track.local[k]!)) throw new Error(`clip "${source.name}": frame ${Math.floor(k / (n * 4))} has a rotation that is not finite`);
  }
  for (let k = 0; k < track.rootHead.length; k++) {
    if (!Number.isFinite(track.rootHead[k]!)) throw new Error(`clip "${source.name}": frame ${Math.floor(k / 3)} has a root position that is not finite`);
  }
  return { track, carriers: Array.from(carrier, (c) => source.joints[c]!.name), fit: { scale: fit.s, up: fit.up, residual: fit.residual / height }, notes };
}

function turn3(up: 'y' | 'z', p: V): V {
  return up === 'z' ? turnZ(p) : p;
}
