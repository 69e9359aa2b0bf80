// Worker threads do not inherit tsx's loader (Node 20): register it, then load the TypeScript
// entry named in workerData.entry (tests/fuzz/long.ts runs its seeds in such workers).
import { register } from 'tsx/esm/api';
import { workerData } from 'node:worker_threads';

register();
await import(workerData.entry);
