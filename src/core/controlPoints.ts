/**
 * Adding and removing control points on a live rig (the sandbox's click-to-pin, grab and
 * delete). Both validate first and leave the world untouched when they throw. They allocate
 * (the rig's control point list is rebuilt), so they belong to edits, not to the step.
 *
 * An added point keeps its target at reset (its initial target is the one it was added
 * with). A removed point's scripted moves are skipped from then on.
 */
import { addComponent, addEntity, removeEntity } from 'bitecs';
import { ensureCapacity, SPRING_CAPPED, SPRING_LINEAR } from '../../components';
import { parseControlPoint, SceneError } from './validation/parse';
import type { ControlPointDescription } from '../world/types';
import { attachmentPoint } from '../world/attachment';
import { findRig, type PhysikWorld, type RigRecord } from '../world/world';
import { wakeRig } from '../world/wake';
import { copyDoubles, type Doubles } from '../../components/doubles';

/** Write a validated description into control point entity `eid` of `record`. */
export function initControlPoint(world: PhysikWorld, record: RigRecord, eid: number, bone: number, cp: ControlPointDescription): void {
  const { ControlPoint } = world.physik;
  const settings = record.settings;
  ControlPoint.rig[eid] = record.eid;
  ControlPoint.bone[eid] = bone;
  ControlPoint.at[eid] = cp.at ?? 1;
  copyDoubles(ControlPoint.offset, eid * 3, cp.offset ?? [0, 0, 0]);
  ControlPoint.stiffness[eid] = cp.stiffness ?? settings.stiffness;
  ControlPoint.spring[eid] = (cp.spring ?? settings.spring) === 'capped' ? SPRING_CAPPED : SPRING_LINEAR;
  ControlPoint.cap[eid] = cp.cap ?? 0;
  ControlPoint.active[eid] = cp.active === false ? 0 : 1;
  ControlPoint.pole[eid] = cp.role === 'pole' ? 1 : 0;
  attachmentPoint(world, eid, ControlPoint.attachment, eid * 3);
  const c3 = eid * 3;
  const t = cp.target ?? [ControlPoint.attachment[c3]!, ControlPoint.attachment[c3 + 1]!, ControlPoint.attachment[c3 + 2]!];
  copyDoubles(ControlPoint.target, c3, t);
  copyDoubles(ControlPoint.effective, c3, t);
  ControlPoint.interpStep[eid] = 0;
  ControlPoint.interpSteps[eid] = 0;
}

function wake(world: PhysikWorld, record: RigRecord): void {
  wakeRig(world, record.eid);
}

/**
 * Add a control point to a rig; returns its entity. Throws a SceneError naming the field for
 * a bad description, an unknown bone or a name already in use.
 */
export function addControlPoint(world: PhysikWorld, rig: number, description: ControlPointDescription): number {
  const record = findRig(world, rig);
  const where = `rig "${record.name}": new control point`;
  const cp = parseControlPoint(description, where);
  const bone = record.boneByName.get(cp.bone);
  if (bone === undefined) {
    throw new SceneError([{ path: `${where}.bone`, message: `unknown bone "${cp.bone}" (known: ${record.boneNames.slice(0, 12).join(', ')}${record.boneNames.length > 12 ? ', ...' : ''})` }]);
  }
  if (record.controlPointByName.has(cp.name)) {
    throw new SceneError([{ path: `${where}.name`, message: `a control point named "${cp.name}" already exists` }]);
  }
  const p = world.physik;
  const eid = addEntity(world);
  for (const store of [p.Bone, p.Joint, p.AngularLimit, p.ControlPoint, p.Rig]) ensureCapacity(store, eid);
  addComponent(world, eid, p.tags.IsControlPoint);
  initControlPoint(world, record, eid, bone, cp);

  const n = record.controlPoints.length;
  const list = new Int32Array(n + 1);
  list.set(record.controlPoints);
  list[n] = eid;
  const initial = new Float64Array(3 * (n + 1));
  initial.set(record.initialTargets);
  copyDoubles(initial, 3 * n, p.ControlPoint.target, eid * 3, 3);
  const active = new Uint8Array(n + 1);
  active.set(record.initialActive);
  active[n] = p.ControlPoint.active[eid]!;
  record.controlPoints = list;
  record.initialTargets = initial;
  record.initialActive = active;
  record.controlPointNames = [...record.controlPointNames, cp.name];
  record.controlPointByName.set(cp.name, eid);
  record.controlPointsVersion++;
  wake(world, record);
  return eid;
}

/** Remove a control point (entity `cp`) from its rig. */
export function removeControlPoint(world: PhysikWorld, cp: number): void {
  const record = world.physik.rigs.find((r) => r.controlPoints.includes(cp));
  if (!record) throw new Error(`no control point with entity id ${cp} in this world`);
  const i = record.controlPoints.indexOf(cp);
  const keep = (_: unknown, k: number) => k !== i;
  record.controlPoints = record.controlPoints.filter(keep);
  record.initialTargets = record.initialTargets.filter((_, k) => Math.floor(k / 3) !== i);
  record.initialActive = record.initialActive.filter(keep);
  const name = record.controlPointNames[i]!;
  record.controlPointNames = record.controlPointNames.filter(keep);
  record.controlPointByName.delete(name);
  record.controlPointsVersion++;
  world.physik.ControlPoint.active[cp] = 0;
  removeEntity(world, cp);
  wake(world, record);
}

/** Full description of a live control point (for undo, and for saving a scene). */
export function describeControlPoint(world: PhysikWorld, cp: number): ControlPointDescription {
  const record = world.physik.rigs.find((r) => r.controlPoints.includes(cp));
  if (!record) throw new Error(`no control point with entity id ${cp} in this world`);
  const { ControlPoint, Bone } = world.physik;
  const c3 = cp * 3;
  const v = (a: Doubles | Float32Array): [number, number, number] => [a[c3]!, a[c3 + 1]!, a[c3 + 2]!];
  const bone = ControlPoint.bone[cp]!;
  void Bone;
  return {
    name: record.controlPointNames[record.controlPoints.indexOf(cp)]!,
    bone: record.boneNames[record.bones.indexOf(bone)]!,
    at: ControlPoint.at[cp]!,
    offset: v(ControlPoint.offset),
    target: v(ControlPoint.target),
    stiffness: ControlPoint.stiffness[cp]!,
    spring: ControlPoint.spring[cp] === SPRING_CAPPED ? 'capped' : 'linear',
    ...(ControlPoint.cap[cp]! > 0 ? { cap: ControlPoint.cap[cp]! } : {}),
    active: ControlPoint.active[cp] === 1,
    role: ControlPoint.pole[cp] ? 'pole' : 'goal',
  };
}
