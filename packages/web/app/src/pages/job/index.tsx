import { useRoute } from 'preact-iso';
import { useEffect, useRef } from 'preact/hooks';
import { ApiError, pipeline, unwrap, type PipelineSchemas } from '../../api/client';
import { ErrorBox, Loading, PageHeader, StateBadge } from '../../components/common';
import { shortRef } from '../../lib/format';
import { useSession } from '../../lib/session';
import { readProjectIfVisible } from '../../lib/read-project';
import { useCoalesced, useLiveEvents, useNow } from '../../lib/use-live-events';
import { useResource } from '../../lib/use-resource';
import { useTitle } from '../../lib/use-title';
import { NotFound } from '../not-found';
import { JobActions } from './actions';
import { Age, Commit, Duration, LiveIndicator, triggerLabel } from './facts';
import { TaskGraph, type TaskSummary } from './graph';
import './job.css';

type JobRead = PipelineSchemas['JobRead'];

/** At most four reads of the job a second, however many events a burst brings. */
const REFRESH_INTERVAL_MS = 250;

interface TaskEvent {
  id: string;
  state: string;
  attempt: number;
}

/**
 * True when an event says something the page does not show yet (a replayed old event says nothing new).
 * Before the first read has answered, every event is news: the read may predate it.
 */
function isNews(read: JobRead | null, name: string, data: unknown): boolean {
  if (read === null) return true;
  if (name === 'job') return (data as { state: string }).state !== read.job.state;
  const event = data as TaskEvent;
  const task = read.tasks.find((candidate) => candidate.id === event.id);
  return task === undefined || task.state !== event.state || task.attempt !== event.attempt;
}

export default function JobPage() {
  const { params } = useRoute();
  const { session } = useSession();
  const project = params['project'] ?? '';
  const jobParam = params['job'] ?? '';
  const read = useResource(`job:${project}:${jobParam}`, () =>
    unwrap(pipeline.GET('/api/v1/projects/{project}/jobs/{job}', { params: { path: { project, job: jobParam } } })),
  );
  const manage = useResource(`manage:${project}:${session?.user.id ?? ''}`, async () => (await readProjectIfVisible(project))?.may_manage === true);
  const data = read.data;
  useTitle(data === null ? `Job ${jobParam}` : `Job #${data.job.number} · ${project}`);

  const refresh = useCoalesced(() => void read.reload(), REFRESH_INTERVAL_MS);
  const eventsUrl = read.error === null ? `/api/v1/projects/${encodeURIComponent(project)}/jobs/${encodeURIComponent(jobParam)}/events` : null;
  const live = useLiveEvents(eventsUrl, ['job', 'task'], (name, event) => {
    if (isNews(read.data, name, event)) refresh();
  });
  const running = data?.job.state === 'running';
  const now = useNow(running, 1000);

  // The benchmark's mark: the first render with the job and the manage decision on screen.
  const ready = data !== null && !manage.loading;
  const marked = useRef(false);
  useEffect(() => {
    if (ready && !marked.current) {
      marked.current = true;
      performance.mark('conveyor:job-page-ready');
    }
  }, [ready]);

  if (read.error instanceof ApiError && read.error.status === 404) return <NotFound />;
  const projectHref = `/projects/${encodeURIComponent(project)}`;
  const breadcrumbs = (
    <nav class="breadcrumbs" aria-label="Breadcrumbs">
      <a href="/">Projects</a> / <a href={projectHref}>{project}</a> / {data === null ? jobParam : `#${data.job.number}`}
    </nav>
  );
  if (data === null) {
    return (
      <section class="job-page">
        {breadcrumbs}
        {read.error !== null ? <ErrorBox error={read.error} title="The job could not be read" /> : <Loading what="the job" />}
      </section>
    );
  }

  const { job, tasks } = data;
  const taskHref = (task: TaskSummary) => `${projectHref}/jobs/${job.number}/tasks/${encodeURIComponent(task.id)}`;
  const started = tasks.reduce<number | null>((first, task) => (task.started_at !== null && (first === null || task.started_at < first) ? task.started_at : first), null);

  return (
    <section class="job-page" data-ready={ready ? 'true' : undefined}>
      {breadcrumbs}
      <PageHeader
        title={
          <>
            Job #{job.number} <StateBadge state={job.state} />
          </>
        }
      >
        <LiveIndicator state={live} />
      </PageHeader>
      <dl class="job-facts">
        <div>
          <dt>Ref</dt>
          <dd title={job.ref}>{shortRef(job.ref) || '–'}</dd>
        </div>
        <div class="job-commit">
          <dt>Commit</dt>
          <dd>
            <Commit sha={job.head_sha} message={job.commit_message} />
          </dd>
        </div>
        <div>
          <dt>Actor</dt>
          <dd>{job.actor || '–'}</dd>
        </div>
        <div>
          <dt>Trigger</dt>
          <dd>{triggerLabel(job.trigger)}</dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>
            <Age at={job.created_at} now={now} />
          </dd>
        </div>
        <div>
          <dt>Duration</dt>
          <dd>
            <Duration start={started} end={job.finished_at} now={now} />
          </dd>
        </div>
      </dl>
      <ErrorBox error={read.error} title="The job could not be read again" />
      {manage.data === true ? <JobActions project={project} read={data} onChanged={(next) => read.set(() => next)} /> : null}
      <h2>Tasks</h2>
      {tasks.length === 0 ? <p class="muted">This job has no tasks.</p> : <TaskGraph tasks={tasks} taskHref={taskHref} now={now} />}
    </section>
  );
}
