/**
 * The sandbox's feel: two plain-word knobs over the simulation's settings (DOM-free, so the
 * simulation worker and the headless probe tests/bench/feel.ts run the same code).
 *
 * - responsiveness R: a scale of the control springs' stiffness, every point's and the
 *   `stiffness` setting (the default of points added later) together. 1 is the scene's own.
 * - liveliness L: automatic damping (`dampingAuto`) at damping ratio ζ = 1 − L. 0 is
 *   critical (no overshoot); higher lets the body swing through and settle after.
 *
 * The library's defaults and the scene files stay as they are (headless runs and the paper
 * comparisons use their numbers); the sandbox puts its own feel on top when a scene loads,
 * except on a scene that sets a stiffness or damping of its own, which keeps it until a knob
 * is moved. The paper scenes restate the library's damping 20 and stiffness 30: that is the
 * paper's default, not a choice of feel, so they get the sandbox's.
 */
import { getSettings, setSettings, setTarget, type PhysikWorld } from '../core';
import { defaultSettings } from '../core/settings';
import { findRig } from '../world/world';
import type { Scene } from '../scene/types';

export interface Feel {
  responsiveness: number;
  liveliness: number;
}

/** What each knob accepts (the panel's slider ends and the deep link's check). */
export const FEEL_RANGE = {
  responsiveness: { min: 0.25, max: 10 },
  liveliness: { min: 0, max: 0.9 },
} as const;

/**
 * The sandbox's defaults, picked with tests/bench/feel.ts on the humanoid: a quick 0.35 m
 * flick of the hand lands within 2 cm in at most 0.65 s of simulated time in every direction
 * tried (the scene's own springs and damping take 5 s to over 12 s), a steady drag trails by
 * about 5 cm (was 19), and the torso swings up to about 3° past its new tilt before settling.
 * Stiffer gained little (×4: 0.5 s, 4 cm) and pressed the other scenes' joint limits harder.
 */
export const SANDBOX_FEEL: Readonly<Feel> = Object.freeze({ responsiveness: 2, liveliness: 0.65 });

/** Why a value is refused, or null. */
export function feelProblem(key: keyof Feel, value: number): string | null {
  const r = FEEL_RANGE[key];
  return Number.isFinite(value) && value >= r.min && value <= r.max ? null : `${key} must be a number from ${r.min} to ${r.max}, got ${value}`;
}

/** The knobs in effect on a rig: a number, or null where the scene's own stiffness or damping stands. */
export interface FeelState {
  responsiveness: number | null;
  liveliness: number | null;
}

/**
 * The knobs a freshly loaded scene gets: the chosen ones, or none on a scene with a feel of its
 * own, except those in `asked` (a deep link's: the user chose them).
 */
export function feelForScene(scene: Scene, chosen: Feel, asked: Partial<Feel> = {}): FeelState {
  const own = sceneStatesOwnFeel(scene);
  return {
    responsiveness: asked.responsiveness ?? (own ? null : chosen.responsiveness),
    liveliness: asked.liveliness ?? (own ? null : chosen.liveliness),
  };
}

/** The knobs of a state that are in effect (not null). */
export function inEffect(state: FeelState): Partial<Feel> {
  const out: Partial<Feel> = {};
  if (state.responsiveness !== null) out.responsiveness = state.responsiveness;
  if (state.liveliness !== null) out.liveliness = state.liveliness;
  return out;
}

/** The damping ratio a liveliness stands for. */
export const dampingRatioOf = (liveliness: number) => 1 - liveliness;

/**
 * Whether a scene sets a feel of its own: a stiffness (of the settings or of a point), a
 * damping ratio, or a fixed damping, other than the library's defaults.
 */
export function sceneStatesOwnFeel(scene: Scene): boolean {
  const s = scene.settings, d = defaultSettings;
  if (s.stiffness !== d.stiffness) return true;
  if (s.dampingAuto ? s.dampingRatio !== d.dampingRatio : s.damping !== d.damping) return true;
  return scene.controlPoints.some((cp) => cp.stiffness !== undefined && cp.stiffness !== d.stiffness);
}

/**
 * Put one or both knobs on a rig whose springs are now at responsiveness `was` (1 when the
 * scene has just loaded): every point's stiffness and the `stiffness` setting are scaled by
 * responsiveness / was, so points added meanwhile (they took the scaled setting) scale with
 * the rest. Throws, with nothing changed, for a value out of range.
 */
export function applyFeel(world: PhysikWorld, rig: number, feel: Partial<Feel>, was = 1): void {
  for (const key of ['responsiveness', 'liveliness'] as const) {
    const v = feel[key];
    if (v !== undefined) { const p = feelProblem(key, v); if (p) throw new Error(p); }
  }
  if (!(was > 0 && Number.isFinite(was))) throw new Error(`the current responsiveness must be a positive number, got ${was}`);
  const patch: { stiffness?: number; dampingAuto?: boolean; dampingRatio?: number } = {};
  if (feel.liveliness !== undefined) { patch.dampingAuto = true; patch.dampingRatio = dampingRatioOf(feel.liveliness); }
  const r = feel.responsiveness;
  if (r !== undefined && r !== was) {
    // the points' springs first: setSettings then derives each bone's damping from them
    const f = r / was;
    const { ControlPoint } = world.physik;
    for (const cp of findRig(world, rig).controlPoints) ControlPoint.stiffness[cp] = ControlPoint.stiffness[cp]! * f;
    patch.stiffness = getSettings(world, rig).stiffness * f;
  }
  setSettings(world, rig, patch);
}

/**
 * Move a target the way a drag does: at once, without the interpolation a jump gets
 * (`interpolation`, PhysIK section 3.3). The pointer's path is already the smooth path
 * interpolation would make, and a fast pointer move (past the threshold angle) would
 * otherwise start a glide of `interpolationSteps` steps (2.5 s at the defaults) behind the
 * handle. Scripted moves and undo stay interpolated. Throws, nothing changed, for a bad target.
 */
export function setTargetNow(world: PhysikWorld, cp: number, to: ArrayLike<number>): void {
  const record = world.physik.rigs.find((r) => r.controlPoints.includes(cp));
  if (!record || record.settings.interpolation === 'none') { setTarget(world, cp, to); return; }
  const mode = record.settings.interpolation;
  setSettings(world, record.eid, { interpolation: 'none' });
  try {
    setTarget(world, cp, to);
  } finally {
    setSettings(world, record.eid, { interpolation: mode });
  }
}
