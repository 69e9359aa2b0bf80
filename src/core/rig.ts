/**
 * Building and removing rigs. `addRig` validates the description first (the same checks as
 * a scene file), so a bad description throws a SceneError and leaves the world untouched.
 */
import { addEntity, addComponent, removeEntity } from 'bitecs';
import { ensureCapacity } from '../../components';
import { quatFromDirectionRoll, quatMul, quatMulConjA, quatRotate } from '../math/quat';
import { parseScene } from './validation/parse';
import type { ControlPointDescription, RigDescription, ScriptEvent, Settings, StartPose } from '../world/types';
import type { PhysikWorld, RigRecord } from '../world/world';
import { applyDerivedSettings } from '../world/derivedSettings';
export { applyDerivedSettings, boneDamping, limitInertiaScale } from '../world/derivedSettings';
import { applyInertiaFloor, computeBoneDerived } from '../world/derived';
import { rigScale } from '../world/rigScale';
import { attachmentPoint } from '../world/attachment';
import { initControlPoint } from './controlPoints';
import { copyDoubles } from '../../components/doubles';
import { forwardKinematicsOf } from '../world/forwardKinematics';
import { forgetPoseDrive } from '../world/clipPose';

export { attachmentPoint };

const DEG = Math.PI / 180;

export interface RigInput {
  rig: RigDescription;
  controlPoints?: ControlPointDescription[];
  settings?: Partial<Settings>;
  script?: ScriptEvent[];
  /** Starting pose (default: the rest pose); resetRig returns to it. */
  start?: StartPose;
}

export interface RigHandle {
  rig: number;
  /** Bone entity by name (an object without a prototype: any name is a key of its own). */
  bones: Record<string, number>;
  /** Control point entity by name (likewise). */
  controlPoints: Record<string, number>;
}

/** A name-keyed object without a prototype: `__proto__` or `toString` are plain keys in it. */
function byNameObject(map: ReadonlyMap<string, number>): Record<string, number> {
  const out = Object.create(null) as Record<string, number>;
  for (const [k, v] of map) out[k] = v;
  return out;
}

function ensureAll(world: PhysikWorld, eid: number): void {
  const p = world.physik;
  ensureCapacity(p.Bone, eid);
  ensureCapacity(p.Joint, eid);
  ensureCapacity(p.AngularLimit, eid);
  ensureCapacity(p.ControlPoint, eid);
  ensureCapacity(p.Rig, eid);
}

function newEntity(world: PhysikWorld): number {
  const eid = addEntity(world);
  ensureAll(world, eid);
  return eid;
}

/** Validate a rig input as a scene file is validated (throws SceneError, naming `where`). */
function parseInput(input: RigInput, where: string) {
  return parseScene(
    {
      name: input.rig?.name ?? 'rig', rig: input.rig, controlPoints: input.controlPoints ?? [], settings: input.settings ?? {}, script: input.script ?? [],
      ...(input.start !== undefined ? { start: input.start } : {}),
    },
    where,
  );
}

/** Add a rig with its control points. Throws SceneError (world unchanged) on bad input. */
export function addRig(world: PhysikWorld, input: RigInput): RigHandle {
  const scene = parseInput(input, `rig "${input.rig?.name ?? '?'}"`);
  return buildRig(world, scene, () => newEntity(world));
}

/**
 * Add many rigs at once (a crowd): the same rigs as addRig on each input in turn, in the same
 * order, with the bones of all of them numbered first, one after another, and their rigs,
 * joints and control points after. Every bone array then holds the crowd's bones without
 * gaps (addRig's numbering leaves a rig's joints and control points between one rig's bones
 * and the next: under half of each bone array's memory used), so a step reads fewer cache
 * lines: 1000 humanoids stepped in 0.81-0.84 of the time (both worlds in one process,
 * alternating blocks of steps: 46-56 against 32-42 steps/s). Every input is
 * validated before anything is added: a bad one throws SceneError naming it (`rigs[i]`)
 * and leaves the world unchanged.
 */
