import type { ProblemList } from './problems.js';
import type { NeedReference } from './read-needs.js';
import type { TaskSpec } from './read-task.js';

/** Where the depth-first search stands in one task: the task and the next of its needs to follow. */
interface Frame {
  task: TaskSpec;
  next: number;
}

/**
 * Reports every cycle in `needs` that a depth-first search meets, each once: at the `needs` entry that
 * closes it, with a message such as `needs form a cycle: a -> b -> a`. Works on base names, since a
 * task needing a matrix task needs all of its variants. Iterative, so a long chain cannot overflow the stack.
 */
export function reportCycles(tasks: readonly TaskSpec[], problems: ProblemList): void {
  const byName = new Map(tasks.map((task) => [task.baseName, task]));
  const finished = new Set<string>();
  const onPath = new Map<string, number>();
  const path: Frame[] = [];

  for (const start of tasks) {
    if (finished.has(start.baseName)) continue;
    enter(start);
    while (path.length > 0) {
      const frame = path[path.length - 1] as Frame;
      const need: NeedReference | undefined = frame.task.needs[frame.next];
      if (!need) {
        leave(frame.task);
        continue;
      }
      frame.next += 1;
      const depth = onPath.get(need.baseName);
      if (depth !== undefined) {
        reportCycle(depth, need, problems);
        continue;
      }
      const target = byName.get(need.baseName);
      if (target && !finished.has(target.baseName)) enter(target);
    }
  }

  function enter(task: TaskSpec): void {
    onPath.set(task.baseName, path.length);
    path.push({ task, next: 0 });
  }

  function leave(task: TaskSpec): void {
    path.pop();
    onPath.delete(task.baseName);
    finished.add(task.baseName);
  }

  function reportCycle(depth: number, closing: NeedReference, list: ProblemList): void {
    const names = path.slice(depth).map((frame) => frame.task.baseName);
    list.add(closing.path, `needs form a cycle: ${[...names, closing.baseName].join(' -> ')}`);
  }
}
