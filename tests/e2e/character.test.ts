/**
 * An imported character in the sandbox, in headless Chromium with real mouse and keyboard
 * input (setup in harness.ts): RiggedFigure dropped on the page is drawn as its own skinned
 * mesh (a screenshot with it and without it, and the mesh count read from the page), the
 * importer's notes are shown, the skin under the pointer is lit (tinted), a click on it picks and pins the bone under it, the joint
 * folder shows that joint's role in the template's mapping (cleared and undone) and takes a
 * limit typed in degrees (a bad one refused), the saved scene has it, `f` frames the joint and
 * `1` looks from the front, another joint chosen in the folder loses its role, the hand's handle dragged with the mouse moves the hand while the
 * take records, the .glb export is the source file with the take added, and a reload of the
 * address finds the character again (kept in IndexedDB) with the limit and the roles as edited. An unknown
 * `?scene=` says so and shows the default scene.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { colourPixels, drawn, nextFrames, panelControl, pngPixels, saveShot, shotDir, useSandbox, dropFixture } from './harness';

const open = useSandbox();
const fixtures = new URL('../fixtures/external/', import.meta.url);
const button = (page: Page, name: string) => page.getByRole('button', { name, exact: true });

async function download(page: Page, label: string, name: string): Promise<Buffer> {
  const [dl] = await Promise.all([page.waitForEvent('download', { timeout: 30_000 }), button(page, label).click()]);
  const data = readFileSync(await dl.path());
  writeFileSync(join(shotDir, name), data);
  return data;
}

/** Pixels of a region (CSS pixels of a full-page PNG at scale 1) whose blue stands at least 20 levels further above their red in `after` than in `before`. */
const bluerPixels = async (page: Page, before: Buffer, after: Buffer, r: { x: number; y: number; w: number; h: number }) => {
  const p = await pngPixels(page, before, r), q = await pngPixels(page, after, r);
  let n = 0;
  for (let i = 0; i < p.length; i += 4) if (q[i + 2]! - q[i]! - (p[i + 2]! - p[i]!) >= 20) n++;
  return n;
};
/** Take the focus from the panel's fields, so keys go to the view. */
const blur = (page: Page) => page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
/** Name of the bone selected in the view, or null. */
const selectedBone = (page: Page) => page.evaluate(() => {
  const s = window.__physik!, b = s.view.selectedBone;
  return Object.keys(s.bones).find((n) => s.bones[n] === b) ?? null;
});
/** Where the character's hand (its tail) is on screen. */
const handScreen = (page: Page) => page.evaluate(() => {
  const s = window.__physik!;
  return s.screenOfBone(s.character!.file!.hand!, 1)!;
});

const glbJson = (b: Buffer) => JSON.parse(b.subarray(20, 20 + b.readUInt32LE(12)).toString('utf8'));
const meshes = (page: Page) => page.evaluate(() => window.__physik!.character?.layer?.meshes ?? 0);

