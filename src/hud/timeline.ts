/**
 * The timeline: a pixi.js strip along the bottom of the sandbox on one axis of simulated
 * time (steps since the rig's start or reset): the recorded take as a bar where its frames
 * lie, the playhead (the live step, or the frame played back), the keys of the scene's script
 * as diamonds, and whether it is recording, playing back or live.
 *
 * - Press and drag on the take's bar to scrub: `scrub(frame)` gets the frame nearest the step
 *   under the pointer.
 * - Press on a key to select it (`selectKey`); drag it to move it in time (`moveKey` on
 *   release, with the step it was dropped at); right-click deletes it (`deleteKey`; Delete or
 *   Backspace on the page does too, through the sandbox).
 * - The axis spans at least 10 s and grows to hold the live step, the last key and the take
 *   (with a little room after the last); it stays as it is during a key drag.
 *
 * Its own small canvas and pixi Application (the overlay's canvas lets pointer events through
 * to the three.js view; this one must take them). Like the overlay it renders only when
 * `draw()` is called, and only when something it shows changed. The step ↔ x mapping and the
 * axis are pure functions (timelineAxis.ts; tested).
 *
 * Limits: one take at a time; long takes draw at most one tick per 6 pixels; keys closer than
 * a few pixels overlap (the one drawn last, the latest, is the one taken).
 */
import { Application, BitmapText, Graphics } from 'pixi.js';
import type { ScriptEvent } from '../world/types';
import { axisOf, frameNearStep, keyAtX, PAD, stepAtX, xOfStep, type Axis, type TimelineScene } from './timelineAxis';

export { axisOf, frameNearStep, keyAtX, stepAtX, xOfStep, type Axis, type TimelineScene };

export const TIMELINE_HEIGHT = 34;

export type TimelineMode = 'live' | 'recording' | 'playback';

export interface TimelineState {
  mode: TimelineMode;
  /** Frames recorded so far. */
  frameCount: number;
  fps: number;
  /** Frame shown (playback) or last recorded (recording). */
  frame: number;
  /** The take's in and out marks (frames; -1 unmarked): trim keeps the range, record over redoes it. */
  markIn: number;
  markOut: number;
}

export interface TimelineHooks {
  /** Show this frame of the take. */
  scrub(frame: number): void;
  /** A key (index in the script) was pressed: select it (-1: pressed elsewhere on the strip). */
  selectKey?(index: number): void;
  /** A key was dragged to `step`. */
  moveKey?(index: number, step: number): void;
  /** A key was right-clicked. */
  deleteKey?(index: number): void;
}

export interface Timeline {
  readonly canvas: HTMLCanvasElement;
  /** Redraw from the state; call once per animation frame while visible. */
  draw(state: Readonly<TimelineState>, scene?: Readonly<TimelineScene>): void;
  /** The axis drawn last: steps from `lo` to `hi`. */
  readonly axis: Readonly<Axis>;
  /** Client x (CSS px, relative to the strip) of a step on the axis drawn last. */
  xOfStep(step: number): number;
  resize(width: number): void;
  setVisible(visible: boolean): void;
  dispose(): void;
}

const NO_SCENE: TimelineScene = { dt: 1 / 30, step: 0, script: [], frameSteps: null, selectedKey: -1 };

