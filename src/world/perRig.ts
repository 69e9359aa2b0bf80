/**
 * A value kept per rig record (a WeakMap: it goes with the rig), with the last rig looked up kept
 * at hand: the systems of one step ask about the same rig one after another, several times a step,
 * and the pointer compare is cheaper than a WeakMap look-up each time.
 */
import type { RigRecord } from './world';

export interface PerRig<T> {
  map: WeakMap<RigRecord, T>;
  lastRig: RigRecord | null;
  last: T | undefined;
}

export function perRig<T>(): PerRig<T> {
  return { map: new WeakMap(), lastRig: null, last: undefined };
}

/** The rig's value, undefined when none is kept. */
export function perRigGet<T>(p: PerRig<T>, rig: RigRecord): T | undefined {
  if (rig === p.lastRig) return p.last;
  const v = p.map.get(rig);
  if (v !== undefined) { p.lastRig = rig; p.last = v; }
  return v;
}

export function perRigSet<T>(p: PerRig<T>, rig: RigRecord, value: T): void {
  p.map.set(rig, value);
  p.lastRig = rig; p.last = value;
}

export function perRigDelete<T>(p: PerRig<T>, rig: RigRecord): void {
  p.map.delete(rig);
  if (p.lastRig === rig) { p.lastRig = null; p.last = undefined; }
}
