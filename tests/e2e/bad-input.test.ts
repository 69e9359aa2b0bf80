/**
 * Bad input in the sandbox (headless Chromium; setup in harness.ts): a handful of the kinds in
 * tests/unit/core/validation/badInput.test.ts's catalogue, fed the way a user feeds them: files dropped on the
 * page (a scene with a parent cycle, a 100,000-bone scene, a file over the size limit, a
 * truncated .glb, a .bvh with a word among its numbers), values typed into the panel (a pass
 * cap of a billion, a damping of 1e308), a solver that cannot pose the rig, and bad deep links.
 * Each must show a visible message naming the file and the problem, leave the page drawn and
 * the world bit-identical (every typed array of world.physik's stores, hashed in the page, and
 * the rigs list) with no NaN, and raise no uncaught page error.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { readFileSync } from 'node:fs';
import { useSandbox, saveShot, pixelTally, panelControl as control, drawn, openAdvanced } from './harness';

const open = useSandbox();
const fixtures = new URL('../fixtures/external/', import.meta.url);

/** A digest of the world: a hash per store field, the rigs list, and the fields holding NaN. */
const worldDigest = (page: Page) =>
  page.evaluate(() => {
    const s = window.__physik!;
    const hashes: Record<string, string> = {};
    const nan: string[] = [];
    for (const [name, store] of Object.entries(s.world.physik)) {
      if (!store || typeof store !== 'object' || Array.isArray(store)) continue;
      for (const [field, value] of Object.entries(store as Record<string, unknown>)) {
        const arr = Array.isArray(value) ? Float64Array.from(value as number[]) : value; // double fields are plain arrays: their bytes as Float64s
        if (!ArrayBuffer.isView(arr)) continue;
        const bytes = new Uint8Array(arr.buffer, arr.byteOffset, arr.byteLength);
        let h = 0x811c9dc5; // FNV-1a over the bytes: bit-identical arrays, same hash
        for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193) >>> 0;
        hashes[`${name}.${field}`] = `${bytes.length}:${h.toString(16)}`;
        if ((arr instanceof Float64Array || arr instanceof Float32Array) && arr.some((x) => Number.isNaN(x))) nan.push(`${name}.${field}`);
      }
    }
    const rigs = s.world.physik.rigs.map((r) => JSON.stringify({
      eid: r.eid, name: r.name, settings: r.settings, bones: Array.from(r.bones), boneNames: r.boneNames,
      controlPoints: Array.from(r.controlPoints), controlPointNames: r.controlPointNames, scriptCursor: r.scriptCursor,
    }));
    return { hashes, rigs, nan, scene: s.sceneName, rig: s.rig, solver: s.world.physik.rigs.find((r) => r.eid === s.rig)!.settings.solver };
  });

/** Drop a file on the page as a user would (the bytes cross as base64). */
const drop = (page: Page, name: string, data: Buffer | string) =>
  page.evaluate(([n, b64]) => {
    const bytes = Uint8Array.from(atob(b64!), (c) => c.charCodeAt(0));
    const dt = new DataTransfer();
    dt.items.add(new File([bytes], n!));
    window.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, cancelable: true }));
    window.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, cancelable: true }));
  }, [name, Buffer.from(data).toString('base64')]);

/** Hide the message box, do `action`, and return the message that then appears. */
async function messageAfter(page: Page, action: () => Promise<unknown>, pattern: RegExp): Promise<string> {
  await page.evaluate(() => { document.getElementById('error')!.hidden = true; });
  await action();
  await page.waitForFunction((src) => {
    const el = document.getElementById('error')!;
    return !el.hidden && new RegExp(src).test(el.textContent ?? '');
  }, pattern.source, { timeout: 30_000 });
  expect(await page.locator('#error').isVisible()).toBe(true);
  // on top: inside its border, where the pixi overlay's plot panel also lies, the screen shows the box's own red
  const r = await page.locator('#error').boundingBox();
  const png = await page.screenshot({ type: 'png', clip: { x: r!.x + 4, y: r!.y + 4, width: 6, height: 6 } });
  const rgb = (await pixelTally(page, png)).mean;
  expect(Math.hypot(rgb[0]! - 0x5a, rgb[1]! - 0x1d, rgb[2]! - 0x1d), `the message box's colour, got ${rgb.map(Math.round)}`).toBeLessThan(12);
  return (await page.locator('#error').textContent()) ?? '';
}

async function typeInto(page: Page, label: string, text: string): Promise<void> {
  await openAdvanced(page);
  await control(page, label).locator('input').click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.type(text);
  await page.keyboard.press('Enter');
}

/** Fraction of the screenshot's pixels that differ from the page background (the view is drawn). */
async function drawnFraction(page: Page): Promise<number> {
  const t = await pixelTally(page, await page.screenshot({ type: 'png' }), drawn);
  return t.matched / t.total;
}

const bone = (name: string, parent: string | null) => ({ name, parent, direction: [0, 1, 0], length: 0.5 });