export async function createTimeline(container: HTMLElement, hooks: TimelineHooks): Promise<Timeline> {
  const canvas = document.createElement('canvas');
  canvas.id = 'timeline';
  Object.assign(canvas.style, { position: 'absolute', left: '0', bottom: '0', zIndex: '11', touchAction: 'none' });
  const app = new Application();
  await app.init({
    canvas, width: Math.max(1, container.clientWidth), height: TIMELINE_HEIGHT,
    backgroundAlpha: 0, antialias: true, resolution: globalThis.devicePixelRatio || 1,
    autoDensity: true, autoStart: false, sharedTicker: false,
  });
  container.appendChild(canvas);
  let width = Math.max(1, container.clientWidth);

  const back = new Graphics();
  const range = new Graphics();
  const keyMarks = new Graphics();
  const head = new Graphics();
  const label = new BitmapText({ text: '', style: { fontFamily: 'monospace', fontSize: 11, fill: 0xffffff } });
  label.position.set(PAD, 2);
  app.stage.addChild(back, range, head, keyMarks, label);

  const last: TimelineState = { mode: 'live', frameCount: 0, fps: 30, frame: 0, markIn: -1, markOut: -1 };
  let scene: TimelineScene = NO_SCENE;
  let axis: Axis = axisOf(NO_SCENE, 0);
  // what was last drawn, to skip unchanged frames without allocating
  let drawnWidth = -1, drawnScript: readonly ScriptEvent[] | null = null, drawnStep = -1, drawnSelected = -2, drawnDrag = -1;
  const drawn: TimelineState = { mode: 'live', frameCount: -1, fps: 0, frame: -1, markIn: -2, markOut: -2 };
  let scrubbing = -1;
  /** A key being dragged: its index, the pointer, the step it would land on. */
  let drag: { index: number; pointer: number; step: number; moved: boolean } | null = null;

  const localX = (e: PointerEvent) => e.clientX - canvas.getBoundingClientRect().left;
  const scrubAt = (e: PointerEvent) => {
    if (last.frameCount === 0 || !scene.frameSteps) return;
    hooks.scrub(frameNearStep(scene.frameSteps, last.frameCount, stepAtX(localX(e), width, axis)));
  };
  canvas.addEventListener('contextmenu', (e) => e.preventDefault());
  canvas.addEventListener('pointerdown', (e) => {
    const x = localX(e);
    const key = keyAtX(x, width, axis, scene.script);
    if (e.button === 2) {
      if (key >= 0) hooks.deleteKey?.(key);
      return;
    }
    if (e.button !== 0) return;
    if (key >= 0) {
      hooks.selectKey?.(key);
      drag = { index: key, pointer: e.pointerId, step: scene.script[key]!.step, moved: false };
      canvas.setPointerCapture?.(e.pointerId);
      return;
    }
    hooks.selectKey?.(-1);
    if (last.frameCount === 0) return;
    scrubbing = e.pointerId;
    canvas.setPointerCapture?.(e.pointerId);
    scrubAt(e);
  });
  canvas.addEventListener('pointermove', (e) => {
    if (drag && e.pointerId === drag.pointer) {
      const s = Math.round(stepAtX(localX(e), width, axis));
      if (s !== drag.step) { drag.step = s; drag.moved = true; draw(last, scene); }
    } else if (e.pointerId === scrubbing) scrubAt(e);
  });
  const end = (e: PointerEvent, cancelled: boolean) => {
    if (drag && e.pointerId === drag.pointer) {
      const d = drag;
      drag = null;
      if (!cancelled && d.moved && d.step !== scene.script[d.index]?.step) hooks.moveKey?.(d.index, d.step);
      draw(last, scene);
    }
    if (e.pointerId === scrubbing) scrubbing = -1;
    if (canvas.hasPointerCapture?.(e.pointerId)) canvas.releasePointerCapture(e.pointerId);
  };
  canvas.addEventListener('pointerup', (e) => end(e, false));
  canvas.addEventListener('pointercancel', (e) => end(e, true));

  function draw(state: Readonly<TimelineState>, next: Readonly<TimelineScene> = scene): void {
    last.mode = state.mode; last.frameCount = state.frameCount; last.fps = state.fps; last.frame = state.frame;
    last.markIn = state.markIn; last.markOut = state.markOut;
    scene = next;
    const dragStep = drag ? drag.step : -1;
    if (drawn.mode === state.mode && drawn.frameCount === state.frameCount && drawn.fps === state.fps
      && drawn.frame === state.frame && drawn.markIn === state.markIn && drawn.markOut === state.markOut && drawnWidth === width && drawnScript === next.script && drawnStep === next.step
      && drawnSelected === next.selectedKey && drawnDrag === dragStep) return; // nothing changed: no pixi work
    drawn.mode = state.mode; drawn.frameCount = state.frameCount; drawn.fps = state.fps; drawn.frame = state.frame;
    drawn.markIn = state.markIn; drawn.markOut = state.markOut;
    drawnWidth = width; drawnScript = next.script; drawnStep = next.step; drawnSelected = next.selectedKey; drawnDrag = dragStep;
    if (!drag) axis = axisOf(next, state.frameCount); // the axis holds still under a key drag
    const y = 16, h = 12, inner = width - 2 * PAD, dt = next.dt;
    back.clear().roundRect(0, 0, width, TIMELINE_HEIGHT, 0).fill({ color: 0x000000, alpha: 0.45 })
      .rect(PAD, y, inner, h).fill({ color: 0xffffff, alpha: 0.07 });
    range.clear();
    head.clear();
    keyMarks.clear();
    // a tick per second, skipped when closer than 6 px
    const seconds = (axis.hi - axis.lo) * dt;
    const every = Math.max(1, Math.ceil((6 * seconds) / Math.max(1, inner)));
    for (let s = 0; s <= seconds; s += every) {
      const x = xOfStep(s / dt, width, axis);
      range.moveTo(x, y + h - 4).lineTo(x, y + h);
    }
    range.stroke({ width: 1, color: 0xffffff, alpha: 0.5 });
    const n = state.frameCount, steps = next.frameSteps;
    if (n > 0 && steps && steps.length >= n) {
      const colour = state.mode === 'recording' ? 0xff5252 : 0x4fc3f7;
      const x0 = xOfStep(steps[0]!, width, axis), x1 = xOfStep(steps[n - 1]!, width, axis);
      range.rect(x0, y, Math.max(1, x1 - x0 + 1), h).fill({ color: colour, alpha: 0.35 });
      // the in and out marks: brackets, the range between them brighter
      if (state.markIn >= 0 || state.markOut >= 0) {
        const a = xOfStep(steps[Math.max(0, state.markIn)]!, width, axis);
        const b = xOfStep(steps[state.markOut >= 0 ? Math.min(state.markOut, n - 1) : n - 1]!, width, axis);
        range.rect(a, y, Math.max(1, b - a + 1), h).fill({ color: 0xffee58, alpha: 0.35 });
        if (state.markIn >= 0) range.rect(a - 1, y - 4, 2, h + 8).rect(a - 1, y - 4, 5, 2).rect(a - 1, y + h + 2, 5, 2).fill({ color: 0xffee58 });
        if (state.markOut >= 0) range.rect(b - 1, y - 4, 2, h + 8).rect(b - 4, y - 4, 5, 2).rect(b - 4, y + h + 2, 5, 2).fill({ color: 0xffee58 });
      }
    }
    const headStep = state.mode === 'playback' && steps && n > 0 ? steps[Math.min(state.frame, n - 1)]! : next.step;
    const hx = xOfStep(headStep, width, axis);
    head.rect(hx - 1, y - 3, 2, h + 6).fill({ color: 0xffffff });
    // keys: orange diamonds on the bar; the selected one white and larger, where it is being dragged to
    let keyCount = 0;
    next.script.forEach((ev, i) => {
      if (!ev.target) return;
      keyCount++;
      const selected = i === next.selectedKey;
      const at = drag && drag.index === i ? drag.step : ev.step;
      const x = xOfStep(at, width, axis), r = selected ? 6 : 4.5, cy = y + h / 2;
      keyMarks.poly([x, cy - r, x + r, cy, x, cy + r, x - r, cy])
        .fill({ color: selected ? 0xffffff : 0xffa726 }).stroke({ width: 1, color: 0x000000, alpha: 0.6 });
    });
    const t = (s: number) => (s * dt).toFixed(2);
    const keysText = keyCount === 0 ? 'no keys (k keys the selected target)' : `${keyCount} key${keyCount === 1 ? '' : 's'} ◆ (drag to move, right-click or Del deletes)`;
    label.text = drag ? `key → ${t(drag.step)} s`
      : state.mode === 'recording' ? `● recording  ${n} frames  ${(Math.max(0, n - 1) / state.fps).toFixed(2)} s at ${state.fps} fps`
      : state.mode === 'playback' && steps && n > 0 ? `▶ playback  frame ${state.frame + 1}/${n}  ${t(headStep)} s · ${keysText}`
      : n > 0 && (state.markIn >= 0 || state.markOut >= 0) ? `in ${Math.max(0, state.markIn) + 1} – out ${(state.markOut >= 0 ? state.markOut : n - 1) + 1} of ${n} frames: trim or record over in the panel`
      : n > 0 ? `take of ${n} frames: drag the bar to scrub, i · o mark in · out · ${keysText}`
      : `${t(next.step)} s · ${keysText}`;
    label.tint = state.mode === 'recording' ? 0xff8a80 : 0xdddddd;
    app.render();
  }

  return {
    canvas,
    draw,
    get axis() { return axis; },
    xOfStep: (s) => xOfStep(s, width, axis),
    resize(w) {
      width = Math.max(1, w);
      app.renderer.resize(width, TIMELINE_HEIGHT);
      drawnWidth = -1;
      draw(last, scene);
    },
    setVisible(v) { canvas.style.display = v ? '' : 'none'; },
    dispose() { app.destroy({ removeView: true }, { children: true }); },
  };
}
