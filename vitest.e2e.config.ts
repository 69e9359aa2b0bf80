import { defineConfig } from 'vitest/config';

// Browser end-to-end tests (tests/e2e): a Vite dev server plus Debian's Chromium driven by
// playwright-core. Run with `npm run test:e2e`; not part of `npm test`.
export default defineConfig({
  test: {
    include: ['tests/e2e/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    fileParallelism: false,
  },
});
