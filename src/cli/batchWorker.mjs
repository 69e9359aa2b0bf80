// Worker-thread entry of batch runs (src/cli/batch.ts): registers tsx so the TypeScript
// sources load in this thread as they do in the main one, then runs the scenes it is sent,
// one at a time, posting each result back with its index.
import { parentPort } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { runJob } = await import('./batch.ts');
parentPort.on('message', (m) => {
  parentPort.postMessage({ index: m.index, result: runJob(m.job) });
});
