import { defineConfig } from 'vite';

// Plain Vite setup for the browser page (index.html → src/app/main.ts). No plugins needed.
//
// The production build puts the libraries in vendor chunks of their own (Vite 8 bundles with
// Rolldown; its option for this is `output.codeSplitting.groups`), so the app's own code
// (`index-*.js`) caches apart from them and no chunk of ours grows past the size warning.
// three ships as two modules, three.core.js and three.module.js (the WebGL renderer; 590 kB
// minified together), and each gets a chunk. pixi.js (with its few small dependencies) is one
// chunk of about 555 kB minified: a single library over Vite's default 500 kB limit, which
// cannot be split without cutting through its circular imports (tried: the chunks then import
// each other and its WebGPU/canvas renderers still load eagerly), hence the limit of 560 below.
//
// Cross-origin isolation: worker mode (`?worker=1`, src/app/workerMode.ts) shares the world's
// pose with a Web Worker through a SharedArrayBuffer, which browsers only allow on a page sent
// with COOP same-origin and COEP require-corp; the dev server and `vite preview` (and so the
// browser tests, which serve the build with preview()) send both. Everything the page loads
// is same-origin (the Rapier chunk too), so require-corp blocks nothing. The worker is an ES
// module (`worker.format: 'es'`): it shares chunks with the page instead of an IIFE copy.
const crossOriginIsolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

const nm = (path: string): RegExp => new RegExp(`[\\\\/]node_modules[\\\\/]${path}`);

export default defineConfig({
  root: '.',
  build: {
    outDir: 'build/sandbox', // (dist/ is the package's: npm run build:lib)
    chunkSizeWarningLimit: 4500, // kB; the Rapier chunk (its WASM inlined, fetched only for the ghost); pixi.js is ~555 kB, see above
    rolldownOptions: {
      output: {
        codeSplitting: {
          groups: [
            // Rapier (WASM inlined, ~4.3 MB): only the sandbox's Rapier ghost imports it, lazily,
            // so it gets a chunk of its own that a page without the ghost never fetches
            { name: 'rapier3d', test: nm('@dimforge[\\\\/]rapier3d'), priority: 5 },
            { name: 'three-core', test: nm('three[\\\\/]build[\\\\/]three\\.core\\.'), priority: 4 },
            { name: 'three', test: nm('three[\\\\/]'), priority: 3 },
            { name: 'pixi', test: nm('(pixi\\.js|@pixi|earcut|eventemitter3|parse-svg-path|tiny-lru|ismobilejs|@xmldom|gifuct-js|js-binary-schema-parser)[\\\\/]'), priority: 2 },
            { name: 'vendor', test: nm(''), priority: 1 }, // zod, lil-gui, bitecs
          ],
        },
      },
    },
  },
  server: { port: 5173, strictPort: false, headers: crossOriginIsolation },
  preview: { headers: crossOriginIsolation },
  worker: { format: 'es' },
});