describe('an imported character (headless Chromium)', () => {
  it('RiggedFigure: its skinned mesh drawn, a bone picked on it, a limit edited, the hand dragged and recorded, exported onto the file, found again', async () => {
    const { page, errors } = await open();
    await dropFixture(page, 'RiggedFigure.glb');
    await page.waitForFunction(() => window.__physik!.sceneName === 'RiggedFigure', undefined, { timeout: 20_000 });
    await page.waitForFunction(() => (window.__physik!.character?.layer?.meshes ?? 0) > 0, undefined, { timeout: 20_000 });
    expect(await meshes(page)).toBe(1);
    expect(await page.evaluate(() => window.__physik!.character!.layer!.skinnedMeshes)).toBe(1);
    // the importer's notes: what the template recognised
    const notes = page.locator('#import-notes');
    await notes.waitFor({ state: 'visible', timeout: 10_000 });
    expect(await notes.textContent()).toMatch(/humanoid recognised by the skeleton's shape/);
    await page.locator('#import-notes button').click();

    // the mesh is drawn: more of the view covered with it than with it hidden
    await nextFrames(page);
    const withMesh = await saveShot(page, 'character-RiggedFigure');
    await page.keyboard.press('m');
    await nextFrames(page);
    const without = await saveShot(page, 'character-RiggedFigure-bones-only');
    const covered = await colourPixels(page, withMesh, drawn), bare = await colourPixels(page, without, drawn);
    expect(covered).toBeGreaterThan(bare + 2000);
    await page.keyboard.press('m');

    // the mesh picks bones: with the bones hidden (x), a click on the left thigh's skin pins
    // that bone and selects it; the pointer over the skin shows it can be taken
    const leftThigh = 'node7'; // RiggedFigure's left thigh (its joints are unnamed: the template maps them by shape)
    await blur(page);
    await page.keyboard.press(' '); // paused: nothing moves under the pointer
    await page.keyboard.press('x');
    expect(await page.evaluate(() => window.__physik!.character!.overlay)).toBe('hidden');
    const thigh = (await page.evaluate((b) => window.__physik!.screenOfBone(b, 0.5), leftThigh))!;
    await page.mouse.move(20, 300);
    await nextFrames(page);
    const unlit = await page.screenshot({ type: 'png' });
    await page.mouse.move(thigh.x, thigh.y);
    expect(await page.evaluate(() => document.getElementById('view')!.style.cursor)).toBe('grab');
    await nextFrames(page);
    const lit = await saveShot(page, 'character-RiggedFigure-skin-hovered');
    // the thigh's skin is lit under the pointer: tinted light blue around it, not without the pointer
    expect(await bluerPixels(page, unlit, lit, { x: thigh.x - 50, y: thigh.y - 80, w: 100, h: 160 })).toBeGreaterThan(300);
    await page.mouse.click(thigh.x, thigh.y);
    expect(await selectedBone(page)).toBe(leftThigh);
    expect(await page.evaluate(() => Object.keys(window.__physik!.controlPoints))).toContain('pin1');
    await page.mouse.move(20, 300);

    // the joint folder shows the picked joint and its role in the template's mapping
    expect(await panelControl(page, 'joint').locator('select').inputValue()).toBe(leftThigh);
    expect(await panelControl(page, 'template role').locator('select').inputValue()).toBe('leftUpperLeg');
    expect(await page.locator('.joint-mapping').textContent()).toContain(`leftUpperLeg: ${leftThigh}`);
    const xLimit = () => page.evaluate((b) => {
      const s = window.__physik!, e = s.bones[b]!, L = s.world.physik.AngularLimit, deg = 180 / Math.PI;
      return L.enabled[e * 3] ? [Math.round(L.min[e * 3]! * deg * 1e6) / 1e6, Math.round(L.max[e * 3]! * deg * 1e6) / 1e6] : 'free';
    }, leftThigh);
    expect(await xLimit()).toEqual([-20, 120]); // the template's hip
    // the role cleared: the defaults; undone: the hip's limits again
    await panelControl(page, 'template role').locator('select').selectOption('(none)');
    expect(await xLimit()).toEqual([-135, 135]);
    expect(await page.locator('.joint-mapping').textContent()).not.toContain(`leftUpperLeg: ${leftThigh}`);
    await blur(page);
    await page.keyboard.press('Control+z');
    expect(await xLimit()).toEqual([-20, 120]);
    expect(await panelControl(page, 'template role').locator('select').inputValue()).toBe('leftUpperLeg');
    // max typed in degrees: min above max is refused with a message, a good value applies live
    const typeInto = async (name: string, text: string) => {
      const input = panelControl(page, name).locator('input');
      await input.click();
      await page.keyboard.press('ControlOrMeta+A');
      await page.keyboard.type(text);
      await page.keyboard.press('Enter');
    };
    await typeInto('x max (°)', '-50');
    await page.locator('#error').waitFor({ state: 'visible', timeout: 5000 });
    expect(await page.locator('#error').textContent()).toMatch(/min \(-20°\) is above max \(-50°\)/);
    expect(await xLimit()).toEqual([-20, 120]);
    expect(Number(await panelControl(page, 'x max (°)').locator('input').inputValue())).toBe(120);
    await typeInto('x max (°)', '60');
    expect(await xLimit()).toEqual([-20, 60]);
    expect(await page.locator('#error').isVisible()).toBe(false);
    await page.locator('.joint-mapping').scrollIntoViewIfNeeded();
    await saveShot(page, 'character-joint-panel');
    // saved in the scene file
    const sceneJson = JSON.parse((await download(page, 'save scene .json', 'RiggedFigure-limits.json')).toString('utf8'));
    expect(sceneJson.rig.bones.find((b: { name: string }) => b.name === leftThigh).limits.x).toEqual([-20, 60]);

    // views: f frames the selected thigh, 1 looks from the front
    await blur(page);
    await page.keyboard.press('f');
    const centred = await page.evaluate((b) => {
      const s = window.__physik!, e = s.bones[b]!, { Bone } = s.world.physik, t = s.view.orbit.target;
      const mid = [0, 1, 2].map((k) => (Bone.head[e * 3 + k]! + Bone.tail[e * 3 + k]!) / 2);
      return Math.hypot(t.x - mid[0]!, t.y - mid[1]!, t.z - mid[2]!) / s.world.physik.Rig.height[s.rig]!;
    }, leftThigh);
    expect(centred).toBeLessThan(0.15);
    await page.keyboard.press('1');
    const facing = await page.evaluate(() => {
      const s = window.__physik!, d = s.view.camera.position.clone().sub(s.view.orbit.target).normalize();
      const f = s.character!.file!.facing!; // the way the figure's toes point (the template's)
      return { along: d.x * f[0] + d.y * f[1] + d.z * f[2], z: f[2] };
    });
    expect(facing.along).toBeGreaterThan(0.99); // the camera in front of the figure
    expect(facing.z).toBeGreaterThan(0.99); // RiggedFigure faces +Z, as glTF figures do

    // another joint picked in the folder's list loses its role; the character keeps that
    await panelControl(page, 'joint').locator('select').selectOption('node10');
    expect(await panelControl(page, 'template role').locator('select').inputValue()).toBe('leftToes');
    await panelControl(page, 'template role').locator('select').selectOption('(none)');
    expect(await page.locator('.joint-mapping').textContent()).not.toContain('leftToes: node10');
    await blur(page);

    // the hand's handle dragged with the mouse, the take recorded while the body follows
    await page.keyboard.press('x'); // over the mesh
    await page.keyboard.press('x'); // back to through it
    const handle = await page.evaluate(() => {
      const s = window.__physik!, hand = s.character!.file?.hand;
      if (!hand) return null;
      const { ControlPoint } = s.world.physik;
      // the import puts a control point at the end of each of the two longest chains: one is this hand
      return Object.keys(s.controlPoints).find((n) => ControlPoint.bone[s.controlPoints[n]!] === s.bones[hand]) ?? null;
    });
    expect(handle).not.toBeNull();
    const from = (await page.evaluate((n) => window.__physik!.screenOf(n), handle!))!;
    const to = { x: from.x + 70, y: from.y - 90 };
    const handBefore = await handScreen(page);
    await button(page, '● record').click(); // records, and plays
    expect(await page.evaluate(() => window.__physik!.paused)).toBe(false);
    await page.mouse.move(from.x, from.y);
    await page.mouse.down();
    for (let i = 1; i <= 10; i++) await page.mouse.move(from.x + ((to.x - from.x) * i) / 10, from.y + ((to.y - from.y) * i) / 10);
    await page.mouse.up();
    const dropped = (await page.evaluate((n) => window.__physik!.screenOf(n), handle!))!;
    expect(Math.hypot(dropped.x - to.x, dropped.y - to.y)).toBeLessThan(6); // the handle is where the mouse let go
    const s0 = await page.evaluate(() => window.__physik!.stepsTaken);
    await page.waitForFunction((s) => window.__physik!.stepsTaken > s + 90, s0, { timeout: 60_000 });
    await button(page, '■ stop').click();
    const n = await page.evaluate(() => window.__physik!.recorder.state.frameCount);
    expect(n).toBeGreaterThan(10);
    const handAfter = await handScreen(page);
    // the hand followed its handle
    expect(Math.hypot(handAfter.x - to.x, handAfter.y - to.y)).toBeLessThan(Math.hypot(handBefore.x - to.x, handBefore.y - to.y) - 40);
    await saveShot(page, 'character-RiggedFigure-posed');

    // exported onto the source: its mesh, skin and own clip, plus the take
    const glb = await download(page, 'export .glb', 'RiggedFigure-posed.glb');
    const json = glbJson(glb), source = glbJson(readFileSync(new URL('RiggedFigure.glb', fixtures)));
    expect(json.meshes).toEqual(source.meshes);
    expect(json.skins).toEqual(source.skins);
    expect(json.animations).toHaveLength(source.animations.length + 1);
    expect(json.accessors[json.animations.at(-1).samplers[0].input].count).toBe(n);

    // a reload of the address opens the character again, mesh and all
    expect(new URL(page.url()).searchParams.get('scene')).toBe('RiggedFigure');
    await page.reload();
    await page.waitForFunction(() => (window.__physik?.frames ?? 0) > 10 && window.__physik!.sceneName === 'RiggedFigure', undefined, { timeout: 60_000 });
    await page.waitForFunction(() => (window.__physik!.character?.layer?.meshes ?? 0) > 0, undefined, { timeout: 20_000 });
    expect(Object.keys(await page.evaluate(() => window.__physik!.bones))).toHaveLength(19);
    expect(await xLimit()).toEqual([-20, 60]); // the limits as edited, kept with the file
    // and the roles as edited: the mapping shown has the toes without theirs, the thigh with its own
    await page.waitForFunction(() => {
      const text = document.querySelector('.joint-mapping')?.textContent ?? '';
      return text.includes('rightToes: node6') && !text.includes('leftToes: node10');
    }, undefined, { timeout: 10_000 });
    expect(await page.locator('.joint-mapping').textContent()).toContain(`leftUpperLeg: ${leftThigh}`);
    await saveShot(page, 'character-RiggedFigure-reloaded');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('an unknown ?scene= says so and shows the default scene', async () => {
    const { page, errors } = await open('?scene=no-such-character');
    const box = page.locator('#error');
    await box.waitFor({ state: 'visible', timeout: 10_000 });
    expect(await box.textContent()).toMatch(/no scene "no-such-character"/);
    expect(await page.evaluate(() => window.__physik!.sceneName)).toBe('humanoid');
    expect(errors).toEqual([]);
    await page.close();
  });
});
