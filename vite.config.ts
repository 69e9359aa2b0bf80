import { defineConfig } from 'vite';

// Plain Vite setup for the browser page (index.html → src/app/main.ts). No plugins needed.
export default defineConfig({
  root: '.',
  build: { outDir: 'dist' },
  server: { port: 5173, strictPort: false },
});
