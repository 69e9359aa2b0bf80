/**
 * Worker mode in the browser (setup in harness.ts): `?worker=1` runs the simulation
 * in a Web Worker that shares the rigs' pose with the page through a SharedArrayBuffer.
 *
 * - The crowd scene (its crowd of 100 spawned with it): the page is cross-origin isolated (the preview server's headers),
 *   the worker steps while the main thread is blocked (the shared step counter advances and
 *   no frame is drawn meanwhile), the view reads the worker's poses, the camera frames the
 *   page's own rig (not the crowd), the main rig follows a target moved by a real mouse drag
 *   (the handle stays under the pointer), Ctrl+Z and Ctrl+Shift+Z undo and redo the drag
 *   exactly; a bone is pinned with a click and grabbed with a drag, and the pin undone, in both
 *   worlds; the panel hides what worker mode leaves out; the scene
 *   picker drops the crowd with another scene and brings it back with the crowd scene.
 * - Without `?worker=1` the sandbox steps on the main thread as before; the panel's
 *   "simulation in a worker" box reloads it in worker mode.
 * - A page that is not isolated (the headers stripped) falls back to the main thread with a
 *   visible message.
 *
 * Behaviour only, no timing thresholds; the main thread's frame intervals with and without
 * the worker are logged (SwiftShader renders on the CPU here, so they are not a GPU's).
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useSandbox, saveShot, panelControl, openAdvanced } from './harness';
import type { WorkerSandbox } from '../../src/app/workerMode';

const open = useSandbox();

/** In page code: `(window.__physik as WS)` is the sandbox as worker mode makes it (functions given to evaluate run in the page). */
type WS = WorkerSandbox | undefined;

/** The main thread's animation-frame intervals (ms) over `ms` of wall time: median and 95th percentile. */
const frameIntervals = (page: Page, ms: number) => page.evaluate((span) => new Promise<{ median: number; p95: number; n: number }>((done) => {
  const gaps: number[] = [];
  let last = -1;
  const t0 = performance.now();
  const frame = (now: number) => {
    if (last >= 0) gaps.push(now - last);
    last = now;
    if (now - t0 < span) requestAnimationFrame(frame);
    else {
      gaps.sort((a, b) => a - b);
      done({ median: gaps[Math.floor(gaps.length / 2)] ?? NaN, p95: gaps[Math.floor(gaps.length * 0.95)] ?? NaN, n: gaps.length });
    }
  };
  requestAnimationFrame(frame);
}), ms);

/** Target and attachment point of a control point of the main rig, as the view has them. */
const point = (page: Page, name: string) => page.evaluate((n) => {
  const s = window.__physik!, cp = s.controlPoints[n]!, { target, attachment } = s.world.physik.ControlPoint;
  return { target: Array.from(target.slice(cp * 3, cp * 3 + 3)), attachment: Array.from(attachment.slice(cp * 3, cp * 3 + 3)) };
}, name);
const dist = (a: number[], b: number[]) => Math.hypot(a[0]! - b[0]!, a[1]! - b[1]!, a[2]! - b[2]!);

