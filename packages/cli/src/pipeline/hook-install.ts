import { execFile } from 'node:child_process';
import { access, chmod, constants, mkdir, stat, writeFile } from 'node:fs/promises';
import { delimiter, dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { EXIT_OK, UsageError, type CommandIO } from '../usage.js';
import { buildTriggerUrl } from './hook.js';
import { renderHookScript } from './hook-script.js';

/** What the sh hook runs besides the shell's builtins: each entry is one tool, or alternatives. */
const HOOK_TOOLS = [['od'], ['sed'], ['sha256sum', 'openssl'], ['curl']];

interface ShellHookArguments {
  repo: string | undefined;
  url: string;
  project: string;
  secretFile: string;
  force: boolean;
}

/** `hook install` writes the sh post-receive hook into a repository; `hook print` prints it. */
export async function runShellHookCommand(command: 'install' | 'print', argv: string[], io: CommandIO, usage: string): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.stdout(usage);
    return EXIT_OK;
  }
  const parsed = parseShellHookArguments(command, argv, usage);
  const secretFile = resolve(parsed.secretFile);
  // The hook reads the file at every push; a wrong path found now saves a failed push later.
  if (!(await stat(secretFile).catch(() => null))?.isFile()) {
    throw new UsageError(`the secret file '${secretFile}' does not exist; write the project's trigger secret into it first (chmod 600)`);
  }
  const script = renderHookScript({ triggerUrl: buildTriggerUrl(parsed.url, parsed.project), secretFile });
  if (command === 'print') {
    io.stdout(script);
    return EXIT_OK;
  }
  const target = await hookPath(parsed.repo ?? '');
  if (!parsed.force && (await stat(target).catch(() => null)) !== null) {
    throw new UsageError(`${target} already exists; pass --force to replace it (its content is not kept)`);
  }
  await mkdir(dirname(target), { recursive: true });
  await writeFile(target, script, { mode: 0o755 });
  // --force over a file that was not executable: git would skip the hook without a word.
  await chmod(target, 0o755);
  io.stdout(`installed ${target}: pushes trigger project ${parsed.project}\n`);
  const missing = await missingTools(io.env.PATH ?? '');
  if (missing.length > 0) io.stderr(`warning: ${missing.join(', ')} not found on PATH; the hook needs them at push time (on Debian: apt-get install coreutils curl)\n`);
  return EXIT_OK;
}

function parseShellHookArguments(command: string, argv: string[], usage: string): ShellHookArguments {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      options: {
        repo: { type: 'string' },
        url: { type: 'string' },
        project: { type: 'string' },
        'secret-file': { type: 'string' },
        force: { type: 'boolean' },
      },
    });
  } catch (error) {
    throw new UsageError(`${error instanceof Error ? error.message : String(error)}\n${usage}`);
  }
  const { values } = parsed;
  const required: Array<[string, string | undefined]> = [
    ['--url', values.url],
    ['--project', values.project],
    ['--secret-file', values['secret-file']],
  ];
  if (command === 'install') required.unshift(['--repo', values.repo]);
  for (const [name, value] of required) if (value === undefined || value === '') throw new UsageError(`${name} is required\n${usage}`);
  if (command === 'print' && (values.repo !== undefined || values.force !== undefined)) throw new UsageError(`print takes no --repo or --force\n${usage}`);
  return { repo: values.repo, url: values.url ?? '', project: values.project ?? '', secretFile: values['secret-file'] ?? '', force: values.force === true };
}

/** Where git runs the repository's post-receive hook: bare or not, and core.hooksPath, as git sees them. */
function hookPath(repo: string): Promise<string> {
  return new Promise((resolvePath, reject) => {
    execFile('git', ['-C', repo, 'rev-parse', '--git-path', 'hooks/post-receive'], (error, stdout, stderr) => {
      if (error !== null) {
        reject(new UsageError(`'${repo}' is not a git repository (${stderr.trim().split('\n').at(-1) ?? error.message}); give the path of the repository pushes go to`));
        return;
      }
      resolvePath(resolve(repo, stdout.trim()));
    });
  });
}

async function missingTools(path: string): Promise<string[]> {
  const directories = path.split(delimiter).filter((directory) => directory !== '');
  const missing: string[] = [];
  const onPath = async (tool: string): Promise<boolean> =>
    (await Promise.all(directories.map((directory) => access(join(directory, tool), constants.X_OK).then(() => true, () => false)))).includes(true);
  for (const alternatives of HOOK_TOOLS) {
    const found = await Promise.all(alternatives.map(onPath));
    if (!found.includes(true)) missing.push(alternatives.join(' or '));
  }
  return missing;
}
