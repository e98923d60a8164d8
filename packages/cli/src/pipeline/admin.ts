import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { admin, ConfigError, openPipeline, readPipelineConfig, ServiceError, type PipelineConfig, type PipelineDeps, type Project, type Worker } from '@conveyor/pipeline';
import { EXIT_USAGE, printResult, readSecretFromStdin, runCommand, UsageError, type CommandGroup, type CommandIO } from '../usage.js';

const HELP = `Usage: conveyor pipeline admin <command> [--json]

  project create --name NAME --repo PATH_OR_URL [--visibility private|public] [--owner USER_ID] [--realm SLUG]
  project update PROJECT [--enabled true|false] [--visibility private|public] [--repo PATH_OR_URL] [--owner USER_ID] [--rotate-secret]
  project show PROJECT
  project list
  variable set PROJECT NAME VALUE
  variable set PROJECT NAME --value-stdin [--secret]
  variable unset PROJECT NAME
  worker create --name NAME [--owner USER_ID]
  worker revoke WORKER
  worker list

PROJECT is a project's id or name. Works on PIPELINE_DATABASE_PATH, also while the server runs; only
'project create' and 'worker create' make the database when it does not exist yet.
'project create --realm' names the sign-in realm the project belongs to (default system): it is served
only on that realm's hosts. 'project update --owner ""' clears the owner. A secret value is read from standard input (one trailing
newline dropped), never from the command line, where ps and shell history would show it.
`;

const COMMANDS = ['project create', 'project update', 'project show', 'project list', 'variable set', 'variable unset', 'worker create', 'worker revoke', 'worker list'];
/** The commands that may make the first record; every other one refuses to create an empty database. */
const CREATES_DATABASE = new Set(['project create', 'worker create']);

const OPTIONS = {
  json: { type: 'boolean' },
  name: { type: 'string' },
  repo: { type: 'string' },
  visibility: { type: 'string' },
  owner: { type: 'string' },
  realm: { type: 'string' },
  enabled: { type: 'string' },
  'rotate-secret': { type: 'boolean' },
  secret: { type: 'boolean' },
  'value-stdin': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

function showProject(project: Project) {
  return {
    id: project.id,
    name: project.name,
    repo: project.repo,
    visibility: project.visibility,
    enabled: project.enabled,
    owner_user_id: project.ownerUserId,
    realm: project.realm,
    trigger_secret: project.triggerSecret,
  };
}

function showWorker(worker: Worker) {
  return {
    id: worker.id,
    name: worker.name,
    owner_user_id: worker.ownerUserId,
    created_at: worker.createdAt,
    revoked_at: worker.revokedAt,
    last_seen_at: worker.lastSeenAt,
  };
}

function required(value: string | undefined, flag: string): string {
  if (value === undefined || value === '') throw new UsageError(`${flag} is required`);
  return value;
}

function parseBoolean(value: string | undefined, flag: string): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new UsageError(`${flag} must be true or false, got '${value}'`);
}

function expectPositionals(positionals: string[], count: number, usage: string): string[] {
  if (positionals.length !== count) throw new UsageError(`usage: conveyor pipeline admin ${usage}`);
  return positionals;
}

/** `--owner ''` clears the owner; without the flag the owner is left as it is. */
function readOwnerChange(value: string | undefined): string | null | undefined {
  if (value === undefined) return undefined;
  return value === '' ? null : value;
}

/** The value of `variable set`: the positional VALUE, or standard input with --value-stdin (required for secrets). */
async function readVariableValue(io: CommandIO, args: string[], values: Values): Promise<string> {
  const [, , value] = args;
  if (values['value-stdin'] === true) {
    if (value !== undefined) throw new UsageError('give the value either as VALUE or on standard input with --value-stdin, not both');
    return readSecretFromStdin(io);
  }
  if (value === undefined) throw new UsageError('usage: conveyor pipeline admin variable set PROJECT NAME VALUE, or --value-stdin to read the value from standard input');
  if (values.secret === true) {
    throw new UsageError(
      "a secret value on the command line is visible in ps and shell history; pipe it instead: printf '%s\\n' \"$VALUE\" | conveyor pipeline admin variable set PROJECT NAME --secret --value-stdin",
    );
  }
  return value;
}

