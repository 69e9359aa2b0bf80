/**
 * The sandbox's settings panel (lil-gui) in headless Chromium (setup in harness.ts). Checks: the panel is visible; typing a negative dt is refused
 * (error shown, dt unchanged, field back to the valid value); choosing solver 'ccd' changes
 * the rig's solver; the single-step button advances the step counter while paused; the crowd
 * scene comes with its crowd.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { openAdvanced, useSandbox } from './harness';

const open = useSandbox();

/** The lil-gui controller row whose label is exactly `name`. */
const control = (page: Page, name: string) =>
  page.locator('.lil-gui .lil-controller', { has: page.locator('.lil-name', { hasText: new RegExp(`^${name}$`) }) });

const rigSetting = (page: Page, key: string) =>
  page.evaluate((k) => {
    const s = window.__physik!;
    const record = s.world.physik.rigs.find((r) => r.eid === s.rig) ?? s.world.physik.rigs[0]!;
    return (record.settings as unknown as Record<string, unknown>)[k];
  }, key);

describe('settings panel (headless Chromium)', () => {
  it('is visible and exposed on window.__physik.panel', async () => {
    const { page, errors } = await open();
    await page.locator('.lil-gui.lil-root').waitFor({ state: 'visible', timeout: 10_000 });
    expect(await page.evaluate(() => window.__physik!.panel !== undefined)).toBe(true);
    for (const name of ['scene', 'solver', 'compare with', 'responsiveness', 'liveliness', '● record', 'export .glb']) {
      expect(await control(page, name).isVisible()).toBe(true);
    }
    // the physics settings wait under the closed Advanced fold
    for (const name of ['dt', 'stiffness', 'pass cap', 'inter-joint']) expect(await control(page, name).isVisible()).toBe(false);
    await openAdvanced(page);
    for (const name of ['dt', 'stiffness', 'pass cap', 'inter-joint']) expect(await control(page, name).isVisible()).toBe(true);
    const scenes = await control(page, 'scene').locator('option').allTextContents();
    expect(scenes).toContain('humanoid');
    expect(scenes).toContain('elbow');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('the crowd scene opens with its crowd; the picker drops it with another scene and brings it back; ?crowd=0 leaves it out', async () => {
    const { page, errors } = await open('?scene=crowd');
    const count = () => page.evaluate(() => ({ crowd: window.__physik!.crowd, rigs: window.__physik!.world.physik.rigs.length }));
    expect(await count()).toEqual({ crowd: 100, rigs: 101 });
    await control(page, 'scene').locator('select').selectOption('humanoid');
    await page.waitForFunction(() => window.__physik!.sceneName === 'humanoid', undefined, { timeout: 10_000 });
    expect(await count()).toEqual({ crowd: 0, rigs: 1 });
    await control(page, 'scene').locator('select').selectOption('crowd');
    await page.waitForFunction(() => window.__physik!.sceneName === 'crowd', undefined, { timeout: 20_000 });
    expect(await count()).toEqual({ crowd: 100, rigs: 101 });
    const s0 = await page.evaluate(() => window.__physik!.stepsTaken);
    await page.waitForFunction((s) => window.__physik!.stepsTaken > s + 5, s0, { timeout: 30_000 });
    expect(errors).toEqual([]);
    await page.close();
    const bare = await open('?scene=crowd&crowd=0');
    expect(await bare.page.evaluate(() => window.__physik!.world.physik.rigs.length)).toBe(1);
    await bare.page.close();
  });

  it('the scene picker loads the scene in place and the address follows, keeping other query params', async () => {
    const { page, errors } = await open('?foo=bar');
    await control(page, 'scene').locator('select').selectOption('elbow');
    await page.waitForFunction(() => window.__physik!.sceneName === 'elbow', undefined, { timeout: 10_000 });
    const params = new URL(page.url()).searchParams;
    expect(params.get('scene')).toBe('elbow');
    expect(params.get('foo')).toBe('bar');
    expect(Object.keys(await page.evaluate(() => window.__physik!.bones))).toEqual(['upper', 'lower']);
    const s0 = await page.evaluate(() => window.__physik!.stepsTaken);
    await page.waitForFunction((s) => window.__physik!.stepsTaken > s + 5, s0, { timeout: 30_000 });
    expect(await page.evaluate(() => window.physik!.metrics().step)).toBeGreaterThan(0);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('typing dt = -1 is refused: error shown, dt unchanged, field reset', async () => {
    const { page, errors } = await open();
    await openAdvanced(page);
    const dt0 = await rigSetting(page, 'dt');
    const input = control(page, 'dt').locator('input');
    await input.click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type('-1');
    await page.keyboard.press('Enter');
    const el = page.locator('#error');
    await el.waitFor({ state: 'visible', timeout: 10_000 });
    expect(await el.textContent()).toMatch(/\bdt\b/);
    expect(await rigSetting(page, 'dt')).toBe(dt0);
    expect(await page.evaluate(() => window.__physik!.world.physik.rigs[0]!.settings.dt)).toBe(dt0);
    expect(Number(await input.inputValue())).toBe(dt0);
    // a valid value is applied and clears the error
    await input.click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type('0.02');
    await page.keyboard.press('Enter');
    expect(await rigSetting(page, 'dt')).toBe(0.02);
    expect(await el.isVisible()).toBe(false);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("choosing solver 'ccd' changes the rig's solver", async () => {
    const { page, errors } = await open();
    expect(await rigSetting(page, 'solver')).toBe('physik');
    await control(page, 'solver').locator('select').selectOption('ccd');
    expect(await rigSetting(page, 'solver')).toBe('ccd');
    expect(await page.locator('#error').isVisible()).toBe(false);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('play / pause pauses; single step advances the step counter while paused', async () => {
    const { page, errors } = await open();
    await page.getByRole('button', { name: 'play / pause' }).click();
    expect(await page.evaluate(() => window.__physik!.paused)).toBe(true);
    const stepOf = () => page.evaluate(() => window.__physik!.world.physik.Rig.step[window.__physik!.rig]!);
    const s0 = await stepOf();
    const t0 = await page.evaluate(() => window.__physik!.stepsTaken);
    await page.waitForTimeout(300);
    expect(await stepOf()).toBe(s0);
    await page.getByRole('button', { name: 'single step' }).click();
    expect(await stepOf()).toBe(s0 + 1);
    expect(await page.evaluate(() => window.__physik!.stepsTaken)).toBe(t0 + 1);
    expect(await page.evaluate(() => window.__physik!.paused)).toBe(true);
    await page.getByRole('button', { name: 'reset' }).click();
    expect(await stepOf()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });
});
