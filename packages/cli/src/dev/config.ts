import { join } from 'node:path';
import { readServeConfig, type ServeConfig } from '../serve/config.js';

/** What `conveyor dev` runs on: `conveyor serve`'s settings, plus where its own files go and the first password. */
export interface DevConfig {
  serve: ServeConfig;
  /** CONVEYOR_ADMIN_PASSWORD: the administrator's password on first start; null: generate one. */
  adminPassword: string | null;
  /** `<data>/dev`: the worker's token file and work directory, and the demo repository. */
  devPath: string;
  /** The worker's environment: the caller's, without the password and any CONVEYOR_WORKER_* variable. */
  workerEnv: NodeJS.ProcessEnv;
}

/** `conveyor serve`'s variables (CONVEYOR_DATA_PATH defaults to ./data; PIPELINE_LOG_LEVEL to warn) and CONVEYOR_ADMIN_PASSWORD. */
export function readDevConfig(env: NodeJS.ProcessEnv): DevConfig {
  // A person reads dev's terminal: the service's JSON log lines say only what is worth a look (warn and
  // up) unless PIPELINE_LOG_LEVEL asks for more; the worker's own readable lines show the work.
  const serve = readServeConfig({ PIPELINE_LOG_LEVEL: 'warn', ...env });
  const password = env.CONVEYOR_ADMIN_PASSWORD;
  const workerEnv: NodeJS.ProcessEnv = { ...env };
  // dev's flags decide the worker's settings: a CONVEYOR_WORKER_* of the caller (another token, a container
  // executor) must not change them, and the administrator's password has no business in the worker.
  for (const name of Object.keys(workerEnv)) if (name.startsWith('CONVEYOR_WORKER_') || name === 'CONVEYOR_ADMIN_PASSWORD') delete workerEnv[name];
  return {
    serve,
    adminPassword: password === undefined || password === '' ? null : password,
    devPath: join(serve.dataPath, 'dev'),
    workerEnv,
  };
}
