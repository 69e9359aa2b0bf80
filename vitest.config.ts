import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// 'physik-ecs' and its subpaths are the sources (docs/examples import the package by name, as a
// user would; tsconfig.json's paths say the same to the type checker)
const src = fileURLToPath(new URL('./src', import.meta.url));
export default defineConfig({
  resolve: {
    alias: [
      { find: /^physik-ecs$/, replacement: `${src}/core/index.ts` },
      { find: /^physik-ecs\/(.*)$/, replacement: `${src}/$1/index.ts` },
    ],
  },
  test: {
    include: ['tests/unit/**/*.test.ts', 'tests/scenes/**/*.test.ts'],
    testTimeout: 60_000,
  },
});
