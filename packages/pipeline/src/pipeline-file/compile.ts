import { buildTasks } from './build-tasks.js';
import { reportCycles } from './check-graph.js';
import { estimateCompiledSize } from './estimate-size.js';
import { MAX_COMPILED_SIZE } from './limits.js';
import { checkFileSize, parseYaml } from './parse-yaml.js';
import { ProblemList } from './problems.js';
import { readPipeline } from './read-pipeline.js';
import type { CompileResult } from './types.js';

/**
 * Compiles the text of a `.pipeline.yml` into tasks. Pure: no I/O, no clock. Reports every problem it
 * finds, not only the first, in the order met while walking the file. The format is in docs/pipeline-file.md.
 */
export function compilePipeline(source: string): CompileResult {
  const tooLarge = checkFileSize(source);
  if (tooLarge) return { ok: false, problems: [tooLarge] };
  const parsed = parseYaml(source);
  if (!parsed.ok) return parsed;

  const problems = new ProblemList();
  const spec = readPipeline(parsed.value, problems);
  if (spec) reportCycles(spec.tasks, problems);
  if (!spec || !problems.isEmpty) return { ok: false, problems: problems.toArray() };

  const size = estimateCompiledSize(spec);
  if (size > MAX_COMPILED_SIZE) {
    const megabytes = Math.ceil(size / (1024 * 1024));
    return {
      ok: false,
      problems: [{ path: 'tasks', message: `the compiled tasks would hold about ${megabytes} MiB of text; at most ${MAX_COMPILED_SIZE / (1024 * 1024)} MiB (matrix variants, the top-level env and needs are copied into every task)` }],
    };
  }
  return { ok: true, tasks: buildTasks(spec) };
}
