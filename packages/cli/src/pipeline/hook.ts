import { createHmac } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { EXIT_FAILURE, EXIT_OK, UsageError, runCommand, type CommandGroup, type CommandIO } from '../usage.js';

const USAGE = `Usage: conveyor pipeline hook post-receive --url URL --project NAME --secret-file FILE
       conveyor pipeline hook install --repo REPO --url URL --project NAME --secret-file FILE [--force]
       conveyor pipeline hook print --url URL --project NAME --secret-file FILE

install writes REPO's post-receive hook as a plain sh script (curl, and sha256sum or openssl; no node at push
time, so pushes are answered sooner); print writes that script to standard output.

post-receive runs as a bare repository's post-receive hook: reads git's "<old> <new> <ref>" lines from standard input
and sends one signed trigger per updated ref to URL/api/v1/projects/NAME/trigger. Deleted refs are
skipped. The actor is $CONVEYOR_ACTOR, else $GL_USERNAME, else $GITEA_PUSHER_NAME, else the user name.

  --url URL           base URL of the pipeline service (http or https)
  --project NAME      project to trigger
  --secret-file FILE  file holding the project's trigger secret (one trailing newline is dropped)
`;

/** The trigger waits for the service to read the pipeline, which may mean fetching the commit first. */
const TRIGGER_TIMEOUT_MS = 30_000;
const COMMIT_ID = /^[0-9a-f]{40}$/;
const ZERO_ID = /^0+$/;

interface HookArguments {
  url: string;
  project: string;
  secretFile: string;
}

interface RefUpdate {
  oldSha: string;
  newSha: string;
  ref: string;
}

interface TriggerPayload {
  sha: string;
  base: string;
  ref: string;
  actor: string;
}

type TriggerOutcome = { ok: true; summary: string } | { ok: false; message: string };

export const runHookCommand: CommandGroup = (argv, io) =>
  runCommand(io, false, async () => {
    if (argv[0] === 'install' || argv[0] === 'print') return (await import('./hook-install.js')).runShellHookCommand(argv[0], argv.slice(1), io, USAGE);
    const parsed = parseHookArguments(argv);
    if (parsed === 'help') {
      io.stdout(USAGE);
      return EXIT_OK;
    }
    const endpoint = buildTriggerUrl(parsed.url, parsed.project);
    const secret = await readSecretFile(parsed.secretFile);
    const actor = chooseActor(io.env);
    const lines = await readLines(io.stdin);
    let allSucceeded = true;
    for (const line of lines) {
      if (!(await handleLine(io, line, endpoint, secret, actor))) allSucceeded = false;
    }
    return allSucceeded ? EXIT_OK : EXIT_FAILURE;
  });

function parseHookArguments(argv: string[]): HookArguments | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        url: { type: 'string' },
        project: { type: 'string' },
        'secret-file': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new UsageError(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
  }
  const { values, positionals } = parsed;
  if (values.help === true) return 'help';
  if (positionals.length !== 1 || positionals[0] !== 'post-receive') {
    throw new UsageError(`expected 'post-receive', 'install' or 'print', got '${positionals.join(' ')}'\n${USAGE}`);
  }
  const url = values.url;
  const project = values.project;
  const secretFile = values['secret-file'];
  if (url === undefined || url === '') throw new UsageError(`--url is required\n${USAGE}`);
  if (project === undefined || project === '') throw new UsageError(`--project is required\n${USAGE}`);
  if (secretFile === undefined || secretFile === '') throw new UsageError(`--secret-file is required\n${USAGE}`);
  return { url, project, secretFile };
}

