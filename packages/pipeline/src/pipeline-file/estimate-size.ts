import type { PipelineSpec } from './read-pipeline.js';
import type { TaskSpec } from './read-task.js';

// Every string costs its length plus a little, so a flood of empty strings still counts.
const PER_STRING = 8;

/**
 * Estimates, in string characters and without building anything, how large the compiled tasks would be.
 * The estimate is an upper bound: env keys repeated between levels are counted twice.
 */
export function estimateCompiledSize(spec: PipelineSpec): number {
  const namesSize = new Map(spec.tasks.map((task) => [task.baseName, measureStrings(task.variantNames)]));
  const pipelineEnvSize = measureRecord(spec.env);
  let total = 0;
  for (const task of spec.tasks) {
    const needsSize = task.needs.reduce((sum, need) => sum + (namesSize.get(need.baseName) ?? 0), 0);
    const shared = measureTask(task) + pipelineEnvSize + needsSize;
    for (const [index, matrix] of task.variants.entries()) {
      // The matrix appears in the name, in `matrix` and in `env`.
      total += shared + (task.variantNames[index]?.length ?? 0) + 2 * measureRecord(matrix);
    }
  }
  return total;
}

function measureTask(task: TaskSpec): number {
  const services = task.services.reduce(
    (sum, service) => sum + measureStrings([service.name, service.image, ...service.command]) + measureRecord(service.env),
    0,
  );
  return (
    measureStrings([task.baseName, task.image, task.arch, task.workdir]) +
    measureStrings(task.script) +
    measureStrings(task.requires) +
    measureStrings(task.artifacts) +
    measureRecord(task.env) +
    services
  );
}

function measureStrings(values: readonly string[]): number {
  return values.reduce((sum, value) => sum + value.length + PER_STRING, 0);
}

function measureRecord(record: Record<string, string>): number {
  return Object.entries(record).reduce((sum, [key, value]) => sum + key.length + value.length + 2 * PER_STRING, 0);
}
