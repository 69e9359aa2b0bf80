/**
 * The recording timeline: a pixi.js strip along the bottom of the sandbox showing the recorded
 * range (one tick per second), the playhead, and whether it is recording, playing back or
 * live. Press and drag on it to scrub: `onScrub(frame)` reports the frame under the pointer.
 *
 * Its own small canvas and pixi Application (the overlay's canvas lets pointer events through
 * to the three.js view; this one must take them). Like the overlay it renders only when
 * `draw()` is called. Frame ↔ x mapping lives in `frameAtX` / `xOfFrame` (pure, tested).
 *
 * Limits: one recording at a time; long recordings draw at most one tick per pixel.
 */
import { Application, BitmapText, Graphics } from 'pixi.js';

export const TIMELINE_HEIGHT = 34;
const PAD = 10;

export type TimelineMode = 'live' | 'recording' | 'playback';

export interface TimelineState {
  mode: TimelineMode;
  /** Frames recorded so far. */
  frameCount: number;
  fps: number;
  /** Frame shown (playback) or last recorded (recording). */
  frame: number;
}

export interface Timeline {
  readonly canvas: HTMLCanvasElement;
  /** Redraw from the state; call once per animation frame while visible. */
  draw(state: Readonly<TimelineState>): void;
  resize(width: number): void;
  setVisible(visible: boolean): void;
  dispose(): void;
}

/** Frame under x (CSS px) on a strip `width` wide, for `frameCount` frames. */
export function frameAtX(x: number, width: number, frameCount: number): number {
  if (frameCount <= 1) return 0;
  const t = (x - PAD) / Math.max(1, width - 2 * PAD);
  return Math.min(frameCount - 1, Math.max(0, Math.round(t * (frameCount - 1))));
}

/** x (CSS px) of a frame on a strip `width` wide. */
export function xOfFrame(frame: number, width: number, frameCount: number): number {
  const t = frameCount <= 1 ? 0 : frame / (frameCount - 1);
  return PAD + t * Math.max(1, width - 2 * PAD);
}

export async function createTimeline(container: HTMLElement, onScrub: (frame: number) => void): Promise<Timeline> {
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
  const head = new Graphics();
  const label = new BitmapText({ text: '', style: { fontFamily: 'monospace', fontSize: 11, fill: 0xffffff } });
  label.position.set(PAD, 2);
  app.stage.addChild(back, range, head, label);

  const last: TimelineState = { mode: 'live', frameCount: 0, fps: 30, frame: 0 };
  let drawnWidth = -1; // what was last drawn, to skip unchanged frames without allocating
  const drawn: TimelineState = { mode: 'live', frameCount: -1, fps: 0, frame: -1 };
  let scrubbing = -1;

  const scrubAt = (e: PointerEvent) => {
    if (last.frameCount === 0) return;
    const rect = canvas.getBoundingClientRect();
    onScrub(frameAtX(e.clientX - rect.left, width, last.frameCount));
  };
  canvas.addEventListener('pointerdown', (e) => {
    if (e.button !== 0 || last.frameCount === 0) return;
    scrubbing = e.pointerId;
    canvas.setPointerCapture?.(e.pointerId);
    scrubAt(e);
  });
  canvas.addEventListener('pointermove', (e) => { if (e.pointerId === scrubbing) scrubAt(e); });
  const end = (e: PointerEvent) => {
    if (e.pointerId !== scrubbing) return;
    scrubbing = -1;
    if (canvas.hasPointerCapture?.(e.pointerId)) canvas.releasePointerCapture(e.pointerId);
  };
  canvas.addEventListener('pointerup', end);
  canvas.addEventListener('pointercancel', end);

  function draw(state: Readonly<TimelineState>): void {
    last.mode = state.mode; last.frameCount = state.frameCount; last.fps = state.fps; last.frame = state.frame;
    if (drawn.mode === state.mode && drawn.frameCount === state.frameCount && drawn.fps === state.fps
      && drawn.frame === state.frame && drawnWidth === width) return; // nothing changed: no pixi work
    drawn.mode = state.mode; drawn.frameCount = state.frameCount; drawn.fps = state.fps; drawn.frame = state.frame;
    drawnWidth = width;
    const y = 16, h = 12, inner = width - 2 * PAD;
    back.clear().roundRect(0, 0, width, TIMELINE_HEIGHT, 0).fill({ color: 0x000000, alpha: 0.45 })
      .rect(PAD, y, inner, h).fill({ color: 0xffffff, alpha: 0.07 });
    range.clear();
    head.clear();
    const n = state.frameCount;
    if (n > 0) {
      const colour = state.mode === 'recording' ? 0xff5252 : 0x4fc3f7;
      range.rect(PAD, y, xOfFrame(n - 1, width, n) - PAD + 1, h).fill({ color: colour, alpha: 0.35 });
      // a tick per second, skipped when closer than 6 px
      const seconds = (n - 1) / state.fps;
      const every = Math.max(1, Math.ceil((6 * seconds) / Math.max(1, inner)));
      for (let s = 0; s <= seconds; s += every) {
        const x = xOfFrame(s * state.fps, width, n);
        range.moveTo(x, y + h - 4).lineTo(x, y + h);
      }
      range.stroke({ width: 1, color: 0xffffff, alpha: 0.5 });
      const x = xOfFrame(Math.min(state.frame, n - 1), width, n);
      head.rect(x - 1, y - 3, 2, h + 6).fill({ color: 0xffffff });
    }
    const t = (f: number) => (f / state.fps).toFixed(2);
    label.text = n === 0
      ? 'timeline: press "record" to record the simulation'
      : state.mode === 'recording' ? `● recording  ${n} frames  ${t(n - 1)} s at ${state.fps} fps`
      : state.mode === 'playback' ? `▶ playback  frame ${state.frame + 1}/${n}  ${t(state.frame)} s of ${t(n - 1)} s`
      : `recorded ${n} frames (${t(n - 1)} s): drag here to scrub`;
    label.tint = state.mode === 'recording' ? 0xff8a80 : 0xdddddd;
    app.render();
  }

  return {
    canvas,
    draw,
    resize(w) {
      width = Math.max(1, w);
      app.renderer.resize(width, TIMELINE_HEIGHT);
      draw(last);
    },
    setVisible(v) { canvas.style.display = v ? '' : 'none'; },
    dispose() { app.destroy({ removeView: true }, { children: true }); },
  };
}
