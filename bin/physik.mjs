#!/usr/bin/env node
// Entry of `npx physik`. In a checkout of the repository the TypeScript sources run as they are
// (through tsx, a development dependency); an installed package runs its compiled dist/.
import { existsSync } from 'node:fs';

const source = new URL('../src/cli/main.ts', import.meta.url);
let main;
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import(source.href));
} else {
  ({ main } = await import('../dist/src/cli/main.js'));
}
process.exitCode = await main(process.argv.slice(2));
