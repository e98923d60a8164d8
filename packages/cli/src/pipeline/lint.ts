import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { compilePipeline, locateProblems, PIPELINE_FILE_NAME, type CompiledTask, type LocatedProblem } from '@conveyor/pipeline';
import { EXIT_FAILURE, runCommand, UsageError, type CommandGroup } from '../usage.js';

const HELP = `Usage: conveyor pipeline lint [FILE] [--json]

Checks a pipeline file (default ./${PIPELINE_FILE_NAME}) with the compiler the service uses, without a
server. Prints every problem as FILE:LINE:COLUMN: PATH: MESSAGE and exits 1 when there are any; prints
the tasks it would create and exits 0 when there are none. Exits 2 when the file cannot be read.
`;

/** At most this many task names on the success line; the count says how many there are. */
const NAMES_SHOWN = 10;

export const runLint: CommandGroup = async (argv, io) => {
  const json = argv.includes('--json');
  return runCommand(io, json, async () => {
    const { values, positionals } = parseLintArgs(argv);
    if (values.help === true) {
      io.stdout(HELP);
      return 0;
    }
    if (positionals.length > 1) throw new UsageError(`lint takes one FILE, got ${positionals.length}\n${HELP}`);
    const file = positionals[0] ?? PIPELINE_FILE_NAME;
    const source = await readPipelineFile(file);
    const result = compilePipeline(source);
    if (result.ok) {
      io.stdout(json ? `${JSON.stringify({ file, ok: true, tasks: result.tasks }, null, 2)}\n` : `${file}: ${summarize(result.tasks)}\n`);
      return 0;
    }
    const problems = locateProblems(source, result.problems);
    io.stdout(json ? `${JSON.stringify({ file, ok: false, problems }, null, 2)}\n` : problems.map((problem) => `${formatProblem(file, problem)}\n`).join(''));
    if (!json) io.stderr(`${file}: ${problems.length === 1 ? '1 problem' : `${problems.length} problems`}\n`);
    return EXIT_FAILURE;
  });
};

function parseLintArgs(argv: string[]) {
  try {
    return parseArgs({ args: argv, options: { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(`${error instanceof Error ? error.message : String(error)}\n${HELP}`);
  }
}

async function readPipelineFile(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : error instanceof Error ? error.message : String(error);
    throw new UsageError(`cannot read ${resolve(file)}: ${why}; give the pipeline file's path: conveyor pipeline lint FILE`, 'not_found');
  }
}

/** `FILE:LINE:COLUMN: PATH: MESSAGE`, the form editors and CI annotations read; a root problem has no PATH. */
function formatProblem(file: string, problem: LocatedProblem): string {
  return `${file}:${problem.line}:${problem.column}: ${problem.path === '' ? '' : `${problem.path}: `}${problem.message}`;
}

function summarize(tasks: CompiledTask[]): string {
  const names = tasks.slice(0, NAMES_SHOWN).map((task) => task.name);
  const more = tasks.length > NAMES_SHOWN ? `, and ${tasks.length - NAMES_SHOWN} more` : '';
  return `ok: ${tasks.length === 1 ? '1 task' : `${tasks.length} tasks`} (${names.join(', ')}${more})`;
}
