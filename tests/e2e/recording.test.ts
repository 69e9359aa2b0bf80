/**
 * Recording in the sandbox, in headless Chromium (setup in harness.ts): record and stop from
 * the panel, scrub on the pixi timeline with the mouse (the pose shown is the recorded one,
 * bit for bit), looped playback and back to live, resume from a recorded frame, export .glb,
 * .bvh and .json as downloads, the .json opened again (played back on its rig, refused on
 * another), and import of the external rigs (a BVH and a glTF figure)
 * dropped on the page, posed, recorded and exported.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { useSandbox, shotDir, saveShot, panelControl, dropFixture } from './harness';
import { parseSceneText } from '../../src/scene/load';

const open = useSandbox();

const button = (page: Page, name: string) => page.getByRole('button', { name, exact: true });
const mode = (page: Page) => page.evaluate(() => window.__physik!.recorder.state.mode);
const frames = (page: Page) => page.evaluate(() => window.__physik!.recorder.state.frameCount);
const waitSteps = async (page: Page, n: number) => {
  const s0 = await page.evaluate(() => window.__physik!.stepsTaken);
  await page.waitForFunction(([s, k]) => window.__physik!.stepsTaken > s! + k!, [s0, n], { timeout: 60_000 });
};

/**
 * Whether the world shows exactly frame f of the recording (rotations and heads, bit for bit);
 * without f, the frame the timeline says is shown (read in the same turn: playback moves on).
 */
const showsFrame = (page: Page, f?: number) =>
  page.evaluate((wanted) => {
    const s = window.__physik!;
    const frame = wanted ?? s.recorder.state.frame;
    const rec = s.recorder.recording!;
    const record = s.world.physik.rigs.find((r) => r.eid === s.rig)!;
    const { rot, head } = s.world.physik.Bone;
    const n = rec.bones.length;
    for (let i = 0; i < n; i++) {
      const b = record.bones[i]!;
      for (let k = 0; k < 4; k++) if (!Object.is(rot[b * 4 + k], rec.rotations[(frame * n + i) * 4 + k])) return false;
      for (let k = 0; k < 3; k++) if (!Object.is(head[b * 3 + k], rec.heads[(frame * n + i) * 3 + k])) return false;
    }
    return true;
  }, f ?? null);

async function download(page: Page, label: string, name: string): Promise<Buffer> {
  const [dl] = await Promise.all([page.waitForEvent('download', { timeout: 30_000 }), button(page, label).click()]);
  const path = await dl.path();
  const data = readFileSync(path);
  writeFileSync(join(shotDir, name), data);
  expect(dl.suggestedFilename()).toMatch(new RegExp(`\\.${name.split('.').pop()}$`));
  return data;
}

