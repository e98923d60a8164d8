import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';

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

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
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

function readString(env: NodeJS.ProcessEnv, name: keyof typeof CONFIG_DEFAULTS): string {
  const value = env[name];
  if (value === undefined || value === '') return CONFIG_DEFAULTS[name];
  return value;
}

function parsePort(raw: string): number {
  if (!/^\d{1,5}$/.test(raw) || Number(raw) > 65535) {
    throw new ConfigError(`AUTH_PORT must be an integer between 0 and 65535, got '${raw}'`);
  }
  return Number(raw);
}

function parseSeconds(name: string, raw: string): number {
  if (!/^\d{1,4}$/.test(raw) || Number(raw) < 1 || Number(raw) > 3600) {
    throw new ConfigError(`${name} must be a whole number of seconds between 1 and 3600, got '${raw}'`);
  }
  return Number(raw);
}

function parseCount(env: NodeJS.ProcessEnv, name: keyof typeof CONFIG_DEFAULTS, min: number): number {
  const raw = readString(env, name);
  if (!/^\d{1,9}$/.test(raw) || Number(raw) < min) throw new ConfigError(`${name} must be an integer of at least ${min}, got '${raw}'`);
  return Number(raw);
}

/** Reads the AUTH_* variables; paths are made absolute against the working directory. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): SigninConfig {
  const host = readString(env, 'AUTH_HOST');
  if (/\s/.test(host)) throw new ConfigError(`AUTH_HOST must be a host name or address, got '${host}'`);
  return Object.freeze({
    databasePath: resolve(readString(env, 'AUTH_DATABASE_PATH')),
    realmsPath: resolve(readString(env, 'AUTH_REALMS_PATH')),
    port: parsePort(readString(env, 'AUTH_PORT')),
    host,
    requestTimeoutMs: parseSeconds('AUTH_REQUEST_TIMEOUT', readString(env, 'AUTH_REQUEST_TIMEOUT')) * 1000,
    maxFailures: parseCount(env, 'AUTH_MAX_FAILURES', 1),
    maxIpFailures: parseCount(env, 'AUTH_MAX_IP_FAILURES', 1),
    maxPendingHashes: parseCount(env, 'AUTH_MAX_PENDING_HASHES', 0),
    hashConcurrency: parseCount(env, 'AUTH_HASH_CONCURRENCY', 1),
  });
}
