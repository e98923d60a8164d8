import { ConfigError, startSigninServer } from '@conveyor/signin';
import { EXIT_USAGE, type CommandIO } from '../usage.js';

/** Resolves on the first SIGTERM or SIGINT. */
function waitForStopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      resolve(signal);
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
}

/** `conveyor signin serve`: listens until SIGTERM/SIGINT, then closes the server and the files. */
export async function runSigninServe(argv: string[], io: CommandIO): Promise<number> {
  if (argv.length > 0) {
    io.stderr(`error: 'signin serve' takes no arguments; configure it with the AUTH_* variables\n`);
    return EXIT_USAGE;
  }
  let server;
  try {
    server = await startSigninServer({ env: io.env, logger: true });
  } catch (error) {
    if (error instanceof ConfigError) {
      io.stderr(`error: ${error.message}\n`);
      return EXIT_USAGE;
    }
    throw error;
  }
  io.stdout(`Listening on ${server.url}\n`);
  const signal = await waitForStopSignal();
  io.stdout(`Received ${signal}, closing\n`);
  await server.close();
  return 0;
}
