import type { ServiceSpec } from '@conveyor/protocol';

/** One thing wrong with a pipeline file: `path` names the key (`tasks.test.needs[0]`), `message` says what is wrong. */
export interface Problem {
  path: string;
  message: string;
}

/** A task as compiled from the pipeline file: one per matrix variant, in the file's task order. */
export interface CompiledTask {
  /** `<base>` or `<base>:<k>=<v>,<k>=<v>` in the matrix's declared key order. */
  name: string;
  baseName: string;
  /** `${key}` already replaced with the variant's matrix values. */
  image: string;
  script: string[];
  /** Pipeline env, then task env, then the matrix values (later wins). */
  env: Record<string, string>;
  arch: string;
  requires: string[];
  services: ServiceSpec[];
  artifactPaths: string[];
  /** `artifacts: {expire_in}` in seconds; null when the file leaves it to the service's retention. */
  artifactExpireIn: number | null;
  workdir: string;
  /** Seconds. */
  timeout: number;
  maxAttempts: number;
  allowFailure: boolean;
  /** Full names of the tasks this one waits for (a matrix base name expanded to all of its variants). */
  needs: string[];
  matrix: Record<string, string>;
}

export type CompileResult = { ok: true; tasks: CompiledTask[] } | { ok: false; problems: Problem[] };

/** The file is refused above this size, before it is parsed. */
export const MAX_PIPELINE_FILE_BYTES = 1024 * 1024;
export const MAX_VARIANTS_PER_TASK = 256;
export const MAX_TASKS = 1000;
export const PIPELINE_FILE_NAME = '.pipeline.yml';
