/**
 * The sandbox's imported character (browser only): the file a rig was imported from, its
 * skinned mesh drawn and posed by the rig (src/render/characterLayer.ts), the importer's notes
 * shown after an import, exports written onto the file itself (src/io/gltfSource.ts,
 * src/io/bvhSource.ts), and the file kept in IndexedDB under the scene's name so a reload
 * opens it again (characterStore.ts).
 *
 * Keys (while no text field has the focus): `x` switches the bones and handles between
 * through the mesh (X-ray, the default with a mesh), hidden, and drawn where not behind it; `m`
 * shows or hides the mesh; `1`, `3`, `7` look from the front, the side and the top (the rig
 * framed); `f` frames the selected bone from where the camera is (no bone selected: the rig).
 */
import type { PhysikWorld } from '../core';
import type { Recording } from '../io/recording';
import { importGltf } from '../io/gltfImport';
import { recordingToSourceGlb } from '../io/gltfSource';
import { recordingToSourceBvh } from '../io/bvhSource';
import { createCharacterLayer, type CharacterLayer } from '../render/characterLayer';
import type { View } from '../render/view';
import { facingOf, type HumanoidMapping, type HumanoidReport } from '../io/humanoid';
import type { RigDescription } from '../world/types';
import { saveCharacter, saveCharacterMapping, saveCharacterScene, type StoredCharacter } from './characterStore';

/** The file a rig was imported from. */
export interface CharacterFile {
  /** The scene's name (the file's name without extension): the address's `?scene=`. */
  name: string;
  fileName: string;
  /** Bytes for .glb, text for .gltf and .bvh. */
  data: ArrayBuffer | string;
  /** The import's joints (glTF): name and node. */
  joints?: readonly { name: string; node: number }[];
  /** A hand's bone, when the humanoid template found one (the left, else the right). */
  hand?: string;
  /** The way the figure faces, when the humanoid template found its feet (horizontal, unit): `1` looks at it from there. */
  facing?: [number, number, number];
}

/** What an import tells of the figure for the sandbox: a hand's bone and the way it faces. */
export function figureOf(r: { scene: { rig: RigDescription }; humanoid?: HumanoidReport }): Pick<CharacterFile, 'hand' | 'facing'> {
  const hand = r.humanoid?.mapping.leftHand ?? r.humanoid?.mapping.rightHand;
  const facing = r.humanoid && r.humanoid.method !== 'none' ? facingOf(r.scene.rig, r.humanoid.mapping) : null;
  return { ...(hand ? { hand } : {}), ...(facing ? { facing } : {}) };
}

/** How the bones are drawn with a mesh: over it, through it (X-ray), or not at all. */
export type BonesOverlay = 'over' | 'xray' | 'hidden';
export const BONES_OVERLAYS: readonly BonesOverlay[] = ['xray', 'hidden', 'over'];

export interface Character {
  /** The current rig's source file, or null (a scene from scenes/ or a .json). */
  readonly file: CharacterFile | null;
  /** The mesh layer, once loaded (glTF only). */
  readonly layer: CharacterLayer | null;
  /** Resolves when the last attach has finished (loaded or failed). */
  readonly ready: Promise<void>;
  readonly overlay: BonesOverlay;
  readonly meshVisible: boolean;
  /** Draw and remember `file` for rig `rig` (the rig imported from it); keeps it in IndexedDB. */
  attach(file: CharacterFile, rig: number, options?: { store?: boolean }): Promise<void>;
  /** Forget the file and remove its mesh (another scene was loaded). */
  detach(): void;
  setOverlay(mode: BonesOverlay): void;
  setMeshVisible(on: boolean): void;
  /** The recording written onto the source file, or undefined when there is none of that kind. */
  exportOnto(kind: 'glb' | 'bvh', rec: Recording): Promise<{ name: string; data: Uint8Array | string; type: string } | undefined>;
  /** Keep the scene (with its edits) with the file, for the next reload. */
  saveScene(sceneText: string): Promise<void>;
  /** Look from the front (the way the figure faces, else +Z), its left side or the top (the rig's bounds framed). */
  look(from: 'front' | 'side' | 'top'): void;
  /** The humanoid mapping kept with the file as last edited (a reload puts it here for the joint panel), or null. */
  keptMapping: HumanoidMapping | null;
}

export interface CharacterHost {
  view: View;
  world: PhysikWorld;
  /** Shown after an import: the importer's notes. */
  showNotes(title: string, notes: readonly string[]): void;
  showError(message: string): void;
}

const kind = (fileName: string) => (/\.([^.]+)$/.exec(fileName)?.[1] ?? '').toLowerCase();

