import { resolve } from 'node:path';

/** Everything the sign-in service reads from the environment, validated once and frozen. */
export interface SigninConfig {
  readonly databasePath: string;
  readonly realmsPath: string;
  readonly port: number;
  readonly host: string;
  /** Longest a request may take to arrive (headers, then body), in milliseconds; AUTH_REQUEST_TIMEOUT is in seconds. */
  readonly requestTimeoutMs: number;
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
  });
}
