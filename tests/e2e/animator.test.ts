/**
 * The sandbox as an animator meets it, in headless Chromium with real mouse and keyboard input
 * (setup in harness.ts): every control of the panel has a tooltip in words (walked over the
 * panel's DOM), `?` and F1 open the help overlay, the cursor and a highlight answer the pointer
 * over handles and bones, a pin is drawn apart from the targets, the centre of mass carries a
 * label, onion skins show in their own colour, a setting changed in the panel is one undo step,
 * errors can be dismissed and clear on the next success, and at 800×600, 1280×800 and
 * 1920×1080 the rig lies inside the part of the view the panel, plots and strips leave free.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { colourPixels, nextFrames, openAdvanced, panelControl, saveShot, useSandbox } from './harness';

const open = useSandbox();

/** A pin's mint, lit or not: green well above red, blue between. */
const mint = (r: number, g: number, b: number) => g > 130 && g > r + 60 && b > r + 20 && b < g - 10;
/** The onion skins' green: green well above red and blue. */
const onionGreen = (r: number, g: number, b: number) => g > 90 && g > r + 35 && g > b + 45;

/** Where the free part of the view is: right of the plots, left of the panel, between the status line and the help line. */
const freeRect = (page: Page) => page.evaluate(() => {
  const s = window.__physik!;
  const box = s.hud!.box, panel = s.panel!.domElement.getBoundingClientRect();
  const status = document.getElementById('status')!.getBoundingClientRect();
  const help = document.getElementById('help')!.getBoundingClientRect();
  return { left: box.x + box.width, right: panel.left, top: status.bottom, bottom: help.top };
});
/** The main rig's bones' projected bounds (CSS pixels). */
const rigBounds = (page: Page) => page.evaluate(() => {
  const s = window.__physik!, { Bone } = s.world.physik, out = { x: 0, y: 0 };
  let left = Infinity, right = -Infinity, top = Infinity, bottom = -Infinity;
  for (const b of Object.values(s.bones)) {
    for (const end of [Bone.head, Bone.tail]) {
      s.view.project(end[b * 3]!, end[b * 3 + 1]!, end[b * 3 + 2]!, out);
      left = Math.min(left, out.x); right = Math.max(right, out.x); top = Math.min(top, out.y); bottom = Math.max(bottom, out.y);
    }
  }
  return { left, right, top, bottom };
});