export function addRigs(world: PhysikWorld, inputs: readonly RigInput[]): RigHandle[] {
  const scenes = inputs.map((input, i) => parseInput(input, `rigs[${i}] (rig "${input.rig?.name ?? '?'}")`));
  let total = 0;
  for (const scene of scenes) total += scene.rig.bones.length;
  // (consecutive ids unless the world has removed entities to reuse: then the bones take those)
  const boneIds = new Int32Array(total);
  let highest = -1;
  for (let k = 0; k < total; k++) { boneIds[k] = addEntity(world); if (boneIds[k]! > highest) highest = boneIds[k]!; }
  // the stores grown once for every entity to come (each rig, its joints and control points,
  // at most one joint per bone), not doubled step by step as the ids pass each power of two
  // (with doubles.ts's chunked arrays, 1000 humanoids build in ~0.6 of the time)
  let others = 0;
  for (const scene of scenes) others += 1 + scene.rig.bones.length + scene.controlPoints.length;
  if (highest >= 0) ensureAll(world, highest + others);
  let next = 0;
  return scenes.map((scene) => buildRig(world, scene, () => boneIds[next++]!));
}

/** Build a validated rig; `boneEntity` gives each bone its entity, in depth-first order. */
function buildRig(world: PhysikWorld, scene: ReturnType<typeof parseInput>, boneEntity: () => number): RigHandle {
  const { rig: desc, settings } = scene;
  const p = world.physik;
  const { Bone, Joint, AngularLimit, ControlPoint, Rig, ChildOf, tags } = p;

  // Depth-first order, children in the order the description lists them: an explicit stack
  // (a recursive walk overflowed Node's default stack past ~5,500 bones deep), children pushed
  // in reverse so the first listed is visited first.
  const children = new Map<string | null, number[]>();
  desc.bones.forEach((b, i) => {
    const list = children.get(b.parent);
    if (list) list.push(i);
    else children.set(b.parent, [i]);
  });
  const order: number[] = [];
  const stack: number[] = [children.get(null)![0]!];
  while (stack.length > 0) {
    const i = stack.pop()!;
    order.push(i);
    const kids = children.get(desc.bones[i]!.name);
    if (kids) for (let c = kids.length - 1; c >= 0; c--) stack.push(kids[c]!);
  }

  const rigEid = newEntity(world);
  addComponent(world, rigEid, tags.IsRig);
  const boneEids = new Int32Array(order.length);
  const byName = new Map<string, number>();
  const density = desc.density ?? 1;

  for (let k = 0; k < order.length; k++) {
    const b = desc.bones[order[k]!]!;
    const eid = boneEntity();
    boneEids[k] = eid;
    byName.set(b.name, eid);
    addComponent(world, eid, tags.IsBone);
    const parent = b.parent === null ? -1 : byName.get(b.parent)!;
    if (parent >= 0) addComponent(world, eid, ChildOf(parent));
    Bone.rig[eid] = rigEid;
    Bone.parent[eid] = parent;
    Bone.length[eid] = b.length;
    Bone.radius[eid] = b.radius ?? 0.1 * b.length;
    Bone.mass[eid] = b.mass ?? density * b.length;
    computeBoneDerived(Bone, eid);
    const q4 = eid * 4, v3 = eid * 3;
    quatFromDirectionRoll(Bone.restWorld, q4, b.direction[0], b.direction[1], b.direction[2], (b.roll ?? 0) * DEG);
    copyDoubles(Bone.rot, q4, Bone.restWorld, q4, 4);
    Bone.angVel.fill(0, v3, v3 + 3);
    Bone.vel.fill(0, v3, v3 + 3);
    Bone.jointForce.fill(0, v3, v3 + 3);
    if (parent < 0) {
      Bone.attach.fill(0, v3, v3 + 3);
      copyDoubles(Bone.restLocal, q4, Bone.restWorld, q4, 4);
      const h = b.head ?? [0, 0, 0];
      Bone.head[v3] = h[0]; Bone.head[v3 + 1] = h[1]; Bone.head[v3 + 2] = h[2];
    } else {
      if (b.offset) {
        Bone.attach[v3] = b.offset[0]; Bone.attach[v3 + 1] = b.offset[1]; Bone.attach[v3 + 2] = b.offset[2];
      } else {
        Bone.attach[v3] = 0;
        Bone.attach[v3 + 1] = (b.attach ?? 1) * Bone.length[parent]!;
        Bone.attach[v3 + 2] = 0;
      }
      quatMulConjA(Bone.restLocal, q4, Bone.restWorld, parent * 4, Bone.restWorld, q4);
      quatRotate(Bone.head, v3, Bone.rot, parent * 4, Bone.attach[v3]!, Bone.attach[v3 + 1]!, Bone.attach[v3 + 2]!);
      Bone.head[v3] = Bone.head[v3]! + Bone.head[parent * 3]!;
      Bone.head[v3 + 1] = Bone.head[v3 + 1]! + Bone.head[parent * 3 + 1]!;
      Bone.head[v3 + 2] = Bone.head[v3 + 2]! + Bone.head[parent * 3 + 2]!;
    }
    // tail and centre from the head
    quatRotate(Bone.tail, v3, Bone.rot, q4, 0, b.length, 0);
    for (let a = 0; a < 3; a++) {
      Bone.centre[v3 + a] = Bone.head[v3 + a]! + 0.5 * Bone.tail[v3 + a]!;
      Bone.tail[v3 + a] = Bone.tail[v3 + a]! + Bone.head[v3 + a]!;
    }
    // limits
    const lim = b.limits ?? {};
    const axes = [lim.x, lim.y, lim.z];
    for (let a = 0; a < 3; a++) {
      const l = axes[a];
      const on = parent >= 0 && Array.isArray(l);
      AngularLimit.enabled[v3 + a] = on ? 1 : 0;
      AngularLimit.min[v3 + a] = on ? l[0] * DEG : 0;
      AngularLimit.max[v3 + a] = on ? l[1] * DEG : 0;
      AngularLimit.angle[v3 + a] = 0;
      AngularLimit.k[v3 + a] = 0;
    }
    AngularLimit.stiffness[eid] = b.limitStiffness ?? -1;
  }

  // Joints: children of the same parent at the same attachment point share a joint.
  const jointEids: number[] = [];
  const slotStart: number[] = [];
  const slots: number[] = [];
  const pinned = (desc.root ?? 'floating') === 'pinned';
  const root = boneEids[0]!;
  if (pinned) {
    const j = newEntity(world);
    addComponent(world, j, tags.IsJoint);
    Joint.rig[j] = rigEid; Joint.parent[j] = -1; Joint.grounded[j] = 1;
    Joint.point.fill(0, j * 3, j * 3 + 3);
    jointEids.push(j); slotStart.push(slots.length); slots.push(root);
    Bone.joint[root] = j;
  } else {
    Bone.joint[root] = -1;
  }
  // children of each bone by depth-first index, in depth-first order (a bone's index is its
  // position in `order`, so a parent's children are found without a search)
  const n = boneEids.length;
  const indexOf = new Map<number, number>();
  for (let i = 0; i < n; i++) indexOf.set(boneEids[i]!, i);
  const kids: number[][] = Array.from({ length: n }, () => []);
  for (let i = 1; i < n; i++) kids[indexOf.get(Bone.parent[boneEids[i]!]!)!]!.push(i);
  for (let k = 0; k < n; k++) {
    const parent = boneEids[k]!;
    if (kids[k]!.length === 0) continue;
    // keyed by the attachment point in the parent's frame (any offset, not only along the axis)
    const groups = new Map<string, number[]>();
    for (const c of kids[k]!) {
      const child = boneEids[c]!;
      const key = `${Bone.attach[child * 3]!},${Bone.attach[child * 3 + 1]!},${Bone.attach[child * 3 + 2]!}`;
      const list = groups.get(key);
      if (list) list.push(child);
      else groups.set(key, [child]);
    }
    for (const group of groups.values()) {
      const j = newEntity(world);
      addComponent(world, j, tags.IsJoint);
      Joint.rig[j] = rigEid; Joint.parent[j] = parent; Joint.grounded[j] = 0;
      const c3 = group[0]! * 3;
      Joint.point[j * 3] = Bone.attach[c3]!; Joint.point[j * 3 + 1] = Bone.attach[c3 + 1]!; Joint.point[j * 3 + 2] = Bone.attach[c3 + 2]!;
      jointEids.push(j); slotStart.push(slots.length);
      slots.push(parent);
      for (const kid of group) { slots.push(kid); Bone.joint[kid] = j; }
    }
  }
  slotStart.push(slots.length);

  // Control points
  const cpEids = new Int32Array(scene.controlPoints.length);
  const cpByName = new Map<string, number>();
  const cpInits: [number, number, ControlPointDescription][] = [];
  scene.controlPoints.forEach((cp, i) => {
    const eid = newEntity(world);
    addComponent(world, eid, tags.IsControlPoint);
    cpEids[i] = eid;
    cpByName.set(cp.name, eid);
    cpInits.push([eid, byName.get(cp.bone)!, cp]);
  });

  // Rig record and scale (rotation-invariant: see rigScale.ts)
  const height = rigScale(Bone, boneEids, Bone.head, root * 3);

  resetRigMetrics(world, rigEid);
  Rig.root[rigEid] = root;
  Rig.pinned[rigEid] = pinned ? 1 : 0;
  copyDoubles(Rig.pin, rigEid * 3, Bone.head, root * 3, 3);
  Rig.height[rigEid] = height;
  for (const b of boneEids) applyInertiaFloor(Bone, b, height);
  // centre of mass at rest, so polar-com interpolation has its pivot before the first step
  centreOfMass(world, boneEids, rigEid);

  const nSlots = slots.length;
  // children by depth-first index (above), for the exact solve
  const childStart = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) childStart[i + 1] = childStart[i]! + kids[i]!.length;
  const childIndex = new Int32Array(n > 0 ? n - 1 : 0);
  for (let i = 0; i < n; i++) childIndex.set(kids[i]!, childStart[i]!);
  const record: RigRecord = {
    eid: rigEid,
    name: desc.name,
    settings: { ...settings },
    bones: boneEids,
    boneNames: order.map((i) => desc.bones[i]!.name),
    boneByName: byName,
    joints: Int32Array.from(jointEids),
    childStart,
    childIndex,
    jointSlotStart: Int32Array.from(slotStart),
    jointSlots: Int32Array.from(slots),
    controlPoints: cpEids,
    controlPointsVersion: 0,
    start: null,
    initialTargets: new Float64Array(0), // filled once the control points are written
    initialActive: new Uint8Array(0),
    controlPointNames: scene.controlPoints.map((c) => c.name),
    controlPointByName: cpByName,
    script: [...scene.script].sort((a, b) => a.step - b.step),
    scriptCursor: 0,
    defaultCap: 0,
    limitScaleKey: '',
    scratch: {
      slotR: new Float64Array(nSlots * 3),
      slotW: new Float64Array(nSlots * 6),
      slotC: new Float64Array(nSlots * 3),
      slotA: new Float64Array(nSlots * 3),
      jointS: new Float64Array(jointEids.length * 6),
    },
  };
  // the starting pose before the control points: a point without a target holds where it is in it
  if (scene.start) {
    record.start = startPoseData(world, record, scene.start);
    placeAtStart(world, record);
    centreOfMass(world, boneEids, rigEid);
  }
  for (const [eid, bone, cp] of cpInits) initControlPoint(world, record, eid, bone, cp);
  record.initialTargets = Float64Array.from(Array.from(cpEids).flatMap((e) => [ControlPoint.target[e * 3]!, ControlPoint.target[e * 3 + 1]!, ControlPoint.target[e * 3 + 2]!]));
  record.initialActive = Uint8Array.from(cpEids, (e) => ControlPoint.active[e]!);
  applyDerivedSettings(world, record);
  p.rigs.push(record);
  return {
    rig: rigEid,
    bones: byNameObject(byName),
    controlPoints: byNameObject(cpByName),
  };
}

