// A worker thread for sqlite.contract.test.ts: its own connection to the shared files, started at
// the same instant as the others (a shared-memory barrier), reserving attempts as fast as it can.
import { parentPort, workerData } from 'node:worker_threads';
import { openSqliteStore } from './store.js';

interface RaceInput {
  databasePath: string;
  realmsPath: string;
  key: string;
  maxFailures: number;
  attempts: number;
  barrier: SharedArrayBuffer;
  workers: number;
}

const input = workerData as RaceInput;
const store = openSqliteStore({ databasePath: input.databasePath, realmsPath: input.realmsPath });
const gate = new Int32Array(input.barrier);
Atomics.add(gate, 0, 1);
Atomics.notify(gate, 0);
while (Atomics.load(gate, 0) < input.workers) Atomics.wait(gate, 0, Atomics.load(gate, 0), 10);
let allowed = 0;
for (let i = 0; i < input.attempts; i += 1) {
  const result = await store.system.reserveAttempts([{ key: input.key, maxFailures: input.maxFailures }], 1000);
  if (result.allowed) allowed += 1;
}
await store.close();
parentPort?.postMessage(allowed);
