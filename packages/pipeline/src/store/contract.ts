// The store contract: what every PipelineStore implementation must do, checked through the interface
// alone. Each implementation has one small test file that calls runStoreContract with a way to open a
// fresh, empty store (store/sqlite/sqlite.contract.test.ts for SQLite). A PostgreSQL store is added the
// same way: a `postgres.contract.test.ts` that creates a scratch database (or schema) per call and
// drops it on close. The races here only truly race on a store that runs calls concurrently (a
// connection pool); the SQLite store runs each call to completion, and its cross-request behaviour is
// also covered over HTTP (http/routes/claim-concurrency.test.ts).
import { describe } from 'node:test';
import { registerArtifactContract } from './contract-artifacts.js';
import { registerManagementContract } from './contract-management.js';
import { registerManageContract } from './contract-manage.js';
import { registerEventContract } from './contract-events.js';
import { registerRecordContract } from './contract-records.js';
import { registerSchedulingContract } from './contract-scheduling.js';
import type { PipelineStore } from './types.js';

export interface OpenedStore {
  store: PipelineStore;
  /** Closes the store and removes what it kept. */
  close(): Promise<void>;
}

export type OpenStore = () => Promise<OpenedStore>;

/** Registers the contract's tests (node:test) under `name`, each against a fresh store from `openStore`. */
export function runStoreContract(name: string, openStore: OpenStore): void {
  describe(`PipelineStore contract: ${name}`, () => {
    registerRecordContract(openStore);
    registerSchedulingContract(openStore);
    registerArtifactContract(openStore);
    registerManagementContract(openStore);
    registerManageContract(openStore);
    registerEventContract(openStore);
  });
}
