/**
 * The HUD: a pixi.js v8 overlay with live plots of one rig's metrics over the last 10 s of
 * simulated time, each with its current value beside it, and a status line in plain words
 * (moving, at rest, stuck, blew up; coloured). By default it shows what an animator reads: how
 * far the body is from its targets and how much it is moving (kinetic energy). With
 * `setAdvanced(true)` it adds the solver's internals: the joint acceleration mismatch, joint
 * passes per step, and the mean step time (smoothed over frames) with frames per second.
 *
 * It makes its own Application and canvas (never the three.js canvas or WebGL context),
 * transparent, absolutely positioned at the container's top-left corner, sized by `resize`,
 * with pointer-events none so drags reach the three.js view beneath. The ticker is not
 * started: the page calls `draw` once per animation frame and the HUD renders then.
 *
 *   const hud = await createHud(container, { dt: settings.dt });
 *   // after each simulation step:  hud.sample(world, rig, simTime, stepMs)
 *   // each animation frame:        hud.draw(fps)
 *   // on resize:                   hud.resize(w, h);   on teardown: hud.dispose()
 *
 * Limits:
 * - One rig at a time; sampling a different rig clears the plots. Time going backwards (a
 *   rig reset) clears them too (see series.ts).
 * - `sample` reads the Rig store directly (no allocation); `draw` clears and redraws reused
 *   Graphics (pixi builds its geometry anew each frame: that allocates inside pixi).
 * - Log scale (error, mismatch, energy) clamps to a floor per plot; the axis shows whole
 *   decades, labelled only by the top and bottom exponents.
 * - If the container is statically positioned it is made `position: relative` so the canvas
 *   can sit over it.
 * - Browser only (needs a canvas and WebGL/WebGPU); the logic lives in series.ts and is tested
 *   there.
 */
import { Application, BitmapText, Container, Graphics } from 'pixi.js';
import type { PhysikWorld } from '../world/world';
import {
  SeriesBuffer, WINDOW_SECONDS, STATUS_COLOURS, formatValue, hudStatus, plotRange, plotY,
  type PlotRange,
} from './series';

export interface HudOptions {
  /** Simulation step (s): sizes the ring buffers. Default 1/60. */
  dt?: number;
  /** Seconds of simulated time shown. Default 10. */
  windowSeconds?: number;
  /** Width and height of one plot in CSS pixels. Default 180 × 34. */
  plotWidth?: number;
  plotHeight?: number;
  /** Renderer resolution. Default window.devicePixelRatio. */
  resolution?: number;
}

export interface Hud {
  /** The overlay's own canvas. */
  readonly canvas: HTMLCanvasElement;
  /**
   * Record one simulation step of `rig` at simulated time `simTime` (s) that took `stepMs`
   * (wall-clock ms). Allocation-free; the status line shows the mean step time since the
   * last draw.
   */
  sample(world: PhysikWorld, rig: number, simTime: number, stepMs: number): void;
  /** Redraw plots and texts and render; call once per animation frame. */
  draw(fps: number): void;
  /** Resize the overlay canvas (CSS pixels). */
  resize(width: number, height: number): void;
  /** Show or hide the overlay. */
  setVisible(visible: boolean): void;
  /** Show the solver's internals too (mismatch, passes, step time), or only what an animator reads. */
  setAdvanced(on: boolean): void;
  /** The box the overlay's plots take, in CSS pixels from the container's top left. */
  readonly box: { x: number; y: number; width: number; height: number };
  /** Remove the canvas and free pixi's resources. */
  dispose(): void;
}

interface PlotSpec { label: string; log: boolean; floor: number; colour: number; advanced: boolean }

const PLOTS: readonly PlotSpec[] = [
  { label: 'distance to targets', log: true, floor: 1e-6, colour: 0x64b5f6, advanced: false },
  { label: 'motion (kinetic energy)', log: true, floor: 1e-9, colour: 0xffb74d, advanced: false },
  { label: 'joint mismatch', log: true, floor: 1e-12, colour: 0xba68c8, advanced: true },
  { label: 'joint passes / step', log: false, floor: 0, colour: 0x81c784, advanced: true },
];

/** The status in an animator's words. */
const STATUS_WORDS: Readonly<Record<string, string>> = { converged: 'at rest', settling: 'moving', stalled: 'stuck', diverged: 'blew up' };

