import { defineConfig } from 'vitest/config';

// Browser end-to-end tests (tests/e2e): a production build of the sandbox, made and served
// once per run (tests/e2e/global-setup.ts: Vite build() into a temporary directory, preview()
// on 127.0.0.1), and Debian's Chromium driven by playwright-core. Run with `npm run test:e2e`;
// not part of `npm test`. Screenshots from saveShot() land in test-results/e2e/.
export default defineConfig({
  test: {
    include: ['tests/e2e/**/*.test.ts'],
    globalSetup: ['tests/e2e/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    fileParallelism: false,
  },
});
