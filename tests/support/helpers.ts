/**
 * Shared helpers for the unit tests: small rigs, a seeded PRNG, 3-vector maths on plain
 * arrays, and the pipeline's systems in order (so a test can stop after any of them).
 */
import { createPhysikWorld, addRig, type PhysikWorld, type RigHandle, type RigInput } from '../../src/core';
import type { BoneDescription, ControlPointDescription, Settings } from '../../src/scene/types';
import { scriptedTargets } from '../../systems/scriptedTargets';
import { targetInterpolation } from '../../systems/targetInterpolation';
import { damping } from '../../systems/damping';
import { controlSprings } from '../../systems/controlSprings';
import { torsionSprings } from '../../systems/torsionSprings';
import { interJointSolve } from '../../systems/interJointSolve';
import { mulberry32 } from '../../src/math/random';

export type V3 = [number, number, number];
export const DEG = Math.PI / 180;

// ---------- PRNG (deterministic) ----------

/** mulberry32 (src/math/random.ts): a small seeded PRNG returning numbers in [0, 1). */
export const rng = mulberry32;

/** Uniform in [-1, 1) per component. */
export function randVec(r: () => number, scale = 1): V3 {
  return [(2 * r() - 1) * scale, (2 * r() - 1) * scale, (2 * r() - 1) * scale];
}

// ---------- vectors ----------

export const add = (a: ArrayLike<number>, b: ArrayLike<number>): V3 => [a[0]! + b[0]!, a[1]! + b[1]!, a[2]! + b[2]!];
export const sub = (a: ArrayLike<number>, b: ArrayLike<number>): V3 => [a[0]! - b[0]!, a[1]! - b[1]!, a[2]! - b[2]!];
export const scale = (a: ArrayLike<number>, s: number): V3 => [a[0]! * s, a[1]! * s, a[2]! * s];
export const dot = (a: ArrayLike<number>, b: ArrayLike<number>): number => a[0]! * b[0]! + a[1]! * b[1]! + a[2]! * b[2]!;
export const cross = (a: ArrayLike<number>, b: ArrayLike<number>): V3 => [
  a[1]! * b[2]! - a[2]! * b[1]!,
  a[2]! * b[0]! - a[0]! * b[2]!,
  a[0]! * b[1]! - a[1]! * b[0]!,
];
export const norm = (a: ArrayLike<number>): number => Math.hypot(a[0]!, a[1]!, a[2]!);
export const dist = (a: ArrayLike<number>, b: ArrayLike<number>): number => norm(sub(a, b));
export const angleBetween = (a: ArrayLike<number>, b: ArrayLike<number>): number => Math.atan2(norm(cross(a, b)), dot(a, b));

/** 3-vector of entity e from a width-3 store. */
export const v3 = (arr: ArrayLike<number>, e: number): V3 => [arr[e * 3]!, arr[e * 3 + 1]!, arr[e * 3 + 2]!];

// 3×3 matrices as row-major number[9]
export type M3 = number[];
export const matVec = (m: M3, v: ArrayLike<number>): V3 => [
  m[0]! * v[0]! + m[1]! * v[1]! + m[2]! * v[2]!,
  m[3]! * v[0]! + m[4]! * v[1]! + m[5]! * v[2]!,
  m[6]! * v[0]! + m[7]! * v[1]! + m[8]! * v[2]!,
];
export const matMul = (a: M3, b: M3): M3 => {
  const out: M3 = new Array(9).fill(0);
  for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) for (let k = 0; k < 3; k++) out[i * 3 + j] = out[i * 3 + j]! + a[i * 3 + k]! * b[k * 3 + j]!;
  return out;
};
export const transpose = (a: M3): M3 => [a[0]!, a[3]!, a[6]!, a[1]!, a[4]!, a[7]!, a[2]!, a[5]!, a[8]!];
export const skew = (r: ArrayLike<number>): M3 => [0, -r[2]!, r[1]!, r[2]!, 0, -r[0]!, -r[1]!, r[0]!, 0];
/** Full matrix from the symmetric 6-vector (xx, xy, xz, yy, yz, zz). */
export const symFull = (s: ArrayLike<number>, o = 0): M3 => [
  s[o]!, s[o + 1]!, s[o + 2]!, s[o + 1]!, s[o + 3]!, s[o + 4]!, s[o + 2]!, s[o + 4]!, s[o + 5]!,
];
/** Rotation matrix of quaternion (x, y, z, w) at offset o. */
export function quatMatrix(q: ArrayLike<number>, o = 0): M3 {
  const x = q[o]!, y = q[o + 1]!, z = q[o + 2]!, w = q[o + 3]!;
  return [
    1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w),
    2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
    2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y),
  ];
}
/** R diag(d) Rᵀ. */
export const rotatedDiag = (R: M3, d: ArrayLike<number>): M3 =>
  matMul(matMul(R, [d[0]!, 0, 0, 0, d[1]!, 0, 0, 0, d[2]!]), transpose(R));

