// Who the task is and how it went: breadcrumbs, name, state, attempt, duration, worker, exit code or error.
import { useEffect, useState } from 'preact/hooks';
import type { PipelineSchemas } from '../../api/client';
import { StateBadge } from '../../components/common';
import { elapsed, formatTime, shortRef } from '../../lib/format';

type Task = PipelineSchemas['Task'];

const UNFINISHED = ['blocked', 'waiting', 'running'];

export function isUnfinished(state: string): boolean {
  return UNFINISHED.includes(state);
}

/** Now, once a second while `ticking` (a running task's duration counts up). */
function useNow(ticking: boolean): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!ticking) return;
    const timer = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(timer);
  }, [ticking]);
  return now;
}

export function TaskHeader({ task, project, job }: { task: Task; project: string; job: string }) {
  const now = useNow(task.state === 'running');
  const outcome =
    task.error !== null ? `Error: ${task.error}` : task.exit_code !== null ? `Exit code ${task.exit_code}` : null;
  return (
    <header class="task-header">
      <nav class="breadcrumbs" aria-label="Breadcrumb">
        <a href={`/projects/${encodeURIComponent(project)}`}>{project}</a> /{' '}
        <a href={`/projects/${encodeURIComponent(project)}/jobs/${encodeURIComponent(job)}`}>Job #{task.job_number}</a> / {task.name}
      </nav>
      <div class="page-header">
        <div>
          <h1>
            {task.name} <StateBadge state={task.state} />
          </h1>
          <p class="subtitle">
            {shortRef(task.ref)} at <code>{task.sha.slice(0, 8)}</code>
          </p>
        </div>
      </div>
      <dl class="task-facts">
        <div>
          <dt>Attempt</dt>
          <dd>
            {task.attempt} of {task.max_attempts}
          </dd>
        </div>
        <div>
          <dt>Duration</dt>
          <dd title={task.started_at !== null ? `Started ${formatTime(task.started_at)}` : undefined}>{task.started_at !== null ? elapsed(task.started_at, task.finished_at, now) : 'Not started'}</dd>
        </div>
        <div>
          <dt>Worker</dt>
          <dd>{task.worker_name ?? 'None yet'}</dd>
        </div>
        {outcome !== null ? (
          <div>
            <dt>Outcome</dt>
            <dd class={task.state === 'failure' ? 'task-failed' : undefined}>{outcome}</dd>
          </div>
        ) : null}
      </dl>
    </header>
  );
}
