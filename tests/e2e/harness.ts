/**
 * The browser tests' shared setup. The sandbox is the production build, made and served once
 * per run by global-setup.ts (Vite `build()` into a temporary directory, then `preview()` on
 * 127.0.0.1 at a free port); its address arrives through `inject('baseUrl')`. The preview
 * server sends vite.config.ts's `preview.headers` (COOP same-origin, COEP require-corp), so
 * every page is cross-origin isolated, as worker mode's SharedArrayBuffer needs (worker.test.ts
 * strips them with page.route to see the fallback). Each test file
 * launches Debian's Chromium (playwright-core, WebGL through SwiftShader). `useSandbox()`
 * registers the start and stop hooks and returns `open(query)`, which opens the sandbox page
 * and (unless told not to) waits until it has rendered a few frames, collecting console and
 * page errors. `saveShot(page, name)` keeps a full-page screenshot in test-results/e2e/;
 * `nextFrames`, `colourPixels` (count pixels of a colour in a screenshot), `panelControl`
 * (a lil-gui controller by its label) and `openAdvanced` (unfold the panel's Advanced folder)
 * are small helpers the tests share.
 */
import { afterAll, beforeAll, inject } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { mkdir } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Screenshots written by `saveShot` (global-setup.ts empties it at the start of a run). */
export const shotDir = join(root, 'test-results', 'e2e');

export interface Opened { page: Page; errors: string[] }

export interface OpenOptions {
  /** Wait until the page has drawn a few frames (default true). */
  waitForFrames?: boolean;
  /** Window size in CSS pixels (default 960 × 640). */
  viewport?: { width: number; height: number };
}

export function useSandbox(): (query?: string, options?: OpenOptions) => Promise<Opened> {
  let browser: Browser;
  const base = inject('baseUrl');
  if (!base) throw new Error('no baseUrl: run the browser tests with `npm run test:e2e` (vitest.e2e.config.ts has the globalSetup)');

  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--enable-unsafe-swiftshader', '--disable-background-networking',
        '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
  });

  afterAll(async () => {
    await browser?.close();
  });

  return async (query = '', { waitForFrames = true, viewport = { width: 960, height: 640 } }: OpenOptions = {}) => {
    const page = await browser.newPage({ viewport });
    const errors: string[] = [];
    page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()} (${m.location().url})`); });
    page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
    await page.goto(base + query);
    if (waitForFrames) await page.waitForFunction(() => (window.__physik?.frames ?? 0) > 10, undefined, { timeout: 60_000 });
    return { page, errors };
  };
}

/**
 * A full-page PNG screenshot of `page`, written to test-results/e2e/<name>.png (characters
 * other than letters, digits, '.', '_' and '-' in `name` become '-') and returned.
 */
export async function saveShot(page: Page, name: string): Promise<Buffer> {
  await mkdir(shotDir, { recursive: true });
  const file = join(shotDir, `${name.replace(/[^\w.-]+/g, '-')}.png`);
  return page.screenshot({ type: 'png', fullPage: true, path: file });
}

/** Two animation frames, so what was just changed has been drawn. */
export async function nextFrames(page: Page): Promise<void> {
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}

/**
 * The RGBA bytes of a PNG screenshot, decoded in the page (the browser's PNG decoder): of the
 * region `rect` (CSS pixels of a full-page screenshot at scale 1), or of the whole image.
 */
export async function pngPixels(page: Page, png: Buffer, rect?: { x: number; y: number; w: number; h: number }): Promise<Buffer> {
  const b64 = await page.evaluate(async ([data, r]) => {
    const img = new Image();
    img.src = `data:image/png;base64,${data}`;
    await img.decode();
    const c = document.createElement('canvas');
    c.width = img.width; c.height = img.height;
    const g = c.getContext('2d')!;
    g.drawImage(img, 0, 0);
    const d = r ? g.getImageData(Math.round(r.x), Math.round(r.y), r.w, r.h).data : g.getImageData(0, 0, c.width, c.height).data;
    // back as base64, in chunks (String.fromCharCode takes a bounded number of arguments)
    let text = '';
    for (let i = 0; i < d.length; i += 0x8000) text += String.fromCharCode(...d.subarray(i, i + 0x8000));
    return btoa(text);
  }, [png.toString('base64'), rect ?? null] as const);
  return Buffer.from(b64, 'base64');
}

/** Tally of a PNG screenshot's pixels: how many satisfy `match(r, g, b)`, how many there are, and their mean colour. */
type Tally = { matched: number; total: number; mean: [number, number, number] };
export async function pixelTally(page: Page, png: Buffer, match: (r: number, g: number, b: number) => boolean = () => true): Promise<Tally> {
  const d = await pngPixels(page, png);
  let matched = 0;
  const sum: [number, number, number] = [0, 0, 0];
  for (let i = 0; i < d.length; i += 4) {
    if (match(d[i]!, d[i + 1]!, d[i + 2]!)) matched++;
    sum[0] += d[i]!; sum[1] += d[i + 1]!; sum[2] += d[i + 2]!;
  }
  const total = d.length / 4;
  return { matched, total, mean: [sum[0] / total, sum[1] / total, sum[2] / total] };
}

/** Pixels of a PNG screenshot for which `match(r, g, b)` holds (see pixelTally). */
export async function colourPixels(page: Page, png: Buffer, match: (r: number, g: number, b: number) => boolean): Promise<number> {
  return (await pixelTally(page, png, match)).matched;
}

/** Not the page background (#24282f): grid, bones, handles, overlay. */
export const drawn = (r: number, g: number, b: number) => (r - 0x24) ** 2 + (g - 0x28) ** 2 + (b - 0x2f) ** 2 > 300;

/** Unfold the panel's closed "Advanced" folder (the physics settings, Rapier ghost, crowd, worker mode). */
export async function openAdvanced(page: Page): Promise<void> {
  const title = page.locator('.lil-gui .lil-title', { hasText: /^Advanced$/ });
  if ((await title.getAttribute('aria-expanded')) !== 'true') await title.click();
}

/** The lil-gui controller labelled exactly `name`. */
export function panelControl(page: Page, name: string) {
  const exact = new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
  return page.locator('.lil-gui .lil-controller', { has: page.locator('.lil-name', { hasText: exact }) });
}

const fixtures = new URL('../fixtures/external/', import.meta.url);

/** Drop a file of tests/fixtures/external on the page, as a user dropping it from their desktop. */
export async function dropFixture(page: Page, file: string): Promise<void> {
  const b64 = readFileSync(new URL(file, fixtures)).toString('base64');
  await page.evaluate(([name, data]) => {
    const bytes = Uint8Array.from(atob(data!), (c) => c.charCodeAt(0));
    const dt = new DataTransfer();
    dt.items.add(new File([bytes], name!));
    window.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, cancelable: true }));
    window.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, cancelable: true }));
  }, [file, b64]);
}
