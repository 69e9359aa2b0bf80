/**
 * Where a named control point's target, or a point along a named bone, is on screen: the
 * sandbox's test hooks (`Sandbox.screenOf`, `screenOfBone`), shared by the main-thread and the
 * worker-mode sandbox (both draw from a world on the main thread).
 */
import type { PhysikWorld, RigRecord } from '../world/world';

type Point = { x: number; y: number };
interface Projector { project(x: number, y: number, z: number, out: Point): boolean }

export function screenPoints(world: PhysikWorld, view: Projector, record: () => RigRecord) {
  return {
    /** Screen position of the named control point's target; null when unknown or behind the camera. */
    screenOf(name: string): Point | null {
      const cp = record().controlPointByName.get(name);
      if (cp === undefined) return null;
      const t = world.physik.ControlPoint.target;
      const out = { x: 0, y: 0 };
      return view.project(t[cp * 3]!, t[cp * 3 + 1]!, t[cp * 3 + 2]!, out) ? out : null;
    },
    /** Screen position of the point at fraction `at` from the named bone's head to its tail. */
    screenOfBone(name: string, at: number): Point | null {
      const b = record().boneByName.get(name);
      if (b === undefined) return null;
      const { head, tail } = world.physik.Bone;
      const p = (k: number) => head[b * 3 + k]! + at * (tail[b * 3 + k]! - head[b * 3 + k]!);
      const out = { x: 0, y: 0 };
      return view.project(p(0), p(1), p(2), out) ? out : null;
    },
  };
}
