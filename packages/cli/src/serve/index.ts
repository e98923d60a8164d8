import { widenHeapGrowth } from '@conveyor/pipeline';
import { readLongRunningConfig, waitForStopSignal } from '../long-running.js';
import type { CommandGroup } from '../usage.js';
import { readServeConfig } from './config.js';
import { SIGNIN_OPENAPI_PATH, startCombinedServer } from './server.js';

export const SERVE_HELP = `Usage: conveyor serve

Runs the pipeline service, the sign-in service and the web interface in one process on one port (one
origin: the pipeline reads the sign-in service's session cookie; open the printed URL in a browser),
until SIGTERM or SIGINT, then lets in-flight requests finish and closes both databases. It takes no
arguments; these variables configure it:

  Variable                Default                     Meaning
  CONVEYOR_PORT           3000                        listen port (0 picks a free one)
  CONVEYOR_HOST           127.0.0.1                   listen address
  CONVEYOR_DATA_PATH      ./data                      where both services keep their files:
                                                        pipeline.db and pipeline/ (PIPELINE_DATABASE_PATH,
                                                        PIPELINE_DATA_PATH), signin.db and realms/
                                                        (AUTH_DATABASE_PATH, AUTH_REALMS_PATH); each of
                                                        those variables, when set, wins
  CONVEYOR_PUBLIC_URL     (from the request's Host)   the URL people and workers reach the server at;
                                                        PIPELINE_PUBLIC_URL, when set, wins for workers

The services' other variables (PIPELINE_* and AUTH_*, see \`conveyor pipeline serve --help\` and
\`conveyor signin serve --help\`) apply as they do there, except their port and host variables and
PIPELINE_SIGNIN_URL: there is one listener, and the sessions are in this process.
The pipeline's OpenAPI document is /api/v1/openapi.json, the sign-in service's ${SIGNIN_OPENAPI_PATH}.
`;

/** `conveyor serve`: both services on one port until SIGTERM or SIGINT. */
export const runServe: CommandGroup = async (argv, io) => {
  const read = readLongRunningConfig(argv, io, { name: 'serve', variables: 'CONVEYOR_*', help: SERVE_HELP, read: () => readServeConfig(io.env) });
  if ('exit' in read) return read.exit;
  const { config } = read;
  widenHeapGrowth();
  const server = await startCombinedServer(config);
  io.stdout(`Listening on ${server.url} (data ${config.dataPath})\n`);
  io.stdout(`${await waitForStopSignal()} received: finishing in-flight requests\n`);
  await server.stop();
  io.stdout('Stopped\n');
  return 0;
};