describe('worker mode (headless Chromium)', () => {
  it('?worker=1 with the crowd scene (100 copies): isolated, steps in the worker while the main thread is blocked, follows a mouse drag', async () => {
    const { page, errors } = await open('?worker=1&scene=crowd');
    expect(await page.evaluate(() => window.crossOriginIsolated)).toBe(true);
    expect(await page.evaluate(() => (window.__physik as WS)?.inWorker)).toBe(true);
    expect(await page.evaluate(() => [window.__physik!.crowd, window.__physik!.world.physik.rigs.length])).toEqual([100, 101]);
    await page.waitForFunction(() => (window.__physik as WS)!.posesRead > 5 && (window.__physik as WS)!.stepsTaken > 5, undefined, { timeout: 60_000 });
    expect(await page.locator('#status').textContent()).toContain('simulation in a worker');

    // the main thread busy in one long task: the worker's steps still show in the shared counter
    const blocked = await page.evaluate(() => {
      const s = (window.__physik as WS)!;
      const steps = s.stepsTaken, frames = s.frames, t0 = performance.now();
      while (s.stepsTaken < steps + 5 && performance.now() - t0 < 30_000) { /* busy */ }
      return { before: steps, after: s.stepsTaken, framesDrawn: s.frames - frames };
    });
    expect(blocked.after).toBeGreaterThanOrEqual(blocked.before + 5);
    expect(blocked.framesDrawn).toBe(0); // the page did nothing meanwhile: the steps were the worker's
    // and the view picks the worker's newer pose up on the next frames
    const read = await page.evaluate(() => (window.__physik as WS)!.posesRead);
    await page.waitForFunction((n) => (window.__physik as WS)!.posesRead > n, read, { timeout: 30_000 });

    // a real mouse drag of the right hand's target: posted to the worker, the rig follows
    await page.waitForFunction(() => window.physik!.metrics().maxTargetError < 0.1, undefined, { timeout: 60_000 });
    const before = await point(page, 'handR');
    const at = (await page.evaluate(() => window.__physik!.screenOf('handR')))!;
    // the camera frames the page's own rig, not the crowd behind it: it stands a third of the view tall or more
    const tall = await page.evaluate(() => {
      const s = window.__physik!, { Bone } = s.world.physik, out = { x: 0, y: 0 };
      let top = Infinity, bottom = -Infinity;
      for (const b of Object.values(s.bones)) for (const end of [Bone.head, Bone.tail]) {
        s.view.project(end[b * 3]!, end[b * 3 + 1]!, end[b * 3 + 2]!, out);
        top = Math.min(top, out.y); bottom = Math.max(bottom, out.y);
      }
      return (bottom - top) / window.innerHeight;
    });
    expect(tall).toBeGreaterThan(1 / 3);
    // to where the target raised by 0.15 shows (within the arm's reach)
    const to = (await page.evaluate(([x, y, z]) => {
      const out = { x: 0, y: 0 };
      return window.__physik!.view.project(x!, y! + 0.15, z!, out) ? out : null;
    }, before.target))!;
    await page.mouse.move(at.x, at.y);
    await page.mouse.down();
    for (let i = 1; i <= 6; i++) await page.mouse.move(at.x + ((to.x - at.x) * i) / 6, at.y + ((to.y - at.y) * i) / 6);
    await page.mouse.up();
    const dragged = await point(page, 'handR');
    const moved = dist(before.target, dragged.target);
    expect(moved).toBeGreaterThan(0.05);
    // the handle moved with the pointer: it is where the mouse let go
    const handle = (await page.evaluate(() => window.__physik!.screenOf('handR')))!;
    expect(Math.hypot(handle.x - to.x, handle.y - to.y)).toBeLessThan(3);
    // the worker applied the move (its published target is the dragged one) and the hand gets near it
    await page.waitForFunction(([t, tol]) => {
      const s = window.__physik!, cp = s.controlPoints.handR!, { target, attachment } = s.world.physik.ControlPoint;
      const d = (a: ArrayLike<number>) => Math.hypot(a[cp * 3]! - t[0]!, a[cp * 3 + 1]! - t[1]!, a[cp * 3 + 2]! - t[2]!);
      return d(target) < 1e-9 && d(attachment) < tol;
    }, [dragged.target, 0.3 * moved] as const, { timeout: 60_000 });
    // (with the sandbox's responsive feel the hand may already be at the handle when the mouse
    // is released, then swing past it a little: near it, not necessarily nearer than at release)
    const followed = await point(page, 'handR');
    expect(dist(followed.attachment, dragged.target)).toBeLessThan(0.3 * moved);

    // undo and redo work in worker mode: Ctrl+Z puts the target back where it was before the
    // drag (the worker restores its state and publishes it), Ctrl+Shift+Z brings the drag back
    expect(await page.evaluate(() => [...window.__physik!.history.undoLabels])).toEqual(['move handR']);
    await page.locator('#view').click({ position: { x: 5, y: 300 } });
    await page.keyboard.press('Control+z');
    const targetIs = (t: number[]) => page.waitForFunction((w) => {
      const s = window.__physik!, cp = s.controlPoints.handR!, { target } = s.world.physik.ControlPoint;
      return [0, 1, 2].every((k) => target[cp * 3 + k] === w[k]);
    }, t, { timeout: 30_000 });
    await targetIs(before.target);
    await page.keyboard.press('Control+Shift+z');
    await targetIs(dragged.target);


    // the panel: the worker box is ticked, what worker mode leaves out is hidden and named
    await expect.poll(() => panelControl(page, 'simulation in a worker').locator('input').isChecked()).toBe(true);
    const offNote = await page.locator('.lil-gui .panel-off').textContent();
    for (const what of ['Off in worker mode', 'recording', 'compare']) expect(offNote).toContain(what);
    for (const what of ['undo', 'grabbing bones', 'deleting points']) expect(offNote).not.toContain(what);
    // the help lists only what works here, and says what is off
    await page.locator('#view').click({ position: { x: 5, y: 300 } });
    await page.keyboard.press('?');
    const help = page.locator('#help-overlay');
    await help.waitFor({ state: 'visible', timeout: 10_000 });
    const helpText = (await help.textContent())!;
    expect(helpText).toContain('drag an orange handle');
    for (const words of ['Ctrl+Z', 'drag a bone', 'click a bone', 'Del · e']) expect(helpText).toContain(words);
    expect(helpText).not.toMatch(/timeline strip|drop a \.recording\.json/);
    expect(helpText).toContain('Off here: keyed targets, recording');
    await page.keyboard.press('Escape');
    expect(await help.isVisible()).toBe(false);
    expect(await panelControl(page, 'compare with').isVisible()).toBe(false);
    expect(await page.locator('.lil-gui .lil-title', { hasText: /^recording$/ }).isVisible()).toBe(false);
    // keys still work: pause stops the worker's steps
    await page.locator('#view').click({ position: { x: 5, y: 300 } });
    await page.keyboard.press(' ');
    await page.waitForFunction(() => window.__physik!.paused, undefined, { timeout: 10_000 });
    const pausedAt = await page.evaluate(() => window.__physik!.stepsTaken);
    await page.waitForTimeout(500);
    expect(await page.evaluate(() => window.__physik!.stepsTaken)).toBe(pausedAt);
    await page.keyboard.press('.');
    await page.waitForFunction((n) => window.__physik!.stepsTaken === n + 1, pausedAt, { timeout: 10_000 });
    await page.keyboard.press(' ');

    await saveShot(page, 'worker-crowd-100');
    const withWorker = await frameIntervals(page, 3000);
    console.log(`worker mode, crowd of 100: main-thread frame interval median ${withWorker.median.toFixed(1)} ms, p95 ${withWorker.p95.toFixed(1)} ms (${withWorker.n} frames), worker ${Math.round(await page.evaluate(() => (window.__physik as WS)!.workerStepsPerSecond))} steps/s`);

    // the picker: another scene drops the crowd, the crowd scene brings it back, in both worlds
    // (the page's and the worker's build the same rigs; the worker's poses keep arriving)
    const rigsAfter = async (name: string, rigs: number) => {
      await panelControl(page, 'scene').locator('select').selectOption(name);
      await page.waitForFunction(([n, r]) => window.__physik!.sceneName === n && window.__physik!.world.physik.rigs.length === r, [name, rigs] as const, { timeout: 20_000 });
      const seen = await page.evaluate(() => (window.__physik as WS)!.posesRead);
      await page.waitForFunction((n) => (window.__physik as WS)!.posesRead > n + 2, seen, { timeout: 30_000 });
    };
    await rigsAfter('humanoid', 1);
    // (on the single humanoid, which draws faster) bones are grabbed in worker mode too: a click on the upper arm leaves a pin, in both worlds
    // (the worker publishes into a buffer that fits the new set, and the arm holds at the pin);
    // Ctrl+Z takes it away again in both
    const posesGoOn = async () => {
      const n = await page.evaluate(() => (window.__physik as WS)!.posesRead);
      await page.waitForFunction((k) => (window.__physik as WS)!.posesRead > k + 2, n, { timeout: 30_000 });
    };
    const arm = (await page.evaluate(() => window.__physik!.screenOfBone('upperArm.L', 0.5)))!;
    await page.mouse.click(arm.x, arm.y);
    expect(await page.evaluate(() => Object.keys(window.__physik!.controlPoints))).toContain('pin1');
    await posesGoOn();
    const pin = await point(page, 'pin1');
    expect(dist(pin.attachment, pin.target)).toBeLessThan(0.05);
    expect(await page.evaluate(() => window.__physik!.history.undoLabels.at(-1))).toBe('pin pin1 on upperArm.L');
    await page.keyboard.press('Control+z');
    expect(await page.evaluate(() => Object.keys(window.__physik!.controlPoints))).not.toContain('pin1');
    await posesGoOn();
    // a bone dragged: the rig follows while the pointer holds it; released, no pin stays
    const fore = (await page.evaluate(() => window.__physik!.screenOfBone('forearm.L', 0.6)))!;
    const foreBefore = await page.evaluate(() => [...window.physik!.pose()['forearm.L']!.tail]);
    await page.mouse.move(fore.x, fore.y);
    await page.mouse.down();
    for (let i = 1; i <= 6; i++) await page.mouse.move(fore.x + 6 * i, fore.y - 8 * i);
    await page.waitForFunction((b) => {
      const t = window.physik!.pose()['forearm.L']!.tail;
      return Math.hypot(t[0]! - b[0]!, t[1]! - b[1]!, t[2]! - b[2]!) > 0.03;
    }, foreBefore, { timeout: 30_000 });
    await page.mouse.up();
    expect(await page.evaluate(() => Object.keys(window.__physik!.controlPoints).filter((n) => n.startsWith('pin')))).toEqual([]);
    expect(await page.evaluate(() => window.__physik!.history.undoLabels.at(-1))).toBe('grab forearm.L');
    await posesGoOn();
    expect(await page.locator('#error').isVisible()).toBe(false);
    await rigsAfter('crowd', 101);
    expect(await page.evaluate(() => window.__physik!.crowd)).toBe(100);
    expect(await page.locator('#error').isVisible()).toBe(false);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('without ?worker=1 the simulation steps on the main thread; the panel box switches to worker mode', async () => {
    const { page, errors } = await open('?crowd=100');
    expect(await page.evaluate(() => (window.__physik as WS)?.inWorker)).toBeUndefined();
    expect(await page.evaluate(() => window.__physik!.crowd)).toBe(100);
    const steps = await page.evaluate(() => window.__physik!.stepsTaken);
    await page.waitForFunction((n) => window.__physik!.stepsTaken > n + 5, steps, { timeout: 60_000 });
    const onMain = await frameIntervals(page, 3000);
    console.log(`main-thread mode, crowd of 100: frame interval median ${onMain.median.toFixed(1)} ms, p95 ${onMain.p95.toFixed(1)} ms (${onMain.n} frames)`);
    expect(await page.evaluate(() => new URL(location.href).searchParams.get('crowd'))).toBe('100');

    await openAdvanced(page);
    const box = panelControl(page, 'simulation in a worker').locator('input');
    expect(await box.isChecked()).toBe(false);
    await Promise.all([page.waitForURL(/worker=1/, { timeout: 30_000 }), box.check()]);
    await page.waitForFunction(() => (window.__physik?.frames ?? 0) > 10 && (window.__physik as WS)?.inWorker === true, undefined, { timeout: 60_000 });
    expect(await page.evaluate(() => window.__physik!.crowd)).toBe(100); // the crowd came along in the address
    expect(errors).toEqual([]);
    await page.close();
  });

  it('a page that is not cross-origin isolated falls back to the main thread with a visible message', async () => {
    const { page, errors } = await open('', { waitForFrames: false });
    // serve the page again without the isolation headers
    await page.route('**/*', async (route) => {
      const response = await route.fetch();
      const headers = { ...response.headers() };
      delete headers['cross-origin-opener-policy'];
      delete headers['cross-origin-embedder-policy'];
      await route.fulfill({ response, headers });
    });
    await page.goto(`${page.url().replace(/\?.*$/, '')}?worker=1&scene=elbow`);
    await page.waitForFunction(() => (window.__physik?.frames ?? 0) > 10, undefined, { timeout: 60_000 });
    expect(await page.evaluate(() => window.crossOriginIsolated)).toBe(false);
    expect(await page.evaluate(() => (window.__physik as WS)?.inWorker)).toBeUndefined();
    const message = page.locator('#error');
    await message.waitFor({ state: 'visible', timeout: 10_000 });
    expect(await message.textContent()).toContain('not isolated: the simulation runs on the main thread');
    const steps = await page.evaluate(() => window.__physik!.stepsTaken);
    await page.waitForFunction((n) => window.__physik!.stepsTaken > n + 5, steps, { timeout: 60_000 });
    expect(errors).toEqual([]);
    await page.close();
  });
});
