/**
 * An imported character in the sandbox, in headless Chromium (setup in harness.ts): RiggedFigure
 * dropped on the page is drawn as its own skinned mesh (a screenshot with it and without it,
 * and the mesh count read from the page), the importer's notes are shown, a hand's target is
 * moved and the take recorded, the .glb export is the source file with the take added, and a
 * reload of the address finds the character again (kept in IndexedDB). An unknown `?scene=`
 * says so and shows the default scene.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { colourPixels, drawn, nextFrames, saveShot, shotDir, useSandbox, dropFixture } from './harness';

const open = useSandbox();
const fixtures = new URL('../fixtures/external/', import.meta.url);
const button = (page: Page, name: string) => page.getByRole('button', { name, exact: true });

async function download(page: Page, label: string, name: string): Promise<Buffer> {
  const [dl] = await Promise.all([page.waitForEvent('download', { timeout: 30_000 }), button(page, label).click()]);
  const data = readFileSync(await dl.path());
  writeFileSync(join(shotDir, name), data);
  return data;
}

const glbJson = (b: Buffer) => JSON.parse(b.subarray(20, 20 + b.readUInt32LE(12)).toString('utf8'));
const meshes = (page: Page) => page.evaluate(() => window.__physik!.character?.layer?.meshes ?? 0);

describe('an imported character (headless Chromium)', () => {
  it('RiggedFigure: its skinned mesh drawn and posed, notes shown, recorded, exported onto the file, found again after a reload', async () => {
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

    // a hand's target moved up and forward; the take recorded while the body follows
    const moved = await page.evaluate(() => {
      const s = window.__physik!;
      const hand = s.character!.file?.hand;
      if (!hand) return null;
      const { Bone, Rig, ControlPoint } = s.world.physik;
      const b = s.bones[hand]!;
      const h = Rig.height[s.rig]!;
      // the import puts a control point at the end of each of the two longest chains: one is this hand
      const name = Object.keys(s.controlPoints).find((n) => ControlPoint.bone[s.controlPoints[n]!] === b);
      if (!name) return null;
      s.recorder.record();
      s.moveTarget(name, [Bone.tail[b * 3]! + 0.1 * h, Bone.tail[b * 3 + 1]! + 0.3 * h, Bone.tail[b * 3 + 2]! + 0.2 * h]);
      return name;
    });
    expect(moved).not.toBeNull();
    const s0 = await page.evaluate(() => window.__physik!.stepsTaken);
    await page.waitForFunction((s) => window.__physik!.stepsTaken > s + 90, s0, { timeout: 60_000 });
    const n = await page.evaluate(() => { window.__physik!.recorder.stop(); return window.__physik!.recorder.state.frameCount; });
    expect(n).toBeGreaterThan(10);
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
