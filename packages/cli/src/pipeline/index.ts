import { EXIT_USAGE, type CommandGroup } from '../usage.js';

const HELP = `Usage: conveyor pipeline <command>

  serve                                 run the pipeline service (\`serve --help\` lists its PIPELINE_* variables)
  lint [FILE] [--json]                  check a pipeline file (default ./.pipeline.yml) with the service's compiler
  admin project create|update|show|list manage projects
  admin variable set|unset              manage a project's variables
  admin worker create|revoke|list       manage worker tokens
  hook post-receive --url URL --project P --secret-file F
                                        git post-receive hook: one signed trigger per updated ref
  hook install --repo R --url URL --project P --secret-file F
                                        write R's post-receive hook as a sh script (no node per push)
`;

const commands: Record<string, () => Promise<CommandGroup>> = {
  serve: async () => (await import('./serve.js')).runServe,
  admin: async () => (await import('./admin.js')).runAdmin,
  hook: async () => (await import('./hook.js')).runHookCommand,
  lint: async () => (await import('./lint.js')).runLint,
};

export const runPipeline: CommandGroup = async (argv, io) => {
  const [command, ...rest] = argv;
  const load = command === undefined ? undefined : commands[command];
  if (load === undefined) {
    if (command !== '--help' && command !== '-h') io.stderr(command === undefined ? HELP : `error: unknown command '${command}'\n${HELP}`);
    else io.stdout(HELP);
    return command === '--help' || command === '-h' ? 0 : EXIT_USAGE;
  }
  return (await load())(rest, io);
};
