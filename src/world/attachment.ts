/**
 * Where a control point attaches: head + at·(tail − head) + R·offset, in world space. Kept
 * free of imports beyond the world's types, so systems (and the kinematic solvers, which the
 * settings module's registry loads) can use it without an import cycle.
 */
import type { PhysikWorld } from './world';
import type { Doubles } from '../../components/doubles';

export function attachmentPoint(world: PhysikWorld, cp: number, out: Doubles, o: number): void {
  const { Bone, ControlPoint } = world.physik;
  const b = ControlPoint.bone[cp]!, q = b * 4, c3 = cp * 3, b3 = b * 3;
  const x = Bone.rot[q]!, y = Bone.rot[q + 1]!, z = Bone.rot[q + 2]!, w = Bone.rot[q + 3]!;
  const vx = ControlPoint.offset[c3]!, vy = ControlPoint.at[cp]! * Bone.length[b]! + ControlPoint.offset[c3 + 1]!, vz = ControlPoint.offset[c3 + 2]!;
  // rotate (vx, vy, vz) by q: v + w t + q × t with t = 2 q × v
  const tx = 2 * (y * vz - z * vy), ty = 2 * (z * vx - x * vz), tz = 2 * (x * vy - y * vx);
  out[o] = Bone.head[b3]! + vx + w * tx + (y * tz - z * ty);
  out[o + 1] = Bone.head[b3 + 1]! + vy + w * ty + (z * tx - x * tz);
  out[o + 2] = Bone.head[b3 + 2]! + vz + w * tz + (x * ty - y * tx);
}
