import { EXIT_USAGE, type CommandGroup } from '../usage.js';

export const runPipeline: CommandGroup = async (_argv, io) => {
  io.stderr('error: not implemented yet\n');
  return EXIT_USAGE;
};