export function createCharacter(host: CharacterHost): Character {
  const { view, world } = host;
  let file: CharacterFile | null = null;
  let layer: CharacterLayer | null = null;
  let removeLayer: (() => void) | null = null;
  let ready: Promise<void> = Promise.resolve();
  // with a mesh, the bones and handles show through it by default (they are what is dragged)
  let overlay: BonesOverlay = 'xray';
  let meshVisible = true;
  let generation = 0;
  let keptMapping: HumanoidMapping | null = null;

  function applyOverlay(): void {
    view.setBonesOverlay(layer && meshVisible ? overlay : 'over');
  }

  function detach(): void {
    generation++;
    removeLayer?.();
    removeLayer = null;
    layer = null;
    file = null;
    keptMapping = null;
    applyOverlay();
  }

  async function attach(next: CharacterFile, rig: number, options: { store?: boolean } = {}): Promise<void> {
    detach();
    const mine = ++generation;
    file = next;
    const ext = kind(next.fileName);
    if (options.store ?? true) {
      // the address names the character, so a reload (or the link) opens it again
      const url = new URL(location.href);
      url.searchParams.set('scene', next.name);
      history.replaceState(history.state, '', url);
      saveCharacter({ name: next.name, fileName: next.fileName, data: next.data }).catch((e: unknown) => {
        host.showNotes('Not kept for reloads', [`the browser refused to store ${next.fileName}: ${e instanceof Error ? e.message : String(e)}`]);
      });
    }
    if (ext !== 'glb' && ext !== 'gltf') return;
    ready = (async () => {
      try {
        const joints = next.joints ?? (await importGltf(typeof next.data === 'string' ? next.data : new Uint8Array(next.data), next.fileName, { template: 'none' })).joints;
        if (mine !== generation) return;
        file = { ...next, joints };
        const made = await createCharacterLayer(world, rig, view.scene, { data: next.data, joints, file: next.fileName });
        if (mine !== generation) { made.dispose(); return; }
        layer = made;
        layer.setVisible(meshVisible);
        removeLayer = view.addLayer(made);
        applyOverlay();
        view.frame();
      } catch (e) {
        if (mine === generation) host.showError(`${next.fileName}: the mesh could not be drawn (the rig still works):\n${e instanceof Error ? e.message : String(e)}`);
      }
    })();
    await ready;
  }

  function look(from: 'front' | 'side' | 'top'): void {
    view.frame();
    const { camera, orbit } = view;
    const d = camera.position.distanceTo(orbit.target);
    // the figure's front (the way its toes point; +Z when not known), its left side (up × front), or above
    const f = file?.facing ?? [0, 0, 1];
    const dir = from === 'front' ? f : from === 'side' ? [f[2], 0, -f[0]] : [1e-4 * f[0], 1, 1e-4 * f[2]];
    const l = Math.hypot(dir[0]!, dir[1]!, dir[2]!);
    camera.position.set(orbit.target.x + (d * dir[0]!) / l, orbit.target.y + (d * dir[1]!) / l, orbit.target.z + (d * dir[2]!) / l);
    camera.lookAt(orbit.target);
    orbit.update();
  }

  window.addEventListener('keydown', (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement || e.target instanceof HTMLSelectElement) return;
    if (e.key === 'x' || e.key === 'X') character.setOverlay(BONES_OVERLAYS[(BONES_OVERLAYS.indexOf(overlay) + 1) % BONES_OVERLAYS.length]!);
    else if (e.key === 'm' || e.key === 'M') character.setMeshVisible(!meshVisible);
    else if (e.key === '1') look('front');
    else if (e.key === '3') look('side');
    else if (e.key === '7') look('top');
    else if (e.key === 'f' || e.key === 'F') view.frameSelected();
  });

  const character: Character = {
    get file() { return file; },
    get layer() { return layer; },
    get ready() { return ready; },
    get overlay() { return overlay; },
    get meshVisible() { return meshVisible; },
    attach,
    detach,
    setOverlay(mode) { overlay = mode; applyOverlay(); },
    setMeshVisible(on) { meshVisible = on; layer?.setVisible(on); applyOverlay(); },
    async exportOnto(k, rec) {
      if (!file) return undefined;
      const ext = kind(file.fileName);
      if (k === 'glb' && ext === 'glb') {
        const data = await recordingToSourceGlb(file.data as ArrayBuffer, rec, { joints: file.joints, file: file.fileName });
        return { name: `${file.name}.glb`, data: new Uint8Array(data), type: 'model/gltf-binary' };
      }
      if (k === 'bvh' && ext === 'bvh') {
        return { name: `${file.name}.bvh`, data: recordingToSourceBvh(file.data as string, rec, { file: file.fileName }), type: 'text/plain' };
      }
      return undefined;
    },
    saveScene: (sceneText) => (file ? saveCharacterScene(file.name, sceneText) : Promise.resolve()),
    look,
    get keptMapping() { return keptMapping; },
    set keptMapping(m: HumanoidMapping | null) { keptMapping = m; },
  };
  return character;
}

