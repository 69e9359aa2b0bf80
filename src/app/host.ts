/**
 * What both sandbox hosts are made of (the main-thread host, mainThread.ts, and the worker
 * host, workerMode.ts): the page's world with the scene's rig (and crowd), the feel knobs, the
 * view, the selection, the target dragger, the history and the page shell, and the members of
 * `Sandbox` that read or change them the same way on either thread. A host adds its own
 * members (stepping, settings, undo...) and tells the core through `HostHooks` what else a
 * loaded scene, a crowd or a feel change needs on its side (a worker message, the compare
 * ghost, the history).
 */
import { createPhysikWorld, type PhysikWorld } from '../core';
import { findRig, type RigRecord } from '../world/world';
import type { Scene, Settings } from '../scene/types';
import { createView, type View } from '../render/view';
import { createSelection, type Selection } from './selection';
import { createTargetDragger, type DraggerHooks, type TargetDragger } from './drag';
import { createHistory, type History } from './history';
import { screenPoints } from './screenPoints';
import { sceneFileText } from './sceneFile';
import { addSceneRig, replaceCrowd, replaceScene } from './simScene';
import type { RigRef } from './edits';
import type { SandboxOptions } from './deepLink';
import { applyFeel, feelForScene, inEffect, sceneStatesOwnFeel, SANDBOX_FEEL, type Feel, type FeelState } from './feel';
import { createPageShell, openFileWith, showError, type PageShell } from './shell';
import { isPinName } from './grab';
import type { Sandbox } from './sandbox';
import type { Recording } from '../io/recording';
import { createCharacter, showNotesBox } from './character';

/** What a host does on its side when the core changes the rigs or the feel. */
export interface HostHooks {
  /** The dragger's hooks other than selection (a finished move for undo, a target posted to the worker). */
  drag?: Omit<DraggerHooks, 'onSelect'>;
  /** A scene replaced the rigs (the core has applied the feel and cleared the selection). */
  sceneLoaded(next: Scene): void;
  /** The crowd changed to `n` copies. */
  crowdChanged(n: number): void;
  /** Feel knobs set on the page's main rig (was: the responsiveness before). */
  feelChanged(patch: Partial<Feel>, was: number): void;
  /** A recording file was opened: play it on the rig (throws when it cannot). */
  recordingOpened(recording: Recording): void;
}

export interface HostCore {
  readonly world: PhysikWorld;
  readonly rig: number;
  readonly scene: Scene;
  readonly crowdRigs: readonly number[];
  readonly ref: RigRef;
  record(): RigRecord;
  readonly feel: Readonly<FeelState>;
  /** The feel in effect and the knobs last chosen (a step of the history puts them back). */
  feelState: { feel: FeelState; chosen: Feel };
  readonly canvas: HTMLCanvasElement;
  readonly view: View;
  readonly history: History;
  readonly selection: Selection;
  readonly dragger: TargetDragger;
  readonly shell: PageShell;
  /** Tell the panel that what it shows changed. */
  changed(): void;
  /** Settings were set by hand: damping set directly means liveliness no longer stands. */
  settingsSet(patch: Partial<Settings>): void;
  /** The members of `Sandbox` both hosts share (getters kept: merge with `sandboxOf`). */
  readonly shared: SharedMembers;
  /** The sandbox, once the host has built it. */
  bind(sandbox: Sandbox): void;
}

/** The `Sandbox` members the core implements. */
export type SharedMembers = Pick<Sandbox,
  'world' | 'rig' | 'sceneName' | 'controlPoints' | 'bones' | 'frames' | 'screenOf' | 'screenOfBone' | 'view' | 'dragger'
  | 'history' | 'hud' | 'advancedPlots' | 'feel' | 'sceneOwnFeel' | 'setFeel' | 'loadScene' | 'openFile' | 'importNotes' | 'sceneFile'
  | 'spawnCrowd' | 'crowd' | 'selected' | 'select' | 'character'>;

/** Merge a host's own members into the shared ones (own ones win), getters and setters kept as they are. */
export function sandboxOf<S extends Sandbox>(shared: SharedMembers, own: Omit<S, keyof SharedMembers> & Partial<SharedMembers>): S {
  const out = {} as S;
  Object.defineProperties(out, Object.getOwnPropertyDescriptors(shared));
  Object.defineProperties(out, Object.getOwnPropertyDescriptors(own));
  return out;
}

const byName = (names: Map<string, number>) => Object.assign(Object.create(null) as Record<string, number>, Object.fromEntries(names));

