/**
 * Physics on top of motion in the sandbox, in headless Chromium (setup in harness.ts): the CMU
 * walk dropped on the page, its clip played through the physics from the panel's Motion folder
 * with markers on the hips, hands and feet; the clip's ghost is drawn (read from the page and
 * seen in a screenshot), the markers stay on the clip (under 3% of the height) while the free
 * bones move on their own, bad multipliers are refused with a message and never reach the world,
 * undo is refused while it plays, scrubbing a take recorded while it plays seeks the clip and
 * resuming there simulates on from it, the take exports as a .bvh that three.js's BVHLoader reads,
 * and a bone selected in the view is tied to the clip on its own, with its own stiffness, from the panel.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { BVHLoader } from 'three/examples/jsm/loaders/BVHLoader.js';
import { colourPixels, dropFixture, nextFrames, panelControl, saveShot, shotDir, useSandbox } from './harness';

const open = useSandbox();
const button = (page: Page, name: string) => page.getByRole('button', { name, exact: true });
const read = (page: Page) => page.evaluate(() => window.__physik!.motion!.read());
/** The ghost's light, warm colour (the rig's bones are bluish grey, the floor and background darker). */
const warm = (r: number, g: number, b: number) => r > 95 && r - b > 10 && g - b > 6;

describe('Motion: a clip through the physics (headless Chromium)', () => {
  it('the CMU walk plays with markers on hips, hands and feet, its ghost drawn; a take scrubs with the clip and exports as .bvh', async () => {
    const { page, errors } = await open();
    // a scene of scenes/ has no clip: turning Motion on says so and stays off
    await panelControl(page, 'play clip through physics').locator('input').click();
    await expect.poll(() => page.locator('#error').textContent()).toMatch(/no character with motion: open or drop a \.bvh/);
    await expect.poll(() => panelControl(page, 'play clip through physics').locator('input').isChecked()).toBe(false);
    // the capture-walk scene: its rig without the clip, and a note saying how to play it
    await panelControl(page, 'scene').locator('select').selectOption('capture-walk');
    await page.waitForFunction(() => window.__physik!.sceneName === 'capture-walk', undefined, { timeout: 20_000 });
    await expect.poll(() => page.locator('#import-notes').textContent()).toMatch(/capture-walk: its clip plays from the command line.*npx physik run scenes\/capture-walk\.json/s);
    await page.locator('#import-notes button').click();
    await dropFixture(page, 'cmu_subject02_walk_delfem2.bvh');
    await page.waitForFunction(() => window.__physik!.sceneName === 'cmu_subject02_walk_delfem2', undefined, { timeout: 20_000 });
    await page.locator('#import-notes button').click().catch(() => undefined);
    // its clip is read as soon as it is open
    await expect.poll(() => panelControl(page, 'clip').locator('input').inputValue()).toMatch(/^cmu_subject02_walk_delfem2: 2\.8\d s at 120 fps$/);

    // the Motion folder: markers on the hips, hands and feet, then on
    await panelControl(page, 'markers').locator('select').selectOption('hips, hands and feet');
    await panelControl(page, 'play clip through physics').locator('input').check();
    await page.waitForFunction(() => window.__physik!.motion!.read().on, undefined, { timeout: 20_000 });
    expect(await panelControl(page, 'clip').locator('input').inputValue()).toMatch(/cmu_subject02_walk_delfem2: .* of 2\.8\d s at 120 fps/);
    // about a second of the clip, played by the simulation
    await page.waitForFunction(() => window.__physik!.motion!.read().time >= 1, undefined, { timeout: 30_000 });
    await button(page, '▶ run / pause clip').click();
    expect(await page.evaluate(() => window.__physik!.paused)).toBe(true);
    const r = await read(page);
    expect(r.on).toBe(true);
    expect(r.markers.map((m) => m.bone).sort()).toEqual(['Hips', 'LeftFoot', 'LeftHand', 'RightFoot', 'RightHand']);
    expect(r.markerStrayMax).toBeLessThan(0.03);
    expect(r.markerStray).toBeLessThan(0.03);
    expect(r.ghostDistance).toBeGreaterThan(0.001); // the free bones move on their own
    expect(r.freeMax).toBeGreaterThan(0.001);
    expect(await panelControl(page, 'marker stray').locator('input').inputValue()).toMatch(/% now, .*% most/);

    // the ghost: drawn (read), and seen beside the rig in a screenshot (hidden: gone)
    expect(await page.evaluate(() => window.__physik!.motionGhost!.drawn)).toBe(await page.evaluate(() => Object.keys(window.__physik!.bones).length));
    await panelControl(page, 'ghost placement').locator('select').selectOption('beside it');
    await nextFrames(page);
    const shown = await saveShot(page, 'capture-walk-ghost');
    await panelControl(page, 'show clip ghost').locator('input').uncheck();
    await nextFrames(page);
    const hidden = await saveShot(page, 'capture-walk-no-ghost');
    expect(await page.evaluate(() => window.__physik!.motionGhost!.drawn)).toBe(0);
    expect(await colourPixels(page, shown, warm)).toBeGreaterThan((await colourPixels(page, hidden, warm)) + 150);
    await panelControl(page, 'show clip ghost').locator('input').check();

    // bad multipliers: a message, the world as it was
    const stiffness = () => page.evaluate(() => window.__physik!.motion!.options.stiffness);
    for (const bad of ['-2', 'abc']) {
      await panelControl(page, 'stiffness ×').locator('input').fill(bad);
      await panelControl(page, 'stiffness ×').locator('input').press('Enter');
      await expect.poll(() => page.locator('#error').textContent()).toMatch(/stiffness multiplier: expected a number more than 0/);
      expect(await stiffness()).toBe(1);
      expect(await panelControl(page, 'stiffness ×').locator('input').inputValue()).toBe('1');
    }
    await panelControl(page, 'damping ratio ×').locator('input').fill('NaN');
    await panelControl(page, 'damping ratio ×').locator('input').press('Enter');
    await expect.poll(() => page.locator('#error').textContent()).toMatch(/damping multiplier/);
    expect(await page.evaluate(() => window.__physik!.motion!.options.damping)).toBe(1);
    // undo is refused while the clip plays (its steps hold the markers' points)
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.keyboard.press('Control+z');
    await expect.poll(() => page.locator('#error').textContent()).toMatch(/Undo and redo are off while Motion plays a clip/);
    expect((await read(page)).on).toBe(true);

    // a take recorded while the clip plays: the physics rig, exported onto the source .bvh
    await button(page, '● record').click();
    await button(page, '▶ run / pause clip').click();
    await page.waitForFunction(() => window.__physik!.motion!.read().time >= 1.25, undefined, { timeout: 30_000 });
    await button(page, '■ stop').click();
    await button(page, '▶ run / pause clip').click();
    const frames = await page.evaluate(() => window.__physik!.recorder.recording?.frameCount ?? 0);
    expect(frames).toBeGreaterThan(5);
    // scrubbing seeks the clip: the take's middle frame shows the clip at that frame's time, and
    // resuming there simulates on from it with the clip (later frames dropped)
    const half = Math.floor(frames / 2);
    await page.evaluate((f) => window.__physik!.recorder.scrub(f), frames - 1);
    const last = await read(page);
    await page.evaluate((f) => window.__physik!.recorder.scrub(f), half);
    const seek = await read(page);
    const apart = await page.evaluate((ab) => { const t = window.__physik!.recorder.recording!.times; return t[ab[0]!]! - t[ab[1]!]!; }, [frames - 1, half]);
    expect(apart).toBeGreaterThan(0.1);
    expect(Math.abs(last.time - seek.time - apart)).toBeLessThan(1e-6);
    expect(seek.markerStray).toBeLessThan(0.03);
    await button(page, 'resume from this frame').click();
    await page.waitForFunction((t) => window.__physik!.motion!.read().time >= t + 0.1, seek.time, { timeout: 30_000 });
    await button(page, '■ stop').click();
    await button(page, '▶ run / pause clip').click();
    expect((await read(page)).markerStray).toBeLessThan(0.03);
    const [dl] = await Promise.all([page.waitForEvent('download', { timeout: 30_000 }), button(page, 'export .bvh').click()]);
    const bvh = readFileSync(await dl.path(), 'utf8');
    writeFileSync(join(shotDir, 'capture-walk-take.bvh'), bvh);
    expect(bvh.length).toBeGreaterThan(1000);
    const loaded = new BVHLoader().parse(bvh);
    expect(loaded.clip.tracks.length).toBeGreaterThan(0);
    expect(loaded.skeleton.bones.find((b) => b.name === 'LeftHand')).toBeDefined();
    // onto the source's own skeleton and frame time: the take's frames resampled to 120 fps
    expect(bvh.match(/^Frame Time:\s*([\d.]+)/m)?.[1]).toBe(readFileSync(new URL('../fixtures/external/cmu_subject02_walk_delfem2.bvh', import.meta.url), 'utf8').match(/^Frame Time:\s*([\d.]+)/m)?.[1]);
    expect(Number(bvh.match(/^Frames:\s*(\d+)/m)?.[1])).toBeGreaterThanOrEqual(await page.evaluate(() => window.__physik!.recorder.recording!.frameCount));

    // a bone tied on its own: the forearm selected in the view, made to follow the clip exactly
    // (the set becomes "chosen per bone", the markers kept); with no bone selected, a message
    await page.evaluate(() => window.__physik!.view.setSelectedBone(-1));
    await panelControl(page, 'tie to clip').locator('select').selectOption('follows exactly');
    await expect.poll(() => page.locator('#error').textContent()).toMatch(/select a bone in the view first/);
    await page.evaluate(() => window.__physik!.view.setSelectedBone(window.__physik!.bones['LeftForeArm']!));
    await expect.poll(() => panelControl(page, 'selected bone').locator('input').inputValue()).toBe('LeftForeArm');
    expect(await panelControl(page, 'tie to clip').locator('select').inputValue()).toBe('free');
    await panelControl(page, 'tie to clip').locator('select').selectOption('follows exactly');
    await expect.poll(() => page.evaluate(() => window.__physik!.motion!.tieOf('LeftForeArm'))).toBe('follow');
    expect(await page.evaluate(() => window.__physik!.motion!.options.preset)).toBe('custom');
    expect(await panelControl(page, 'markers').locator('select').inputValue()).toBe('chosen per bone');
    expect((await read(page)).markers.map((m) => m.bone).sort()).toEqual(['Hips', 'LeftFoot', 'LeftHand', 'RightFoot', 'RightHand']);
    // the left hand's marker made softer on its own; a bad value is refused, the field shows the one in effect
    await page.evaluate(() => window.__physik!.view.setSelectedBone(window.__physik!.bones['LeftHand']!));
    await expect.poll(() => panelControl(page, 'selected bone').locator('input').inputValue()).toBe('LeftHand');
    expect(await panelControl(page, 'tie to clip').locator('select').inputValue()).toBe('world marker');
    const boneStiffness = panelControl(page, 'bone stiffness ×').locator('input');
    await boneStiffness.fill('0.5');
    await boneStiffness.press('Enter');
    await expect.poll(() => page.evaluate(() => window.__physik!.motion!.scaleOf('LeftHand').stiffness)).toBe(0.5);
    await boneStiffness.fill('soft');
    await boneStiffness.press('Enter');
    await expect.poll(() => page.locator('#error').textContent()).toMatch(/tie of "LeftHand": stiffness multiplier/);
    expect(await page.evaluate(() => window.__physik!.motion!.scaleOf('LeftHand').stiffness)).toBe(0.5);
    await expect.poll(() => boneStiffness.inputValue()).toBe('0.5');

    // off: the rig's own settings back
    await panelControl(page, 'play clip through physics').locator('input').uncheck();
    expect((await read(page)).on).toBe(false);
    expect(errors).toEqual([]);
  });
});
