/**
 * Once per `npm run test:e2e` (vitest `globalSetup`): a production build of the sandbox with
 * the repo's vite.config.ts into a fresh temporary directory (never the repo's dist/), served
 * by Vite's preview server on 127.0.0.1 at a free port. Tests read the address with
 * `inject('baseUrl')` (harness.ts does). Also empties test-results/e2e/, where `saveShot()`
 * writes screenshots, and names that directory at the end of the run.
 */
import { build, preview, type PreviewServer } from 'vite';
import type { TestProject } from 'vitest/node';
import type { AddressInfo } from 'node:net';
import { mkdtemp, mkdir, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The built sandbox's address, ending in '/', e.g. `http://127.0.0.1:41234/`. */
    baseUrl: string;
  }
}

const root = fileURLToPath(new URL('../..', import.meta.url));
const configFile = join(root, 'vite.config.ts');
/** Where `saveShot()` writes (kept in step with harness.ts). */
export const shotDir = join(root, 'test-results', 'e2e');

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  await rm(shotDir, { recursive: true, force: true });
  await mkdir(shotDir, { recursive: true });

  const outDir = await mkdtemp(join(tmpdir(), 'physik-e2e-'));
  // Vitest sets NODE_ENV=test, and Vite only makes a production build (minified libraries,
  // process.env.NODE_ENV = "production" in the bundle) when NODE_ENV is "production" or unset.
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  const t0 = performance.now();
  try {
    await build({ root, configFile, mode: 'production', logLevel: 'warn', build: { outDir, emptyOutDir: true } });
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV; else process.env.NODE_ENV = nodeEnv;
  }
  const buildMs = performance.now() - t0;

  let server: PreviewServer | undefined;
  try {
    server = await preview({
      root, configFile, logLevel: 'warn',
      build: { outDir },
      preview: { host: '127.0.0.1', port: 0, strictPort: false, open: false },
    });
  } catch (e) {
    await rm(outDir, { recursive: true, force: true });
    throw e;
  }
  const { port } = server.httpServer.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}/`;
  project.provide('baseUrl', baseUrl);
  console.log(`e2e: built the sandbox in ${(buildMs / 1000).toFixed(1)} s into ${outDir}, serving it at ${baseUrl}`);

  return async () => {
    await server?.close();
    await rm(outDir, { recursive: true, force: true });
    const shots = (await readdir(shotDir).catch(() => [] as string[])).filter((f) => f.endsWith('.png'));
    console.log(`e2e screenshots (${shots.length}): ${shotDir}`);
  };
}