describe('recording in the sandbox (headless Chromium)', () => {
  it('records, scrubs on the timeline to an exact recorded pose, loops playback, goes back to live', async () => {
    const { page, errors } = await open();
    await button(page, '● record').click();
    expect(await mode(page)).toBe('recording');
    await waitSteps(page, 60);
    await button(page, '■ stop').click();
    const n = await frames(page);
    expect(n).toBeGreaterThan(60); // 30 fps over at least 3 s of simulated time (dt 0.05)
    // scrub: press on the middle of the take's bar on the timeline strip and drag to 3/4 of it
    const box = (await page.locator('#timeline').boundingBox())!;
    const bar = await page.evaluate(() => {
      const s = window.__physik!, steps = s.recorder.recording!.steps, n = s.recorder.state.frameCount;
      return { from: s.timeline!.xOfStep(steps[0]!), to: s.timeline!.xOfStep(steps[n - 1]!) };
    });
    const along = (t: number) => box.x + bar.from + t * (bar.to - bar.from);
    // the live step as playback begins (playback then shows the recorded frames' steps)
    const stepLive = await page.evaluate(() => window.__physik!.world.physik.Rig.step[window.__physik!.rig]);
    await page.mouse.move(along(0.5), box.y + 22);
    await page.mouse.down();
    await page.mouse.move(along(0.75), box.y + 22, { steps: 5 });
    await page.mouse.up();
    expect(await mode(page)).toBe('playback');
    const f = await page.evaluate(() => window.__physik!.recorder.state.frame);
    expect(Math.abs(f - 0.75 * (n - 1))).toBeLessThan(0.03 * n);
    expect(await showsFrame(page, f)).toBe(true);
    // the recorded state everywhere: the step the status line reads is the frame's, and it says which frame
    expect(await page.evaluate((k) => window.physik!.metrics().step === window.__physik!.recorder.recording!.steps[k], f)).toBe(true);
    await page.waitForFunction(() => /showing recorded frame \d+\//.test(document.getElementById('status')!.textContent ?? ''), undefined, { timeout: 10_000 });
    await saveShot(page, 'recording-scrub');
    // looped playback moves through the frames
    await button(page, '▶ play (loop)').click();
    await page.waitForFunction((f0) => window.__physik!.recorder.state.frame !== f0, f, { timeout: 30_000 });
    expect(await showsFrame(page)).toBe(true);
    // trim: a click on the bar at 1/4 and `i`, at 3/4 and `o`, then "trim to in–out" keeps that part, bit for bit
    const markAt = async (t: number, key: string) => {
      await page.mouse.click(along(t), box.y + 22);
      await page.keyboard.press(key);
      return page.evaluate(() => window.__physik!.recorder.state.frame);
    };
    const fIn = await markAt(0.25, 'i'), fOut = await markAt(0.75, 'o');
    expect(await page.evaluate(() => [window.__physik!.recorder.state.markIn, window.__physik!.recorder.state.markOut])).toEqual([fIn, fOut]);
    const kept = await page.evaluate(([a, b]) => Array.from(window.__physik!.recorder.recording!.steps.slice(a, b! + 1)), [fIn, fOut]);
    await button(page, 'trim to in–out').click();
    expect(await frames(page)).toBe(fOut - fIn + 1);
    expect(await page.evaluate(() => Array.from(window.__physik!.recorder.recording!.steps))).toEqual(kept);
    expect(await showsFrame(page)).toBe(true);
    // back to live: the simulation is where it was before playback, and runs on
    await button(page, 'back to live').click();
    expect(await mode(page)).toBe('live');
    const stepBack = await page.evaluate(() => window.__physik!.world.physik.Rig.step[window.__physik!.rig]!);
    expect(stepBack).toBeGreaterThanOrEqual(stepLive!); // from where it paused, not the frame shown (it runs on at once:
    expect(stepBack).toBeLessThan(stepLive! + 40); // a slow frame on a loaded machine catches up to 8 steps)
    await waitSteps(page, 5);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('resumes the simulation from a recorded frame and records on from there', async () => {
    const { page, errors } = await open();
    await page.evaluate(() => window.__physik!.recorder.record());
    await waitSteps(page, 60);
    await page.evaluate(() => window.__physik!.recorder.scrub(20));
    const stepAt20 = await page.evaluate(() => window.__physik!.recorder.recording!.steps[20]!);
    // resume and read in one turn (the simulation runs on right after)
    const now = await page.evaluate(() => {
      const s = window.__physik!;
      s.recorder.resumeHere();
      return { mode: s.recorder.state.mode, frames: s.recorder.state.frameCount, step: s.world.physik.Rig.step[s.rig]! };
    });
    expect(now.mode).toBe('recording');
    expect(now.frames).toBeLessThanOrEqual(23);
    expect(now.step).toBeGreaterThanOrEqual(stepAt20);
    expect(now.step).toBeLessThan(stepAt20 + 4);
    await waitSteps(page, 10);
    expect(await frames(page)).toBeGreaterThan(now.frames);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('exports the recording as .glb, .bvh and .json downloads', async () => {
    const { page, errors } = await open();
    await page.evaluate(() => window.__physik!.recorder.record());
    await waitSteps(page, 30);
    const n = await page.evaluate(() => { window.__physik!.recorder.stop(); return window.__physik!.recorder.state.frameCount; });
    const glb = await download(page, 'export .glb', 'humanoid.glb');
    expect(glb.subarray(0, 4).toString('latin1')).toBe('glTF');
    const jsonLength = glb.readUInt32LE(12);
    const gltf = JSON.parse(glb.subarray(20, 20 + jsonLength).toString('utf8'));
    expect(gltf.animations).toHaveLength(1);
    expect(gltf.skins[0].joints).toHaveLength(18);
    expect(gltf.accessors[gltf.animations[0].samplers[0].input].count).toBe(n);
    const bvh = (await download(page, 'export .bvh', 'humanoid.bvh')).toString('utf8');
    expect(bvh.startsWith('HIERARCHY')).toBe(true);
    expect(bvh).toContain(`Frames: ${n}`);
    const jsonText = (await download(page, 'export .json', 'humanoid.recording.json')).toString('utf8');
    const json = JSON.parse(jsonText);
    expect(json.format).toBe('physik-recording');
    expect(json.frameCount).toBe(n);
    expect(errors).toEqual([]);
    await page.close();

    // the sandbox opens its own recording: a fresh page plays it back on the same rig, frame for frame
    const again = await open();
    const dropText = (p: Page, name: string, text: string) => p.evaluate(([fileName, t]) => {
      const dt = new DataTransfer();
      dt.items.add(new File([t!], fileName!));
      window.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, cancelable: true }));
    }, [name, text]);
    await dropText(again.page, 'humanoid.recording.json', jsonText);
    await again.page.waitForFunction(() => window.__physik!.recorder.state.mode === 'playback', undefined, { timeout: 20_000 });
    expect(await frames(again.page)).toBe(n);
    expect(await again.page.evaluate(() => window.__physik!.sceneName)).toBe('humanoid'); // the rig stays, the take plays on it
    await again.page.evaluate(() => window.__physik!.recorder.scrub(5));
    expect(await showsFrame(again.page, 5)).toBe(true);
    expect(await again.page.evaluate(() => Array.from(window.__physik!.recorder.recording!.rotations.slice(0, 5)))).toEqual(json.rotations.flat().slice(0, 5));
    // on another rig: refused, saying whose it is
    await again.page.evaluate(() => window.__physik!.recorder.live());
    await panelControl(again.page, 'scene').locator('select').selectOption('elbow');
    await again.page.waitForFunction(() => window.__physik!.sceneName === 'elbow', undefined, { timeout: 10_000 });
    await dropText(again.page, 'humanoid.recording.json', jsonText);
    const box = again.page.locator('#error');
    await box.waitFor({ state: 'visible', timeout: 10_000 });
    expect(await box.textContent()).toMatch(/recording is of rig "humanoid" \(18 bones.*open its scene first/s);
    expect(again.errors).toEqual([]);
    await again.page.close();
  });

  // one bone per joint of the file
  it.each([
    ['bvhio_example.bvh', 18],
    ['cmu_subject02_walk_delfem2.bvh', 31],
    ['RiggedSimple.glb', 2],
    ['RiggedFigure.glb', 19],
  ])('a dropped %s imports, poses with its two control points, records, exports and saves as a scene', async (file, bones) => {
    const { page, errors } = await open();
    await dropFixture(page, file);
    const name = file.replace(/\.[^.]+$/, '');
    await page.waitForFunction((n) => window.__physik!.sceneName === n, name, { timeout: 20_000 });
    expect(Object.keys(await page.evaluate(() => window.__physik!.bones))).toHaveLength(bones);
    const cps = Object.keys(await page.evaluate(() => window.__physik!.controlPoints));
    expect(cps).toHaveLength(2);
    // move both targets up by a fifth of the figure's height, record while it follows
    const before = await page.evaluate((names) => {
      const s = window.__physik!;
      const { ControlPoint, Rig } = s.world.physik;
      const h = Rig.height[s.rig]!;
      const errs: number[] = [];
      for (const n of names) {
        const cp = s.controlPoints[n]!;
        const t = [ControlPoint.attachment[cp * 3]!, ControlPoint.attachment[cp * 3 + 1]! + 0.2 * h, ControlPoint.attachment[cp * 3 + 2]!];
        s.moveTarget(n, t as [number, number, number]);
        errs.push(0.2 * h);
      }
      s.recorder.record();
      return errs;
    }, cps);
    // (imported characters have human joint limits, which the body bends within: it takes longer
    // than free joints to lift both feet, and how long depends on the step the drop left the rig
    // at when the targets moved, so the rig gets up to 1500 steps, checked every 100)
    const halved = (m: { targetErrors: Record<string, number> }) => cps.every((n, i) => m.targetErrors[n]! < 0.5 * before[i]!);
    let after = await page.evaluate(() => window.physik!.metrics());
    for (let waited = 0; waited < 1500 && !halved(after); waited += 100) {
      await waitSteps(page, 100);
      after = await page.evaluate(() => window.physik!.metrics());
    }
    for (const [i, n] of cps.entries()) expect(after.targetErrors[n]!).toBeLessThan(0.5 * before[i]!);
    expect(after.status).not.toBe('diverged');
    await saveShot(page, `import-${name}`);
    const glb = await download(page, 'export .glb', `${name}.glb`);
    expect(glb.subarray(0, 4).toString('latin1')).toBe('glTF');
    const bvh = (await download(page, 'export .bvh', `${name}.bvh`)).toString('utf8');
    expect(bvh.startsWith('HIERARCHY')).toBe(true);
    // the imported rig with its posed control points, saved as a scene file that loads
    const saved = parseSceneText((await download(page, 'save scene .json', `${name}.scene.json`)).toString('utf8'), `${name}.json`);
    expect(saved.rig.bones).toHaveLength(bones);
    expect(saved.controlPoints.map((c) => c.name)).toEqual(cps);
    const targets = await page.evaluate(() => {
      const s = window.__physik!;
      return Object.values(s.controlPoints).map((cp) => Array.from(s.world.physik.ControlPoint.target.slice(cp * 3, cp * 3 + 3)));
    });
    expect(saved.controlPoints.map((c) => c.target)).toEqual(targets);
    expect(errors).toEqual([]);
    await page.close();
  });
});
