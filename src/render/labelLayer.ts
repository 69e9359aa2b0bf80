/**
 * Labels in the view (browser only): DOM text placed over the canvas at a projected world
 * point each frame, so it stays crisp at any size. The view labels the main rig's centre of
 * mass; a label hides when its point is behind the camera or outside the world.
 */
import type { PhysikWorld } from '../core';

type Project = (x: number, y: number, z: number, out: { x: number; y: number }) => boolean;

export interface LabelLayer {
  update(): void;
  dispose(): void;
}

/** "centre of mass" beside the first rig's centre-of-mass marker. */
export function createComLabel(world: PhysikWorld, canvas: HTMLCanvasElement, project: Project): LabelLayer {
  const el = document.createElement('div');
  el.className = 'view-label com-label';
  el.textContent = 'centre of mass';
  Object.assign(el.style, {
    position: 'fixed', left: '0', top: '0', pointerEvents: 'none', color: '#8fe1ff', font: '12px system-ui, sans-serif',
    textShadow: '0 1px 2px #000', whiteSpace: 'nowrap', zIndex: '5', display: 'none',
  });
  (canvas.parentElement ?? document.body).append(el);
  const at = { x: 0, y: 0 };
  let shown = '';
  return {
    update() {
      const rig = world.physik.rigs[0];
      const c = world.physik.Rig.centreOfMass;
      let where = 'none';
      if (rig) {
        const r3 = rig.eid * 3;
        if (project(c[r3]!, c[r3 + 1]!, c[r3 + 2]!, at) && Number.isFinite(at.x + at.y)) {
          where = `translate(${Math.round(at.x + 10)}px, ${Math.round(at.y - 8)}px)`;
        }
      }
      if (where === shown) return;
      shown = where;
      el.style.display = where === 'none' ? 'none' : '';
      if (where !== 'none') el.style.transform = where;
    },
    dispose() { el.remove(); },
  };
}
