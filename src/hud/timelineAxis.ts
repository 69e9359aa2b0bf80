/**
 * The timeline strip's axis and mappings, pure (no pixi.js, so they run in Node): one axis of
 * simulated steps from 0 past the live step, the last key and the take; a step and its x map
 * both ways; the frame of a take nearest a step; the key under the pointer. The strip itself
 * is timeline.ts.
 */
import type { ScriptEvent } from '../world/types';

/** Room left and right of the bar (CSS px). */
export const PAD = 10;
/** Pointer distance (px) within which a key is taken. */
const KEY_REACH = 7;
/** Least span of the axis, in seconds. */
const MIN_SECONDS = 10;

/** What the strip shows beside the take: the live step and the keys. */
export interface TimelineScene {
  /** Seconds per step. */
  dt: number;
  /** The rig's step now (live). */
  step: number;
  /** The rig's script (only the events with a target are keys); the same array until it changes. */
  script: readonly ScriptEvent[];
  /** Rig step of each recorded frame (the take's `steps`, at least `frameCount` long), or null. */
  frameSteps: ArrayLike<number> | null;
  /** Index in `script` of the selected key, or -1. */
  selectedKey: number;
}

export interface Axis { lo: number; hi: number }

/** The axis for a scene: from step 0 to past the live step, the last key and the take's end (at least MIN_SECONDS). */
export function axisOf(scene: Readonly<TimelineScene>, frameCount: number): Axis {
  let hi = Math.max(scene.step, MIN_SECONDS / scene.dt);
  for (const ev of scene.script) if (ev.target && ev.step > hi) hi = ev.step;
  const f = scene.frameSteps, n = Math.min(frameCount, f?.length ?? 0);
  if (f && n > 0) hi = Math.max(hi, f[n - 1]!);
  // room after the last thing, in whole seconds
  const room = Math.round(Math.ceil(1.1 * hi * scene.dt - 1e-9) / scene.dt);
  return { lo: 0, hi: Math.max(room, 1) };
}

/** Step under x (CSS px) on a strip `width` wide showing `axis` (fractional). */
export function stepAtX(x: number, width: number, axis: Axis): number {
  const t = (x - PAD) / Math.max(1, width - 2 * PAD);
  return axis.lo + Math.min(1, Math.max(0, t)) * (axis.hi - axis.lo);
}

/** x (CSS px) of a step on a strip `width` wide showing `axis`. */
export function xOfStep(step: number, width: number, axis: Axis): number {
  const t = axis.hi > axis.lo ? (step - axis.lo) / (axis.hi - axis.lo) : 0;
  return PAD + t * Math.max(1, width - 2 * PAD);
}

/** The frame (of the first `n`, in step order) whose step is nearest `step`; 0 for no frames. */
export function frameNearStep(frameSteps: ArrayLike<number>, n: number, step: number): number {
  n = Math.min(n, frameSteps.length);
  if (n === 0) return 0;
  let lo = 0, hi = n - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (frameSteps[mid]! < step) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 && step - frameSteps[lo - 1]! <= frameSteps[lo]! - step ? lo - 1 : lo;
}

/** The key (index in `script`) drawn nearest x within KEY_REACH, or -1 (the later of equals: the one drawn on top). */
export function keyAtX(x: number, width: number, axis: Axis, script: readonly ScriptEvent[]): number {
  let best = -1, bestD = KEY_REACH + 1e-9;
  script.forEach((ev, i) => {
    if (!ev.target) return;
    const d = Math.abs(xOfStep(ev.step, width, axis) - x);
    if (d <= bestD) { best = i; bestD = d; }
  });
  return best;
}