/** Dynamic bitmap font: pixi generates glyphs of this family on first use. */
const FONT = 'monospace';
const FONT_SIZE = 12;
const PAD = 6;
const VALUE_W = 64;
const ROW_GAP = 4;
const TEXT_H = 15;

/** A text that only touches pixi when its content changes. */
class Label {
  readonly view: BitmapText;
  private current = '';
  constructor(text: string, tint = 0xffffff) {
    this.view = new BitmapText({ text, style: { fontFamily: FONT, fontSize: FONT_SIZE, fill: 0xffffff } });
    this.view.tint = tint;
    this.current = text;
  }
  set(text: string): void {
    if (text !== this.current) { this.current = text; this.view.text = text; }
  }
  tint(colour: number): void {
    if (this.view.tint !== colour) this.view.tint = colour;
  }
}

interface Plot {
  spec: PlotSpec;
  series: SeriesBuffer;
  line: Graphics;
  value: Label;
  axis: Label;
  range: PlotRange;
  shown: string;
}

export async function createHud(container: HTMLElement, options: HudOptions = {}): Promise<Hud> {
  const dt = options.dt ?? 1 / 60;
  const windowSeconds = options.windowSeconds ?? WINDOW_SECONDS;
  const plotW = options.plotWidth ?? 180;
  const plotH = options.plotHeight ?? 34;

  const canvas = document.createElement('canvas');
  Object.assign(canvas.style, {
    position: 'absolute', left: '0', top: '0', pointerEvents: 'none', zIndex: '10',
  });
  if (getComputedStyle(container).position === 'static') container.style.position = 'relative';

  const app = new Application();
  await app.init({
    canvas,
    width: Math.max(1, container.clientWidth),
    height: Math.max(1, container.clientHeight),
    backgroundAlpha: 0,
    antialias: true,
    resolution: options.resolution ?? (globalThis.devicePixelRatio || 1),
    autoDensity: true,
    autoStart: false,
    sharedTicker: false,
  });
  container.appendChild(canvas);

  const panel = new Container();
  panel.position.set(PAD, PAD);
  app.stage.addChild(panel);

  const rowH = TEXT_H + plotH + ROW_GAP;
  const panelW = plotW + VALUE_W + 2 * PAD;
  const heightFor = (rows: number) => 2 * TEXT_H + PAD + rows * rowH + 2 * PAD;
  const background = new Graphics();
  const paintBackground = (rows: number) => background.clear().roundRect(0, 0, panelW, heightFor(rows), 4).fill({ color: 0x000000, alpha: 0.45 });
  panel.addChild(background);
  let advanced = false;
  const box = { x: PAD, y: PAD, width: panelW, height: heightFor(PLOTS.filter((p) => !p.advanced).length) };

  // status line: status (coloured), then step time and fps
  const status = new Label('settling', STATUS_COLOURS.settling);
  status.view.position.set(PAD, PAD);
  const timing = new Label('', 0xdddddd);
  timing.view.position.set(PAD + 100, PAD);
  const counters = new Label('', 0xff8a80);
  counters.view.position.set(PAD, PAD + TEXT_H);
  panel.addChild(status.view, timing.view, counters.view);

  const plots: (Plot & { parts: Container })[] = PLOTS.map((spec, i) => {
    const y = PAD + 2 * TEXT_H + PAD + i * rowH;
    const parts = new Container();
    const title = new Label(spec.label, 0xbbbbbb);
    title.view.position.set(PAD, y);
    const frame = new Graphics()
      .rect(PAD, y + TEXT_H, plotW, plotH)
      .fill({ color: 0xffffff, alpha: 0.06 })
      .stroke({ width: 1, color: 0xffffff, alpha: 0.2 });
    const line = new Graphics();
    line.position.set(PAD, y + TEXT_H);
    const value = new Label('–', spec.colour);
    value.view.position.set(PAD + plotW + 6, y + TEXT_H + plotH / 2 - FONT_SIZE / 2);
    const axis = new Label('', 0x888888);
    axis.view.position.set(PAD + plotW + 6, y); // above the value, clear of the title
    parts.addChild(frame, title.view, line, value.view, axis.view);
    panel.addChild(parts);
    return {
      spec, series: new SeriesBuffer(windowSeconds, dt), line, value, axis,
      range: { lo: 0, hi: 1 }, shown: '', parts,
    };
  });
  function setAdvanced(on: boolean): void {
    advanced = on;
    const shown = plots.filter((p) => on || !p.spec.advanced);
    for (const p of plots) p.parts.visible = shown.includes(p);
    // the rows shown close up under the status line
    shown.forEach((p, i) => p.parts.position.set(0, (i - PLOTS.indexOf(p.spec)) * rowH));
    paintBackground(shown.length);
    box.height = heightFor(shown.length);
    timing.view.visible = on;
  }
  setAdvanced(false);

  let rigShown = -1;
  let statusCode = 0;
  let sleeping = 0;
  // step time shown: the mean over the steps sampled since the last draw
  let stepMs = NaN;
  let stepMsSum = 0;
  let stepMsCount = 0;
  let disposed = false;

  function sample(world: PhysikWorld, rig: number, simTime: number, ms: number): void {
    if (disposed) return;
    if (rig !== rigShown) {
      for (const p of plots) p.series.clear();
      rigShown = rig;
    }
    const R = world.physik.Rig; // read each time: the store's arrays are replaced when it grows
    plots[0]!.series.push(simTime, R.maxTargetError[rig]!);
    plots[1]!.series.push(simTime, R.kineticEnergy[rig]!);
    plots[2]!.series.push(simTime, R.mismatch[rig]!);
    plots[3]!.series.push(simTime, R.passes[rig]!);
    statusCode = R.settle[rig]!;
    sleeping = R.sleeping[rig]!;
    if (Number.isFinite(ms)) { stepMsSum += ms; stepMsCount++; }
  }

  function drawPlot(p: Plot): void {
    const { series, spec, line, range } = p;
    line.clear();
    const n = series.size;
    p.value.set(formatValue(series.lastValue));
    if (n === 0) { p.axis.set(''); return; }
    plotRange(range, series.min, series.max, spec.log, spec.floor);
    const axisText = spec.log ? `1e${range.lo}..1e${range.hi}` : `0..${formatValue(range.hi)}`;
    p.axis.set(axisText);
    const tEnd = series.latestTime;
    const tStart = tEnd - series.window;
    const sx = plotW / series.window;
    line.moveTo((series.timeAt(0) - tStart) * sx, plotY(series.valueAt(0), range, plotH, spec.log, spec.floor));
    for (let i = 1; i < n; i++) {
      line.lineTo((series.timeAt(i) - tStart) * sx, plotY(series.valueAt(i), range, plotH, spec.log, spec.floor));
    }
    if (n === 1) line.lineTo(plotW, plotY(series.valueAt(0), range, plotH, spec.log, spec.floor));
    line.stroke({ width: 1.25, color: spec.colour });
  }

  function draw(fps: number): void {
    if (disposed) return;
    for (const p of plots) drawPlot(p);
    const s = hudStatus(statusCode);
    status.set(sleeping && !advanced ? 'at rest (asleep)' : STATUS_WORDS[s] ?? s);
    status.tint(STATUS_COLOURS[s]);
    if (stepMsCount > 0) {
      // Browsers coarsen performance.now() (to 0.1 ms without cross-origin isolation), so one
      // step often reads 0; a slow moving average over frames recovers the mean step time.
      const mean = stepMsSum / stepMsCount;
      stepMs = Number.isFinite(stepMs) ? 0.97 * stepMs + 0.03 * mean : mean;
      stepMsSum = 0; stepMsCount = 0;
    }
    const stepText = !Number.isFinite(stepMs) ? '–' : stepMs < 1 ? `${Math.round(stepMs * 1000)} µs` : `${stepMs.toFixed(2)} ms`;
    // asleep: the rig is not stepped (systems/sleep.ts), so there is no step time to show
    timing.set(`${sleeping ? 'asleep' : `${stepText}/step`}  ${Number.isFinite(fps) ? Math.round(fps) : '–'} fps`);
    let bad = 0;
    for (const p of plots) bad += p.series.nonFinite;
    counters.set(bad > 0 ? `${bad} non-finite samples skipped` : '');
    app.render();
  }

  function resize(width: number, height: number): void {
    if (disposed) return;
    app.renderer.resize(Math.max(1, width), Math.max(1, height)); // autoDensity sets the CSS size
    app.render();
  }

  function setVisible(visible: boolean): void {
    canvas.style.display = visible ? '' : 'none';
  }

  function dispose(): void {
    if (disposed) return;
    disposed = true;
    app.destroy({ removeView: true }, { children: true });
  }

  return { canvas, sample, draw, resize, setVisible, setAdvanced, box, dispose };
}
