/**
 * What the sandbox page is to the rest of the app and to tests: the `Sandbox` host (the world,
 * the rig shown, the panel's state and commands; src/app/mainThread.ts runs it on the main
 * thread, src/app/workerMode.ts with the world in a worker) and the read-only `PhysikDebug` handle.
 */
import type GUI from 'lil-gui';
import type { PhysikWorld } from '../world/world';
import type { BonePose, RigMetrics } from '../core/api';
import type { Scene, ScriptEvent, Settings } from '../scene/types';
import type { View } from '../render/view';
import type { Hud } from '../hud/overlay';
import type { Timeline } from '../hud/timeline';
import type { JointModel } from '../rapier/jointPlan';
import type { TargetDragger } from './drag';
import type { BoneGrabber } from './grab';
import type { History } from './history';
import type { Comparison } from './compare';
import type { RecordingControls } from './recording';
import type { RapierDistance, RapierGhost } from './rapierGhost';
import type { RapierPlacement } from './rapierChoices';
import type { Feel, FeelState } from './feel';
import type { Character } from './character';

/** What a host may lack: the help, the panel and the keys leave out what it cannot do. */
export type Feature = 'boneGrab' | 'pointEdits' | 'undo' | 'recording' | 'compare' | 'rapier' | 'onion' | 'keys';

