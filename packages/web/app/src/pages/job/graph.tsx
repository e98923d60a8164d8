import { useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { PipelineSchemas } from '../../api/client';
import { StateBadge } from '../../components/common';
import { Duration } from './facts';
import { layoutGraph, variantLabel, type TaskGroup } from './graph-layout';

export type TaskSummary = PipelineSchemas['TaskSummary'];

/** Above this many variants a matrix box starts folded, unless one of them failed or runs. */
const FOLD_ABOVE = 32;

interface Edge {
  key: string;
  path: string;
}

function TaskItem({ task, href, now, showWhy }: { task: TaskSummary; href: string; now: number; showWhy: boolean }) {
  return (
    <li class={`task task-${task.state}`} data-task={task.name}>
      <a class="task-link" href={href}>
        <StateBadge state={task.state} />
        <span class="task-name">{variantLabel(task)}</span>
        {task.attempt > 1 ? <span class="attempt">attempt {task.attempt}</span> : null}
        {task.started_at !== null ? <Duration start={task.started_at} end={task.finished_at} now={now} /> : null}
      </a>
      {showWhy && task.state === 'waiting' && task.waiting_reason !== null ? <p class="why">Not picked up: {task.waiting_reason}</p> : null}
    </li>
  );
}

function countStates(tasks: TaskSummary[]): string {
  const counts = new Map<string, number>();
  for (const task of tasks) counts.set(task.state, (counts.get(task.state) ?? 0) + 1);
  const words: Record<string, string> = { success: 'succeeded', failure: 'failed', running: 'running', waiting: 'waiting', blocked: 'blocked', skipped: 'skipped', canceled: 'canceled' };
  return [...counts].map(([state, count]) => `${count} ${words[state] ?? state}`).join(', ');
}

/** The one reason every waiting variant of a matrix shares, said once for the box instead of per line. */
function sharedReason(tasks: TaskSummary[]): string | null {
  const reasons = new Set(tasks.filter((task) => task.state === 'waiting').map((task) => task.waiting_reason));
  const [reason] = reasons;
  return tasks.length > 1 && reasons.size === 1 && reason != null ? reason : null;
}

function Group({ group, taskHref, now }: { group: TaskGroup<TaskSummary>; taskHref: (task: TaskSummary) => string; now: number }) {
  const needs = group.needs.length > 0 ? <p class="needs">needs: {group.needs.join(', ')}</p> : null;
  const shared = sharedReason(group.tasks);
  const items = (
    <ul class="tasks">
      {group.tasks.map((task) => (
        <TaskItem key={task.id} task={task} href={taskHref(task)} now={now} showWhy={shared === null} />
      ))}
    </ul>
  );
  if (!group.matrix && group.tasks.length === 1) {
    return (
      <div class="group" data-group={group.baseName}>
        {items}
        {needs}
      </div>
    );
  }
  const attention = group.tasks.some((task) => task.state === 'failure' || task.state === 'running');
  return (
    <details class="group matrix" data-group={group.baseName} open={group.tasks.length <= FOLD_ABOVE || attention}>
      <summary>
        <span class="group-name">{group.baseName}</span>
        <span class="group-summary">
          {group.tasks.length} variants: {countStates(group.tasks)}
        </span>
      </summary>
      {shared !== null ? <p class="why">Waiting variants not picked up: {shared}</p> : null}
      {items}
      {needs}
    </details>
  );
}

/** Where each group's box is, relative to the graph: edges run from a box's right side to a dependent's left side. */
function measureEdges(container: HTMLElement, edges: { from: string; to: string }[]): Edge[] {
  const origin = container.getBoundingClientRect();
  const boxes = new Map<string, DOMRect>();
  for (const element of container.querySelectorAll<HTMLElement>('[data-group]')) boxes.set(element.dataset['group'] ?? '', element.getBoundingClientRect());
  const drawn: Edge[] = [];
  for (const edge of edges) {
    const from = boxes.get(edge.from);
    const to = boxes.get(edge.to);
    if (from === undefined || to === undefined) continue;
    const x1 = from.right - origin.left + container.scrollLeft;
    const y1 = from.top + Math.min(from.height / 2, 22) - origin.top;
    const x2 = to.left - origin.left + container.scrollLeft;
    const y2 = to.top + Math.min(to.height / 2, 22) - origin.top;
    const bend = Math.max(16, (x2 - x1) / 2);
    drawn.push({ key: `${edge.from}>${edge.to}`, path: `M${x1},${y1} C${x1 + bend},${y1} ${x2 - bend},${y2} ${x2},${y2}` });
  }
  return drawn;
}

/** The tasks in columns by dependency depth, matrix variants boxed under their base name, edges between boxes. */
export function TaskGraph({ tasks, taskHref, now }: { tasks: TaskSummary[]; taskHref: (task: TaskSummary) => string; now: number }) {
  const layout = useMemo(() => layoutGraph(tasks), [tasks]);
  const container = useRef<HTMLDivElement>(null);
  const [edges, setEdges] = useState<Edge[]>([]);
  const [size, setSize] = useState({ width: 0, height: 0 });

  useLayoutEffect(() => {
    const element = container.current;
    if (element === null) return undefined;
    const draw = () => {
      setEdges(measureEdges(element, layout.edges));
      setSize({ width: element.scrollWidth, height: element.scrollHeight });
    };
    draw();
    // A folded or unfolded matrix box, or a narrower window, moves the boxes.
    const observer = new ResizeObserver(draw);
    for (const box of element.querySelectorAll('[data-group]')) observer.observe(box);
    observer.observe(element);
    return () => observer.disconnect();
  }, [layout]);

  return (
    <div class="graph" ref={container}>
      <svg class="edges" aria-hidden="true" width={size.width} height={size.height}>
        {edges.map((edge) => (
          <path key={edge.key} d={edge.path} />
        ))}
      </svg>
      {layout.columns.map((column, index) => (
        <section class="stage" key={index} aria-label={`Stage ${index + 1}`}>
          <h3 class="stage-title">Stage {index + 1}</h3>
          {column.map((group) => (
            <Group key={group.baseName} group={group} taskHref={taskHref} now={now} />
          ))}
        </section>
      ))}
    </div>
  );
}
