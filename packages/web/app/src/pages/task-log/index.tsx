// The task log page: the task's header, its log (opened at the tail, followed live, searched and read
// in ranges; see log-view.tsx) and the attempt's artifacts; earlier attempts by `?attempt=N`.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso';
import { ApiError, pipeline, unwrap, type PipelineSchemas } from '../../api/client';
import { EmptyState, ErrorBox, Loading, SignInPrompt } from '../../components/common';
import { useResource } from '../../lib/use-resource';
import { useSession } from '../../lib/session';
import { useTitle } from '../../lib/use-title';
import { useCoalesced, useLiveEvents } from '../../lib/use-live-events';
import { Artifacts } from './artifacts';
import { LogController } from './log-controller';
import { logUrl } from './log-source';
import { LogView } from './log-view';
import { isUnfinished, TaskHeader } from './task-header';
import './task-log.css';

type TaskRead = PipelineSchemas['TaskRead'];
type JobRead = PipelineSchemas['JobRead'];

function readAttempt(value: string | undefined): number | null {
  return value !== undefined && /^[1-9]\d*$/.test(value) ? Number(value) : null;
}

function readHashLine(): number | null {
  const match = /^#L(\d+)$/.exec(location.hash);
  return match === null ? null : Number(match[1]);
}

/** Re-reads the task when the job's event stream says it changed (state, attempt, exit code). */
/** Calls `onChange` (at most 4 times a second) when the job's events say this task changed. */
function useTaskEvents(project: string, job: string, task: string, onChange: () => void): void {
  const refresh = useCoalesced(onChange, 250);
  useLiveEvents(`/api/v1/projects/${encodeURIComponent(project)}/jobs/${encodeURIComponent(job)}/events`, ['task'], (_name, data) => {
    if ((data as { id?: unknown }).id === task) refresh();
  });
}

/** Counts the changes of the latest attempt after the first one seen (a retry while the page is open). */
function useAttemptGeneration(attempt: number | null): number {
  const seen = useRef<number | null>(null);
  const generation = useRef(0);
  if (attempt !== null) {
    if (seen.current !== null && seen.current !== attempt) generation.current += 1;
    seen.current = attempt;
  }
  return generation.current;
}

