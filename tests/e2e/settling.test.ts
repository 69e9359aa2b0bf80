/**
 * Settling in the sandbox (setup in harness.ts): a rig that reaches its goals is reported
 * converged in the overlay and falls asleep (its physics stops running while the page keeps
 * drawing); a mouse drag of its target wakes it and it converges on the new target.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useSandbox, saveShot } from './harness';

const open = useSandbox();

/** Step the sandbox with its own stepOnce (paused live loop) until the rig sleeps; the steps taken. */
const stepUntilAsleep = (page: Page, max = 4000) => page.evaluate((limit) => {
  const s = window.__physik!;
  s.setPaused(true);
  let n = 0;
  while (!window.physik!.metrics().sleeping && n < limit) { s.stepOnce(); n++; }
  s.setPaused(false);
  return n;
}, max);

describe('settling in the sandbox (headless Chromium)', () => {
  it('converges, sleeps (the physics stops), and wakes on a drag', async () => {
    const { page, errors } = await open('?scene=elbow');
    const n = await stepUntilAsleep(page);
    expect(n).toBeLessThan(4000);
    const asleep = await page.evaluate(() => window.physik!.metrics());
    expect(asleep.sleeping).toBe(true);
    expect(['converged', 'stalled']).toContain(asleep.status);

    // asleep: the live loop steps on (the clock runs) but the joint solve does not run
    const solved = () => page.evaluate(() => window.__physik!.world.physik.Rig.stepsSolved[window.__physik!.world.physik.rigs[0]!.eid]!);
    const before = await solved();
    const taken = await page.evaluate(() => window.__physik!.stepsTaken);
    await page.waitForFunction((t) => window.__physik!.stepsTaken > t + 20, taken, { timeout: 60_000 });
    expect(await solved()).toBe(before);

    // the overlay says so
    await saveShot(page, 'settling-asleep');
    expect(await page.evaluate(() => window.physik!.metrics().sleeping)).toBe(true);

    // a drag of the hand's target wakes it
    const name = await page.evaluate(() => window.__physik!.world.physik.rigs[0]!.controlPointNames[0]!);
    const at = (await page.evaluate((cp) => window.__physik!.screenOf(cp), name))!;
    await page.evaluate(() => window.__physik!.setPaused(true));
    await page.mouse.move(at.x, at.y);
    await page.mouse.down();
    for (let i = 1; i <= 5; i++) await page.mouse.move(at.x - 8 * i, at.y + 5 * i);
    await page.mouse.up();
    await page.evaluate(() => { window.__physik!.stepOnce(); });
    expect(await page.evaluate(() => window.physik!.metrics().sleeping)).toBe(false);
    await page.evaluate(() => window.__physik!.setPaused(false));
    expect(await stepUntilAsleep(page)).toBeLessThan(4000);
    expect(await solved()).toBeGreaterThan(before);
    expect(errors).toEqual([]);
    await page.close();
  });
});
