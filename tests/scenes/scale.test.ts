/**
 * The scale pair: the same humanoid reach modelled in metres (scenes/scale-m.json)
 * and in centimetres (scenes/scale-cm.json, lengths and positions × 100, same masses) must
 * reach the same pose, scaled, under the default settings.
 */
import { describe, expect, it } from 'vitest';
import { loadSceneFile } from '../../src/scene/loadFile';
import { runScene } from '../../src/scene/run';
import type { Scene } from '../../src/scene/types';

const metres = loadSceneFile('scenes/scale-m.json');
const centimetres = loadSceneFile('scenes/scale-cm.json');

/** Largest distance between corresponding bone ends (cm pose ÷ 100), as a fraction of the height. */
function poseGap(m: Scene, cm: Scene): number {
  const a = runScene(m);
  const b = runScene(cm);
  let gap = 0;
  for (const [name, pa] of Object.entries(a.pose)) {
    const pb = b.pose[name]!;
    for (const end of ['head', 'tail'] as const) {
      const d = Math.hypot(...pa[end].map((v, i) => v - pb[end][i]! / 100));
      gap = Math.max(gap, d);
    }
  }
  return gap / a.height;
}

describe('metres and centimetres', () => {
  it('reach the same pose, scaled, within 1% of the rig height (defaults)', () => {
    const gap = poseGap(metres, centimetres);
    expect(gap).toBeLessThan(0.01);
    expect(Number.isFinite(gap)).toBe(true);
  });
});
