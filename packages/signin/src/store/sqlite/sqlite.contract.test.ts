import assert from 'node:assert/strict';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Worker } from 'node:worker_threads';
import { makeTempDir } from '../../testing/harness.js';
import { registerStoreContract } from '../contract.js';
import { openSqliteStore } from './store.js';

// The store contract against real SQLite files; the peer is a second set of connections to them.
registerStoreContract('SQLite', async () => {
  const dir = makeTempDir('signin-contract-');
  const paths = { databasePath: join(dir, 'signin.db'), realmsPath: join(dir, 'realms') };
  const store = openSqliteStore(paths);
  const peer = openSqliteStore(paths);
  return {
    store,
    peer,
    async close() {
      await store.close();
      await peer.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

describe('SQLite attempt counters under real parallelism', () => {
  it('4 threads with their own connections, 25 reservations each at the same instant: exactly the budget is let through', async () => {
    const dir = makeTempDir('signin-race-');
    const paths = { databasePath: join(dir, 'signin.db'), realmsPath: join(dir, 'realms') };
    // Creates the schema before the threads start, so they race on the counters only.
    await openSqliteStore(paths).close();
    try {
      const barrier = new SharedArrayBuffer(4);
      const workers = Array.from(
        { length: 4 },
        () => new Worker(new URL('./race-worker.js', import.meta.url), { workerData: { ...paths, key: 'identifier:race', maxFailures: 10, attempts: 25, barrier, workers: 4 } }),
      );
      const counts = await Promise.all(workers.map(async (worker) => ((await once(worker, 'message')) as [number])[0]));
      assert.equal(counts.reduce((sum, n) => sum + n, 0), 10);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
