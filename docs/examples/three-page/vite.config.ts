import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// In this repository 'physik-ecs' is the source itself; a project that installed the package
// needs no alias.
const src = fileURLToPath(new URL('../../../src', import.meta.url));
export default defineConfig({
  resolve: {
    alias: [
      { find: /^physik-ecs$/, replacement: `${src}/core/index.ts` },
      { find: /^physik-ecs\/(.*)$/, replacement: `${src}/$1/index.ts` },
    ],
  },
});
