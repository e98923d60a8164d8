import { readFileSync } from 'node:fs';
import { EXIT_FAILURE, EXIT_USAGE, processIO, type CommandGroup, type CommandIO } from './usage.js';

const HELP = `Usage: conveyor <group> <command> [options]
       conveyor --version

  conveyor dev                            serve, a local worker, an administrator and a demo project
  conveyor serve                          run the pipeline and sign-in services on one port
  conveyor pipeline serve                 run the pipeline service
  conveyor pipeline admin ...             manage projects, variables and workers
  conveyor pipeline hook install ...     write a repository's post-receive hook (sh, no Node per push)
  conveyor pipeline hook post-receive ... the same hook in Node
  conveyor pipeline lint [FILE]           check a .pipeline.yml with the service's compiler
  conveyor signin serve                   run the sign-in service
  conveyor signin admin ...               manage realms, users, memberships, clients
  conveyor worker --url URL ...           run a worker agent

Run \`conveyor <group> --help\` for a group's commands, \`conveyor serve --help\` for its variables.
`;

/** Each group is loaded only when used, so `conveyor worker` does not load the services' code. */
const groups: Record<string, () => Promise<CommandGroup>> = {
  serve: async () => (await import('./serve/index.js')).runServe,
  dev: async () => (await import('./dev/index.js')).runDev,
  pipeline: async () => (await import('./pipeline/index.js')).runPipeline,
  signin: async () => (await import('./signin/index.js')).runSignin,
  worker: async () => (await import('./worker/index.js')).runWorker,
};

/** The version of the package that ships the `conveyor` binary. */
function readVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: string };
  return manifest.version ?? 'unknown';
}

export async function main(argv: string[], io: CommandIO = processIO): Promise<number> {
  const [group, ...rest] = argv;
  if (group === undefined) {
    io.stderr(HELP);
    return EXIT_USAGE;
  }
  if (group === '--help' || group === '-h' || group === 'help') {
    io.stdout(HELP);
    return 0;
  }
  if (group === '--version' || group === '-V' || group === 'version') {
    io.stdout(`conveyor ${readVersion()}\n`);
    return 0;
  }
  const load = groups[group];
  if (load === undefined) {
    io.stderr(`error: unknown command group '${group}'\n${HELP}`);
    return EXIT_USAGE;
  }
  try {
    return await (await load())(rest, io);
  } catch (error) {
    io.stderr(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT_FAILURE;
  }
}
