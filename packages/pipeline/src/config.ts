import { resolve } from 'node:path';
import { parseDurationSeconds } from './pipeline-file/durations.js';
import { MAX_EXPIRE_IN_SECONDS } from './pipeline-file/limits.js';

/** The pipeline service's configuration, read once from the environment and frozen. */
export interface PipelineConfig {
  databasePath: string;
  dataPath: string;
  port: number;
  host: string;
  /** Base of the absolute URLs handed to workers; null means "from the request's Host". */
  publicUrl: string | null;
  maxLogBytes: number;
  /** Seconds an artifact is kept when the pipeline file gives no `expire_in`. */
  artifactRetentionSeconds: number;
  /** Largest artifact file, in bytes (decided from Content-Length before any byte is stored). */
  maxArtifactBytes: number;
  /** Largest total of one task attempt's artifacts, in bytes. */
  maxTaskArtifactBytes: number;
  /** Seconds between worker heartbeats; a task is lost after three missed intervals. */
  heartbeatInterval: number;
  /** Longest a git clone or fetch may take, in milliseconds. */
  gitTimeoutMs: number;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'silent';
  /**
   * Longest an ordinary request may take to arrive (its headers, then its body), in milliseconds; a
   * socket silent for twice as long (at least 90 s) is closed.
   */
  requestTimeoutMs: number;
  /** Streamed uploads (artifacts) are bound by this rate instead: fewest bytes per second, per request-timeout window. */
  uploadMinBytesPerSecond: number;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function readInteger(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got '${raw}'`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

function readPublicUrl(env: Env): string | null {
  const raw = env.PIPELINE_PUBLIC_URL;
  if (raw === undefined || raw === '') return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`PIPELINE_PUBLIC_URL must be an absolute http(s) URL, got '${raw}'`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`PIPELINE_PUBLIC_URL must be an http(s) URL, got '${raw}'`);
  }
  return raw.replace(/\/+$/, '');
}

function readDuration(env: Env, name: string, fallbackSeconds: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallbackSeconds;
  const seconds = parseDurationSeconds(raw);
  if (seconds === undefined) throw new ConfigError(`${name} must be whole seconds or a duration such as 45m, 12h or 30d, got '${raw}'`);
  if (seconds < 1 || seconds > MAX_EXPIRE_IN_SECONDS) {
    throw new ConfigError(`${name} must be between 1 second and ${MAX_EXPIRE_IN_SECONDS / 86_400}d, got '${raw}'`);
  }
  return seconds;
}

const GIB = 1024 * 1024 * 1024;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'silent'] as const;

export function readPipelineConfig(env: Env = process.env): PipelineConfig {
  const logLevel = env.PIPELINE_LOG_LEVEL ?? 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new ConfigError(`PIPELINE_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got '${logLevel}'`);
  }
  return Object.freeze({
    databasePath: resolve(env.PIPELINE_DATABASE_PATH || './data/pipeline.db'),
    dataPath: resolve(env.PIPELINE_DATA_PATH || './data/pipeline'),
    port: readInteger(env, 'PIPELINE_PORT', 3000, 0, 65535),
    host: env.PIPELINE_HOST || '127.0.0.1',
    publicUrl: readPublicUrl(env),
    maxLogBytes: readInteger(env, 'PIPELINE_MAX_LOG_BYTES', 64 * 1024 * 1024, 1024, 2 ** 40),
    artifactRetentionSeconds: readDuration(env, 'PIPELINE_ARTIFACT_RETENTION', 30 * 86_400),
    maxArtifactBytes: readInteger(env, 'PIPELINE_MAX_ARTIFACT_BYTES', 10 * GIB, 1, Number.MAX_SAFE_INTEGER),
    maxTaskArtifactBytes: readInteger(env, 'PIPELINE_MAX_TASK_ARTIFACT_BYTES', 20 * GIB, 1, Number.MAX_SAFE_INTEGER),
    heartbeatInterval: readInteger(env, 'PIPELINE_HEARTBEAT_INTERVAL', 10, 1, 3600),
    gitTimeoutMs: readInteger(env, 'PIPELINE_GIT_TIMEOUT', 120, 1, 3600) * 1000,
    logLevel: logLevel as PipelineConfig['logLevel'],
    requestTimeoutMs: readInteger(env, 'PIPELINE_REQUEST_TIMEOUT', 60, 1, 3600) * 1000,
    uploadMinBytesPerSecond: readInteger(env, 'PIPELINE_UPLOAD_MIN_RATE', 1024, 1, 2 ** 30),
  });
}
