/**
 * The browser tests' shared setup: a Vite dev server started in-process on a free port and
 * Debian's Chromium (playwright-core, WebGL through SwiftShader). `useSandbox()` registers the
 * start and stop hooks and returns `open(query)`, which opens the sandbox page and (unless
 * told not to) waits until it has rendered a few frames, collecting console and page errors.
 */
import { afterAll, beforeAll } from 'vitest';
import { createServer, type ViteDevServer } from 'vite';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export interface Opened { page: Page; errors: string[] }

export function useSandbox(): (query?: string, options?: { waitForFrames?: boolean }) => Promise<Opened> {
  let server: ViteDevServer;
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    server = await createServer({
      root,
      configFile: `${root}/vite.config.ts`,
      logLevel: 'warn',
      server: { port: 0, strictPort: false, host: '127.0.0.1', hmr: false, watch: null },
    });
    await server.listen();
    const port = (server.httpServer!.address() as AddressInfo).port;
    base = `http://127.0.0.1:${port}/`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--enable-unsafe-swiftshader', '--disable-background-networking',
        '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  return async (query = '', { waitForFrames = true } = {}) => {
    const page = await browser.newPage({ viewport: { width: 960, height: 640 } });
    const errors: string[] = [];
    page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()} (${m.location().url})`); });
    page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
    await page.goto(base + query);
    if (waitForFrames) await page.waitForFunction(() => (window.__physik?.frames ?? 0) > 10, undefined, { timeout: 60_000 });
    return { page, errors };
  };
}