/** Keeps a path prefix in URL (a service behind /ci/ works) and refuses what could not be the base. */
export function buildTriggerUrl(base: string, project: string): string {
  let parsed: URL;
  try {
    parsed = new URL(base);
  } catch {
    throw new UsageError(`--url '${base}' is not a URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new UsageError(`--url must be http:// or https://, got '${base}'`);
  if (parsed.search !== '' || parsed.hash !== '') throw new UsageError('--url must not have a query or fragment');
  return `${parsed.href.replace(/\/+$/, '')}/api/v1/projects/${encodeURIComponent(project)}/trigger`;
}

async function readSecretFile(path: string): Promise<string> {
  let content: string;
  try {
    content = await readFile(path, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read the secret file '${path}': ${error instanceof Error ? error.message : String(error)}`);
  }
  // Editors and `echo` add one newline; anything more is taken as part of the secret.
  const secret = content.replace(/\r?\n$/, '');
  if (secret === '') throw new UsageError(`the secret file '${path}' is empty`);
  return secret;
}

/** Git servers name the pusher in their own variables; a plain ssh server only has the account. */
function chooseActor(env: NodeJS.ProcessEnv): string {
  for (const name of ['CONVEYOR_ACTOR', 'GL_USERNAME', 'GITEA_PUSHER_NAME']) {
    const value = env[name];
    if (value !== undefined && value !== '') return value;
  }
  try {
    return userInfo().username;
  } catch {
    return '';
  }
}

async function readLines(stdin: CommandIO['stdin']): Promise<string[]> {
  const lines: string[] = [];
  for await (const line of createInterface({ input: stdin, crlfDelay: Infinity })) {
    if (line.trim() !== '') lines.push(line);
  }
  return lines;
}

function parseRefUpdate(line: string): RefUpdate | null {
  const [oldSha, newSha, ref, ...rest] = line.trim().split(' ');
  if (oldSha === undefined || newSha === undefined || ref === undefined || rest.length > 0) return null;
  return { oldSha, newSha, ref };
}

/** Sends the trigger for one line of git's input and prints its outcome; false when it failed. */
async function handleLine(io: CommandIO, line: string, endpoint: string, secret: string, actor: string): Promise<boolean> {
  const update = parseRefUpdate(line);
  if (update === null) {
    io.stderr(`failed: not a "<old> <new> <ref>" line: ${line}\n`);
    return false;
  }
  const { oldSha, newSha, ref } = update;
  if (ZERO_ID.test(newSha)) {
    io.stdout(`skipped ${ref}: deleted, nothing to build\n`);
    return true;
  }
  // The service takes SHA-1 commit ids; a SHA-256 repository cannot be built.
  if (!COMMIT_ID.test(newSha)) {
    io.stderr(`failed ${ref}: '${newSha}' is not a 40-hex commit id\n`);
    return false;
  }
  const base = COMMIT_ID.test(oldSha) && !ZERO_ID.test(oldSha) ? oldSha : '';
  const outcome = await sendTrigger(endpoint, secret, { sha: newSha, base, ref, actor });
  if (outcome.ok) io.stdout(`triggered ${ref} ${newSha.slice(0, 7)}: ${outcome.summary}\n`);
  else io.stderr(`failed ${ref} ${newSha.slice(0, 7)}: ${outcome.message}\n`);
  return outcome.ok;
}

/** The signature covers the exact bytes sent: the same string is hashed and posted (both UTF-8). */
async function sendTrigger(endpoint: string, secret: string, payload: TriggerPayload): Promise<TriggerOutcome> {
  const body = JSON.stringify(payload);
  const signature = createHmac('sha256', secret).update(body, 'utf8').digest('hex');
  let response: Response;
  let text: string;
  try {
    response = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': `sha256=${signature}`, 'user-agent': 'conveyor-hook' },
      body,
      signal: AbortSignal.timeout(TRIGGER_TIMEOUT_MS),
    });
    text = await response.text();
  } catch (error) {
    return { ok: false, message: describeFetchError(error) };
  }
  const answer = parseJsonObject(text);
  if (!response.ok) return { ok: false, message: `HTTP ${response.status}: ${describeErrorAnswer(answer, text)}` };
  if (answer?.status === 'created' && typeof answer.job_id === 'string') return { ok: true, summary: `job ${answer.job_id}` };
  if (answer?.status === 'ignored') return { ok: true, summary: `ignored (${typeof answer.reason === 'string' ? answer.reason : 'no reason given'})` };
  return { ok: true, summary: `HTTP ${response.status}` };
}

function parseJsonObject(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The server's `error`, plus the first problems of an invalid pipeline so the pusher knows what to fix. */
function describeErrorAnswer(answer: Record<string, unknown> | null, text: string): string {
  if (answer === null || typeof answer.error !== 'string') return text.slice(0, 200).trim() || '(no body)';
  const problems = Array.isArray(answer.problems) ? answer.problems.slice(0, 3).map(describeProblem) : [];
  return problems.length === 0 ? answer.error : `${answer.error} (${problems.join('; ')})`;
}

function describeProblem(problem: unknown): string {
  if (typeof problem !== 'object' || problem === null) return String(problem);
  const { path, message } = problem as { path?: unknown; message?: unknown };
  return `${typeof path === 'string' ? path : '?'}: ${typeof message === 'string' ? message : '?'}`;
}

function describeFetchError(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError') return `no answer within ${TRIGGER_TIMEOUT_MS / 1000} s`;
  // fetch reports "fetch failed" and keeps the reason (refused, unknown host, TLS) in `cause`.
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error instanceof Error ? error.message : String(error)}${cause}`;
}
