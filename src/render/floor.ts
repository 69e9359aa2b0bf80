/**
 * Floor and grid sized from the rigs: at the lowest point of their bones as they stand now
 * (a BVH whose root is at the origin has its feet below it; a character in centimetres is a
 * hundred times a character in metres), with square cells of a round size (1, 2 or 5 × 10^k)
 * near a quarter of the figure's height, and a floor ten heights across. Pure numbers: the view
 * builds the GridHelper from them.
 */
import type { PhysikWorld } from '../core';

export interface FloorPlan {
  /** Height of the floor (world y). */
  y: number;
  /** Centre of the grid (x, z): under the rigs. */
  x: number;
  z: number;
  /** Side of the grid and of one cell (world units). */
  size: number;
  cell: number;
  /** Cells along a side. */
  divisions: number;
}

/** The round size (1, 2 or 5 × 10^k) nearest `x` from below (for x > 0). */
export function roundSize(x: number): number {
  const k = Math.floor(Math.log10(x));
  const base = 10 ** k;
  const m = x / base;
  return (m >= 5 ? 5 : m >= 2 ? 2 : 1) * base;
}

/** The floor for the world's rigs as they stand now; the unit floor (y 0, 10 × 10) when there are none. */
export function floorFor(world: PhysikWorld): FloorPlan {
  const { Bone } = world.physik;
  let lo = Infinity, hiY = -Infinity, minX = Infinity, maxX = -Infinity, minZ = Infinity, maxZ = -Infinity;
  for (const r of world.physik.rigs) {
    for (const b of r.bones) {
      for (const a of [Bone.head, Bone.tail]) {
        const x = a[b * 3]!, y = a[b * 3 + 1]!, z = a[b * 3 + 2]!;
        if (!Number.isFinite(x + y + z)) continue;
        lo = Math.min(lo, y); hiY = Math.max(hiY, y);
        minX = Math.min(minX, x); maxX = Math.max(maxX, x);
        minZ = Math.min(minZ, z); maxZ = Math.max(maxZ, z);
      }
    }
  }
  if (!Number.isFinite(lo)) return { y: 0, x: 0, z: 0, size: 10, cell: 0.25, divisions: 40 };
  const height = Math.max(hiY - lo, maxX - minX, maxZ - minZ, 1e-6);
  const cell = roundSize(height / 4);
  const divisions = 40;
  const snap = (v: number) => Math.round(v / cell) * cell;
  return { y: lo, x: snap((minX + maxX) / 2), z: snap((minZ + maxZ) / 2), size: cell * divisions, cell, divisions };
}
