import { availableParallelism } from 'node:os';
import { ConfigError, readEnv, type Env } from '@conveyor/kit';

export { ConfigError };

/** Everything the sign-in service reads from the environment, validated once and frozen. */
export interface SigninConfig {
  readonly databasePath: string;
  readonly realmsPath: string;
  readonly port: number;
  readonly host: string;
  /** Longest a request may take to arrive (headers, then body), in milliseconds; AUTH_REQUEST_TIMEOUT is in seconds. */
  readonly requestTimeoutMs: number;
  /** Sign-in failures per identifier before delays start (AUTH_MAX_FAILURES). */
  readonly maxFailures: number;
  /** Sign-in failures per client IP before delays start (AUTH_MAX_IP_FAILURES). */
  readonly maxIpFailures: number;
  /** Password hashes that may wait for a free hashing slot before 503 busy (AUTH_MAX_PENDING_HASHES). */
  readonly maxPendingHashes: number;
  /** Password hashes run at once (AUTH_HASH_CONCURRENCY). */
  readonly hashConcurrency: number;
}

export const CONFIG_DEFAULTS = Object.freeze({
  AUTH_DATABASE_PATH: './data/signin.db',
  AUTH_REALMS_PATH: './data/realms',
  AUTH_PORT: '4000',
  AUTH_HOST: '127.0.0.1',
  AUTH_REQUEST_TIMEOUT: '60',
  AUTH_MAX_FAILURES: '10',
  AUTH_MAX_IP_FAILURES: '100',
  AUTH_MAX_PENDING_HASHES: '64',
  AUTH_HASH_CONCURRENCY: String(availableParallelism()),
});

/** Reads the AUTH_* variables; paths are made absolute against the working directory. */
export function loadConfig(env: Env = process.env): SigninConfig {
  const read = readEnv(env);
  const defaults = CONFIG_DEFAULTS;
  const host = read.text('AUTH_HOST', defaults.AUTH_HOST);
  if (/\s/.test(host)) throw new ConfigError(`AUTH_HOST must be a host name or address, got '${host}'`);
  return Object.freeze({
    databasePath: read.path('AUTH_DATABASE_PATH', defaults.AUTH_DATABASE_PATH),
    realmsPath: read.path('AUTH_REALMS_PATH', defaults.AUTH_REALMS_PATH),
    port: read.integer('AUTH_PORT', Number(defaults.AUTH_PORT), { min: 0, max: 65535 }),
    host,
    requestTimeoutMs: read.integer('AUTH_REQUEST_TIMEOUT', Number(defaults.AUTH_REQUEST_TIMEOUT), { min: 1, max: 3600 }) * 1000,
    maxFailures: read.integer('AUTH_MAX_FAILURES', Number(defaults.AUTH_MAX_FAILURES), { min: 1 }),
    maxIpFailures: read.integer('AUTH_MAX_IP_FAILURES', Number(defaults.AUTH_MAX_IP_FAILURES), { min: 1 }),
    maxPendingHashes: read.integer('AUTH_MAX_PENDING_HASHES', Number(defaults.AUTH_MAX_PENDING_HASHES), { min: 0 }),
    hashConcurrency: read.integer('AUTH_HASH_CONCURRENCY', Number(defaults.AUTH_HASH_CONCURRENCY), { min: 1 }),
  });
}
