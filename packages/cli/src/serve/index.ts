import { widenHeapGrowth } from '@conveyor/pipeline';
import { EXIT_USAGE, type CommandGroup } from '../usage.js';
import { ConfigError, readServeConfig } from './config.js';
import { SIGNIN_OPENAPI_PATH, startCombinedServer } from './server.js';

export const SERVE_HELP = `Usage: conveyor serve

Runs the pipeline service and the sign-in service in one process on one port (one origin: the pipeline
reads the sign-in service's session cookie), until SIGTERM or SIGINT, then lets in-flight requests finish
and closes both databases. It takes no arguments; these variables configure it:

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
  if (argv.length === 1 && (argv[0] === '--help' || argv[0] === '-h')) {
    io.stdout(SERVE_HELP);
    return 0;
  }
  if (argv.length > 0) {
    io.stderr(`error: \`conveyor serve\` takes no arguments; configure it with CONVEYOR_* variables\n${SERVE_HELP}`);
    return EXIT_USAGE;
  }
  let config;
  try {
    config = readServeConfig(io.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      io.stderr(`error: ${error.message}\n`);
      return EXIT_USAGE;
    }
    throw error;
  }
  widenHeapGrowth();
  const server = await startCombinedServer(config);
  io.stdout(`Listening on ${server.url} (data ${config.dataPath})\n`);
  await new Promise<void>((resolve) => {
    const stop = (signal: string): void => {
      io.stdout(`${signal} received: finishing in-flight requests\n`);
      process.off('SIGTERM', onTerm);
      process.off('SIGINT', onInt);
      void server.stop().then(resolve);
    };
    const onTerm = (): void => stop('SIGTERM');
    const onInt = (): void => stop('SIGINT');
    process.on('SIGTERM', onTerm);
    process.on('SIGINT', onInt);
  });
  io.stdout('Stopped\n');
  return 0;
};
