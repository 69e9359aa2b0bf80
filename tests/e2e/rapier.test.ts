/**
 * The Rapier cross-check in the browser (setup in harness.ts): the sandbox's "Rapier ghost"
 * mirrors the humanoid in Rapier, loaded only when the ghost is switched on and initialised
 * once however often it is switched; the mirror is stepped after every PhysIK step and drawn as
 * a magenta ghost (pixels that are not there without it); at equilibrium its bone tips sit
 * within 2% of the rig's height of PhysIK's; a mouse drag of a target moves both and they
 * settle together again; switching it off removes the meshes; a deep link opens with it; a
 * scene loaded from the panel is mirrored anew; no console or page errors throughout. A Rapier
 * that cannot be loaded (its chunk's request refused) leaves a message and a running sandbox.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useSandbox, saveShot, colourPixels, nextFrames, panelControl, openAdvanced } from './harness';

const open = useSandbox();

/** The Rapier ghost's magenta (red and blue well above green), blended over the dark background or the bones. */
const magenta = (r: number, g: number, b: number) => r > g + 45 && b > g + 35;

type Vec = [number, number, number];
const dist = (a: Vec, b: Vec) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);

/** The hand's tip in PhysIK and in the Rapier mirror of the main rig. */
const handTips = (page: Page) => page.evaluate(() => {
  const s = window.__physik!;
  const record = s.world.physik.rigs[0]!;
  const i = record.boneNames.indexOf('hand.R');
  const b = record.bones[i]!;
  const tail = Array.from(s.world.physik.Bone.tail.slice(b * 3, b * 3 + 3)) as [number, number, number];
  const { mirror } = s.rapier!.mirrors()[0]!;
  const tips = mirror.tipPositions(new Float64Array(3 * record.bones.length));
  return { physik: tail, rapier: Array.from(tips.subarray(i * 3, i * 3 + 3)) as [number, number, number] };
});

/**
 * Step the sandbox (its own `stepOnce`: PhysIK, then the mirror) until PhysIK and the mirror
 * are both at rest, at least `minSteps` steps; the live loop is paused meanwhile (SwiftShader
 * draws a few frames a second, 8 steps each at most, so the live loop would take minutes).
 * Returns the steps taken and the step from which each side stayed at rest.
 */
const settle = (page: Page, minSteps: number, maxSteps = 6000) => page.evaluate(([min, max]) => {
  const s = window.__physik!;
  const wasPaused = s.paused;
  s.setPaused(true);
  let physikRest = -1, rapierRest = -1, n = 0;
  try {
    for (n = 1; n <= max; n++) {
      s.stepOnce();
      const d = window.physik!.rapierDistance()!;
      if (window.physik!.metrics().restSince === null) physikRest = -1; else if (physikRest < 0) physikRest = n;
      if (!d.resting) rapierRest = -1; else if (rapierRest < 0) rapierRest = n;
      if (n >= min && physikRest > 0 && rapierRest > 0) break;
    }
  } finally {
    s.setPaused(wasPaused);
  }
  return { steps: n, physikRest, rapierRest };
}, [minSteps, maxSteps] as const);