describe('the sandbox for animators (headless Chromium)', () => {
  it('every panel control has a tooltip; common controls first, physics under Advanced; help on ? and F1', async () => {
    const { page, errors } = await open();
    await openAdvanced(page);
    await page.locator('.lil-gui .lil-title', { hasText: /^Rapier ghost$/ }).click();
    const untitled = await page.evaluate(() => Array.from(document.querySelectorAll('.lil-gui .lil-controller'))
      .filter((c) => !(c as HTMLElement).title || (c as HTMLElement).title.length < 12)
      .map((c) => c.querySelector('.lil-name')?.textContent ?? '?'));
    expect(untitled).toEqual([]);
    const count = await page.locator('.lil-gui .lil-controller').count();
    expect(count).toBeGreaterThan(35);
    // the order: what an animator uses before the Advanced fold
    const names = await page.locator('.lil-gui .lil-name').allTextContents();
    const at = (n: string) => names.indexOf(n);
    for (const n of ['scene', 'open file… (.json .glb .gltf .bvh)', 'solver', 'compare with', 'responsiveness', 'liveliness', '● record', 'export .glb']) {
      expect(at(n), n).toBeGreaterThanOrEqual(0);
      expect(at(n), n).toBeLessThan(at('onion skins'));
    }
    expect(at('stiffness')).toBeGreaterThan(at('onion skins'));

    // the help overlay: keys and gestures
    const help = page.locator('#help-overlay');
    expect(await help.isVisible()).toBe(false);
    await page.locator('#view').click({ position: { x: 400, y: 20 } });
    await page.keyboard.press('?');
    await help.waitFor({ state: 'visible', timeout: 5000 });
    const text = (await help.textContent())!;
    for (const words of ['drag an orange handle', 'drag a bone', 'Ctrl+Z', 'space', 'reset']) expect(text).toContain(words);
    await saveShot(page, 'help-overlay');
    await page.keyboard.press('Escape');
    expect(await help.isVisible()).toBe(false);
    await page.keyboard.press('F1');
    expect(await help.isVisible()).toBe(true);
    await page.keyboard.press('F1');
    expect(await help.isVisible()).toBe(false);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('hover: the cursor and a highlight over handles and bones; a pin drawn apart; the centre of mass labelled; a setting is one undo step', async () => {
    const { page, errors } = await open();
    await page.keyboard.press(' '); // paused: nothing moves under the pointer
    const cursor = () => page.evaluate(() => document.getElementById('view')!.style.cursor);
    const hand = (await page.evaluate(() => window.__physik!.screenOf('handR')))!;
    await page.mouse.move(hand.x, hand.y);
    expect(await cursor()).toBe('grab');
    const shin = (await page.evaluate(() => window.__physik!.screenOfBone('shin.L', 0.5)))!;
    await page.mouse.move(shin.x, shin.y);
    expect(await cursor()).toBe('grab');
    await page.mouse.move(20, 300);
    expect(await cursor()).toBe('');

    // a pin: a mint cube, not an orange sphere
    await page.mouse.move(20, 300);
    await nextFrames(page);
    const before = await colourPixels(page, await saveShot(page, 'before-pin'), mint);
    const arm = (await page.evaluate(() => window.__physik!.screenOfBone('upperArm.L', 0.5)))!;
    await page.mouse.click(arm.x, arm.y);
    expect(await page.evaluate(() => Object.keys(window.__physik!.controlPoints))).toContain('pin1');
    await page.mouse.move(20, 300);
    await nextFrames(page);
    const after = await colourPixels(page, await saveShot(page, 'pin-drawn'), mint);
    expect(after).toBeGreaterThan(before + 20);

    // the centre of mass's label, beside its marker
    const label = page.locator('.com-label');
    expect(await label.textContent()).toBe('centre of mass');
    expect(await label.isVisible()).toBe(true);
    const com = await page.evaluate(() => {
      const s = window.__physik!, c = s.world.physik.Rig.centreOfMass, r = s.rig * 3, out = { x: 0, y: 0 };
      s.view.project(c[r]!, c[r + 1]!, c[r + 2]!, out);
      return out;
    });
    const box = (await label.boundingBox())!;
    expect(Math.abs(box.x - com.x)).toBeLessThan(30);
    expect(Math.abs(box.y + box.height / 2 - com.y)).toBeLessThan(30);

    // a setting from the panel is one step: Ctrl+Z puts it back
    await openAdvanced(page);
    const stiffness = () => page.evaluate(() => window.__physik!.world.physik.rigs[0]!.settings.stiffness);
    const s0 = await stiffness();
    const input = panelControl(page, 'stiffness').locator('input');
    await input.click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type(String(s0 * 2));
    await page.keyboard.press('Enter');
    expect(await stiffness()).toBe(s0 * 2);
    await page.locator('#view').click({ position: { x: 20, y: 300 } });
    await page.keyboard.press('Control+z');
    expect(await stiffness()).toBe(s0);
    expect(Number(await input.inputValue())).toBe(s0);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('errors: Escape or the close button dismiss them, the next success clears them; an unsupported file is named as such', async () => {
    const { page, errors } = await open();
    const drop = (name: string, text: string) => page.evaluate(([n, t]) => {
      const dt = new DataTransfer();
      dt.items.add(new File([t as string], n as string));
      window.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, cancelable: true }));
    }, [name, text] as const);
    const box = page.locator('#error');
    await drop('notes.txt', 'just some words');
    await box.waitFor({ state: 'visible', timeout: 10_000 });
    expect(await box.textContent()).toContain('unsupported file type ".txt"');
    await page.locator('#view').click({ position: { x: 20, y: 300 } });
    await page.keyboard.press('Escape');
    expect(await box.isVisible()).toBe(false);
    await drop('broken.json', '{ not json');
    await box.waitFor({ state: 'visible', timeout: 10_000 });
    await page.locator('#error .close').click();
    expect(await box.isVisible()).toBe(false);
    await drop('broken.json', '{ not json');
    await box.waitFor({ state: 'visible', timeout: 10_000 });
    await panelControl(page, 'solver').locator('select').selectOption('ccd'); // the next success
    expect(await box.isVisible()).toBe(false);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('onion skins are drawn in their own colour', async () => {
    const { page, errors } = await open('?onion=6');
    await page.waitForFunction(() => window.__physik!.stepsTaken > 60, undefined, { timeout: 60_000 });
    const green = await colourPixels(page, await saveShot(page, 'onion-skins'), onionGreen);
    await page.evaluate(() => { window.__physik!.onion = 0; });
    await nextFrames(page);
    const none = await colourPixels(page, await saveShot(page, 'onion-off'), onionGreen);
    expect(green).toBeGreaterThan(none + 200);
    expect(errors).toEqual([]);
    await page.close();
  });

  for (const [width, height] of [[800, 600], [1280, 800], [1920, 1080]] as const) {
    it(`at ${width}×${height} the rig lies in the free part of the view`, async () => {
      const { page, errors } = await open('', { viewport: { width, height } });
      await page.waitForFunction(() => window.__physik!.hud !== null, undefined, { timeout: 30_000 });
      await nextFrames(page);
      const free = await freeRect(page), rig = await rigBounds(page);
      await saveShot(page, `layout-${width}x${height}`);
      console.log(`${width}×${height}: free ${JSON.stringify(free)}, rig ${JSON.stringify(rig)}`);
      expect(rig.left).toBeGreaterThanOrEqual(free.left);
      expect(rig.right).toBeLessThanOrEqual(free.right);
      expect(rig.top).toBeGreaterThanOrEqual(free.top);
      expect(rig.bottom).toBeLessThanOrEqual(free.bottom);
      // and not lost in it: at least a third of the free height
      expect(rig.bottom - rig.top).toBeGreaterThan((free.bottom - free.top) / 3);
      expect(errors).toEqual([]);
      await page.close();
    });
  }
});
