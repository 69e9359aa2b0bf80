/**
 * Reachable targets for the kinematic solvers' tests: the point a control point sits at when a
 * chain takes a random pose inside its limits (so a pose reaching it exists), and random
 * limited chains of 3 to 30 bones (rotors, one- and two-sided hinges, twist limits).
 */
import type { PhysikWorld } from '../../src/core';
import type { BoneDescription } from '../../src/scene/types';
import { rng, qAxisAngle, qMul, qRotate, norm, type Q, type V3 } from './helpers';

export const quatOf = (arr: ArrayLike<number>, e: number): Q => [arr[e * 4]!, arr[e * 4 + 1]!, arr[e * 4 + 2]!, arr[e * 4 + 3]!];

/**
 * The point control point `cp` sits at when the bones of `chain` (entity ids, root first, each
 * the parent of the next) take joint rotation vectors drawn uniformly inside their limits (free
 * axes within ±1 rad; the root's rotation too unless `fixedRoot`), every other bone as it is.
 */
export function reachablePoint(world: PhysikWorld, chain: number[], cp: number, r: () => number, fixedRoot: boolean): V3 {
  const { Bone, AngularLimit, ControlPoint } = world.physik;
  let rot: Q = [0, 0, 0, 1];
  let head: V3 = [0, 0, 0];
  for (let k = 0; k < chain.length; k++) {
    const b = chain[k]!;
    const phi: V3 = [0, 0, 0];
    for (let a = 0; a < 3; a++) {
      const on = k > 0 && AngularLimit.enabled[b * 3 + a] === 1;
      const lo = on ? AngularLimit.min[b * 3 + a]! : -1, hi = on ? AngularLimit.max[b * 3 + a]! : 1;
      phi[a] = k === 0 && fixedRoot ? 0 : lo + (hi - lo) * r();
    }
    const angle = norm(phi);
    const e: Q = angle > 0 ? qAxisAngle(phi, angle) : [0, 0, 0, 1];
    if (k === 0) {
      // the root: from its rotation now (its rest frame for the limits is not used)
      rot = qMul(quatOf(Bone.rot, b), e);
      head = [Bone.head[b * 3]!, Bone.head[b * 3 + 1]!, Bone.head[b * 3 + 2]!];
    } else {
      const a = qRotate(rot, [Bone.attach[b * 3]!, Bone.attach[b * 3 + 1]!, Bone.attach[b * 3 + 2]!]);
      head = [head[0] + a[0], head[1] + a[1], head[2] + a[2]];
      rot = qMul(qMul(rot, quatOf(Bone.restLocal, b)), e);
    }
  }
  const last = chain[chain.length - 1]!;
  const p = qRotate(rot, [ControlPoint.offset[cp * 3]!, ControlPoint.at[cp]! * Bone.length[last]! + ControlPoint.offset[cp * 3 + 1]!, ControlPoint.offset[cp * 3 + 2]!]);
  return [head[0] + p[0], head[1] + p[1], head[2] + p[2]];
}

/** Bone entity ids from the root down to `bone`. */
export function chainTo(world: PhysikWorld, bone: number): number[] {
  const out: number[] = [];
  for (let b = bone; b >= 0; b = world.physik.Bone.parent[b]!) out.unshift(b);
  return out;
}

export const lengthOf = (world: PhysikWorld, chain: number[]) => chain.reduce((s, b) => s + world.physik.Bone.length[b]!, 0);

export type Limits = NonNullable<BoneDescription['limits']>;

/**
 * A pinned chain of 3 to 30 bones, lengths 0.5 to 1.5, each leaning off its parent by up to
 * ~17° at rest. Joints (the root is free): a rotor half the time (x and z each from −10..−90° to
 * 10..90°, twist ±0..30°), a hinge a quarter (about x or z, one-sided like a knee or two-sided,
 * 10 to 120° each way; the other axes locked), a rotor with free twist a tenth, free otherwise.
 */
export function randomChain(seed: number): { bones: BoneDescription[]; r: () => number } {
  const r = rng(seed);
  const n = 3 + Math.floor(r() * 28);
  const bones: BoneDescription[] = [];
  const span = () => 10 + r() * 80;
  for (let i = 0; i < n; i++) {
    const b: BoneDescription = { name: `b${i}`, parent: i === 0 ? null : `b${i - 1}`, direction: [(2 * r() - 1) * 0.3, 1, (2 * r() - 1) * 0.3], length: 0.5 + r() };
    if (i === 0) b.head = [0, 0, 0];
    else {
      const kind = r();
      let limits: Limits | undefined;
      if (kind < 0.5) {
        const t = r() * 30;
        limits = { x: [-span(), span()], z: [-span(), span()], y: [-t, t] };
      } else if (kind < 0.75) {
        const lo = r() < 0.5 ? 0 : -(10 + r() * 110);
        const hi = lo === 0 ? 10 + r() * 110 : r() < 0.5 ? 0 : 10 + r() * 110;
        limits = r() < 0.5 ? { x: [lo, hi], y: [0, 0], z: [0, 0] } : { x: [0, 0], y: [0, 0], z: [lo, hi] };
      } else if (kind < 0.85) {
        limits = { x: [-span(), span()], z: [-span(), span()] };
      }
      if (limits) b.limits = limits;
    }
    bones.push(b);
  }
  return { bones, r };
}

