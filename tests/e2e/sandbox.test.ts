/**
 * The sandbox in headless Chromium (setup in harness.ts: an in-process Vite server, Debian's
 * Chromium through playwright-core, WebGL on SwiftShader) with real mouse input. Checks: no console or page errors, a non-blank canvas, a drag
 * of the right hand's target handle moves the target and then the hand, `?scene=elbow`
 * loads the elbow, space pauses the simulation, a bad scene name shows an error message.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useSandbox, saveShot, pixelTally, colourPixels, drawn, openAdvanced } from './harness';

const open = useSandbox();

type Vec = [number, number, number];
const cpVec = (page: Page, name: string, field: 'target' | 'attachment') =>
  page.evaluate(([n, f]) => {
    const s = window.__physik!;
    const cp = s.controlPoints[n]!;
    const a = s.world.physik.ControlPoint[f as 'target' | 'attachment'];
    return [a[cp * 3]!, a[cp * 3 + 1]!, a[cp * 3 + 2]!] as [number, number, number];
  }, [name, field] as const);
const dist = (a: Vec, b: Vec) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);

describe('sandbox (headless Chromium)', () => {
  it('renders the humanoid without errors and the canvas is not blank', async () => {
    const { page, errors } = await open();
    expect(await page.evaluate(() => window.__physik!.sceneName)).toBe('humanoid');
    const png = await page.screenshot({ type: 'png' });
    const stats = await pixelTally(page, png, drawn);
    const orange = await colourPixels(page, png, (r, g, b) => r > 200 && g > 90 && g < 190 && b < 90);
    expect(stats.matched / stats.total).toBeGreaterThan(0.01); // grid, bones, joints, handles
    expect(orange).toBeGreaterThan(20); // the target handles
    expect(errors).toEqual([]);
    await page.close();
  });

  it('draws the pixi overlay on its own canvas over the view (plots and status)', async () => {
    const { page, errors } = await open();
    await page.waitForFunction(() => window.__physik!.hud !== null, null, { timeout: 10_000 });
    await page.waitForTimeout(500);
    // three canvases, one WebGL context each: the three.js view, the overlay, the timeline strip
    expect(await page.evaluate(() => document.querySelectorAll('canvas').length)).toBe(3);
    const clip = { x: 0, y: 0, width: 260, height: 220 };
    const shown = await page.screenshot({ clip });
    await page.evaluate(() => window.__physik!.hud!.setVisible(false));
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const hidden = await page.screenshot({ clip });
    expect(shown.equals(hidden)).toBe(false); // the overlay put something on screen
    // while the rig settles the plots move: the overlay alone (three.js canvas hidden) differs
    // between two moments 40 steps apart
    await page.evaluate(() => {
      window.__physik!.hud!.setVisible(true);
      document.getElementById('view')!.style.visibility = 'hidden';
      window.__physik!.reset();
    });
    const frame = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    await page.waitForFunction(() => window.__physik!.world.physik.Rig.step[window.__physik!.rig]! > 10, undefined, { timeout: 30_000 });
    await frame();
    const early = await page.screenshot({ clip });
    const s1 = await page.evaluate(() => window.__physik!.stepsTaken);
    await page.waitForFunction((s) => window.__physik!.stepsTaken > s + 40, s1, { timeout: 60_000 });
    await frame();
    const later = await page.screenshot({ clip });
    expect(await page.evaluate(() => window.physik!.metrics().status)).not.toBe('diverged');
    expect(later.equals(early)).toBe(false);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('a mouse drag of the right hand target moves the target, then the hand tip toward it (window.physik.pose)', async () => {
    const { page, errors } = await open();
    // let the scripted reach play out, so the drag is the only thing moving the hand
    await page.waitForFunction(() => window.__physik!.stepsTaken > 120, undefined, { timeout: 60_000 });
    const tip = () => page.evaluate(() => window.physik!.pose()['hand.R']!.tail as Vec);
    const target0 = await cpVec(page, 'handR', 'target');
    const hand0 = await tip();
    await saveShot(page, 'drag-before');
    const at = await page.evaluate(() => window.__physik!.screenOf('handR'));
    expect(at).not.toBeNull();
    // the view around the hand (clear of the overlay's plots, which change by themselves)
    const clip = { x: at!.x - 160, y: at!.y - 80, width: 200, height: 200 };
    const view0 = await page.screenshot({ clip });
    await page.mouse.move(at!.x, at!.y);
    await page.mouse.down();
    for (let i = 1; i <= 10; i++) await page.mouse.move(at!.x - 12 * i, at!.y + 9 * i); // down and to the left on screen
    const during = await page.evaluate(() => window.__physik!.dragger.dragging);
    await page.mouse.up();
    expect(during).toBe(await page.evaluate(() => window.__physik!.controlPoints.handR));
    const target1 = await cpVec(page, 'handR', 'target');
    expect(dist(target0, target1)).toBeGreaterThan(0.1);
    // the target follows the mouse: its handle is now under the release point
    const now = await page.evaluate(() => window.__physik!.screenOf('handR'));
    expect(Math.hypot(now!.x - (at!.x - 120), now!.y - (at!.y + 90))).toBeLessThan(3);
    const s0 = await page.evaluate(() => window.__physik!.stepsTaken);
    await page.waitForFunction((s) => window.__physik!.stepsTaken > s + 60, s0, { timeout: 60_000 });
    const hand1 = await tip();
    expect(dist(hand0, hand1)).toBeGreaterThan(0.05);
    expect(dist(hand1, target1)).toBeLessThan(0.5 * dist(hand0, target1)); // most of the way there
    await saveShot(page, 'drag-after');
    expect((await page.screenshot({ clip })).equals(view0)).toBe(false); // the canvas shows the new pose
    expect(errors).toEqual([]);
    await page.close();
  });

  it('a drag on empty space orbits the camera and leaves the targets alone', async () => {
    const { page, errors } = await open();
    await page.keyboard.press(' '); // paused: only the drag could move anything
    const target0 = await cpVec(page, 'handR', 'target');
    const cam0 = await page.evaluate(() => window.__physik!.view.camera.position.toArray());
    await page.mouse.move(80, 560);
    await page.mouse.down();
    for (let i = 1; i <= 10; i++) await page.mouse.move(80 + 15 * i, 560 - 3 * i);
    await page.mouse.up();
    await page.waitForTimeout(100);
    const cam1 = await page.evaluate(() => window.__physik!.view.camera.position.toArray());
    expect(Math.hypot(cam1[0]! - cam0[0]!, cam1[1]! - cam0[1]!, cam1[2]! - cam0[2]!)).toBeGreaterThan(0.1);
    expect(await cpVec(page, 'handR', 'target')).toEqual(target0);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('?scene=elbow loads the elbow', async () => {
    const { page, errors } = await open('?scene=elbow');
    const info = await page.evaluate(() => ({
      name: window.__physik!.sceneName,
      bones: Object.keys(window.__physik!.bones),
      cps: Object.keys(window.__physik!.controlPoints),
    }));
    expect(info).toEqual({ name: 'elbow', bones: ['upper', 'lower'], cps: ['elbow', 'hand'] });
    expect(errors).toEqual([]);
    await page.close();
  });

  it('space pauses and resumes; "." steps once while paused', async () => {
    const { page, errors } = await open();
    await page.keyboard.press(' ');
    expect(await page.evaluate(() => window.__physik!.paused)).toBe(true);
    const s0 = await page.evaluate(() => window.__physik!.stepsTaken);
    await page.waitForTimeout(500);
    expect(await page.evaluate(() => window.__physik!.stepsTaken)).toBe(s0);
    await page.keyboard.press('.');
    expect(await page.evaluate(() => window.__physik!.stepsTaken)).toBe(s0 + 1);
    await page.keyboard.press(' ');
    await page.waitForFunction((s) => window.__physik!.stepsTaken > s + 3, s0, { timeout: 30_000 });
    expect(errors).toEqual([]);
    await page.close();
  });

  it('r resets the rig to its rest pose and initial targets', async () => {
    const { page, errors } = await open();
    await page.waitForFunction(() => window.__physik!.world.physik.Rig.step[window.__physik!.rig]! > 20, undefined, { timeout: 60_000 });
    await page.keyboard.press(' ');
    await page.keyboard.press('r');
    const step = await page.evaluate(() => window.__physik!.world.physik.Rig.step[window.__physik!.rig]);
    expect(step).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('spawns a crowd of 100 humanoids from the panel and stays interactive', async () => {
    const { page, errors } = await open();
    await openAdvanced(page);
    const row = page.locator('.lil-gui .lil-controller', { has: page.locator('.lil-name', { hasText: /^crowd \(copies\)$/ }) });
    const input = row.locator('input').last();
    await input.click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type('100');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => window.__physik!.world.physik.rigs.length === 101, undefined, { timeout: 20_000 });
    await page.locator('#view').click({ position: { x: 5, y: 300 } }); // focus back on the view
    const t0 = await page.evaluate(() => ({ frames: window.__physik!.frames, steps: window.__physik!.stepsTaken, now: performance.now() }));
    await page.waitForTimeout(2000);
    const t1 = await page.evaluate(() => ({ frames: window.__physik!.frames, steps: window.__physik!.stepsTaken, now: performance.now() }));
    const seconds = (t1.now - t0.now) / 1000;
    // still drawing and simulating (SwiftShader renders on the CPU, ~3-4 frames per second
    // here on 2 busy cores; a GPU does far better: this is not a speed test, see tests/bench)
    expect((t1.frames - t0.frames) / seconds).toBeGreaterThan(1);
    expect(t1.steps - t0.steps).toBeGreaterThan(10);
    // and the main rig still answers a drag of its hand target
    const before = await cpVec(page, 'handR', 'target');
    const at = (await page.evaluate(() => window.__physik!.screenOf('handR')))!;
    await page.mouse.move(at.x, at.y);
    await page.mouse.down();
    for (let i = 1; i <= 5; i++) await page.mouse.move(at.x - 10 * i, at.y - 6 * i);
    await page.mouse.up();
    expect(dist(before, await cpVec(page, 'handR', 'target'))).toBeGreaterThan(0.03);
    await saveShot(page, 'crowd-100');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('an unknown scene shows a visible error, not a blank page', async () => {
    const { page } = await open('?scene=no-such-scene', { waitForFrames: false });
    const el = page.locator('#error');
    await el.waitFor({ state: 'visible', timeout: 30_000 });
    expect(await el.textContent()).toContain('no scene "no-such-scene"');
    await page.close();
  });
});
