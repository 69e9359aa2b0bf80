/**
 * Momentum and kinetic energy of a rig measured from the stores, independently of the systems that
 * keep them (the conservation tests' measure).
 */
import type { PhysikWorld } from '../../src/core';
import type { RigRecord } from '../../src/world/world';

export interface Measure { P: number[]; L: number[]; KE: number; scaleP: number; scaleL: number }

/** Linear and angular momentum (about the origin), kinetic energy, and their scales (Σ |m v|, Σ |c × m v| + |I ω|). */
export function measure(world: PhysikWorld, rig: RigRecord): Measure {
  const B = world.physik.Bone;
  const P = [0, 0, 0], L = [0, 0, 0];
  let KE = 0, scaleP = 0, scaleL = 0;
  for (const b of rig.bones) {
    const m = B.mass[b]!;
    const v = [B.vel[b * 3]!, B.vel[b * 3 + 1]!, B.vel[b * 3 + 2]!];
    const c = [B.centre[b * 3]!, B.centre[b * 3 + 1]!, B.centre[b * 3 + 2]!];
    const w = [B.angVel[b * 3]!, B.angVel[b * 3 + 1]!, B.angVel[b * 3 + 2]!];
    const [x, y, z, s] = [B.rot[b * 4]!, B.rot[b * 4 + 1]!, B.rot[b * 4 + 2]!, B.rot[b * 4 + 3]!];
    const R = [
      1 - 2 * (y * y + z * z), 2 * (x * y - z * s), 2 * (x * z + y * s),
      2 * (x * y + z * s), 1 - 2 * (x * x + z * z), 2 * (y * z - x * s),
      2 * (x * z - y * s), 2 * (y * z + x * s), 1 - 2 * (x * x + y * y),
    ];
    const local = [0, 1, 2].map((i) => R[i]! * w[0]! + R[3 + i]! * w[1]! + R[6 + i]! * w[2]!);
    const h = local.map((v, i) => v * B.inertia[b * 3 + i]!);
    const Iw = [0, 1, 2].map((i) => R[i * 3]! * h[0]! + R[i * 3 + 1]! * h[1]! + R[i * 3 + 2]! * h[2]!);
    const cxv = [c[1]! * v[2]! - c[2]! * v[1]!, c[2]! * v[0]! - c[0]! * v[2]!, c[0]! * v[1]! - c[1]! * v[0]!];
    for (let a = 0; a < 3; a++) { P[a] = P[a]! + m * v[a]!; L[a] = L[a]! + (m * cxv[a]! + Iw[a]!); }
    KE += 0.5 * m * (v[0]! ** 2 + v[1]! ** 2 + v[2]! ** 2) + 0.5 * (local[0]! * h[0]! + local[1]! * h[1]! + local[2]! * h[2]!);
    scaleP += m * Math.hypot(v[0]!, v[1]!, v[2]!);
    scaleL += m * Math.hypot(cxv[0]!, cxv[1]!, cxv[2]!) + Math.hypot(Iw[0]!, Iw[1]!, Iw[2]!);
  }
  return { P, L, KE, scaleP, scaleL };
}
