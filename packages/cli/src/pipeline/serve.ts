import { ConfigError, readPipelineConfig, startPipelineServer, widenHeapGrowth } from '@conveyor/pipeline';
import { EXIT_USAGE, type CommandGroup } from '../usage.js';

/** `conveyor pipeline serve`: runs until SIGTERM or SIGINT, then drains in-flight requests and closes. */
export const runServe: CommandGroup = async (argv, io) => {
  if (argv.length > 0) {
    io.stderr('error: `conveyor pipeline serve` takes no arguments; configure it with PIPELINE_* variables\n');
    return EXIT_USAGE;
  }
  let config;
  try {
    config = readPipelineConfig(io.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      io.stderr(`error: ${error.message}\n`);
      return EXIT_USAGE;
    }
    throw error;
  }
  widenHeapGrowth();
  const server = await startPipelineServer(config);
  io.stdout(`Listening on ${server.url} (database ${config.databasePath}, data ${config.dataPath})\n`);
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