/**
 * The starting pose as resetRig keeps it (RigRecord.start): each bone's world rotation, the
 * given one or its parent's turned by its rest rotation relative to it, then the root's
 * centre (from the given head, else its rest head, and the root's rotation).
 */
function startPoseData(world: PhysikWorld, record: RigRecord, start: StartPose): Float64Array {
  const { Bone } = world.physik;
  const n = record.bones.length;
  const data = new Float64Array(4 * n + 3);
  const index = new Map<number, number>();
  for (let i = 0; i < n; i++) {
    const b = record.bones[i]!, p = Bone.parent[b]!;
    index.set(b, i);
    const given = start.bones[record.boneNames[i]!];
    if (given) data.set(given, 4 * i);
    else if (p < 0) copyDoubles(data, 4 * i, Bone.restWorld, b * 4, 4);
    else quatMul(data, 4 * i, data, 4 * index.get(p)!, Bone.restLocal, b * 4);
  }
  const root = record.bones[0]!;
  const head = start.head ?? [Bone.head[root * 3]!, Bone.head[root * 3 + 1]!, Bone.head[root * 3 + 2]!];
  // the root's centre as forward kinematics places a pinned root's: head + R (0, L/2, 0)
  quatRotate(data, 4 * n, data, 0, 0, 0.5 * Bone.length[root]!, 0);
  for (let a = 0; a < 3; a++) data[4 * n + a] = head[a]! + data[4 * n + a]!;
  return data;
}