// quaternions (x, y, z, w) as plain arrays
export type Q = [number, number, number, number];
export const qAxisAngle = (axis: V3, angle: number): Q => {
  const n = norm(axis), s = Math.sin(angle / 2) / n;
  return [axis[0] * s, axis[1] * s, axis[2] * s, Math.cos(angle / 2)];
};
export const qMul = (a: ArrayLike<number>, b: ArrayLike<number>): Q => {
  const ax = a[0]!, ay = a[1]!, az = a[2]!, aw = a[3]!, bx = b[0]!, by = b[1]!, bz = b[2]!, bw = b[3]!;
  return [
    aw * bx + ax * bw + ay * bz - az * by,
    aw * by - ax * bz + ay * bw + az * bx,
    aw * bz + ax * by - ay * bx + az * bw,
    aw * bw - ax * bx - ay * by - az * bz,
  ];
};
export const q4 = (arr: ArrayLike<number>, e: number): Q => [arr[e * 4]!, arr[e * 4 + 1]!, arr[e * 4 + 2]!, arr[e * 4 + 3]!];
export const qRotate = (q: ArrayLike<number>, v: ArrayLike<number>): V3 => matVec(quatMatrix(q), v);

// ---------- worlds and rigs ----------

export interface Built {
  world: PhysikWorld;
  handle: RigHandle;
  rig: number;
}

export function build(input: RigInput): Built {
  const world = createPhysikWorld();
  const handle = addRig(world, input);
  return { world, handle, rig: handle.rig };
}

/** The systems of one step up to and including the joint solve (pipeline order). */
export const systemsThroughSolve = [scriptedTargets, targetInterpolation, damping, controlSprings, torsionSprings, interJointSolve] as const;

export function runThroughSolve(world: PhysikWorld): void {
  for (const s of systemsThroughSolve) s(world);
}

/**
 * A straight chain of n bones along +Y from `head`, each `length` long and `mass` heavy,
 * named b0..b(n-1); `limits` applies to every non-root bone.
 */
export function chainBones(n: number, opts: { length?: number; mass?: number; head?: V3; limits?: BoneDescription['limits'] } = {}): BoneDescription[] {
  const L = opts.length ?? 1;
  const bones: BoneDescription[] = [];
  for (let i = 0; i < n; i++) {
    const b: BoneDescription = { name: `b${i}`, parent: i === 0 ? null : `b${i - 1}`, direction: [0, 1, 0], length: L };
    if (opts.mass !== undefined) b.mass = opts.mass;
    if (i === 0) b.head = opts.head ?? [0, 0, 0];
    else if (opts.limits) b.limits = opts.limits;
    bones.push(b);
  }
  return bones;
}

/**
 * A humanoid-like tree of 19 bones (hips root; spine, chest; neck and head, both collars at
 * the chest's tail: four bones at one joint; arms in a T with elbow limits; legs from the
 * hips' head with knee limits), floating, hips' head at (0, 1, 0).
 */
export function humanoidBones(): BoneDescription[] {
  const elbow = { x: [0, 0] as [number, number], y: [0, 0] as [number, number], z: [0, 120] as [number, number] };
  const knee = { x: [-120, 0] as [number, number], y: [0, 0] as [number, number], z: [0, 0] as [number, number] };
  const fixed = { x: [0, 0] as [number, number], y: [0, 0] as [number, number], z: [0, 0] as [number, number] };
  const bones: BoneDescription[] = [
    { name: 'hips', parent: null, direction: [0, 1, 0], length: 0.2, head: [0, 1, 0] },
    { name: 'spine', parent: 'hips', direction: [0, 1, 0], length: 0.25 },
    { name: 'chest', parent: 'spine', direction: [0, 1, 0], length: 0.25 },
    { name: 'neck', parent: 'chest', direction: [0, 1, 0], length: 0.1 },
    { name: 'head', parent: 'neck', direction: [0, 1, 0], length: 0.2 },
  ];
  for (const [side, sx] of [['L', 1], ['R', -1]] as const) {
    bones.push(
      { name: `collar${side}`, parent: 'chest', direction: [sx, 0, 0], length: 0.15, limits: fixed },
      { name: `upperArm${side}`, parent: `collar${side}`, direction: [sx, 0, 0], length: 0.3 },
      { name: `forearm${side}`, parent: `upperArm${side}`, direction: [sx, 0, 0], length: 0.25, limits: elbow },
      { name: `hand${side}`, parent: `forearm${side}`, direction: [sx, 0, 0], length: 0.1 },
      { name: `thigh${side}`, parent: 'hips', attach: 0, direction: [0.2 * sx, -1, 0], length: 0.45 },
      { name: `shin${side}`, parent: `thigh${side}`, direction: [0.2 * sx, -1, 0], length: 0.45, limits: knee },
      { name: `foot${side}`, parent: `shin${side}`, direction: [0, 0, 1], length: 0.15 },
    );
  }
  return bones;
}

