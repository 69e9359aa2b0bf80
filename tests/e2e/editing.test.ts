/**
 * Direct manipulation in headless Chromium with real mouse and keyboard input (setup in
 * harness.ts): grabbing a bone makes a temporary control point that goes on release (or stays
 * as a pin with Shift held), a click pins a bone, `e` and Delete act on the selected point,
 * Ctrl+Z / Ctrl+Shift+Z undo and redo every action (grabs, pins, handle drags, point edits,
 * reset) as a step that restores the pose as it was, and a scene file dropped on the page
 * replaces the rig while a bad one shows an error.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { readFileSync } from 'node:fs';
import { useSandbox, saveShot } from './harness';

const open = useSandbox();

type Vec = [number, number, number];
const dist = (a: Vec, b: Vec) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
const names = (page: Page) => page.evaluate(() => Object.keys(window.__physik!.controlPoints).sort());
const labels = (page: Page) => page.evaluate(() => ({ undo: [...window.__physik!.history.undoLabels], redo: [...window.__physik!.history.redoLabels] }));
const bonePoint = (page: Page, bone: string, at: number) =>
  page.evaluate(([b, t]) => {
    const p = window.physik!.pose()[b as string]!;
    return p.head.map((h, i) => h + (t as number) * (p.tail[i]! - h)) as [number, number, number];
  }, [bone, at] as const);
const screenOfBone = async (page: Page, bone: string, at: number) => {
  const p = await page.evaluate(([b, t]) => window.__physik!.screenOfBone(b as string, t as number), [bone, at] as const);
  expect(p).not.toBeNull();
  return p!;
};
const targetOf = (page: Page, name: string) =>
  page.evaluate((n) => {
    const s = window.__physik!;
    const cp = s.controlPoints[n]!;
    const t = s.world.physik.ControlPoint.target;
    return [t[cp * 3]!, t[cp * 3 + 1]!, t[cp * 3 + 2]!] as [number, number, number];
  }, name);
const settle = (page: Page, steps: number) =>
  page.evaluate((n) => window.__physik!.stepsTaken + n, steps).then((until) =>
    page.waitForFunction((u) => window.__physik!.stepsTaken > u, until, { timeout: 60_000 }));

describe('direct manipulation (headless Chromium)', () => {
  it('grabbing a bone pulls it with a temporary control point, removed on release', async () => {
    const { page, errors } = await open();
    await settle(page, 120); // the scripted reach has played out
    const p = await screenOfBone(page, 'forearm.L', 0.5);
    const before = await bonePoint(page, 'forearm.L', 0.5);
    await page.mouse.move(p.x, p.y);
    await page.mouse.down();
    for (let i = 1; i <= 10; i++) await page.mouse.move(p.x + 6 * i, p.y - 5 * i);
    expect(await page.evaluate(() => window.__physik!.grabber.grabbing)).toBe('pin1');
    expect(await names(page)).toContain('pin1');
    await settle(page, 40); // hold the grab while the body follows
    const during = await bonePoint(page, 'forearm.L', 0.5);
    await saveShot(page, 'grab-forearm');
    await page.mouse.up();
    expect(dist(before, during)).toBeGreaterThan(0.05);
    expect(await names(page)).toEqual(['footL', 'footR', 'handR']);
    expect((await labels(page)).undo).toEqual(['grab forearm.L']); // one step, undone to the pose before it
    expect(errors).toEqual([]);
    await page.close();
  });

  it('Shift on release keeps the grab as a pin; undo removes it, redo puts it back', async () => {
    const { page, errors } = await open();
    await settle(page, 60);
    const p = await screenOfBone(page, 'shin.L', 0.5);
    await page.mouse.move(p.x, p.y);
    await page.mouse.down();
    for (let i = 1; i <= 8; i++) await page.mouse.move(p.x + 5 * i, p.y - 4 * i);
    await page.keyboard.down('Shift');
    await page.mouse.up();
    await page.keyboard.up('Shift');
    expect(await names(page)).toEqual(['footL', 'footR', 'handR', 'pin1']);
    const pinned = await targetOf(page, 'pin1');
    expect(await labels(page)).toEqual({ undo: ['pin pin1 on shin.L'], redo: [] });
    expect(await page.evaluate(() => window.__physik!.selected)).toBe('pin1');
    await page.keyboard.press('Control+z');
    expect(await names(page)).toEqual(['footL', 'footR', 'handR']);
    await page.keyboard.press('Control+Shift+z');
    expect(await names(page)).toEqual(['footL', 'footR', 'handR', 'pin1']);
    expect(await targetOf(page, 'pin1')).toEqual(pinned);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('a click pins a bone where clicked; e disables it, Delete removes it, undo steps back through both', async () => {
    const { page, errors } = await open();
    await settle(page, 60);
    await page.keyboard.press(' '); // paused: the click point stays put
    const p = await screenOfBone(page, 'upperArm.L', 0.5);
    const at = await bonePoint(page, 'upperArm.L', 0.5);
    await page.mouse.click(p.x, p.y);
    expect(await names(page)).toContain('pin1');
    expect(dist(await targetOf(page, 'pin1'), at)).toBeLessThan(0.03); // on the bone, where clicked
    const active = () => page.evaluate(() => window.__physik!.world.physik.ControlPoint.active[window.__physik!.controlPoints.pin1!]);
    expect(await active()).toBe(1);
    await page.keyboard.press('e');
    expect(await active()).toBe(0);
    await page.keyboard.press('Delete');
    expect(await names(page)).toEqual(['footL', 'footR', 'handR']);
    expect((await labels(page)).undo).toEqual(['pin pin1 on upperArm.L', 'disable pin1', 'delete pin1']);
    await page.keyboard.press('Control+z'); // back, still disabled
    expect(await names(page)).toContain('pin1');
    expect(await active()).toBe(0);
    await page.keyboard.press('Control+z');
    expect(await active()).toBe(1);
    await page.keyboard.press('Control+z');
    expect(await names(page)).toEqual(['footL', 'footR', 'handR']);
    expect((await labels(page)).redo).toEqual(['delete pin1', 'disable pin1', 'pin pin1 on upperArm.L']);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('a handle drag is undoable: Ctrl+Z puts the target back, Ctrl+Y moves it again', async () => {
    const { page, errors } = await open();
    await settle(page, 60);
    const t0 = await targetOf(page, 'handR');
    const at = (await page.evaluate(() => window.__physik!.screenOf('handR')))!;
    await page.mouse.move(at.x, at.y);
    await page.mouse.down();
    for (let i = 1; i <= 6; i++) await page.mouse.move(at.x - 10 * i, at.y + 8 * i);
    await page.mouse.up();
    const t1 = await targetOf(page, 'handR');
    expect(dist(t0, t1)).toBeGreaterThan(0.05);
    expect((await labels(page)).undo).toEqual(['move handR']);
    await page.keyboard.press('Control+z');
    expect(await targetOf(page, 'handR')).toEqual(t0);
    await page.keyboard.press('Control+y');
    expect(await targetOf(page, 'handR')).toEqual(t1);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('undo restores poses: grab, pin, drag, then three Ctrl+Z give the pose before the grab; redo; reset is undoable', async () => {
    const { page, errors } = await open();
    await settle(page, 60);
    await page.keyboard.press(' '); // paused: the rig moves only by the steps taken below
    const steps = async (n: number) => { for (let i = 0; i < n; i++) await page.keyboard.press('.'); };
    const pose = () => page.evaluate(() => window.physik!.pose());
    type Pose = Awaited<ReturnType<typeof pose>>;
    /** Largest difference between two poses over every bone's head, tail and rotations. */
    const apart = (a: Pose, b: Pose) => Math.max(...Object.keys(a).flatMap((k) => {
      const x = a[k]!, y = b[k]!;
      return [...x.head.map((v, i) => Math.abs(v - y.head[i]!)), ...x.tail.map((v, i) => Math.abs(v - y.tail[i]!)),
        ...x.world.map((v, i) => Math.abs(v - y.world[i]!))];
    }));
    const drag = async (from: { x: number; y: number }, dx: number, dy: number, shift = false) => {
      await page.mouse.move(from.x, from.y);
      await page.mouse.down();
      for (let i = 1; i <= 6; i++) await page.mouse.move(from.x + (dx * i) / 6, from.y + (dy * i) / 6);
      await steps(15); // held while the body follows
      if (shift) await page.keyboard.down('Shift');
      await page.mouse.up();
      if (shift) await page.keyboard.up('Shift');
    };

    const beforeGrab = await pose();
    await drag(await screenOfBone(page, 'forearm.L', 0.5), 50, -40); // 1. grab a bone, let go
    await steps(10);
    const beforePin = await pose();
    const shin = await screenOfBone(page, 'shin.R', 0.5);
    await page.mouse.click(shin.x, shin.y); // 2. pin a bone
    await steps(10);
    const beforeDrag = await pose();
    await drag((await page.evaluate(() => window.__physik!.screenOf('handR')))!, -60, 50); // 3. drag a handle
    const afterDrag = await pose();
    await steps(10);
    expect(apart(afterDrag, beforeGrab)).toBeGreaterThan(0.05);
    expect((await labels(page)).undo).toEqual(['grab forearm.L', 'pin pin1 on shin.R', 'move handR']);

    await page.keyboard.press('Control+z');
    expect(apart(await pose(), beforeDrag)).toBeLessThan(1e-9);
    await page.keyboard.press('Control+z');
    expect(apart(await pose(), beforePin)).toBeLessThan(1e-9);
    expect(await names(page)).toEqual(['footL', 'footR', 'handR']);
    await page.keyboard.press('Control+z');
    const undone = apart(await pose(), beforeGrab);
    expect(undone).toBeLessThan(1e-9);
    for (let i = 0; i < 3; i++) await page.keyboard.press('Control+Shift+z');
    const redone = apart(await pose(), afterDrag);
    expect(redone).toBeLessThan(1e-9);
    expect(await names(page)).toEqual(['footL', 'footR', 'handR', 'pin1']);

    await page.keyboard.press('r'); // reset: the starting pose, as one more step
    expect(apart(await pose(), afterDrag)).toBeGreaterThan(0.05);
    await page.keyboard.press('Control+z');
    expect(apart(await pose(), afterDrag)).toBeLessThan(1e-9);
    console.log(`undo: pose after three undos ${undone.toExponential(1)} from the one before the grab, after three redos ${redone.toExponential(1)} from the one after the drag`);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('keys: a hand target keyed at two times, moved and deleted on the timeline, plays from a reset, records; the saved file dropped back has its keys and starting pose', async () => {
    const { page, errors } = await open();
    await settle(page, 30);
    await page.keyboard.press(' '); // paused
    const stepNow = () => page.evaluate(() => window.physik!.metrics().step);
    const handKeys = () => page.evaluate(() => window.__physik!.keys.filter((e) => e.point === 'handR' && e.target).map((e) => ({ step: e.step, target: e.target })));
    const own = await handKeys(); // the scene's own script moves the hand too
    const hand = (await page.evaluate(() => window.__physik!.screenOf('handR')))!;
    await page.mouse.click(hand.x, hand.y); // select the hand's target
    expect(await page.evaluate(() => window.__physik!.selected)).toBe('handR');
    const step1 = await stepNow(), t1 = await targetOf(page, 'handR');
    await page.keyboard.press('k');
    for (let i = 0; i < 20; i++) await page.keyboard.press('.');
    await page.mouse.move(hand.x, hand.y);
    await page.mouse.down();
    for (let i = 1; i <= 6; i++) await page.mouse.move(hand.x - 12 * i, hand.y + 9 * i);
    await page.mouse.up();
    const step2 = await stepNow(), t2 = await targetOf(page, 'handR');
    expect(dist(t1, t2)).toBeGreaterThan(0.05);
    await page.keyboard.press('k');
    const keyed = [...own, { step: step1, target: t1 }, { step: step2, target: t2 }];
    expect(await handKeys()).toEqual(keyed);
    expect(await page.locator('.lil-gui .lil-controller', { has: page.locator('.lil-name', { hasText: /^keys$/ }) }).locator('input').inputValue())
      .toMatch(/^handR: (\d+\.\d\d s, )+\d+\.\d\d s$/);

    // the keys on the timeline: the second dragged later with the mouse, undone; deleted by a right-click, undone
    const strip = (await page.locator('#timeline').boundingBox())!;
    const keyX = (s: number) => page.evaluate((k) => window.__physik!.timeline!.xOfStep(k), s);
    const y = strip.y + 22;
    const x2 = strip.x + await keyX(step2);
    await page.mouse.move(x2, y);
    await page.mouse.down();
    for (let i = 1; i <= 5; i++) await page.mouse.move(x2 + 9 * i, y);
    await page.mouse.up();
    const moved = (await handKeys()).map((k) => k.step);
    const later = moved.find((k) => k > step2 + 5);
    expect(later, `keys at ${moved.join(', ')}`).toBeDefined();
    expect(moved).not.toContain(step2);
    expect(Math.abs(strip.x + await keyX(later!) - (x2 + 45))).toBeLessThan(6); // where it was dropped
    await saveShot(page, 'timeline-keys');
    await page.keyboard.press('Control+z');
    expect(await handKeys()).toEqual(keyed);
    await page.mouse.click(x2, y, { button: 'right' });
    expect((await handKeys()).map((k) => k.step)).toEqual([...own.map((k) => k.step), step1]);
    await page.keyboard.press('Control+z');
    expect(await handKeys()).toEqual(keyed);
    // a click on a key selects it, Delete deletes it, Ctrl+Z brings it back
    await page.mouse.click(strip.x + await keyX(step1), y);
    expect(await page.evaluate(() => window.__physik!.selectedKey)).toBeGreaterThanOrEqual(0);
    await page.keyboard.press('Delete');
    expect((await handKeys()).map((k) => k.step)).toEqual([...own.map((k) => k.step), step2]);
    expect(await page.evaluate(() => Object.keys(window.__physik!.controlPoints))).toContain('handR'); // the key, not the point
    await page.keyboard.press('Control+z');
    expect(await handKeys()).toEqual(keyed);

    // play from the start: the keys move the target at their steps
    await page.keyboard.press('r');
    for (let i = 0; i <= step1; i++) await page.keyboard.press('.');
    expect(await stepNow()).toBe(step1 + 1);
    expect(await targetOf(page, 'handR')).toEqual(t1);
    await page.keyboard.press(' '); // play
    await page.waitForFunction((s) => window.physik!.metrics().step > s, step2, { timeout: 60_000 });
    expect(await targetOf(page, 'handR')).toEqual(t2);
    await page.getByRole('button', { name: '● record' }).click();
    await page.waitForFunction(() => window.__physik!.recorder.state.frameCount > 5, undefined, { timeout: 60_000 });
    await page.getByRole('button', { name: '■ stop' }).click();
    if (!(await page.evaluate(() => window.__physik!.paused))) await page.keyboard.press(' '); // paused: the pose to save holds still

    // saved with the panel's button, dropped back on the page: the keys and the starting pose come back
    const saved = await page.evaluate(() => window.physik!.pose());
    const [dl] = await Promise.all([page.waitForEvent('download', { timeout: 30_000 }), page.getByRole('button', { name: 'save scene .json' }).click()]);
    const text = readFileSync(await dl.path());
    expect(dl.suggestedFilename()).toBe('humanoid.json');
    await page.evaluate((b64) => {
      const dt = new DataTransfer();
      dt.items.add(new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], 'keyed.json', { type: 'application/json' }));
      window.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, cancelable: true }));
      window.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, cancelable: true }));
    }, text.toString('base64'));
    await page.waitForFunction(() => window.__physik!.sceneName === 'keyed', undefined, { timeout: 10_000 });
    expect(await handKeys()).toEqual(keyed);
    type Pose = Record<string, { head: number[] }>;
    const apart = (a: Pose, b: Pose) => Math.max(...Object.keys(a).flatMap((k) => a[k]!.head.map((v, i) => Math.abs(v - b[k]!.head[i]!))));
    const opened = await page.evaluate(() => window.physik!.pose());
    expect(apart(opened, saved)).toBeLessThanOrEqual(1e-12);
    await page.keyboard.press('.');
    await page.keyboard.press('r'); // reset: back to the saved starting pose, not the rest pose
    expect(apart(await page.evaluate(() => window.physik!.pose()), saved)).toBeLessThanOrEqual(1e-12);
    expect(await stepNow()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('a scene file dropped on the page replaces the rig; a file that is not a scene shows an error', async () => {
    const { page, errors } = await open();
    const drop = (name: string, text: string) =>
      page.evaluate(([n, t]) => {
        const dt = new DataTransfer();
        dt.items.add(new File([t as string], n as string, { type: 'application/json' }));
        window.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, cancelable: true }));
        window.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, cancelable: true }));
      }, [name, text] as const);
    const scene = {
      name: 'two links',
      rig: { name: 'stick', root: 'pinned', bones: [
        { name: 'a', parent: null, direction: [0, 1, 0], length: 0.5, head: [0, 1, 0] },
        { name: 'b', parent: 'a', direction: [0, 1, 0], length: 0.5 },
      ] },
      controlPoints: [{ name: 'tip', bone: 'b', target: [0.4, 1.6, 0] }],
    };
    await drop('stick.json', JSON.stringify(scene));
    await page.waitForFunction(() => window.__physik!.sceneName === 'stick', undefined, { timeout: 10_000 });
    expect(Object.keys(await page.evaluate(() => window.__physik!.bones))).toEqual(['a', 'b']);
    await settle(page, 200);
    const tip = (await page.evaluate(() => window.physik!.pose().b!.tail)) as Vec;
    expect(dist(tip, [0.4, 1.6, 0])).toBeLessThan(0.05);
    // a bad file: a message naming the file and the problem, the stick stays
    await drop('notes.txt', 'just some words');
    const el = page.locator('#error');
    await el.waitFor({ state: 'visible', timeout: 10_000 });
    expect(await el.textContent()).toMatch(/notes\.txt/);
    await drop('broken.json', JSON.stringify({ ...scene, rig: { ...scene.rig, bones: [{ ...scene.rig.bones[0], length: -1 }] } }));
    await page.waitForFunction(() => /length/.test(document.getElementById('error')!.textContent ?? ''), undefined, { timeout: 10_000 });
    expect(await el.textContent()).toMatch(/broken\.json: rig\.bones\[0\]\.length/);
    expect(await page.evaluate(() => window.__physik!.sceneName)).toBe('stick');
    await settle(page, 10);
    expect(errors).toEqual([]);
    await page.close();
  });
});
