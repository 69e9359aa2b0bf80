/**
 * Geometry of the angular-limit gizmo (pure maths over typed arrays, no three.js, so it runs
 * and is tested in Node).
 *
 * The limits are per axis of the joint frame F = parentWorld · restLocal (the bone's rest
 * frame carried by its parent; y along the bone), and the angle on axis a is component a of
 * the rotation vector φ of F⁻¹ · boneWorld (see `jointRotationVector` in
 * systems/torsionSprings.ts). A rotation by θ about axis a alone puts the bone at
 * F · R_a(θ), so the gizmo draws, for each axis, the arc swept by F · R_a(θ) · r for θ from
 * min to max, where r is the bone direction (+Y) for the swing axes x and z. Twist (y) does
 * not move the bone direction, so its arc sweeps the joint frame's +Z instead.
 */
import { quatMul } from '../math/quat';
import type { Doubles } from '../../components/doubles';

/** Segments per limit arc. */
export const LIMIT_ARC_SEGMENTS = 32;

/**
 * Joint frame of `bone` in world (parentWorld · restLocal), to out[o..o+3] (x, y, z, w).
 * `rot` and `restLocal` are the Bone stores (4 per entity).
 */
export function jointFrame(out: Float64Array, o: number, rot: Doubles, restLocal: Doubles, parent: number, bone: number): void {
  quatMul(out, o, rot, parent * 4, restLocal, bone * 4);
}

/**
 * World direction (unit) of the gizmo's reference vector after a rotation by `angle` about
 * joint-frame axis `axis` (0 = x, 1 = y, 2 = z) alone: F · R_axis(angle) · r, with r = +Y for
 * x and z (the bone direction) and r = +Z for y (twist). Written to out[oo..oo+2].
 */
export function limitDirection(
  out: Float32Array | Float64Array, oo: number,
  frame: ArrayLike<number>, fo: number,
  axis: number, angle: number,
): void {
  const c = Math.cos(angle), s = Math.sin(angle);
  let vx: number, vy: number, vz: number;
  if (axis === 0) { vx = 0; vy = c; vz = s; } // R_x(θ) ŷ
  else if (axis === 1) { vx = s; vy = 0; vz = c; } // R_y(θ) ẑ
  else { vx = -s; vy = c; vz = 0; } // R_z(θ) ŷ
  // rotate by the frame quaternion: v' = v + w t + q × t, t = 2 q × v
  const qx = frame[fo]!, qy = frame[fo + 1]!, qz = frame[fo + 2]!, qw = frame[fo + 3]!;
  const tx = 2 * (qy * vz - qz * vy);
  const ty = 2 * (qz * vx - qx * vz);
  const tz = 2 * (qx * vy - qy * vx);
  out[oo] = vx + qw * tx + (qy * tz - qz * ty);
  out[oo + 1] = vy + qw * ty + (qz * tx - qx * tz);
  out[oo + 2] = vz + qw * tz + (qx * ty - qy * tx);
}

/**
 * A limit fan for one axis, written as (segments + 2) points at out[o..]: the centre (the
 * joint), then segments + 1 arc points centre + radius · limitDirection(θ) for θ from `min`
 * to `max` in equal steps. Drawn as a triangle fan (centre, i, i + 1) and as an outline
 * centre → arc → centre, sharing the same points.
 */
export function writeLimitFan(
  out: Float32Array | Float64Array, o: number,
  frame: ArrayLike<number>, fo: number,
  cx: number, cy: number, cz: number,
  axis: number, min: number, max: number, radius: number,
  segments: number = LIMIT_ARC_SEGMENTS,
): void {
  out[o] = cx; out[o + 1] = cy; out[o + 2] = cz;
  for (let i = 0; i <= segments; i++) {
    const k = o + 3 + i * 3;
    limitDirection(out, k, frame, fo, axis, min + ((max - min) * i) / segments);
    out[k] = cx + radius * out[k]!;
    out[k + 1] = cy + radius * out[k + 1]!;
    out[k + 2] = cz + radius * out[k + 2]!;
  }
}

/** Triangle-fan indices over writeLimitFan's points: (0, i + 1, i + 2) per segment. */
export function limitFanIndex(segments: number = LIMIT_ARC_SEGMENTS): Uint16Array {
  const idx = new Uint16Array(segments * 3);
  for (let i = 0; i < segments; i++) { idx[i * 3] = 0; idx[i * 3 + 1] = i + 1; idx[i * 3 + 2] = i + 2; }
  return idx;
}

/** Outline indices over writeLimitFan's points as a line strip: centre, arc, back to the centre. */
export function limitOutlineIndex(segments: number = LIMIT_ARC_SEGMENTS): Uint16Array {
  const idx = new Uint16Array(segments + 3);
  for (let i = 0; i <= segments + 1; i++) idx[i] = i;
  idx[segments + 2] = 0;
  return idx;
}

/**
 * Closest approach between a ray (origin o, unit direction d, t >= 0) and the segment
 * a → b. Writes [distance², t along the ray, s in [0, 1] along the segment] to out.
 * Used to pick bones by their axis.
 */
export function raySegmentClosest(
  ox: number, oy: number, oz: number, dx: number, dy: number, dz: number,
  ax: number, ay: number, az: number, bx: number, by: number, bz: number,
  out: Float64Array,
): void {
  const ux = bx - ax, uy = by - ay, uz = bz - az;
  const wx = ax - ox, wy = ay - oy, wz = az - oz;
  const uu = ux * ux + uy * uy + uz * uz;
  const ud = ux * dx + uy * dy + uz * dz;
  const wd = wx * dx + wy * dy + wz * dz;
  const wu = wx * ux + wy * uy + wz * uz;
  // minimise |w + s u − t d|² over s in [0, 1], t >= 0 (d is unit): the line-line optimum,
  // s clamped (best for the clamped s is then t = wd + s ud, the problem being convex), and
  // if that t is behind the origin, the segment point nearest the origin
  const den = uu - ud * ud;
  let s = den > 1e-12 * uu && uu > 0 ? (ud * wd - wu) / den : 0;
  if (!(s > 0)) s = 0; else if (s > 1) s = 1; // also turns −0 and NaN into 0
  let t = wd + s * ud;
  if (t < 0) {
    t = 0;
    s = uu > 0 ? -wu / uu : 0;
    if (!(s > 0)) s = 0; else if (s > 1) s = 1;
  }
  const px = wx + s * ux - t * dx, py = wy + s * uy - t * dy, pz = wz + s * uz - t * dz;
  out[0] = px * px + py * py + pz * pz;
  out[1] = t;
  out[2] = s;
}
