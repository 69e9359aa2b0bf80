/**
 * Which bone a press takes when a stick bone and a character's skin are both under the pointer
 * (`choosePick`): bones drawn through the mesh take the press, bones drawn only where not
 * behind it take it when nearer, hidden bones never; the skin is raycast only when it may win.
 */
import { describe, expect, it } from 'vitest';
import { choosePick, type BonePick, type LayerPick } from '../../../src/render/picking';

const origin = { x: 0, y: 0, z: 10 };
const stick: BonePick = { bone: 3, at: 0.5, point: [0, 0, 4] }; // 6 along the ray
const skin = (distance: number): LayerPick => ({ bone: 7, at: 0.25, point: [0, 0, 10 - distance], distance });

describe('choosePick', () => {
  it('through the mesh (X-ray), the stick under the pointer wins and the skin is not raycast', () => {
    let asked = 0;
    expect(choosePick('xray', stick, origin, () => { asked++; return skin(2); })).toBe(stick);
    expect(asked).toBe(0);
    // no stick there: the skin's bone, without its distance
    expect(choosePick('xray', null, origin, () => skin(2))).toEqual({ bone: 7, at: 0.25, point: [0, 0, 8] });
  });

  it('drawn where not behind the mesh, the nearer along the ray wins', () => {
    expect(choosePick('over', stick, origin, () => skin(2))?.bone).toBe(7); // skin in front of the stick
    expect(choosePick('over', stick, origin, () => skin(8))?.bone).toBe(3); // stick in front of the skin
    expect(choosePick('over', stick, origin, () => null)).toBe(stick);
  });

  it('hidden bones are never taken: only the skin', () => {
    expect(choosePick('hidden', stick, origin, () => skin(8))?.bone).toBe(7);
    expect(choosePick('hidden', stick, origin, () => null)).toBeNull();
  });
});
