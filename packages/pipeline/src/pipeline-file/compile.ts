import type { CompileResult } from './types.js';

/**
 * Compiles the text of a `.pipeline.yml` into tasks. Pure: no I/O, no clock. Reports every problem it
 * finds, not only the first. (Being implemented; see docs/pipeline-file.md.)
 */
export function compilePipeline(_source: string): CompileResult {
  return { ok: false, problems: [{ path: '', message: 'compiler not implemented' }] };
}