/** Put the rig in its starting pose (RigRecord.start, or the rest pose), at rest. */
export function placeAtStart(world: PhysikWorld, record: RigRecord): void {
  const { Bone, Rig } = world.physik;
  const start = record.start;
  const n = record.bones.length;
  for (let i = 0; i < n; i++) {
    const b = record.bones[i]!;
    if (start) copyDoubles(Bone.rot, b * 4, start, 4 * i, 4);
    else copyDoubles(Bone.rot, b * 4, Bone.restWorld, b * 4, 4);
    Bone.angVel.fill(0, b * 3, b * 3 + 3);
    Bone.vel.fill(0, b * 3, b * 3 + 3);
    Bone.jointForce.fill(0, b * 3, b * 3 + 3);
  }
  const root = record.bones[0]!;
  if (start) {
    copyDoubles(Bone.centre, root * 3, start, 4 * n, 3);
  } else {
    // a floating root is placed by its centre: the rest head plus half the rest axis
    quatRotate(Bone.centre, root * 3, Bone.rot, root * 4, 0, 0.5 * Bone.length[root]!, 0);
    for (let a = 0; a < 3; a++) Bone.centre[root * 3 + a] = Bone.centre[root * 3 + a]! + Rig.pin[record.eid * 3 + a]!;
  }
  forwardKinematicsOf(world, record);
}

