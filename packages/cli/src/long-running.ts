import { ConfigError } from '@conveyor/kit';
import { EXIT_USAGE, type CommandIO } from './usage.js';

/**
 * The start of a command that runs until stopped (`serve`, `pipeline serve`, `dev`): `--help` prints the
 * help, any other argument is a usage error, and an invalid variable is reported by name. Returns the
 * configuration, or the exit code to end with.
 */
export function readLongRunningConfig<T>(
  argv: string[],
  io: CommandIO,
  command: { name: string; variables: string; help: string; read: () => T },
): { config: T } | { exit: number } {
  if (argv.length === 1 && (argv[0] === '--help' || argv[0] === '-h')) {
    io.stdout(command.help);
    return { exit: 0 };
  }
  if (argv.length > 0) {
    io.stderr(`error: \`conveyor ${command.name}\` takes no arguments; configure it with ${command.variables} variables\n${command.help}`);
    return { exit: EXIT_USAGE };
  }
  try {
    return { config: command.read() };
  } catch (error) {
    if (error instanceof ConfigError) {
      io.stderr(`error: ${error.message}\n`);
      return { exit: EXIT_USAGE };
    }
    throw error;
  }
}

/** Resolves with the first SIGTERM or SIGINT, then stops listening for them. */
export function waitForStopSignal(): Promise<'SIGTERM' | 'SIGINT'> {
  return new Promise((resolve) => {
    const stop = (signal: 'SIGTERM' | 'SIGINT'): void => {
      process.off('SIGTERM', onTerm);
      process.off('SIGINT', onInt);
      resolve(signal);
    };
    const onTerm = (): void => stop('SIGTERM');
    const onInt = (): void => stop('SIGINT');
    process.on('SIGTERM', onTerm);
    process.on('SIGINT', onInt);
  });
}
