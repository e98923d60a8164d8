import type { PipelineSpec } from './read-pipeline.js';
import type { TaskSpec } from './read-task.js';
import { mergeRecords } from './records.js';
import { substituteMatrix } from './substitute-matrix.js';
import type { CompiledTask } from './types.js';

/** Turns a problem-free pipeline into its tasks: the file's task order, each task's variants in matrix order. */
export function buildTasks(spec: PipelineSpec): CompiledTask[] {
  const namesByBase = new Map(spec.tasks.map((task) => [task.baseName, task.variantNames]));
  const compiled: CompiledTask[] = [];
  for (const task of spec.tasks) {
    const needs = task.needs.flatMap((need) => namesByBase.get(need.baseName) ?? []);
    for (const [index, matrix] of task.variants.entries()) {
      compiled.push(buildVariant(task, task.variantNames[index] ?? task.baseName, matrix, spec.env, needs));
    }
  }
  return compiled;
}

// Each variant gets its own arrays and records, so a caller changing one task cannot change another.
function buildVariant(
  task: TaskSpec,
  name: string,
  matrix: Record<string, string>,
  pipelineEnv: Record<string, string>,
  needs: string[],
): CompiledTask {
  return {
    name,
    baseName: task.baseName,
    image: substituteMatrix(task.image, matrix),
    script: [...task.script],
    env: mergeRecords(pipelineEnv, task.env, matrix),
    arch: task.arch,
    requires: [...task.requires],
    services: task.services.map((service) => ({
      name: service.name,
      image: substituteMatrix(service.image, matrix),
      env: mergeRecords(service.env),
      command: [...service.command],
    })),
    artifactPaths: [...task.artifacts],
    artifactExpireIn: task.artifactExpireIn,
    workdir: task.workdir,
    timeout: task.timeout,
    maxAttempts: task.retries + 1,
    allowFailure: task.allowFailure,
    needs: [...needs],
    matrix: mergeRecords(matrix),
  };
}