/** A dismissable box of notes (the importer's) at the bottom left of the page. */
export function showNotesBox(title: string, notes: readonly string[]): void {
  let box = document.getElementById('import-notes');
  if (!box) {
    box = document.createElement('div');
    box.id = 'import-notes';
    box.setAttribute('role', 'status');
    Object.assign(box.style, {
      // bottom left, above the timeline: clear of the panel (right) and the plots (top left)
      position: 'fixed', bottom: '96px', left: '12px', maxWidth: 'min(560px, calc(100vw - 300px))',
      maxHeight: '40vh', overflow: 'auto', background: 'rgba(30, 34, 41, 0.94)', color: '#dfe6ee', font: '12px/1.45 system-ui, sans-serif',
      padding: '8px 28px 8px 12px', borderRadius: '6px', border: '1px solid #4a5260', zIndex: '1002', whiteSpace: 'pre-wrap',
    } satisfies Partial<CSSStyleDeclaration>);
    document.body.append(box);
  }
  box.replaceChildren();
  const close = document.createElement('button');
  close.textContent = '×';
  close.title = 'close';
  Object.assign(close.style, { position: 'absolute', top: '4px', right: '6px', background: 'none', border: 'none', color: '#dfe6ee', cursor: 'pointer', fontSize: '16px' });
  close.addEventListener('click', () => { box!.hidden = true; });
  const head = document.createElement('strong');
  head.textContent = title;
  const list = document.createElement('ul');
  list.style.margin = '4px 0 0 16px';
  list.style.padding = '0';
  for (const n of notes) {
    const li = document.createElement('li');
    li.textContent = n;
    list.append(li);
  }
  box.append(close, head, list);
  box.hidden = notes.length === 0;
}

/** What reopening a kept character needs of the sandbox. */
export interface ReopenHost {
  readonly rig: number;
  readonly character: Character;
  openFile(data: string | ArrayBuffer, fileName: string): Promise<boolean>;
  loadScene(scene: import('../scene/types').Scene, name: string): void;
  sceneFile(): string;
}

/**
 * Open a character kept in IndexedDB (a reload of its address): import its file again, then
 * put back the scene as last edited (its control points, targets, limits, settings), the mesh
 * still drawn, and the humanoid roles as last edited (`keptMapping`, for the joint panel); from then on keep the scene's edits every few seconds and when the page is left.
 */
export async function reopenCharacter(sandbox: ReopenHost, stored: StoredCharacter, parse: (text: string, where: string) => import('../scene/types').Scene): Promise<boolean> {
  if (!(await sandbox.openFile(stored.data, stored.fileName))) return false;
  const file = sandbox.character.file;
  if (stored.sceneText && file) {
    try {
      sandbox.loadScene(parse(stored.sceneText, `${stored.name} (as last edited)`), stored.name);
      await sandbox.character.attach(file, sandbox.rig, { store: false });
      await sandbox.character.saveScene(stored.sceneText);
    } catch (e) {
      showNotesBox(`${stored.name}: opened as imported`, [`the edits kept with it could not be applied: ${e instanceof Error ? e.message : String(e)}`]);
    }
  }
  // the roles as last edited in the joint panel (opening the file stored it afresh, without them)
  if (stored.mapping && sandbox.character.file) {
    sandbox.character.keptMapping = stored.mapping;
    await saveCharacterMapping(stored.name, stored.mapping).catch(() => undefined);
  }
  return true;
}

/** Keep the scene's edits with its character file: every `everyMs` when changed, and when the page is hidden. */
export function keepCharacterEdits(sandbox: Pick<ReopenHost, 'character' | 'sceneFile'>, everyMs = 2000): void {
  let last = '';
  const save = () => {
    if (!sandbox.character.file) return;
    const text = sandbox.sceneFile();
    if (text === last) return;
    last = text;
    void sandbox.character.saveScene(text).catch(() => undefined);
  };
  setInterval(save, everyMs);
  document.addEventListener('visibilitychange', () => { if (document.visibilityState === 'hidden') save(); });
  window.addEventListener('pagehide', save);
}
