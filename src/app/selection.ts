/**
 * The sandbox's selected control point, kept by name (an edit that rebuilds the rig numbers its
 * entities anew), with the target dragger's pick and the view's bone highlight following it.
 * One for both sandboxes: the main-thread one (main.ts) and worker mode (workerMode.ts).
 */
import type { PhysikWorld, RigRecord } from '../world/world';
import type { View } from '../render/view';
import type { TargetDragger } from './drag';

export interface Selection {
  /** Name of the selected control point of the current rig, or null. */
  readonly name: string | null;
  /** The dragger the selection drives (set once it exists: its hooks call `picked`). */
  dragger: TargetDragger | null;
  /** Name of control point `cp` of the current rig, or null when it is not one of its points. */
  nameOf(cp: number): string | null;
  /** Select by name (the panel, an undo, a pin): the dragger and the highlight follow; null or an unknown name deselects. */
  select(name: string | null): void;
  /** The dragger picked `cp` (−1: none). */
  picked(cp: number): void;
  /** Deselect without telling `onChange` (a new scene is loading). */
  clear(): void;
}

export function createSelection(world: PhysikWorld, record: () => RigRecord, view: View, onChange: () => void): Selection {
  let name: string | null = null;
  const highlight = (cp: number) => view.setSelectedBone(cp >= 0 ? world.physik.ControlPoint.bone[cp]! : -1);
  const selection: Selection = {
    get name() { return name; },
    dragger: null,
    nameOf(cp) {
      const r = record();
      const i = r.controlPoints.indexOf(cp);
      return i >= 0 ? r.controlPointNames[i]! : null;
    },
    select(next) {
      name = next;
      const cp = next === null ? -1 : record().controlPointByName.get(next) ?? -1;
      if (cp < 0) name = null;
      const dragger = selection.dragger;
      if (dragger && dragger.selected !== cp) dragger.select(cp);
      highlight(cp);
      onChange();
    },
    picked(cp) {
      const next = cp >= 0 ? selection.nameOf(cp) : null;
      if (next === name) return;
      name = next;
      highlight(cp);
      onChange();
    },
    clear() {
      name = null;
      selection.dragger?.select(-1);
      view.setSelectedBone(-1);
    },
  };
  return selection;
}