describe('Rapier ghost (headless Chromium)', () => {
  it('loads Rapier on demand, once; mirrors the humanoid within 2% at rest; follows a drag; switches off cleanly', async () => {
    const { page, errors } = await open('?scene=humanoid');
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    expect(await page.evaluate(() => [window.physik!.rapierInits(), window.physik!.rapierDistance(), window.__physik!.view.ghostInfo('rapier').drawn]))
      .toEqual([0, null, false]);
    // let PhysIK run a while first, then take the ghost-less picture
    await page.waitForFunction(() => window.__physik!.stepsTaken > 60, undefined, { timeout: 60_000 });
    expect(requests.filter((u) => /\/assets\/rapier/.test(u))).toEqual([]); // the mirror's chunk is not fetched yet
    await nextFrames(page);
    const without = await colourPixels(page, await page.screenshot({ type: 'png' }), magenta);

    const t0 = Date.now();
    expect(await page.evaluate(() => window.physik!.rapierGhost(true))).toBe(true);
    const loadMs = Date.now() - t0;
    expect(requests.filter((u) => /\/assets\/rapier-/.test(u)).length).toBe(1); // now it is
    expect(await page.evaluate(() => window.physik!.rapierInits())).toBe(1);
    expect(await page.evaluate(() => window.__physik!.rapierJoints)).toBe('impulse');

    // stepped along with PhysIK, every step
    const s0 = await page.evaluate(() => ({ steps: window.physik!.rapierDistance()!.steps, taken: window.__physik!.stepsTaken }));
    await page.waitForFunction((s) => window.__physik!.stepsTaken > s + 30, s0.taken, { timeout: 60_000 });
    const s1 = await page.evaluate(() => ({ steps: window.physik!.rapierDistance()!.steps, taken: window.__physik!.stepsTaken }));
    expect(s1.steps - s0.steps).toBe(s1.taken - s0.taken);

    const settled = await settle(page, 300);
    expect(settled.physikRest).toBeGreaterThan(0);
    expect(settled.rapierRest).toBeGreaterThan(0);
    const rest = (await page.evaluate(() => window.physik!.rapierDistance()))!;
    expect(rest.finite).toBe(true);
    expect(rest.rigs).toBe(1);
    expect(rest.normalized).toBeLessThan(0.02);
    await nextFrames(page);
    const ghostInfo = await page.evaluate(() => window.__physik!.view.ghostInfo('rapier'));
    expect(ghostInfo).toEqual({ bones: 18, drawn: true, offset: [0, 0, 0] });
    const withGhost = await colourPixels(page, await saveShot(page, 'rapier-ghost'), magenta);
    expect(withGhost).toBeGreaterThan(without + 300);
    const status = (await page.locator('#status').textContent()) ?? '';
    expect(status).toMatch(/Rapier Δ \d+\.\d\d% of height/);
    const panelText = await panelControl(page, 'tip distance').locator('input').inputValue();
    expect(panelText).toMatch(/^\d+\.\d\d% \(/);

    // drag the right hand's target: PhysIK and the mirror both follow, and settle together
    const before = await handTips(page);
    const at = (await page.evaluate(() => window.__physik!.screenOf('handR')))!;
    await page.mouse.move(at.x, at.y);
    await page.mouse.down();
    for (let i = 1; i <= 10; i++) await page.mouse.move(at.x - 8 * i, at.y + 9 * i);
    await page.mouse.up();
    // the live loop steps both toward the new target first
    const taken = await page.evaluate(() => window.__physik!.stepsTaken);
    await page.waitForFunction((t) => window.__physik!.stepsTaken > t + 20, taken, { timeout: 60_000 });
    const settledDrag = await settle(page, 300);
    expect(settledDrag.physikRest).toBeGreaterThan(0);
    expect(settledDrag.rapierRest).toBeGreaterThan(0);
    const after = await handTips(page);
    const moved = { physik: dist(after.physik, before.physik), rapier: dist(after.rapier, before.rapier) };
    expect(moved.physik).toBeGreaterThan(0.1);
    expect(moved.rapier).toBeGreaterThan(0.1);
    const dragged = (await page.evaluate(() => window.physik!.rapierDistance()))!;
    expect(dragged.finite).toBe(true);
    expect(dragged.normalized).toBeLessThan(0.03);

    // off (paused, so the pose stays): the mirror is freed and the meshes leave the scene
    await page.evaluate(() => window.__physik!.setPaused(true));
    await nextFrames(page);
    const dragShot = await colourPixels(page, await saveShot(page, 'rapier-ghost-drag'), magenta);
    expect(await page.evaluate(() => window.physik!.rapierGhost(false))).toBe(false);
    await nextFrames(page);
    expect(await page.evaluate(() => [window.physik!.rapierDistance(), window.__physik!.view.ghostInfo('rapier').drawn, window.__physik!.rapier])).toEqual([null, false, null]);
    const off = await colourPixels(page, await page.screenshot({ type: 'png' }), magenta);
    expect(dragShot).toBeGreaterThan(off + 300);
    await page.evaluate(() => window.__physik!.setPaused(false));
    // on again (the other joint model), then off: still one init
    expect(await page.evaluate(() => window.physik!.rapierGhost('multibody'))).toBe(true);
    expect(await page.evaluate(() => window.physik!.rapierDistance()!.jointModel)).toBe('multibody');
    expect(await page.evaluate(() => window.physik!.rapierGhost(false))).toBe(false);
    expect(await page.evaluate(() => window.physik!.rapierInits())).toBe(1);

    console.log(`Rapier ghost: loaded in ${loadMs} ms; at rest (${JSON.stringify(settled)}) max tip distance ${rest.max.toFixed(4)} (${(100 * rest.normalized).toFixed(2)}% of height, ${rest.bone}) after ${rest.steps} mirror steps; ` +
      `drag moved the hand ${moved.physik.toFixed(3)} (PhysIK) / ${moved.rapier.toFixed(3)} (Rapier), at rest again (${JSON.stringify(settledDrag)}) ${dragged.max.toFixed(4)} = ${(100 * dragged.normalized).toFixed(2)}% (${dragged.bone}); ` +
      `magenta pixels ${without} → ${withGhost}; after the drag ${dragShot} → ${off} off`);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('the panel switches it, the address follows; a deep link opens with it; a loaded scene, a reset and a crowd are mirrored anew; hidden in playback', async () => {
    const { page, errors } = await open('?scene=humanoid&rapier=1');
    await openAdvanced(page);
    await page.waitForFunction(() => window.__physik!.rapier !== null, undefined, { timeout: 60_000 });
    expect(await page.evaluate(() => window.__physik!.rapierJoints)).toBe('impulse');
    expect(await panelControl(page, 'Rapier ghost').locator('input').isChecked()).toBe(true);

    // off and on through the panel's checkbox
    await panelControl(page, 'Rapier ghost').locator('input').uncheck();
    await page.waitForFunction(() => window.__physik!.rapierJoints === null && window.__physik!.rapier === null, undefined, { timeout: 10_000 });
    expect(new URLSearchParams(await page.evaluate(() => location.search)).has('rapier')).toBe(false);
    await panelControl(page, 'joints').locator('select').selectOption('multibody');
    await panelControl(page, 'Rapier ghost').locator('input').check();
    await page.waitForFunction(() => window.__physik!.rapier?.jointModel === 'multibody', undefined, { timeout: 60_000 });
    expect(new URLSearchParams(await page.evaluate(() => location.search)).get('rapier')).toBe('multibody');
    await panelControl(page, 'joints').locator('select').selectOption('impulse');
    await page.waitForFunction(() => window.__physik!.rapier?.jointModel === 'impulse', undefined, { timeout: 60_000 });

    // beside the rig: moved along x, and drawn
    await panelControl(page, 'placement').locator('select').selectOption('beside');
    await nextFrames(page);
    const beside = await page.evaluate(() => window.__physik!.view.ghostInfo('rapier'));
    expect(beside.drawn).toBe(true);
    expect(beside.offset[0]).toBeGreaterThan(0.5);
    await saveShot(page, 'rapier-ghost-beside');
    await panelControl(page, 'placement').locator('select').selectOption('overlaid');

    // a scene from the panel: the two-bone arm is mirrored (the old humanoid mirror is gone)
    const builds = await page.evaluate(() => window.physik!.rapierDistance()!.builds);
    await panelControl(page, 'scene').locator('select').selectOption('arm');
    await page.waitForFunction(() => window.__physik!.sceneName === 'arm', undefined, { timeout: 10_000 });
    await nextFrames(page);
    const arm = await page.evaluate(() => ({ d: window.physik!.rapierDistance()!, bones: window.__physik!.view.ghostInfo('rapier').bones, mirrors: window.__physik!.rapier!.mirrors().map((m) => m.mirror.boneNames.length) }));
    expect(arm.bones).toBe(2);
    expect(arm.mirrors).toEqual([2]);
    expect(arm.d.builds).toBeGreaterThan(builds);

    // reset: the mirror starts over from the reset pose (PhysIK's step counter went back)
    await page.waitForFunction(() => window.__physik!.world.physik.Rig.step[window.__physik!.rig]! > 50, undefined, { timeout: 60_000 });
    const beforeReset = await page.evaluate(() => window.physik!.rapierDistance()!.builds);
    await page.evaluate(() => window.__physik!.reset());
    await nextFrames(page);
    expect(await page.evaluate(() => window.physik!.rapierDistance()!.builds)).toBeGreaterThan(beforeReset);

    // a recording played back shows PhysIK's recorded poses only: the ghost hides, and is back live
    await page.evaluate(() => window.__physik!.recorder.record());
    const recStart = await page.evaluate(() => window.__physik!.stepsTaken);
    await page.waitForFunction((t) => window.__physik!.stepsTaken > t + 20, recStart, { timeout: 60_000 });
    await page.evaluate(() => { window.__physik!.recorder.stop(); window.__physik!.recorder.play(); });
    await nextFrames(page);
    expect(await page.evaluate(() => window.__physik!.view.ghostInfo('rapier').drawn)).toBe(false);
    await page.evaluate(() => window.__physik!.recorder.live());
    await nextFrames(page);
    expect(await page.evaluate(() => window.__physik!.view.ghostInfo('rapier').drawn)).toBe(true);

    // a crowd: each rig mirrored (within the limit), all drawn
    await page.evaluate(() => window.__physik!.spawnCrowd(3));
    await nextFrames(page);
    const crowd = await page.evaluate(() => ({ d: window.physik!.rapierDistance()!, bones: window.__physik!.view.ghostInfo('rapier').bones }));
    expect([crowd.d.rigs, crowd.d.of, crowd.bones]).toEqual([4, 4, 8]);
    await page.evaluate(() => window.__physik!.spawnCrowd(0));
    await nextFrames(page);
    expect(await page.evaluate(() => window.physik!.rapierDistance()!.rigs)).toBe(1);
    expect(await page.evaluate(() => window.physik!.rapierInits())).toBe(1);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('when Rapier cannot be loaded, the message says so and the sandbox runs on', async () => {
    const { page, errors } = await open('?scene=humanoid');
    await page.route(/\/assets\/rapier-[^/]*\.js$/, (route) => route.abort('failed'));
    const result = await page.evaluate(() => window.physik!.rapierGhost(true).then(() => 'started', (e: unknown) => String(e)));
    expect(result).toMatch(/Failed to fetch|import|module/i);
    const el = page.locator('#error');
    await el.waitFor({ state: 'visible', timeout: 10_000 });
    expect((await el.textContent()) ?? '').toContain('The Rapier ghost could not start');
    expect(await page.evaluate(() => [window.__physik!.rapierJoints, window.__physik!.rapier, window.__physik!.view.ghostInfo('rapier').drawn])).toEqual([null, null, false]);
    expect(await panelControl(page, 'Rapier ghost').locator('input').isChecked()).toBe(false);
    const taken = await page.evaluate(() => window.__physik!.stepsTaken);
    await page.waitForFunction((t) => window.__physik!.stepsTaken > t + 10, taken, { timeout: 60_000 });
    // the browser reports the refused fetch itself; nothing else
    expect(errors.filter((e) => !/Failed to load resource/.test(e))).toEqual([]);
    await page.close();
  });

  it('a bad ?rapier= value is reported and the sandbox runs without the ghost', async () => {
    const { page, errors } = await open('?scene=elbow&rapier=maybe');
    const el = page.locator('#error');
    await el.waitFor({ state: 'visible', timeout: 10_000 });
    expect((await el.textContent()) ?? '').toContain('?rapier=maybe');
    expect(await page.evaluate(() => [window.__physik!.rapierJoints, window.physik!.rapierInits()])).toEqual([null, 0]);
    expect(errors).toEqual([]);
    await page.close();
  });
});