export function createHostCore(initial: Scene, initialName: string, options: SandboxOptions, hooks: HostHooks): HostCore {
  const world = createPhysikWorld();
  let scene = initial;
  let sceneName = initialName;
  let rig = addSceneRig(world, scene, options.solver);
  let crowdRigs: number[] = [];
  let importNotes: string[] = [];
  const record = () => findRig(world, rig);
  const ref: RigRef = { world, get rig() { return rig; } };
  // the knobs last chosen (a deep link's, then the panel's): every scene loaded gets them
  const chosen: Feel = { responsiveness: options.responsiveness ?? SANDBOX_FEEL.responsiveness, liveliness: options.liveliness ?? SANDBOX_FEEL.liveliness };
  let feel: FeelState = feelForScene(scene, chosen, { responsiveness: options.responsiveness, liveliness: options.liveliness });
  applyFeel(world, rig, inEffect(feel));

  let sandbox: Sandbox | null = null;
  const changed = () => sandbox?.onChange?.();
  const canvas = document.getElementById('view') as HTMLCanvasElement;
  const view = createView(canvas, world);
  const history = createHistory();
  const selection = createSelection(world, record, view, changed);
  const dragger = createTargetDragger(world, view, canvas, { ...hooks.drag, onSelect: (cp) => selection.picked(cp) });
  selection.dragger = dragger;
  view.setPinTest(isPinName);
  const shell = createPageShell(canvas, scene.settings.dt);
  // an imported character: its mesh, notes, exports onto its file, kept for reloads
  const character = createCharacter({ view, world, showNotes: showNotesBox, showError });
  noteCapture(initial, initialName);

  /**
   * A scene with a capture block names a clip file beside it, which the page does not load with
   * the scene: say so, and how to play it (headless, or its file opened with Motion).
   */
  function noteCapture(s: Scene, name: string): void {
    const clip = s.capture?.clip;
    if (!clip) return;
    const file = 'file' in clip && typeof clip.file === 'string' ? clip.file : 'its clip';
    showNotesBox(`${name}: its clip plays from the command line`, [
      `this scene ties the rig to a motion clip (its capture block: ${file}), which the sandbox does not load with a scene: the rig is shown without it`,
      `\`npx physik run scenes/${name}.json\` plays it headless; in the sandbox, open the clip's own file (a .bvh, .glb or .gltf with motion) and turn on "play clip through physics" in the Motion folder`,
    ]);
  }

  function loadScene(next: Scene, name: string): void {
    // build the new rigs first: if that throws, the old ones stay
    ({ rig, crowd: crowdRigs } = replaceScene(world, next, undefined, [rig, ...crowdRigs])); // with the scene's own crowd
    character.detach(); // a character file belongs to the rig imported from it
    feel = feelForScene(next, chosen);
    applyFeel(world, rig, inEffect(feel));
    scene = next;
    sceneName = name;
    selection.clear();
    hooks.sceneLoaded(next);
    view.update(); // rebuild the buffers for the new topology before framing
    view.frame();
    document.title = `physik-ecs · ${name}`;
    changed();
    noteCapture(next, name);
  }

  const shared: SharedMembers = {
    world,
    get rig() { return rig; },
    get sceneName() { return sceneName; },
    get controlPoints() { return byName(record().controlPointByName); },
    get bones() { return byName(record().boneByName); },
    get frames() { return shell.frames; },
    ...screenPoints(world, view, record),
    view, dragger, history,
    get hud() { return shell.hud; },
    get advancedPlots() { return shell.advancedPlots; },
    set advancedPlots(on: boolean) { shell.advancedPlots = on; },
    get feel() { return feel; },
    get sceneOwnFeel() { return sceneStatesOwnFeel(scene); },
    setFeel(patch) {
      const was = feel.responsiveness ?? 1;
      applyFeel(world, rig, patch, was); // throws before anything changes when refused
      hooks.feelChanged(patch, was);
      feel = { ...feel, ...patch };
      Object.assign(chosen, patch);
    },
    loadScene,
    openFile: (data, fileName) => openFileWith(data, fileName, (opened) => {
      if (opened.kind === 'recording') { hooks.recordingOpened(opened.recording); return; }
      loadScene(opened.scene, opened.name);
      importNotes = opened.notes;
      if (opened.source) void character.attach(opened.source, rig);
      if (opened.notes.length) showNotesBox(`Imported ${fileName}`, opened.notes);
    }),
    character,
    get importNotes() { return importNotes; },
    sceneFile: () => sceneFileText(world, record(), scene),
    spawnCrowd(n) {
      crowdRigs = replaceCrowd(world, scene, rig, crowdRigs, n); // throws first for a bad n
      hooks.crowdChanged(n);
      view.update(); // rebuild the buffers for the new set of rigs
      view.frame();
    },
    get crowd() { return crowdRigs.length; },
    get selected() { return selection.name; },
    select: (name) => selection.select(name),
  };

  return {
    world, ref, record, canvas, view, history, selection, dragger, shell, changed, shared,
    get rig() { return rig; },
    get scene() { return scene; },
    get crowdRigs() { return crowdRigs; },
    get feel() { return feel; },
    get feelState() { return { feel, chosen: { ...chosen } }; },
    set feelState(s) { feel = s.feel; Object.assign(chosen, s.chosen); },
    settingsSet(patch) {
      if (patch.damping !== undefined || patch.dampingAuto !== undefined || patch.dampingRatio !== undefined) feel = { ...feel, liveliness: null };
    },
    bind(s) { sandbox = s; },
  };
}
