/**
 * How the sandbox feels, in headless Chromium (setup in harness.ts) with real mouse input.
 * Checks: a quick 0.35 m mouse flick of the humanoid's right-hand handle lands the hand's tip
 * within 2 cm of the handle, and keeps it there, within 1.5 s of simulated time after the
 * release (and does not with the knobs turned to a stiffness of ×0.25 at critical damping:
 * the check can fail). Timed from the release because each mouse move waits for a frame,
 * which SwiftShader draws slowly: the six moves span about half a simulated second here,
 * where a hand's flick takes a tenth (tests/bench/feel.ts measures that one headless). The
 * panel's responsiveness and liveliness knobs exist with their tooltips, start at the
 * sandbox's values, change the stiffness and the damping ratio they say, and show in the
 * address; a scene with its own damping keeps it until a knob moves; worker mode has the same
 * knobs and the same flick.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useSandbox, panelControl, saveShot } from './harness';

const open = useSandbox();

const FLICK = 0.35;
const WITHIN = 0.02;
const LIMIT_S = 1.5;

const rig = (page: Page) => page.evaluate(() => {
  const s = window.__physik!;
  const r = s.world.physik.rigs.find((x) => x.eid === s.rig)!;
  const cp = s.controlPoints.handR;
  return {
    stiffness: r.settings.stiffness, dampingAuto: r.settings.dampingAuto, dampingRatio: r.settings.dampingRatio, damping: r.settings.damping,
    handStiffness: cp === undefined ? null : s.world.physik.ControlPoint.stiffness[cp]!,
  };
});

/** Type a value into a panel row's number field and commit it (Enter). */
async function typeInto(page: Page, label: string, value: string): Promise<void> {
  const input = panelControl(page, label).locator('input');
  await input.click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.type(value);
  await page.keyboard.press('Enter');
}

/** Wait until the scripted reach has settled (the hand on its target), so the flick is all that moves it. */
async function settled(page: Page): Promise<void> {
  await page.waitForFunction(() => {
    const m = window.physik!.metrics();
    return m.step > 60 && m.targetErrors.handR! < 0.005;
  }, undefined, { timeout: 90_000, polling: 100 });
}

/**
 * Flick the right hand's handle FLICK m (world units), straight down on the screen, with six
 * mouse moves and no pause between them. Returns the simulated times when the mouse went down
 * and up, and how far the target moved.
 */
async function flick(page: Page): Promise<{ down: number; t0: number; moved: number }> {
  const plan = await page.evaluate((len) => {
    const s = window.__physik!;
    const cp = s.controlPoints.handR!;
    const T = s.world.physik.ControlPoint.target;
    const t = [T[cp * 3]!, T[cp * 3 + 1]!, T[cp * 3 + 2]!];
    // world down, flattened onto the drag's plane (through the target, facing the camera)
    const cam = s.view.camera;
    const n = cam.getWorldDirection(cam.position.clone());
    const dn = -n.y;
    const d = [0 - dn * n.x, -1 - dn * n.y, 0 - dn * n.z];
    const l = Math.hypot(d[0]!, d[1]!, d[2]!);
    const from = { x: 0, y: 0 }, to = { x: 0, y: 0 };
    s.view.project(t[0]!, t[1]!, t[2]!, from);
    s.view.project(t[0]! + (len * d[0]!) / l, t[1]! + (len * d[1]!) / l, t[2]! + (len * d[2]!) / l, to);
    return { from, to, target: t };
  }, FLICK);
  await page.mouse.move(plan.from.x, plan.from.y);
  await page.mouse.down();
  const down = await page.evaluate(() => window.physik!.time());
  for (let i = 1; i <= 6; i++) {
    await page.mouse.move(plan.from.x + ((plan.to.x - plan.from.x) * i) / 6, plan.from.y + ((plan.to.y - plan.from.y) * i) / 6);
  }
  await page.mouse.up();
  const t0 = await page.evaluate(() => window.physik!.time());
  const after = await page.evaluate(() => {
    const s = window.__physik!;
    const cp = s.controlPoints.handR!;
    const T = s.world.physik.ControlPoint.target;
    return [T[cp * 3]!, T[cp * 3 + 1]!, T[cp * 3 + 2]!];
  });
  const moved = Math.hypot(after[0]! - plan.target[0]!, after[1]! - plan.target[1]!, after[2]! - plan.target[2]!);
  return { down, t0, moved };
}

