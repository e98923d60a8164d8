import { availableParallelism } from 'node:os';
import type { FastifyInstance } from 'fastify';
import { systemClock, type Clock } from '@conveyor/kit';
import { loadConfig, type SigninConfig } from './config.js';
import { DEFAULT_SIGN_IN_LIMITS, type SigninDeps } from './domain/deps.js';
import { ensureSystemRealm } from './domain/realms.js';
import { SessionEnds } from './domain/session-ends.js';
import { createHashQueue, queuePasswordHasher } from './hash-queue.js';
import { createPasswordHasher } from './passwords.js';
import { openSqliteStore, type StorePaths } from './store/sqlite/store.js';

export interface SigninService {
  app: FastifyInstance;
  deps: SigninDeps;
  /** Closes the HTTP server (if listening) and the store. */
  close(): Promise<void>;
}

/** Where the data is, plus the sign-in limits (defaults as in config.ts). */
export type ServiceSettings = StorePaths & Partial<Pick<SigninConfig, 'maxFailures' | 'maxIpFailures' | 'maxPendingHashes' | 'hashConcurrency'>>;

/**
 * Opens the store, makes sure the system realm exists (with its default hosts when none are
 * registered), prepares the password hasher behind its bounded queue and builds the app. Does not listen.
 */
export async function createSigninService(
  settings: ServiceSettings,
  options: { clock?: Clock; logger?: boolean; requestTimeoutMs?: number } = {},
): Promise<SigninService> {
  const clock = options.clock ?? systemClock;
  const store = openSqliteStore(settings);
  try {
    await ensureSystemRealm(store, clock, { registerDefaultHosts: true });
    const queue = createHashQueue({ concurrency: settings.hashConcurrency ?? availableParallelism(), maxPending: settings.maxPendingHashes ?? 64 });
    const deps: SigninDeps = {
      store,
      clock,
      passwords: queuePasswordHasher(await createPasswordHasher(), queue),
      sessionEnds: new SessionEnds(),
      limits: {
        maxFailures: settings.maxFailures ?? DEFAULT_SIGN_IN_LIMITS.maxFailures,
        maxIpFailures: settings.maxIpFailures ?? DEFAULT_SIGN_IN_LIMITS.maxIpFailures,
      },
    };
    // Loaded here, not at the top: the admin CLI imports this package and has no use for Fastify.
    const { buildApp } = await import('./app.js');
    const app = await buildApp({ deps, logger: options.logger, requestTimeoutMs: options.requestTimeoutMs });
    return {
      app,
      deps,
      async close() {
        await app.close();
        await store.close();
      },
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}

export interface SigninServer {
  /** e.g. `http://127.0.0.1:4000` */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** What `conveyor signin serve` runs: config from the AUTH_* variables, then listen. */
export async function startSigninServer(options: { env?: NodeJS.ProcessEnv; clock?: Clock; logger?: boolean } = {}): Promise<SigninServer> {
  const config: SigninConfig = loadConfig(options.env);
  const service = await createSigninService(config, { clock: options.clock, logger: options.logger, requestTimeoutMs: config.requestTimeoutMs });
  try {
    await service.app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await service.close();
    throw error;
  }
  const address = service.app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return { url: `http://${host}:${port}`, port, close: () => service.close() };
}