describe('bad input in the sandbox (headless Chromium)', () => {
  it('dropped bad files and out-of-range panel values: a message each, the humanoid untouched', async () => {
    const { page, errors } = await open();
    await page.evaluate(() => window.__physik!.setPaused(true));
    const before = await worldDigest(page);
    expect(before.nan).toEqual([]);
    expect(Object.keys(before.hashes)).toEqual(expect.arrayContaining(['Bone.rot', 'ControlPoint.target', 'Rig.step']));

    const walk = readFileSync(new URL('bvhio_example.bvh', fixtures), 'utf8');
    const badBvh = walk.replace(/(Frame Time:[^\n]*\n\s*\S+\s+\S+\s+\S+\s+\S+\s+)\S+/, '$1abc');
    const cases: [string, () => Promise<unknown>, RegExp][] = [
      ['a scene with a parent cycle', () => drop(page, 'cycle.json', JSON.stringify({ name: 'c', rig: { name: 'c', bones: [bone('root', null), bone('a', 'b'), bone('b', 'a')] } })),
        /Could not open cycle\.json:\s+cycle\.json: rig\.bones\[1\]\.parent: parent cycle: a -> b -> a/],
      ['a 100,000-bone scene', () => drop(page, 'big.json', JSON.stringify({ name: 'big', rig: { name: 'big', bones: [bone('b0', null), ...Array.from({ length: 99_999 }, (_, i) => bone(`b${i + 1}`, `b${i}`))] } })),
        /big\.json: rig\.bones: expected at most 10000 bones, got 100000/],
      ['a file over the size limit', () => page.evaluate(() => {
        const dt = new DataTransfer();
        dt.items.add(new File([new Uint8Array(17 * 1024 * 1024)], 'huge.json'));
        window.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, cancelable: true }));
      }), /huge\.json: 17\.0 MB is over the 16 MB limit/],
      ['a truncated .glb', () => drop(page, 'cut.glb', readFileSync(new URL('RiggedFigure.glb', fixtures)).subarray(0, 20000)),
        /Could not open cut\.glb:\s+cut\.glb: truncated: header says 49532 bytes, got 20000/],
      ['a .bvh with a word among its numbers', () => drop(page, 'bad.bvh', badBvh),
        /bad\.bvh: line \d+: frame 1: 'abc' is not a number \(value 5, Hips Xrotation\)/],
      ['a pass cap of a billion typed into the panel', () => typeInto(page, 'pass cap', '1000000000'),
        /could not set pass cap:\s+rig "humanoid": settings\.maxPasses: expected at most 1000000 passes per step/],
      ['a damping of 1e308 typed into the panel', () => typeInto(page, 'damping', '1e308'),
        /could not set damping:\s+rig "humanoid": settings\.damping: expected a number from -1e9 to 1e9/],
    ];
    for (const [what, action, pattern] of cases) {
      const message = await messageAfter(page, action, pattern);
      expect(message, what).toMatch(pattern);
      const after = await worldDigest(page);
      expect(after, `${what}: the world is bit-identical`).toEqual(before);
    }
    // the panel shows the values the rig still has
    expect(Number(await control(page, 'pass cap').locator('input').inputValue())).toBe(0);
    expect(await drawnFraction(page)).toBeGreaterThan(0.01);
    await saveShot(page, 'bad-input-refused');
    // and the sandbox goes on: one more step is finite
    await page.evaluate(() => window.__physik!.stepOnce());
    expect((await worldDigest(page)).nan).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('a solver that cannot pose the rig is refused with its reason; as the ghost it stops compare mode', async () => {
    const { page, errors } = await open('?scene=sit');
    await page.evaluate(() => window.__physik!.setPaused(true));
    const before = await worldDigest(page);
    const message = await messageAfter(page, () => control(page, 'solver').locator('select').selectOption('twoBone'),
      /could not set solver:\s+solver "twoBone" cannot pose this rig: .*goal "\w+" is on bone "torso", the root/);
    expect(message).toMatch(/Move the goal to a child bone or use another solver/);
    expect(await worldDigest(page)).toEqual(before);
    expect(await control(page, 'solver').locator('select').inputValue()).toBe('physik');
    // the same solver as the compare ghost: the first step stops compare mode with the reason
    await messageAfter(page, async () => {
      await control(page, 'compare with').locator('select').selectOption('twoBone');
      await page.evaluate(() => window.__physik!.stepOnce());
    }, /Compare with twoBone stopped:\s+twoBone solver/);
    expect(await page.evaluate(() => window.__physik!.compare)).toBeNull();
    expect(await control(page, 'compare with').locator('select').inputValue()).toBe('none');
    const after = await worldDigest(page);
    expect(after.nan).toEqual([]);
    expect(after.solver).toBe('physik');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('bad deep links: a message, nothing applied, the page still drawn', async () => {
    const { page, errors } = await open('?scene=humanoid&solver=magic&compare=nope&onion=99');
    const message = await page.locator('#error').textContent();
    expect(message).toContain('?solver=magic: unknown solver (have: physik, fabrik');
    expect(message).toContain('?compare=nope: unknown solver');
    expect(message).toContain('?onion=99: expected a whole number from 0 to 8');
    expect(await page.locator('#error').isVisible()).toBe(true);
    const d = await worldDigest(page);
    expect(d.solver).toBe('physik');
    expect(d.nan).toEqual([]);
    expect(await page.evaluate(() => [window.__physik!.compare, window.__physik!.onion])).toEqual([null, 0]);
    expect(await drawnFraction(page)).toBeGreaterThan(0.01);
    expect(errors).toEqual([]);
    await page.close();

    // a name that only a plain object's prototype knows is no scene either
    const proto = await open('?scene=constructor', { waitForFrames: false });
    const el = proto.page.locator('#error');
    await el.waitFor({ state: 'visible', timeout: 30_000 });
    expect(await el.textContent()).toContain('Could not load scene "constructor":\nno scene "constructor" in scenes/ (have: ');
    // and the default scene runs instead of a blank page
    await proto.page.waitForFunction(() => (window.__physik?.frames ?? 0) > 10, undefined, { timeout: 60_000 });
    expect(await proto.page.evaluate(() => window.__physik!.sceneName)).toBe('humanoid');
    expect(proto.errors).toEqual([]);
    await proto.page.close();
  });
});