export interface Sandbox {
  world: PhysikWorld;
  /** Features this host does not have (empty on the main thread). */
  readonly unavailable: readonly Feature[];
  /** Why they are off, and what to do to have them (shown with the list). */
  readonly unavailableWhy?: string;
  readonly rig: number;
  readonly sceneName: string;
  /** Control point entity by name (current: edits add and remove points). */
  readonly controlPoints: Record<string, number>;
  readonly bones: Record<string, number>;
  readonly paused: boolean;
  /** Steps taken since the page loaded (counts across resets). */
  readonly stepsTaken: number;
  readonly frames: number;
  setPaused(p: boolean): void;
  stepOnce(): void;
  reset(): void;
  /** Client (CSS pixel) position of a control point's target handle. */
  screenOf(name: string): { x: number; y: number } | null;
  /** Client position of a point a fraction `at` along a bone (0 head, 1 tail). */
  screenOfBone(name: string, at: number): { x: number; y: number } | null;
  view: View;
  /** The pixi.js overlay (plots and status), once it has started. */
  readonly hud: Hud | null;
  /** Whether the plots show the solver's internals too (mismatch, passes, step time). */
  advancedPlots: boolean;
  dragger: TargetDragger;
  grabber: BoneGrabber;
  history: History;
  /** Change settings of the main rig (and the ghost's, except the solver); throws when refused. */
  applySettings(patch: Partial<Settings>): void;
  /** The feel knobs in effect on the main rig (feel.ts); null where the scene's own stiffness or damping stands. */
  readonly feel: Readonly<FeelState>;
  /** Whether the scene sets its own stiffness or damping (it keeps them until a knob is moved). */
  readonly sceneOwnFeel: boolean;
  /** Turn feel knobs (kept for the scenes loaded next); throws, nothing changed, for a value out of range. */
  setFeel(feel: Partial<Feel>): void;
  /** The compare ghost, or null. */
  readonly compare: Comparison | null;
  /** Start (or stop, with null) compare mode; throws for an unknown solver. */
  setCompare(solver: string | null): void;
  /** Replace the rig with a scene's (the page's history and plots start over). */
  loadScene(scene: Scene, name: string): void;
  /**
   * Open a file (a drop or the panel's button): a scene .json, or a rig from .glb/.gltf/.bvh
   * (imported with two control points at its longest chains' ends). False, with the error
   * shown, when refused; the current rig then stays.
   */
  openFile(data: string | ArrayBuffer, fileName: string): Promise<boolean>;
  /** Record/stop, playback, scrubbing, resume and export. */
  recorder: RecordingControls;
  /** The pixi.js timeline strip, once it has started. */
  readonly timeline: Timeline | null;
  /** Notes of the last import (unnamed joints named, what the humanoid template recognised, ...). */
  readonly importNotes: string[];
  /** The character file the rig was imported from: its mesh, bones overlay, exports onto it. */
  readonly character: Character;
  /** The scene as it stands (rig, current control points and targets, settings) as scene-file JSON. */
  sceneFile(): string;
  /** Spawn `n` copies of the scene's rig behind it, each following a wandering scripted target (0 removes them). */
  spawnCrowd(n: number): void;
  /** Rigs of the crowd (not counting the main rig). */
  readonly crowd: number;
  /** Move a control point's target (undoable, like a drag); throws for an unknown name or a non-finite target. */
  moveTarget(name: string, to: [number, number, number]): void;
  /** Name of the selected control point, or null. */
  readonly selected: string | null;
  select(name: string | null): void;
  deleteSelected(): void;
  toggleSelected(): void;
  undo(): void;
  redo(): void;
  /** The rig's script: timed target moves (keys) and switches, in step order (a copy). */
  readonly keys: readonly ScriptEvent[];
  /**
   * Key the named point's target (default: the selected point's) where it is now, at the rig's
   * current step (a key there already is replaced): played back from a reset, saved with the
   * scene. Undoable; throws for no or an unknown point.
   */
  keyTarget(name?: string): void;
  /** Remove the named point's keys (default: the selected point's); undoable. */
  deleteKeys(name?: string): void;
  /** Index in `keys` of the key selected on the timeline, or -1 (Delete/Backspace deletes it). */
  readonly selectedKey: number;
  /** Select the key at `index` of `keys` (and its point), or none with -1; throws for an index that is no key. */
  selectKey(index: number): void;
  /** Move the key at `index` of `keys` to step `step` (one there of the same point is replaced); undoable. */
  moveKey(index: number, step: number): void;
  /** Delete the key at `index` of `keys`; undoable. */
  deleteKey(index: number): void;
  /** Onion-skin ghosts shown (0 = off). */
  onion: number;
  /** The Rapier ghost once it runs (null while off or loading). */
  readonly rapier: RapierGhost | null;
  /** Joint model of the Rapier ghost asked for (running or loading), or null when off. */
  readonly rapierJoints: JointModel | null;
  /**
   * Switch the Rapier ghost on (true: impulse joints, or a joint model) or off (false/null).
   * Resolves true once it runs (false when off, or overtaken by a later call); rejects, with
   * the reason also shown in #error, when Rapier cannot load or mirror the rig.
   */
  setRapierGhost(on: boolean | JointModel | null): Promise<boolean>;
  /** Where the Rapier ghost is drawn: over the rig, or beside it. */
  rapierPlacement: RapierPlacement;
  /** Smoothed wall time of the Rapier ghost's step (ms), 0 when off. */
  readonly rapierMs: number;
  /** The settings panel (lil-gui), once the page has built it. */
  panel?: GUI;
  /** Called after anything the panel shows changed outside it (a loaded scene, undo...). */
  onChange?: () => void;
  /** Called with the status line (about 10 times a second): live readouts. */
  onLive?: () => void;
}


/** The read-only debug handle for tests and the console. */
export interface PhysikDebug {
  pose(): Record<string, BonePose>;
  metrics(): RigMetrics;
  /** Simulated seconds of the main rig since it was added or reset (its step × dt). */
  time(): number;
  compareMetrics(): RigMetrics | null;
  /** The Rapier ghost on (true or a joint model) or off; see Sandbox.setRapierGhost. */
  rapierGhost(on: boolean | JointModel): Promise<boolean>;
  /** Tip distance between PhysIK and the Rapier ghost (a copy), or null when it is off. */
  rapierDistance(): RapierDistance | null;
  /** Calls of RAPIER.init() on this page. */
  rapierInits(): number;
}

declare global {
  interface Window { __physik?: Sandbox; physik?: PhysikDebug }
}

/** The name of the bone selected in the view, or null (none, or a bone of another rig). */
export function selectedBoneName(sandbox: Pick<Sandbox, 'view' | 'bones'>): string | null {
  const b = sandbox.view.selectedBone;
  if (b < 0) return null;
  for (const [name, e] of Object.entries(sandbox.bones)) if (e === b) return name;
  return null;
}