export const humanoidControlPoints = (): ControlPointDescription[] => [
  { name: 'handL', bone: 'handL' },
  { name: 'handR', bone: 'handR' },
  { name: 'footL', bone: 'footL' },
  { name: 'footR', bone: 'footR' },
  { name: 'head', bone: 'head' },
];

/** True when every listed store value of the rig's bones is finite. */
export function allFinite(world: PhysikWorld, bones: Iterable<number>): boolean {
  const { Bone } = world.physik;
  for (const b of bones) {
    for (const arr of [Bone.rot, Bone.angVel, Bone.head, Bone.tail, Bone.centre, Bone.vel]) {
      const w = arr === Bone.rot ? 4 : 3;
      for (let i = 0; i < w; i++) if (!Number.isFinite(arr[b * w + i]!)) return false;
    }
  }
  return true;
}

export type { Settings };

/** A pinned trunk of two bones with two three-bone branches, goals at both branch tips. */
export function treeWorld(solver: string, settings: Partial<Settings> = {}, limits?: BoneDescription['limits']) {
  const bones: BoneDescription[] = [
    { name: 't0', parent: null, direction: [0, 1, 0], length: 1, head: [0, 0, 0] },
    { name: 't1', parent: 't0', direction: [0, 1, 0], length: 1 },
  ];
  for (const [side, sx] of [['l', 1], ['r', -1]] as const) {
    for (let i = 0; i < 3; i++) bones.push({ name: `${side}${i}`, parent: i === 0 ? 't1' : `${side}${i - 1}`, direction: [sx, 1, 0], length: 1 });
  }
  if (limits) for (const b of bones) if (b.parent) b.limits = limits;
  const world = createPhysikWorld();
  const handle = addRig(world, {
    rig: { name: 'tree', root: 'pinned', bones },
    controlPoints: [{ name: 'L', bone: 'l2' }, { name: 'R', bone: 'r2' }],
    settings: { solver, interpolation: 'none', ...settings },
  });
  return { world, rig: handle.rig, L: handle.controlPoints.L!, R: handle.controlPoints.R! };
}

export const TREE_TARGETS: [V3, V3][] = [
  [[2.0, 3.5, 0.8], [-1.8, 3.2, -0.5]],
  [[1.0, 1.5, 1.8], [-2.5, 2.0, 1.0]],
  [[2.5, 1, 0], [-2.5, 1, 0]],
];


/** Tip of the unit chain along +Y posed by joint rotation vectors drawn inside the limits. */
export function reachableTarget(seed: number, n: number, limits: BoneDescription['limits'] | undefined): V3 {
  const r = rng(seed);
  let q: Q = [0, 0, 0, 1];
  let p: V3 = [0, 0, 0];
  for (let i = 0; i < n; i++) {
    const phi: V3 = [0, 0, 0];
    (['x', 'y', 'z'] as const).forEach((a, k) => {
      const l = i > 0 && limits ? limits[a] : undefined;
      const [lo, hi] = Array.isArray(l) ? [l[0] * DEG, l[1] * DEG] : [-0.6, 0.6];
      phi[k] = lo + (hi - lo) * (0.1 + 0.8 * r());
    });
    const angle = Math.hypot(...phi);
    q = qMul(q, angle > 0 ? qAxisAngle(phi, angle) : [0, 0, 0, 1]);
    const d = qRotate(q, [0, 1, 0]);
    p = [p[0] + d[0], p[1] + d[1], p[2] + d[2]];
  }
  return p;
}

/** A pinned chain of n bones (chainBones) with a control point 'tip' on the last bone, posed by `solver`. */
export function chainWorld(solver: string, settings: Partial<Settings> = {}, limits?: BoneDescription['limits'], n = 5) {
  const world = createPhysikWorld();
  const handle = addRig(world, {
    rig: { name: 'chain', root: 'pinned', bones: chainBones(n, { limits }) },
    controlPoints: [{ name: 'tip', bone: `b${n - 1}` }],
    settings: { solver, interpolation: 'none', ...settings },
  });
  return { world, rig: handle.rig, tip: handle.controlPoints.tip!, bones: handle.bones };
}
