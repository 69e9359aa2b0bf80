/**
 * A built rig's joint limits, read and changed by bone name (the sandbox's joint panel): per
 * axis of the joint frame (y along the bone), degrees, `'free'` or `[min, max]`, as in a rig
 * description. `setJointLimits` checks everything first and throws, world unchanged, on a bad
 * value: not finite, outside −180…180, or min above max. A rig description can be brought up
 * to date with the limits as they stand (`withJointLimits`), so a saved scene keeps them.
 *
 * Limits: a joint locked on every axis is a weld, found once when the rig is first stepped
 * (systems/welds.ts), so a change that would lock a joint on all three axes or unlock a locked
 * one is refused (edit the scene file and open it again); the root has no joint to limit.
 */
import { findRig, type PhysikWorld, type RigRecord } from '../world/world';
import { wakeRig } from '../world/wake';
import { forgetHinges } from '../../systems/hinges';
import type { AxisLimit, BoneDescription, RigDescription } from '../world/types';

const DEG = Math.PI / 180;
const AXES = ['x', 'y', 'z'] as const;
export type LimitAxis = (typeof AXES)[number];

/** A joint's limits per axis (degrees). */
export type JointLimits = Record<LimitAxis, AxisLimit>;

/** Degrees read back from the stored radians, without the round trip's last-digit noise. */
const degrees = (rad: number) => Math.round((rad / DEG) * 1e9) / 1e9;

function boneOf(world: PhysikWorld, record: RigRecord, bone: string): number {
  const b = record.boneByName.get(bone);
  if (b === undefined) throw new Error(`no bone named "${bone}" in rig "${record.name}"`);
  return b;
}

function readLimits(world: PhysikWorld, b: number): JointLimits {
  const { AngularLimit: L } = world.physik;
  const out = {} as JointLimits;
  AXES.forEach((axis, a) => {
    out[axis] = L.enabled[b * 3 + a] ? [degrees(L.min[b * 3 + a]!), degrees(L.max[b * 3 + a]!)] : 'free';
  });
  return out;
}

/** The limits of bone `bone`'s joint (the root's are all 'free'). */
export function getJointLimits(world: PhysikWorld, rig: number, bone: string): JointLimits {
  const record = findRig(world, rig);
  return readLimits(world, boneOf(world, record, bone));
}

const locked = (l: JointLimits) => AXES.every((a) => Array.isArray(l[a]) && l[a][0] === l[a][1]);

/** Why an axis' limit is refused, or null when it is fine. */
function axisProblem(value: unknown): string | null {
  if (value === 'free') return null;
  if (!Array.isArray(value) || value.length !== 2) return 'expected "free" or [min, max] in degrees';
  const [lo, hi] = value as unknown[];
  if (typeof lo !== 'number' || typeof hi !== 'number' || !Number.isFinite(lo) || !Number.isFinite(hi)) {
    return `expected two finite numbers of degrees, got [${String(lo)}, ${String(hi)}]`;
  }
  if (lo < -180 || hi > 180 || lo > 180 || hi < -180) return `degrees must lie in −180…180, got [${lo}, ${hi}]`;
  if (lo > hi) return `min (${lo}°) is above max (${hi}°)`;
  return null;
}

/**
 * Change the limits of bone `bone`'s joint: the axes given, the others as they are. Throws,
 * naming the bone and axis, before anything changes when a value is refused (see the header).
 * Wakes the rig, so a sleeping one follows.
 */
export function setJointLimits(world: PhysikWorld, rig: number, bone: string, limits: Partial<JointLimits>): void {
  const record = findRig(world, rig);
  const b = boneOf(world, record, bone);
  if (typeof limits !== 'object' || limits === null) throw new Error(`limits of "${bone}": expected { x?, y?, z? }`);
  const { Bone, AngularLimit: L } = world.physik;
  if (Bone.parent[b]! < 0) throw new Error(`"${bone}" is the root: it has no joint to limit`);
  const problems: string[] = [];
  for (const key of Object.keys(limits)) {
    if (!(AXES as readonly string[]).includes(key)) { problems.push(`${key}: not an axis (x, y or z)`); continue; }
    const p = axisProblem(limits[key as LimitAxis]);
    if (p) problems.push(`${key}: ${p}`);
  }
  if (problems.length) throw new Error(`limits of "${bone}": ${problems.join('; ')}`);
  const before = readLimits(world, b);
  const after: JointLimits = { ...before, ...limits };
  if (locked(before) !== locked(after)) {
    throw new Error(`limits of "${bone}": ${locked(before) ? 'its joint is locked on every axis (a weld): it cannot be unlocked here' : 'a joint cannot be locked on every axis here (that makes it a weld)'}; edit the scene file and open it again`);
  }
  AXES.forEach((axis, a) => {
    const l = after[axis];
    const on = Array.isArray(l);
    L.enabled[b * 3 + a] = on ? 1 : 0;
    L.min[b * 3 + a] = on ? l[0] * DEG : 0;
    L.max[b * 3 + a] = on ? l[1] * DEG : 0;
  });
  forgetHinges(record); // (a joint may have become a hinge, or stopped being one)
  wakeRig(world, rig);
}

/** `description` (the rig `rig` was built from) with every joint's limits as they stand in the world. */
export function withJointLimits(world: PhysikWorld, rig: number, description: RigDescription): RigDescription {
  const record = findRig(world, rig);
  const { Bone } = world.physik;
  const bones = description.bones.map((d): BoneDescription => {
    const b = record.boneByName.get(d.name);
    if (b === undefined || Bone.parent[b]! < 0) return d;
    const l = readLimits(world, b);
    const { limits: _old, ...rest } = d;
    void _old;
    return AXES.every((a) => l[a] === 'free') ? rest : { ...rest, limits: l };
  });
  return { ...description, bones };
}
