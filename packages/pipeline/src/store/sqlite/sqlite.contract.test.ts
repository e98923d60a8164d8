// The store contract against the SQLite store on a real file in a fresh temp directory per case.
import { join } from 'node:path';
import { makeTempDir } from '../../git/test-repos.js';
import { runStoreContract } from '../contract.js';
import { openSqliteStore } from './index.js';

runStoreContract('SQLite', async () => {
  const dir = await makeTempDir('store-contract');
  const store = openSqliteStore(join(dir.path, 'pipeline.db'));
  return {
    store,
    async close() {
      await store.close();
      await dir.remove();
    },
  };
});