/** Runs one admin command against the store; returns what to print. */
async function dispatch(deps: PipelineDeps, io: CommandIO, words: string[], values: Values): Promise<unknown> {
  const [noun, verb, ...args] = words;
  switch (`${noun} ${verb}`) {
    case 'project create':
      expectPositionals(args, 0, 'project create --name NAME --repo PATH_OR_URL');
      return showProject(
        await admin.createProject(deps, {
          name: required(values.name, '--name'),
          repo: required(values.repo, '--repo'),
          visibility: values.visibility,
          ownerUserId: values.owner ?? null,
          realm: values.realm,
        }),
      );
    case 'project update': {
      const [project] = expectPositionals(args, 1, 'project update PROJECT [options]') as [string];
      return showProject(
        await admin.updateProject(deps, project, {
          enabled: parseBoolean(values.enabled, '--enabled'),
          visibility: values.visibility,
          repo: values.repo,
          rotateSecret: values['rotate-secret'],
          ownerUserId: readOwnerChange(values.owner),
        }),
      );
    }
    case 'project show': {
      const [project] = expectPositionals(args, 1, 'project show PROJECT') as [string];
      const found = await admin.showProject(deps, project);
      // Secret values are never printed again; they live only in the database and the worker payload.
      const variables = (await deps.store.listVariables(found.id)).map((variable) => ({ name: variable.name, secret: variable.secret, value: variable.secret ? '***' : variable.value }));
      return { ...showProject(found), variables };
    }
    case 'project list':
      expectPositionals(args, 0, 'project list');
      return (await deps.store.listProjects()).map(showProject);
    case 'variable set': {
      if (args.length < 2 || args.length > 3) throw new UsageError('usage: conveyor pipeline admin variable set PROJECT NAME VALUE, or PROJECT NAME --value-stdin [--secret]');
      const [project, name] = args as [string, string];
      const value = await readVariableValue(io, args, values);
      await admin.setVariable(deps, project, name, value, values.secret === true);
      return { project, name, secret: values.secret === true };
    }
    case 'variable unset': {
      const [project, name] = expectPositionals(args, 2, 'variable unset PROJECT NAME') as [string, string];
      await admin.unsetVariable(deps, project, name);
      return { project, name, unset: true };
    }
    case 'worker create': {
      expectPositionals(args, 0, 'worker create --name NAME [--owner USER_ID]');
      const { worker, token } = await admin.createWorker(deps, { name: required(values.name, '--name'), ownerUserId: values.owner ?? null });
      return { id: worker.id, name: worker.name, owner_user_id: worker.ownerUserId, token };
    }
    case 'worker revoke': {
      const [worker] = expectPositionals(args, 1, 'worker revoke WORKER') as [string];
      return showWorker(await admin.revokeWorker(deps, worker));
    }
    case 'worker list':
      expectPositionals(args, 0, 'worker list');
      return (await deps.store.listWorkers()).map(showWorker);
    default:
      throw new UsageError(`unknown admin command '${words.slice(0, 2).join(' ')}'\n${HELP}`);
  }
}

function readConfig(io: CommandIO): PipelineConfig {
  try {
    return readPipelineConfig(io.env);
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message);
    throw error;
  }
}

/** Opens the database, refusing to make an empty one (in the wrong directory, say) for a command that needs records. */
function openDeps(config: PipelineConfig, command: string): PipelineDeps {
  if (!CREATES_DATABASE.has(command) && !existsSync(config.databasePath)) {
    throw new UsageError(
      `no database at ${config.databasePath}; start the server once (conveyor pipeline serve) or run 'conveyor pipeline admin project create' first, ` +
        'or set PIPELINE_DATABASE_PATH to the database you mean',
      'no_database',
    );
  }
  return openPipeline(config);
}

export const runAdmin: CommandGroup = async (argv, io) => {
  const json = argv.includes('--json');
  return runCommand(io, json, async () => {
    let parsed;
    try {
      parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
    } catch (error) {
      throw new UsageError(error instanceof Error ? error.message : String(error));
    }
    if (parsed.values.help === true) {
      io.stdout(HELP);
      return 0;
    }
    if (parsed.positionals.length === 0) {
      io.stderr(HELP);
      return EXIT_USAGE;
    }
    const command = parsed.positionals.slice(0, 2).join(' ');
    if (!COMMANDS.includes(command)) throw new UsageError(`unknown admin command '${command}'\n${HELP}`);
    const deps = openDeps(readConfig(io), command);
    try {
      const result = await dispatch(deps, io, parsed.positionals, parsed.values);
      printResult(io, result, json);
      return 0;
    } catch (error) {
      // Refusals by the domain (bad names, unknown projects, taken names) are the operator's input: exit 2.
      if (error instanceof ServiceError && error.status < 500) throw new UsageError(error.message, codeOf(error.status));
      throw error;
    } finally {
      await deps.store.close();
    }
  });
};

function codeOf(status: number): string {
  if (status === 404) return 'not_found';
  if (status === 409) return 'conflict';
  return 'invalid_input';
}
