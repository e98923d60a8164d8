import { readTimeout } from './durations.js';
import { countVariants, expandMatrix, nameVariant } from './expand-matrix.js';
import { DEFAULT_ARCH, DEFAULT_TIMEOUT_SECONDS, DEFAULT_WORKDIR, MAX_RETRIES } from './limits.js';
import { joinPath, shortenKey } from './problems.js';
import type { ProblemList } from './problems.js';
import { readEnv } from './read-env.js';
import { readNeeds } from './read-needs.js';
import type { NeedReference } from './read-needs.js';
import { readMatrix } from './read-matrix.js';
import type { MatrixAxis } from './read-matrix.js';
import { readArtifacts, readWorkdir } from './read-paths.js';
import { readServices } from './read-services.js';
import type { ServiceTemplate } from './read-services.js';
import { isYamlMap, readBoolean, readIntegerInRange, readString, readStringList, removeDuplicates, reportWrongType } from './read-values.js';
import { reportUnknownKey } from './report-unknown-key.js';
import { findUnknownReferences } from './substitute-matrix.js';
import { MAX_VARIANTS_PER_TASK } from './types.js';

export const TASK_KEYS = [
  'image', 'script', 'needs', 'matrix', 'arch', 'requires', 'env', 'services', 'artifacts', 'workdir', 'timeout', 'retries', 'allow_failure',
] as const;

const ARCH = /^[a-z0-9_]{1,32}$/;
const FEATURE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** A task as read from the file, before its matrix variants are built. */
export interface TaskSpec {
  baseName: string;
  /** The task's own image, else the top-level one; may hold `${key}`. Empty when neither is given (a task for shell workers). */
  image: string;
  script: string[];
  env: Record<string, string>;
  arch: string;
  requires: string[];
  services: ServiceTemplate[];
  artifacts: string[];
  /** `artifacts: {expire_in}` in seconds; null for the service's retention. */
  artifactExpireIn: number | null;
  workdir: string;
  timeout: number;
  retries: number;
  allowFailure: boolean;
  /** Known base names, without repeats. */
  needs: NeedReference[];
  /** One matrix (key to value) per variant, in variant order; `[{}]` without a matrix. */
  variants: Record<string, string>[];
  /** Variant names, same order as `variants`. */
  variantNames: string[];
  /** How many variants the matrix asks for, even above the limit (1 when the matrix is unreadable). */
  variantCount: number;
}

/** What reading a task needs to know about the rest of the file. */
export interface TaskContext {
  baseNames: ReadonlySet<string>;
  /** The top-level `image`, when it is a valid string. */
  pipelineImage: string | undefined;
}

/** Reads one task's map, reporting every problem under `path` (`tasks.<name>`). */
export function readTask(baseName: string, value: unknown, path: string, context: TaskContext, problems: ProblemList): TaskSpec {
  const task = createDefaultTask(baseName, context);
  if (!isYamlMap(value)) {
    reportWrongType(value, 'a map of task keys', path, problems);
    return task;
  }
  let matrixKeys = new Set<string>();
  let axes: MatrixAxis[] | undefined;
  for (const [key, raw] of value) {
    const keyPath = joinPath(path, key);
    switch (key) {
      case 'image':
        task.image = readString(raw, keyPath, problems, { nonEmpty: true }) ?? '';
        break;
      case 'script':
        task.script = readStringList(raw, keyPath, problems, { allowSingle: true, nonEmpty: true, entry: { nonEmpty: true } });
        break;
      case 'needs':
        task.needs = readNeeds(raw, keyPath, context.baseNames, problems);
        break;
      case 'matrix':
        ({ keys: matrixKeys, axes } = readMatrix(raw, keyPath, problems));
        break;
      case 'arch':
        task.arch = readString(raw, keyPath, problems, { pattern: ARCH, patternMessage: `must match ${String(ARCH)}` }) ?? DEFAULT_ARCH;
        break;
      case 'requires':
        task.requires = removeDuplicates(readStringList(raw, keyPath, problems, {
          entry: { pattern: FEATURE, patternMessage: `worker features must match ${String(FEATURE)}` },
        }));
        break;
      case 'env':
        task.env = readEnv(raw, keyPath, problems);
        break;
      case 'services':
        task.services = readServices(raw, keyPath, problems);
        break;
      case 'artifacts':
        ({ paths: task.artifacts, expireIn: task.artifactExpireIn } = readArtifacts(raw, keyPath, problems));
        break;
      case 'workdir':
        task.workdir = readWorkdir(raw, keyPath, problems);
        break;
      case 'timeout':
        task.timeout = readTimeout(raw, keyPath, problems) ?? DEFAULT_TIMEOUT_SECONDS;
        break;
      case 'retries':
        task.retries = readIntegerInRange(raw, keyPath, problems, 0, MAX_RETRIES) ?? 0;
        break;
      case 'allow_failure':
        task.allowFailure = readBoolean(raw, keyPath, problems) ?? false;
        break;
      default:
        reportUnknownKey(keyPath, key, TASK_KEYS, problems);
    }
  }
  if (!value.has('script')) problems.add(joinPath(path, 'script'), 'required');
  checkImageReferences(task, value.has('image') ? joinPath(path, 'image') : 'image', matrixKeys, problems);
  if (value.has('matrix')) buildVariants(task, axes, joinPath(path, 'matrix'), problems);
  return task;
}

