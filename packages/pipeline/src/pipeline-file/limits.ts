// Limits and defaults of the pipeline-file format beyond those in types.ts. docs/pipeline-file.md
// documents every one of them; change both together.

/** Deeper YAML nesting is refused while parsing: the yaml library slows to seconds (or runs out of memory) on very deep input. */
export const MAX_YAML_NESTING = 64;
/** Passed to the yaml library's `maxAliasCount`: how often one anchor may be expanded (nested aliases multiply). */
export const MAX_ALIAS_COUNT = 100;
/** Values (scalars, lists, maps) the document may hold once aliases are expanded; beyond this it is an alias bomb. */
export const MAX_EXPANDED_VALUES = 1_000_000;
/**
 * Estimated size of all compiled tasks, in string characters. Matrix variants, the top-level env and expanded
 * `needs` are copied into every task, so a small file could otherwise compile into hundreds of megabytes.
 */
export const MAX_COMPILED_SIZE = 32 * 1024 * 1024;
/** Problems kept in one answer; the rest are counted in a final entry so a hostile file cannot make the answer huge. */
export const MAX_PROBLEMS = 500;

export const MAX_RETRIES = 10;
export const MAX_TIMEOUT_SECONDS = 24 * 60 * 60;
/** Longest `artifacts: {expire_in}`: ten years. */
export const MAX_EXPIRE_IN_SECONDS = 3650 * 24 * 60 * 60;

export const DEFAULT_ARCH = 'amd64';
export const DEFAULT_WORKDIR = '/workspace';
export const DEFAULT_TIMEOUT_SECONDS = 60 * 60;