function useSelectedLine(): [number | null, (line: number) => void] {
  const [line, setLine] = useState(readHashLine);
  useEffect(() => {
    const update = () => setLine(readHashLine());
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  const select = (next: number) => {
    history.replaceState(history.state, '', `${location.pathname}${location.search}#L${next}`);
    setLine(next);
  };
  return [line, select];
}

function AttemptPicker({ task, selected, onPick }: { task: PipelineSchemas['Task']; selected: number; onPick(attempt: number): void }) {
  if (task.attempt <= 1) return null;
  const attempts = Array.from({ length: task.attempt }, (_, index) => index + 1);
  return (
    <div class="attempt-picker">
      <label for="attempt">Attempt</label>
      <select id="attempt" value={String(selected)} onChange={(event) => onPick(Number(event.currentTarget.value))}>
        {attempts.map((attempt) => (
          <option key={attempt} value={String(attempt)}>
            Attempt {attempt}
            {attempt === task.attempt ? ' (latest)' : ''}
          </option>
        ))}
      </select>
    </div>
  );
}

function WaitingNotice({ task, job }: { task: PipelineSchemas['Task']; job: JobRead | null }) {
  if (task.state === 'waiting') {
    const reason = job?.tasks.find((summary) => summary.id === task.id)?.waiting_reason ?? null;
    return (
      <EmptyState title="Waiting for a worker">
        <p>{reason !== null ? `No connected worker can take it: ${reason}.` : 'No worker has picked it up yet; the log appears here as soon as one does.'}</p>
      </EmptyState>
    );
  }
  if (task.state === 'blocked') {
    return (
      <EmptyState title="Waiting for the tasks it needs">
        <p>It starts once {task.needs.join(', ')} succeeded.</p>
      </EmptyState>
    );
  }
  return null;
}

export default function TaskLogPage() {
  const { params } = useRoute();
  const { query, path, route } = useLocation();
  const { session } = useSession();
  const project = params['project'] ?? '';
  const job = params['job'] ?? '';
  const taskId = params['task'] ?? '';
  const chosen = readAttempt(query['attempt']);

  const task = useResource<TaskRead>(`${project}/${taskId}/${chosen ?? ''}`, () =>
    unwrap(pipeline.GET('/api/v1/projects/{project}/tasks/{task}', { params: { path: { project, task: taskId }, query: chosen === null ? {} : { attempt: String(chosen) } } })),
  );
  const jobRead = useResource<JobRead>(`${project}/${job}`, () => unwrap(pipeline.GET('/api/v1/projects/{project}/jobs/{job}', { params: { path: { project, job } } })));
  useTaskEvents(project, job, taskId, () => {
    void task.reload();
    void jobRead.reload();
  });
  const [selectedLine, selectLine] = useSelectedLine();

  const current = task.data?.task ?? null;
  useTitle(current !== null ? `${current.name} · job #${current.job_number}` : 'Task log');

  // One controller per attempt shown, made at once so the tail is read beside the task; a retry seen
  // while showing the latest attempt makes a new one. The latest attempt is followed while unfinished.
  const generation = useAttemptGeneration(chosen === null ? (current?.attempt ?? null) : null);
  const controller = useMemo(
    () => new LogController({ project, job, task: taskId, attempt: chosen }, () => void task.reload()),
    // `generation` only tells when to start over.
    [project, job, taskId, chosen, generation],
  );
  useEffect(() => {
    void controller.open();
    return () => controller.dispose();
  }, [controller]);
  const live = current !== null && chosen === null && isUnfinished(current.state);
  useEffect(() => {
    if (current !== null) controller.setLive(live);
  }, [controller, current !== null, live]);

  if (task.error !== null && task.data === null) {
    if (task.error instanceof ApiError && task.error.status === 404) {
      return session === null ? (
        <SignInPrompt what="see this task" />
      ) : (
        <EmptyState title="Task not found">
          <p>
            There is no such task, or it belongs to a project you cannot see. <a href={`/projects/${encodeURIComponent(project)}/jobs/${encodeURIComponent(job)}`}>Back to the job</a>
          </p>
        </EmptyState>
      );
    }
    return <ErrorBox error={task.error} title="The task could not be loaded" />;
  }
  if (current === null || task.data === null) return <Loading what="the task" />;

  const shownAttempt = chosen ?? Math.max(current.attempt, 1);
  const pick = (attempt: number) => route(attempt === current.attempt ? path : `${path}?attempt=${attempt}`);
  return (
    <div class="task-log-page">
      <TaskHeader task={current} project={project} job={job} />
      <ErrorBox error={task.error} title="The task could not be refreshed" />
      <div class="attempt-row">
        <AttemptPicker task={current} selected={shownAttempt} onPick={pick} />
        {chosen !== null && chosen !== current.attempt ? (
          <p class="notice">
            You are reading attempt {chosen} of {current.attempt}; the details above are the latest attempt's. <a href={path}>Show the latest attempt</a>
          </p>
        ) : null}
      </div>
      {chosen === null ? <WaitingNotice task={current} job={jobRead.data} /> : null}
      <LogView
        key={String(shownAttempt)}
        controller={controller}
        label={`Log of ${current.name}, attempt ${shownAttempt}`}
        downloadUrl={logUrl({ project, job, task: taskId, attempt: chosen })}
        selectedLine={selectedLine}
        onSelectLine={selectLine}
      />
      <Artifacts artifacts={task.data.artifacts} patterns={current.artifact_paths} attempt={shownAttempt} project={project} job={job} task={taskId} />
    </div>
  );
}
