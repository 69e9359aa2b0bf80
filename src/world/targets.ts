/**
 * Moving a control point's target. A move far enough (in angle about the interpolation
 * pivot) starts an interpolation of the effective target over `interpolationSteps` steps;
 * a small move, or mode 'none', takes effect at once.
 */
import type { PhysikWorld, RigRecord } from './world';
import { len3 } from '../math/vec3';
import { MAX_MAGNITUDE } from './limits';
import { wakeRig } from './wake';

/** The pivot of polar interpolation for control point cp, written to out[0..2]. */
export function interpolationPivot(world: PhysikWorld, rig: RigRecord, cp: number, out: Float64Array): void {
  const { Bone, ControlPoint, Rig } = world.physik;
  if (rig.settings.interpolation === 'polar-com') {
    out[0] = Rig.centreOfMass[rig.eid * 3]!;
    out[1] = Rig.centreOfMass[rig.eid * 3 + 1]!;
    out[2] = Rig.centreOfMass[rig.eid * 3 + 2]!;
  } else {
    const b = ControlPoint.bone[cp]! * 3;
    out[0] = Bone.head[b]!; out[1] = Bone.head[b + 1]!; out[2] = Bone.head[b + 2]!;
  }
}

const pivot = new Float64Array(3);

export function setTargetOf(world: PhysikWorld, rig: RigRecord, cp: number, x: number, y: number, z: number): void {
  if (!Number.isFinite(x) || !Number.isFinite(y) || !Number.isFinite(z)) {
    throw new Error(`target of control point "${rig.controlPointNames[rig.controlPoints.indexOf(cp)]}" must be three finite numbers, got [${x}, ${y}, ${z}]`);
  }
  if (Math.abs(x) > MAX_MAGNITUDE || Math.abs(y) > MAX_MAGNITUDE || Math.abs(z) > MAX_MAGNITUDE) {
    throw new Error(`target of control point "${rig.controlPointNames[rig.controlPoints.indexOf(cp)]}" must be three numbers from -1e9 to 1e9 (larger ones overflow the simulation), got [${x}, ${y}, ${z}]`);
  }
  const { ControlPoint } = world.physik;
  const c3 = cp * 3;
  ControlPoint.target[c3] = x; ControlPoint.target[c3 + 1] = y; ControlPoint.target[c3 + 2] = z;
  const s = rig.settings;
  let interpolate = s.interpolation !== 'none' && s.interpolationSteps > 1;
  if (interpolate) {
    interpolationPivot(world, rig, cp, pivot);
    const ax = ControlPoint.effective[c3]! - pivot[0]!, ay = ControlPoint.effective[c3 + 1]! - pivot[1]!, az = ControlPoint.effective[c3 + 2]! - pivot[2]!;
    const bx = x - pivot[0]!, by = y - pivot[1]!, bz = z - pivot[2]!;
    const eps = s.interpolationEpsilon;
    if (len3(ax, ay, az) > eps && len3(bx, by, bz) > eps) {
      const cx = ay * bz - az * by, cy = az * bx - ax * bz, cz = ax * by - ay * bx;
      const angle = Math.atan2(len3(cx, cy, cz), ax * bx + ay * by + az * bz);
      // Below the threshold angle the move is small enough to apply at once.
      interpolate = angle * (180 / Math.PI) >= s.interpolationThresholdDeg;
    } else {
      // a point at the pivot has no angle: interpolate (linearly) unless nothing moves
      interpolate = len3(ax - bx, ay - by, az - bz) > 0;
    }
  }
  if (interpolate) {
    ControlPoint.interpStep[cp] = 0;
    ControlPoint.interpSteps[cp] = s.interpolationSteps;
  } else {
    ControlPoint.effective[c3] = x; ControlPoint.effective[c3 + 1] = y; ControlPoint.effective[c3 + 2] = z;
    ControlPoint.interpStep[cp] = 0;
    ControlPoint.interpSteps[cp] = 0;
  }
  wakeRig(world, rig.eid); // a moved target wakes the rig
}

export function setActiveOf(world: PhysikWorld, rig: RigRecord, cp: number, active: boolean): void {
  world.physik.ControlPoint.active[cp] = active ? 1 : 0;
  wakeRig(world, rig.eid);
}
