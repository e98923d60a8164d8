import { joinPath, shortenKey } from './problems.js';
import type { ProblemList } from './problems.js';
import { readEnv } from './read-env.js';
import { describeCount, readTask } from './read-task.js';
import type { TaskContext, TaskSpec } from './read-task.js';
import { describeValue, isYamlMap, readString, reportWrongType } from './read-values.js';
import type { YamlMap } from './read-values.js';
import { reportUnknownKey } from './report-unknown-key.js';
import { MAX_TASKS } from './types.js';

const PIPELINE_KEYS = ['image', 'env', 'tasks'] as const;
const TASK_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/;

/** The whole file as read, before matrix variants are turned into tasks. */
export interface PipelineSpec {
  env: Record<string, string>;
  tasks: TaskSpec[];
}

/**
 * Reads the parsed file, walking it in the file's order so problems come out in that order.
 * Returns undefined when there is nothing to build tasks from.
 */
export function readPipeline(root: unknown, problems: ProblemList): PipelineSpec | undefined {
  if (root === null || root === undefined) {
    problems.add('tasks', 'required: the file is empty (or only comments) and defines no tasks');
    return undefined;
  }
  if (!isYamlMap(root)) {
    problems.add('', `the file must be a map with a "tasks" key, got ${describeValue(root)}`);
    return undefined;
  }
  const context = readTaskContext(root);
  const spec: PipelineSpec = { env: {}, tasks: [] };
  for (const [key, value] of root) {
    switch (key) {
      case 'image':
        readString(value, 'image', problems, { nonEmpty: true });
        break;
      case 'env':
        spec.env = readEnv(value, 'env', problems);
        break;
      case 'tasks':
        spec.tasks = readTasks(value, context, problems);
        break;
      default:
        reportUnknownKey(key, key, PIPELINE_KEYS, problems);
    }
  }
  if (!root.has('tasks')) problems.add('tasks', 'required: the file defines no tasks');
  return spec;
}

/** Tasks may name tasks declared after them, and may rely on a top-level image written after them. */
function readTaskContext(root: YamlMap): TaskContext {
  const tasks = root.get('tasks');
  const image = root.get('image');
  return {
    baseNames: new Set(isYamlMap(tasks) ? tasks.keys() : []),
    pipelineImage: typeof image === 'string' && image !== '' ? image : undefined,
  };
}

function readTasks(value: unknown, context: TaskContext, problems: ProblemList): TaskSpec[] {
  if (!isYamlMap(value)) {
    reportWrongType(value, 'a map of task names to tasks', 'tasks', problems);
    return [];
  }
  if (value.size === 0) {
    problems.add('tasks', 'must define at least one task');
    return [];
  }
  const tasks: TaskSpec[] = [];
  for (const [baseName, raw] of value) {
    const path = joinPath('tasks', baseName);
    if (!TASK_NAME.test(baseName)) {
      problems.add(path, `task name "${shortenKey(baseName)}" must match ${String(TASK_NAME)}`);
    }
    tasks.push(readTask(baseName, raw, path, context, problems));
  }
  const total = tasks.reduce((sum, task) => sum + task.variantCount, 0);
  if (total > MAX_TASKS) {
    problems.add('tasks', `the file gives ${describeCount(total)} tasks (counting matrix variants); at most ${MAX_TASKS} are allowed`);
  }
  return tasks;
}
