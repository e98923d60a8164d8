import { ConfigError, readEnv, type Env } from '@conveyor/kit';
import { MAX_EXPIRE_IN_SECONDS } from './pipeline-file/limits.js';

export { ConfigError };

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
  /**
   * The sign-in service whose sessions the service honours (`GET /api/v1/session` and `GET /api/v1/realm`
   * there); null: no sign-in link, nobody is signed in and every host serves the system realm.
   */
  signinUrl: string | null;
  /** Streamed uploads (artifacts) are bound by this rate instead: fewest bytes per second, per request-timeout window. */
  uploadMinBytesPerSecond: number;
  /** Milliseconds between the comment lines that keep an idle event stream (log follow, job events) open through proxies. */
  sseKeepAliveMs: number;
}

const GIB = 1024 * 1024 * 1024;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'silent'] as const;

export function readPipelineConfig(env: Env = process.env): PipelineConfig {
  const read = readEnv(env);
  // Kept as written, less trailing slashes: the workers' URLs are this plus a path.
  const publicUrl = read.httpUrl('PIPELINE_PUBLIC_URL')?.replace(/\/+$/, '') ?? null;
  return Object.freeze({
    databasePath: read.path('PIPELINE_DATABASE_PATH', './data/pipeline.db'),
    dataPath: read.path('PIPELINE_DATA_PATH', './data/pipeline'),
    port: read.integer('PIPELINE_PORT', 3000, { min: 0, max: 65535 }),
    host: read.text('PIPELINE_HOST', '127.0.0.1'),
    publicUrl,
    maxLogBytes: read.integer('PIPELINE_MAX_LOG_BYTES', 64 * 1024 * 1024, { min: 1024, max: 2 ** 40 }),
    artifactRetentionSeconds: read.durationSeconds('PIPELINE_ARTIFACT_RETENTION', 30 * 86_400, { min: 1, max: MAX_EXPIRE_IN_SECONDS }),
    maxArtifactBytes: read.integer('PIPELINE_MAX_ARTIFACT_BYTES', 10 * GIB, { min: 1 }),
    maxTaskArtifactBytes: read.integer('PIPELINE_MAX_TASK_ARTIFACT_BYTES', 20 * GIB, { min: 1 }),
    heartbeatInterval: read.integer('PIPELINE_HEARTBEAT_INTERVAL', 10, { min: 1, max: 3600 }),
    gitTimeoutMs: read.integer('PIPELINE_GIT_TIMEOUT', 120, { min: 1, max: 3600 }) * 1000,
    logLevel: read.oneOf('PIPELINE_LOG_LEVEL', 'info', LOG_LEVELS),
    requestTimeoutMs: read.integer('PIPELINE_REQUEST_TIMEOUT', 60, { min: 1, max: 3600 }) * 1000,
    signinUrl: read.httpUrl('PIPELINE_SIGNIN_URL')?.replace(/\/+$/, '') ?? null,
    uploadMinBytesPerSecond: read.integer('PIPELINE_UPLOAD_MIN_RATE', 1024, { min: 1, max: 2 ** 30 }),
    sseKeepAliveMs: read.integer('PIPELINE_SSE_KEEPALIVE', 15, { min: 1, max: 3600 }) * 1000,
  });
}
