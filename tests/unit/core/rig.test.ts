/**
 * addRig's topology: depth-first order (children in the order listed), the children index of
 * the exact solve, joints grouping siblings at one attachment point, bone names by order, all
 * checked against a plain recursive reference on a seeded random tree; and a chain 10,000
 * bones deep (the scenes' limit) builds on Node's default stack (the builder walks the
 * skeleton with an explicit stack, not by recursion).
 */
import { describe, expect, it } from 'vitest';
import { addRig, createPhysikWorld, step, readMetrics, type RigInput } from '../../../src/core';
import type { BoneDescription } from '../../../src/scene/types';
import { rng } from '../../support/helpers';

/** A random tree of n bones: bone i hangs from a bone drawn from 0..i−1, at its tail or middle; listed shuffled. */
function randomTree(n: number, seed: number): BoneDescription[] {
  const r = rng(seed);
  const bones: BoneDescription[] = [];
  for (let i = 0; i < n; i++) {
    const parent = i === 0 ? null : `b${Math.floor(r() * i)}`;
    bones.push({
      name: `b${i}`, parent, length: 0.1 + 0.1 * r(), direction: [r() - 0.5, r() - 0.5, r() - 0.5],
      ...(i === 0 ? { head: [0, 0, 0] } : { attach: r() < 0.7 ? 1 : 0.5 }),
    });
  }
  // the description may list a child before its parent: shuffle everything but the root (seeded)
  for (let i = n - 1; i > 1; i--) {
    const j = 1 + Math.floor(r() * i);
    [bones[i], bones[j]] = [bones[j]!, bones[i]!];
  }
  return bones;
}

/** Depth-first order by recursion, children in listed order (what addRig must produce). */
function referenceOrder(bones: BoneDescription[]): string[] {
  const out: string[] = [];
  const visit = (name: string) => {
    out.push(name);
    for (const b of bones) if (b.parent === name) visit(b.name);
  };
  visit(bones.find((b) => b.parent === null)!.name);
  return out;
}

describe('addRig topology', () => {
  for (const seed of [1, 2, 3]) {
    it(`random tree (seed ${seed}): depth-first order, children, joints and names match a recursive reference`, () => {
      const bones = randomTree(200, seed);
      const world = createPhysikWorld();
      const { bones: byName } = addRig(world, { rig: { name: 't', root: 'pinned', bones } });
      const rec = world.physik.rigs[0]!;
      const { Bone, Joint } = world.physik;
      const order = referenceOrder(bones);
      expect(rec.boneNames).toEqual(order);
      expect(Array.from(rec.bones)).toEqual(order.map((name) => byName[name]));
      const desc = new Map(bones.map((b) => [b.name, b]));
      // children of bone i: the bones whose parent it is, in depth-first order
      for (let i = 0; i < order.length; i++) {
        const kids = Array.from(rec.childIndex.subarray(rec.childStart[i]!, rec.childStart[i + 1]!), (k) => order[k]);
        expect(kids).toEqual(order.filter((name) => desc.get(name)!.parent === order[i]));
        expect(Bone.parent[rec.bones[i]!]).toBe(i === 0 ? -1 : byName[desc.get(order[i]!)!.parent!]);
      }
      // joints: the grounded root joint, then per parent (depth-first) one joint per attachment point
      // (first seen first), holding the parent and its children there in depth-first order
      const expected: string[][] = [[order[0]!]];
      for (const parent of order) {
        const groups = new Map<number, string[]>();
        for (const name of order) {
          const b = desc.get(name)!;
          if (b.parent !== parent) continue;
          const key = (b.attach ?? 1) * desc.get(parent)!.length;
          groups.set(key, [...(groups.get(key) ?? []), name]);
        }
        for (const kids of groups.values()) expected.push([parent, ...kids]);
      }
      const got = Array.from(rec.joints, (_, j) =>
        Array.from(rec.jointSlots.subarray(rec.jointSlotStart[j]!, rec.jointSlotStart[j + 1]!), (e) => rec.boneNames[rec.bones.indexOf(e)]!));
      expect(got).toEqual(expected);
      for (let j = 0; j < rec.joints.length; j++) {
        const slots = rec.jointSlots.subarray(rec.jointSlotStart[j]!, rec.jointSlotStart[j + 1]!);
        const grounded = Joint.grounded[rec.joints[j]!] === 1;
        for (let s = grounded ? 0 : 1; s < slots.length; s++) expect(Bone.joint[slots[s]!]).toBe(rec.joints[j]);
      }
    });
  }

  it('builds and steps a chain 10,000 bones deep on the default stack', () => {
    const n = 10_000;
    const bones: BoneDescription[] = [];
    for (let i = 0; i < n; i++) bones.push({ name: `b${i}`, parent: i === 0 ? null : `b${i - 1}`, direction: [1, 0, 0], length: 0.1, ...(i === 0 ? { head: [0, 0, 0] } : {}) });
    const input: RigInput = { rig: { name: 'deep', root: 'pinned', bones }, controlPoints: [{ name: 'tip', bone: `b${n - 1}`, target: [n * 0.1, 1, 0] }] };
    const world = createPhysikWorld();
    const { rig } = addRig(world, input);
    const rec = world.physik.rigs[0]!;
    expect(rec.bones.length).toBe(n);
    expect(rec.joints.length).toBe(n);
    expect(rec.boneNames[n - 1]).toBe(`b${n - 1}`);
    expect(rec.childStart[n]).toBe(n - 1);
    step(world, 2);
    const m = readMetrics(world, rig);
    expect(Number.isFinite(m.maxTargetError)).toBe(true);
    expect(m.maxJointGap).toBeLessThan(1e-9);
  });
});
