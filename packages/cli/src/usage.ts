/** Bad input from the operator: the command prints the message and exits 2, having written nothing. */
export class UsageError extends Error {
  constructor(message: string, readonly code: string = 'invalid_input') {
    super(message);
    this.name = 'UsageError';
  }
}

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/** A command group: receives the argv after its own name and returns the process exit status. */
export type CommandGroup = (argv: string[], io: CommandIO) => Promise<number>;

/** Where commands write and read; tests pass their own. */
export interface CommandIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  stdin: NodeJS.ReadableStream;
  env: NodeJS.ProcessEnv;
}

export const processIO: CommandIO = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  stdin: process.stdin,
  env: process.env,
};

/**
 * Prints `value` as JSON with `--json`, else as `key: value` lines (arrays of objects as one block each).
 * Timestamps (`*_at` keys, milliseconds since the epoch) stay integers in JSON and read as ISO 8601 for people.
 */
export function printResult(io: CommandIO, value: unknown, json: boolean): void {
  if (json) {
    io.stdout(`${JSON.stringify(value, null, 2)}\n`);
    return;
  }
  const readable = showTimestamps(value);
  const rows = Array.isArray(readable) ? readable : [readable];
  const blocks = rows.map((row) =>
    typeof row === 'object' && row !== null
      ? Object.entries(row)
          .map(([key, v]) => `${key}: ${typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v)}`)
          .join('\n')
      : String(row),
  );
  if (blocks.length > 0) io.stdout(`${blocks.join('\n\n')}\n`);
}

/** Copies `value` with every number under a key ending in `_at` written as an ISO 8601 time. */
export function showTimestamps(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(showTimestamps);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) => [key, key.endsWith('_at') && typeof v === 'number' ? formatTime(v) : showTimestamps(v)]),
  );
}

function formatTime(milliseconds: number): string | number {
  const date = new Date(milliseconds);
  return Number.isNaN(date.getTime()) ? milliseconds : date.toISOString();
}

/** Runs a command body, turning a UsageError into exit 2 (with a JSON error object under --json). */
export async function runCommand(io: CommandIO, json: boolean, body: () => Promise<number>): Promise<number> {
  try {
    return await body();
  } catch (error) {
    if (error instanceof UsageError) {
      if (json) io.stdout(`${JSON.stringify({ error: error.code, message: error.message })}\n`);
      io.stderr(`error: ${error.message}\n`);
      return EXIT_USAGE;
    }
    throw error;
  }
}

/** Reads all of standard input, dropping one trailing newline (for `--password-stdin` and the like). */
export async function readSecretFromStdin(io: CommandIO): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of io.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}