function createDefaultTask(baseName: string, context: TaskContext): TaskSpec {
  return {
    baseName,
    image: context.pipelineImage ?? '',
    script: [],
    env: {},
    arch: DEFAULT_ARCH,
    requires: [],
    services: [],
    artifacts: [],
    artifactExpireIn: null,
    workdir: DEFAULT_WORKDIR,
    timeout: DEFAULT_TIMEOUT_SECONDS,
    retries: 0,
    allowFailure: false,
    needs: [],
    variants: [{}],
    variantNames: [baseName],
    variantCount: 1,
  };
}

/** `${key}` in the task's image or its services' images must name a key of this task's matrix. */
function checkImageReferences(task: TaskSpec, imagePath: string, matrixKeys: ReadonlySet<string>, problems: ProblemList): void {
  for (const key of findUnknownReferences(task.image, matrixKeys)) {
    // The top-level image is shared, so the message names the task whose matrix lacks the key.
    const where = imagePath === 'image' ? `task ${task.baseName}` : 'this task';
    problems.add(imagePath, `\${${shortenKey(key)}} is not a matrix key of ${where}`);
  }
  for (const service of task.services) {
    for (const key of findUnknownReferences(service.image, matrixKeys)) {
      problems.add(service.imagePath, `\${${shortenKey(key)}} is not a matrix key of this task`);
    }
  }
}

function buildVariants(task: TaskSpec, axes: MatrixAxis[] | undefined, path: string, problems: ProblemList): void {
  if (!axes) return;
  task.variantCount = countVariants(axes);
  if (task.variantCount > MAX_VARIANTS_PER_TASK) {
    problems.add(path, `gives ${describeCount(task.variantCount)} variants; at most ${MAX_VARIANTS_PER_TASK} are allowed`);
    return;
  }
  const variants = expandMatrix(axes);
  const names = variants.map((matrix) => nameVariant(task.baseName, matrix));
  // Values repeated within one key were reported by readMatrix; values containing `,` or `=` can still collide.
  const repeated = findRepeated(names);
  if (repeated !== undefined) {
    problems.add(path, `two variants would both be named "${shortenKey(repeated)}"`);
    return;
  }
  task.variants = variants;
  task.variantNames = names;
}

function findRepeated(names: string[]): string | undefined {
  const seen = new Set<string>();
  for (const name of names) {
    if (seen.has(name)) return name;
    seen.add(name);
  }
  return undefined;
}

/** Writes a count that may be beyond exact integers (a matrix product can be astronomically large). */
export function describeCount(count: number): string {
  return Number.isSafeInteger(count) ? String(count) : 'more than 2^53';
}