/**
 * Pause, then single-step `seconds` of simulated time, the tip's distance to the handle after
 * each step (window.physik: metrics().targetErrors.handR, time()).
 */
const trace = (page: Page, seconds: number) => page.evaluate((secs) => {
  const s = window.__physik!;
  s.setPaused(true);
  const out: { t: number; e: number }[] = [{ t: window.physik!.time(), e: window.physik!.metrics().targetErrors.handR! }];
  // bounded: a step that throws leaves the time where it was
  for (let i = 0; i < 1000 && out[out.length - 1]!.t < out[0]!.t + secs; i++) {
    s.stepOnce();
    out.push({ t: window.physik!.time(), e: window.physik!.metrics().targetErrors.handR! });
  }
  return out;
}, seconds);

/** Simulated seconds from `t0` until the distance came within WITHIN for good (null: not by the end). */
function reachTime(samples: { t: number; e: number }[], t0: number): number | null {
  let last = -1;
  samples.forEach((x, i) => { if (x.e > WITHIN) last = i; });
  return last === samples.length - 1 ? null : samples[last + 1]!.t - t0;
}

describe('feel (headless Chromium)', () => {
  it('a quick 0.35 m mouse flick of the hand: the tip is within 2 cm of the handle in ≤ 1.5 s simulated after the release', async () => {
    const { page, errors } = await open();
    await settled(page);
    const { down, t0, moved } = await flick(page);
    expect(moved).toBeGreaterThan(FLICK - 0.02);
    expect(moved).toBeLessThan(FLICK + 0.02);
    const samples = await trace(page, 3);
    const reach = reachTime(samples, t0);
    await saveShot(page, 'feel-after-flick');
    const story = `flick ${(t0 - down).toFixed(2)} s; distance to the handle after the release: ${samples.map((x) => `${(x.t - t0).toFixed(2)}s ${(100 * x.e).toFixed(1)}cm`).join(', ')}`;
    expect(reach, story).not.toBeNull();
    expect(reach!, story).toBeLessThanOrEqual(LIMIT_S);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('the same flick with the knobs at a slack ×0.25 and critical damping is still short of the handle at 1.5 s', async () => {
    const { page, errors } = await open();
    await typeInto(page, 'responsiveness', '0.25');
    await typeInto(page, 'liveliness', '0');
    expect(await rig(page)).toMatchObject({ stiffness: 7.5, dampingAuto: true, dampingRatio: 1 });
    await settled(page);
    const { t0 } = await flick(page);
    const samples = await trace(page, LIMIT_S);
    const reach = reachTime(samples, t0);
    expect(reach === null || reach > LIMIT_S, `reached in ${reach} s`).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('responsiveness and liveliness: in the panel with tooltips, the sandbox values on the humanoid, each changes what it says, the address follows', async () => {
    const { page, errors } = await open();
    for (const name of ['responsiveness', 'liveliness', 'in effect']) expect(await panelControl(page, name).isVisible()).toBe(true);
    expect(await panelControl(page, 'responsiveness').getAttribute('title')).toMatch(/stiffness/);
    expect(await panelControl(page, 'liveliness').getAttribute('title')).toMatch(/damping ratio/);
    // the humanoid states the library's stiffness 30 and damping 20 (the paper's): the sandbox's knobs go on top
    const start = await rig(page);
    const knobs = await page.evaluate(() => ({ ...window.__physik!.feel }));
    expect(knobs.responsiveness).toBeGreaterThan(1);
    expect(knobs.liveliness).toBeGreaterThan(0);
    expect(start.stiffness).toBeCloseTo(30 * knobs.responsiveness!, 9);
    expect(start.handStiffness).toBeCloseTo(30 * knobs.responsiveness!, 9);
    expect(start.dampingAuto).toBe(true);
    expect(start.dampingRatio).toBeCloseTo(1 - knobs.liveliness!, 9);
    expect(Number(await panelControl(page, 'responsiveness').locator('input').inputValue())).toBeCloseTo(knobs.responsiveness!, 6);
    expect(new URL(page.url()).searchParams.has('responsiveness')).toBe(false); // the sandbox's own values are not written

    await typeInto(page, 'responsiveness', '3.5'); // not the sandbox's default: the address shows it
    let now = await rig(page);
    expect(now.stiffness).toBeCloseTo(105, 9);
    expect(now.handStiffness).toBeCloseTo(105, 9);
    expect(now.dampingRatio).toBeCloseTo(start.dampingRatio, 12); // only the springs
    await typeInto(page, 'liveliness', '0.2');
    now = await rig(page);
    expect(now.dampingRatio).toBeCloseTo(0.8, 12);
    expect(now.stiffness).toBeCloseTo(105, 9); // only the damping
    const params = new URL(page.url()).searchParams;
    expect(params.get('responsiveness')).toBe('3.5');
    expect(params.get('liveliness')).toBe('0.2');
    // the settings folder shows what the knobs did
    expect(Number(await panelControl(page, 'stiffness').locator('input').inputValue())).toBeCloseTo(105, 6);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('a scene with its own damping keeps it until a knob moves; a deep link sets the knobs; a bad one is reported', async () => {
    const { page, errors } = await open('?scene=spiral');
    const own = await rig(page);
    expect(own).toMatchObject({ dampingAuto: false, damping: 2, stiffness: 30 });
    expect(await page.evaluate(() => ({ ...window.__physik!.feel }))).toEqual({ responsiveness: null, liveliness: null });
    expect(await panelControl(page, 'in effect').locator('input').inputValue()).toBe("the scene's own");
    expect(await panelControl(page, 'in effect').getAttribute('title')).toMatch(/own stiffness and damping: move a knob/);
    await typeInto(page, 'liveliness', '0.5');
    expect(await rig(page)).toMatchObject({ dampingAuto: true, dampingRatio: 0.5, stiffness: 30 });
    expect(new URL(page.url()).searchParams.get('liveliness')).toBe('0.5');
    expect(await panelControl(page, 'in effect').getAttribute('title')).toMatch(/liveliness knob/);
    await page.close();

    const linked = await open('?responsiveness=2.5&liveliness=0.1');
    expect(await rig(linked.page)).toMatchObject({ stiffness: 75, dampingAuto: true });
    expect((await rig(linked.page)).dampingRatio).toBeCloseTo(0.9, 12);
    await linked.page.close();

    const bad = await open('?liveliness=5');
    const el = bad.page.locator('#error');
    await el.waitFor({ state: 'visible', timeout: 10_000 });
    expect(await el.textContent()).toMatch(/liveliness=5/);
    await bad.page.close();
    expect([...errors, ...linked.errors, ...bad.errors]).toEqual([]);
  });

  it('worker mode has the same knobs, passed to the worker: the flick lands within 2 cm in ≤ 1.5 s simulated', async () => {
    const { page, errors } = await open('?worker=1');
    expect(await page.evaluate(() => 'inWorker' in window.__physik!)).toBe(true);
    for (const name of ['responsiveness', 'liveliness']) expect(await panelControl(page, name).isVisible()).toBe(true);
    const knobs = await page.evaluate(() => ({ ...window.__physik!.feel }));
    expect((await rig(page)).stiffness).toBeCloseTo(30 * knobs.responsiveness!, 9);
    await settled(page);
    // the worker steps on its own clock: sample the distance every frame the page reads
    await page.evaluate(() => {
      const w = window as unknown as { feelSamples: { t: number; e: number }[] };
      w.feelSamples = [];
      const sample = () => {
        w.feelSamples.push({ t: window.physik!.time(), e: window.physik!.metrics().targetErrors.handR! });
        requestAnimationFrame(sample);
      };
      requestAnimationFrame(sample);
    });
    const { down, t0, moved } = await flick(page);
    expect(moved).toBeGreaterThan(FLICK - 0.02);
    await page.waitForFunction((t) => window.physik!.time() > t + 3, t0, { timeout: 60_000 });
    const samples = (await page.evaluate(() => (window as unknown as { feelSamples: { t: number; e: number }[] }).feelSamples))
      .filter((x) => x.t >= t0);
    // a frame shows the newest pose: the worker's own step is at most one batch earlier than a sample says
    const reach = reachTime(samples, t0);
    const story = `flick ${(t0 - down).toFixed(2)} s; after the release: ${samples.map((x) => `${(x.t - t0).toFixed(2)}s ${(100 * x.e).toFixed(1)}cm`).join(', ')}`;
    expect(reach, story).not.toBeNull();
    expect(reach!, story).toBeLessThanOrEqual(LIMIT_S);
    expect(errors).toEqual([]);
    await page.close();
  });
});
