/** The memory section of `npm run bench`: bytes of component storage and solver scratch per bone. */
import { bytesPerEntity, BoneLayout, JointLayout, AngularLimitLayout, ControlPointLayout, RigLayout } from '../../components';
import { fixed as f } from './stats';
import { chainInput } from './rigs';
import { Built, build } from './building';
import { SIZES } from './stepSection';

export interface MemorySection {
  boneLayout: number; angularLimitLayout: number; jointLayout: number; perBoneLayouts: number; perEntitySlotAllStores: number;
  measuredOn: string; storeBytesPerBone: number; scratchBytesPerBone: number;
}

export function memorySection(built: Map<string, Built> | undefined): MemorySection {
  const bone = bytesPerEntity(BoneLayout), limit = bytesPerEntity(AngularLimitLayout), joint = bytesPerEntity(JointLayout);
  const allStores = bone + limit + joint + bytesPerEntity(ControlPointLayout) + bytesPerEntity(RigLayout);
  // what the largest chain built holds: every typed array of every store, plus the rig's scratch
  const name = [...SIZES].reverse().map((n) => `chain ${n}`).find((k) => built?.has(k)) ?? 'chain 1000';
  const b = built?.get(name) ?? build(chainInput(1000, 200));
  const p = b.world.physik;
  const n = p.rigs[0]!.bones.length;
  let held = 0;
  for (const store of [p.Bone, p.Joint, p.AngularLimit, p.ControlPoint, p.Rig]) {
    for (const arr of Object.values(store)) held += Array.isArray(arr) ? 8 * arr.length : (arr as ArrayBufferView).byteLength; // double fields: plain arrays of 8-byte doubles
  }
  const record = p.rigs[0]!;
  let scratch = 0;
  for (const arr of Object.values(record.scratch)) scratch += arr.byteLength; // (the exact solve's scratch is shared by all rigs)
  for (const arr of [record.bones, record.joints, record.jointSlots, record.jointSlotStart, record.childStart, record.childIndex]) scratch += arr.byteLength;
  return {
    boneLayout: bone, angularLimitLayout: limit, jointLayout: joint, perBoneLayouts: bone + limit + joint, perEntitySlotAllStores: allStores,
    measuredOn: `chain ${n}`, storeBytesPerBone: held / n, scratchBytesPerBone: scratch / n,
  };
}

export function formatMemory(m: MemorySection): string[] {
  return [
    `memory per bone: Bone ${m.boneLayout} B + AngularLimit ${m.angularLimitLayout} B + Joint ${m.jointLayout} B = ${m.perBoneLayouts} B of component layout;`,
    `  every entity holds a slot in all five stores (${m.perEntitySlotAllStores} B), so the ${m.measuredOn}'s stores hold ${f(m.storeBytesPerBone, 0)} B per bone`,
    `  (bone and joint entities, capacity doubling) plus ${f(m.scratchBytesPerBone, 0)} B per bone of joint-solve scratch and topology;`,
    `  the double fields are plain arrays, 8 B per value as counted here, whose backing stores V8 may keep up to ~1.5× longer`,
    `  (built by pushing; arrays of the exact length measured 2-6% slower in the step, npm run bench:ab)`,
  ];
}
