import { join, resolve } from 'node:path';
import { ConfigError, readEnv } from '@conveyor/kit';
import { readPipelineConfig, type PipelineConfig } from '@conveyor/pipeline';
import { loadConfig as readSigninConfig, type SigninConfig } from '@conveyor/signin';

/** What `conveyor serve` runs on: one port for both services, their files below one data directory. */
export interface ServeConfig {
  port: number;
  host: string;
  dataPath: string;
  publicUrl: string | null;
  pipeline: PipelineConfig;
  signin: SigninConfig;
}

export { ConfigError };

/** An unset or empty variable: the derived default applies. */
function isUnset(env: NodeJS.ProcessEnv, name: string): boolean {
  return env[name] === undefined || env[name] === '';
}

/**
 * CONVEYOR_PORT (3000), CONVEYOR_HOST (127.0.0.1), CONVEYOR_DATA_PATH (./data), CONVEYOR_PUBLIC_URL; each
 * service's own path variables (PIPELINE_DATABASE_PATH, PIPELINE_DATA_PATH, AUTH_DATABASE_PATH,
 * AUTH_REALMS_PATH) still win, and PIPELINE_PUBLIC_URL wins over CONVEYOR_PUBLIC_URL for the workers' URLs.
 * The services' own port and host variables are ignored: there is one listener.
 */
export function readServeConfig(env: NodeJS.ProcessEnv): ServeConfig {
  const read = readEnv(env);
  const dataPath = resolve(read.path('CONVEYOR_DATA_PATH', './data'));
  const publicUrl = read.httpUrl('CONVEYOR_PUBLIC_URL')?.replace(/\/+$/, '') ?? null;
  const derived: NodeJS.ProcessEnv = { ...env };
  const defaults: Record<string, string> = {
    PIPELINE_DATABASE_PATH: join(dataPath, 'pipeline.db'),
    PIPELINE_DATA_PATH: join(dataPath, 'pipeline'),
    AUTH_DATABASE_PATH: join(dataPath, 'signin.db'),
    AUTH_REALMS_PATH: join(dataPath, 'realms'),
  };
  if (publicUrl !== null) defaults.PIPELINE_PUBLIC_URL = publicUrl;
  for (const [name, value] of Object.entries(defaults)) if (isUnset(env, name)) derived[name] = value;
  // The sessions are in this process: a sign-in URL would be a second, different source of them.
  delete derived.PIPELINE_SIGNIN_URL;
  return {
    port: read.integer('CONVEYOR_PORT', 3000, { min: 0, max: 65535 }),
    host: read.text('CONVEYOR_HOST', '127.0.0.1'),
    dataPath,
    publicUrl,
    pipeline: readPipelineConfig(derived),
    signin: readSigninConfig(derived),
  };
}
