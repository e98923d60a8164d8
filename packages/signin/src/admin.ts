import { systemClock, type Clock } from '@conveyor/kit';
import { loadConfig } from './config.js';
import type { SigninDeps } from './domain/deps.js';
import { ensureSystemRealm } from './domain/realms.js';
import { SessionEnds } from './domain/session-ends.js';
import { createPasswordHasher } from './passwords.js';
import { openSqliteStore } from './store/sqlite/store.js';

export interface SigninAdmin {
  deps: SigninDeps;
  close(): Promise<void>;
}

/**
 * Opens the same files as the server (AUTH_* variables) for the admin CLI. The system realm is made
 * sure of, but default hosts are left to the server's start-up, as the spec says.
 */
export async function openSigninAdmin(options: { env?: NodeJS.ProcessEnv; clock?: Clock } = {}): Promise<SigninAdmin> {
  const config = loadConfig(options.env);
  const clock = options.clock ?? systemClock;
  const store = openSqliteStore(config);
  try {
    await ensureSystemRealm(store, clock, { registerDefaultHosts: false });
    const limits = { maxFailures: config.maxFailures, maxIpFailures: config.maxIpFailures };
    return { deps: { store, clock, passwords: await createPasswordHasher({ precomputeDummy: false }), limits, sessionEnds: new SessionEnds() }, close: () => store.close() };
  } catch (error) {
    await store.close();
    throw error;
  }
}
