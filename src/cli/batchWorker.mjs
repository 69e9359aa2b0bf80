// Worker-thread entry of batch runs (src/cli/batch.ts): runs the scenes it is sent, one at a
// time, posting each result back with its index. Beside the TypeScript sources (a checkout of
// the repository) it registers tsx so they load in this thread as in the main one; in the
// built package it imports the compiled batch.js beside it.
import { existsSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';

const source = new URL('./batch.ts', import.meta.url);
let runJob;
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  ({ runJob } = await import(source.href));
} else {
  ({ runJob } = await import('./batch.js'));
}
parentPort.on('message', (m) => {
  parentPort.postMessage({ index: m.index, result: runJob(m.job) });
});
