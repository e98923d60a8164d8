import { readPipelineConfig, startPipelineServer, systemClock, widenHeapGrowth } from '@conveyor/pipeline';
import { readLongRunningConfig, waitForStopSignal } from '../long-running.js';
import { createHttpSessions } from '../sessions/http.js';
import type { CommandGroup } from '../usage.js';

const HELP = `Usage: conveyor pipeline serve

Runs the pipeline service until SIGTERM or SIGINT, then lets in-flight requests finish and closes the
database. It takes no arguments; these variables configure it:

  Variable                     Default                       Meaning
  PIPELINE_DATABASE_PATH       ./data/pipeline.db            the SQLite file
  PIPELINE_DATA_PATH           ./data/pipeline               logs, artifacts, repository mirrors
  PIPELINE_PORT                3000                          listen port (0 picks a free one)
  PIPELINE_HOST                127.0.0.1                     listen address
  PIPELINE_PUBLIC_URL          (from the request's Host)     base of the absolute URLs handed to workers
  PIPELINE_MAX_LOG_BYTES       67108864 (64 MiB)             longest log of one task attempt
  PIPELINE_HEARTBEAT_INTERVAL  10                            seconds between worker heartbeats
  PIPELINE_GIT_TIMEOUT         120                           seconds a git clone or fetch may take
  PIPELINE_LOG_LEVEL           info                          fatal, error, warn, info, debug or silent
  PIPELINE_REQUEST_TIMEOUT     60                            seconds a request's headers and body may take to arrive
  PIPELINE_UPLOAD_MIN_RATE     1024                          bytes/s an artifact upload must bring per window
  PIPELINE_ARTIFACT_RETENTION  30d                           how long artifacts are kept without expire_in
  PIPELINE_MAX_ARTIFACT_BYTES  10737418240 (10 GiB)          largest artifact file (413 past it)
  PIPELINE_MAX_TASK_ARTIFACT_BYTES 21474836480 (20 GiB)      all artifacts of one task attempt (413 past it)
  PIPELINE_SSE_KEEPALIVE       15                            seconds between keep-alive comments of an event stream
  PIPELINE_SIGNIN_URL          (none)                        the sign-in service whose sessions count here
                                                             (e.g. http://127.0.0.1:4000); without it nobody
                                                             is signed in and every host is the system realm

Relative paths are taken from the working directory.
`;

/** `conveyor pipeline serve`: runs until SIGTERM or SIGINT, then drains in-flight requests and closes. */
export const runServe: CommandGroup = async (argv, io) => {
  const read = readLongRunningConfig(argv, io, { name: 'pipeline serve', variables: 'PIPELINE_*', help: HELP, read: () => readPipelineConfig(io.env) });
  if ('exit' in read) return read.exit;
  const { config } = read;
  widenHeapGrowth();
  const sessions = config.signinUrl === null ? undefined : createHttpSessions(config.signinUrl);
  const server = await startPipelineServer(config, systemClock, { sessions });
  io.stdout(`Listening on ${server.url} (database ${config.databasePath}, data ${config.dataPath})\n`);
  io.stdout(`${await waitForStopSignal()} received: finishing in-flight requests\n`);
  await server.stop();
  sessions?.close();
  io.stdout('Stopped\n');
  return 0;
};