export function resetRigMetrics(world: PhysikWorld, rig: number): void {
  const R = world.physik.Rig;
  R.step[rig] = 0; R.passes[rig] = 0; R.mismatch[rig] = 0; R.solveStatus[rig] = 0;
  R.passesTotal[rig] = 0; R.passesMax[rig] = 0; R.stepsSolved[rig] = 0;
  R.kineticEnergy[rig] = 0; R.maxTargetError[rig] = 0; R.meanTargetError[rig] = 0;
  R.maxJointGap[rig] = 0; R.maxLimitViolation[rig] = 0; R.diagnosed[rig] = 1; R.maxEndSpeed[rig] = 0;
  R.atRest[rig] = 0; R.restSince[rig] = -1; R.diverged[rig] = 0; R.solvedLoad[rig] = -1;
  R.substeps[rig] = 1; R.retriedSteps[rig] = 0; R.substepCount[rig] = 1; R.substepHeld[rig] = 0; R.speedClamp[rig] = 0; R.clampedSteps[rig] = 0; R.settle[rig] = 0; R.settleSince[rig] = 0;
  R.bestError[rig] = Infinity; R.progressStep[rig] = 0; R.sleeping[rig] = 0; R.finishing[rig] = 0;
}

/** Rig.centreOfMass from the bones' current centres. */
export function centreOfMass(world: PhysikWorld, bones: Int32Array, rig: number): void {
  const { Bone, Rig } = world.physik;
  let mass = 0, cx = 0, cy = 0, cz = 0;
  for (const b of bones) {
    const m = Bone.mass[b]!;
    mass += m; cx += m * Bone.centre[b * 3]!; cy += m * Bone.centre[b * 3 + 1]!; cz += m * Bone.centre[b * 3 + 2]!;
  }
  Rig.centreOfMass[rig * 3] = cx / mass; Rig.centreOfMass[rig * 3 + 1] = cy / mass; Rig.centreOfMass[rig * 3 + 2] = cz / mass;
}


/** Remove a rig and all its entities. */
export function removeRig(world: PhysikWorld, rig: number): void {
  const p = world.physik;
  const i = p.rigs.findIndex((r) => r.eid === rig);
  if (i < 0) throw new Error(`no rig with entity id ${rig} in this world`);
  const r = p.rigs[i]!;
  forgetPoseDrive(world, rig); // (a rig added later with the same entity id must not play this one's clip)
  for (const e of r.controlPoints) removeEntity(world, e);
  for (const e of r.joints) removeEntity(world, e);
  for (let k = r.bones.length - 1; k >= 0; k--) removeEntity(world, r.bones[k]!);
  removeEntity(world, r.eid);
  p.rigs.splice(i, 1);
}
