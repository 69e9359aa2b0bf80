/**
 * The messages between the page and the simulation worker (worker mode). The page sends
 * commands, each with an increasing `id`; the worker applies them in order and writes the id
 * of the last one applied into every frame it publishes (poseBuffer.ts META_APPLIED), so the
 * page knows when an edit of its own has reached the simulation. Poses never travel in
 * messages: they are in the shared pose buffer.
 *
 * Rigs are named by their index in `world.physik.rigs` and control points by their index in
 * the rig's `controlPoints` (entity ids may differ between the two worlds).
 */
import type { ControlPointDescription, Scene, Settings } from '../scene/types';
import type { Feel } from './feel';

export type SimCommand =
  /** First message: the control ints (see CONTROL_*), the pose buffer and what to build, with the feel knobs to put on the main rig. */
  | { type: 'init'; id: number; control: SharedArrayBuffer; pose: SharedArrayBuffer; scene: Scene; solver?: string; paused: boolean; feel: Partial<Feel> }
  /** Replace every rig by this scene's (a new pose buffer for the new topology), the feel knobs on its main rig. */
  | { type: 'scene'; id: number; pose: SharedArrayBuffer; scene: Scene; solver?: string; feel: Partial<Feel> }
  /** Replace the crowd by `n` copies (a new pose buffer). */
  | { type: 'crowd'; id: number; pose: SharedArrayBuffer; n: number }
  /** `now`: at once, as a drag moves it (feel.ts setTargetNow); else as a jump, interpolated. */
  | { type: 'target'; id: number; rig: number; point: number; to: [number, number, number]; now: boolean }
  | { type: 'settings'; id: number; patch: Partial<Settings> }
  /** Turn feel knobs of the main rig, its springs now at responsiveness `was` (feel.ts applyFeel). */
  | { type: 'feel'; id: number; feel: Partial<Feel>; was: number }
  | { type: 'pause'; id: number; paused: boolean }
  | { type: 'step'; id: number }
  | { type: 'reset'; id: number }
  /**
   * Undo by state, kept in the worker (edits.ts): `begin` takes the main rig's state as an
   * action starts, `commit` records the action (its state now is the result) as one step,
   * `cancel` drops a begun action that changed nothing; `undo`/`redo` restore the state before
   * or after the last step. The page keeps the labels (and its own settings and feel) in step.
   */
  | { type: 'begin'; id: number; label: string }
  | { type: 'commit'; id: number; label: string }
  | { type: 'cancel'; id: number }
  | { type: 'undo'; id: number; pose?: SharedArrayBuffer }
  | { type: 'redo'; id: number; pose?: SharedArrayBuffer }
  /**
   * Control points of the main rig added, removed, switched (a bone grab, a pin, a point edit;
   * by index in the rig's points); a changed set comes with a pose buffer that fits it, and so
   * do undo and redo when the step they restore has another set (the page has rebuilt its copy's
   * points in the same order).
   */
  | { type: 'addPoint'; id: number; pose: SharedArrayBuffer; point: ControlPointDescription }
  | { type: 'removePoint'; id: number; pose: SharedArrayBuffer; point: number }
  | { type: 'active'; id: number; point: number; active: boolean };

export type SimReport =
  /** The simulation stopped (a system threw) or a command was refused; the worker is paused when `paused`. */
  | { type: 'error'; message: string; paused: boolean };

/** Int32 slots of the control buffer: steps taken since the worker started, 1 while paused. */
export const CONTROL_STEPS = 0, CONTROL_PAUSED = 1, CONTROL_INTS = 4;
