import { useLocation, useRoute } from 'preact-iso';
import { ApiError } from '../../api/client';
import { ErrorBox, Loading, PageHeader } from '../../components/common';
import { useSession } from '../../lib/session';
import { readProjectIfVisible } from '../../lib/read-project';
import { useCoalesced, useLiveEvents, useNow } from '../../lib/use-live-events';
import { LiveIndicator } from '../job/facts';
import { useResource } from '../../lib/use-resource';
import { useTitle } from '../../lib/use-title';
import { NotFound } from '../not-found';
import { FirstJobHelp, NoMatchingJobs } from './empty';
import { JobFilters, refOfBranch } from './filters';
import { JobsTable } from './jobs-table';
import { RunPipeline } from './run-pipeline';
import { useJobList, type JobStateFilter } from './use-job-list';
import './project.css';


const JOB_STATES: readonly string[] = ['running', 'success', 'failure', 'canceled'];

interface JobEvent {
  id: string;
  number: number;
  state: string;
}

export default function ProjectPage() {
  const { params } = useRoute();
  const { query } = useLocation();
  const { session } = useSession();
  const name = params['project'] ?? '';
  const branch = query['branch'] ?? '';
  const stateQuery = query['state'] ?? '';
  const state = JOB_STATES.includes(stateQuery) ? (stateQuery as JobStateFilter) : undefined;
  const filtered = branch !== '' || state !== undefined;
  useTitle(name);

  const project = useResource(`project:${name}:${session?.user.id ?? ''}`, () => readProjectIfVisible(name));
  const list = useJobList(name, { ref: branch === '' ? undefined : refOfBranch(branch), state });

  // Re-read the rows on screen when an event names a job newer than the newest shown, or a shown job's
  // state changed. The stream starts after the first page's events_after, so it carries only what
  // changed since that read, never the project's history.
  const refresh = useCoalesced(() => void list.refresh(), 250);
  const eventsUrl = list.error === null && list.eventsAfter !== null ? `/api/v1/projects/${encodeURIComponent(name)}/events?after=${list.eventsAfter}` : null;
  const live = useLiveEvents(eventsUrl, ['job'], (_name, data) => {
    const event = data as JobEvent;
    const jobs = list.jobs;
    // Before the first page has answered, the page may predate the event.
    if (jobs === null) {
      refresh();
      return;
    }
    const shown = jobs.find((job) => job.id === event.id);
    const newest = jobs[0]?.number ?? 0;
    if ((shown === undefined && event.number > newest) || (shown !== undefined && shown.state !== event.state)) refresh();
  });

  const running = list.jobs?.some((job) => job.state === 'running') ?? false;
  const now = useNow(true, running ? 1000 : 30_000);

  if (list.error instanceof ApiError && list.error.status === 404) return <NotFound />;

  const info = project.data;
  const mayManage = info?.may_manage === true;
  // Signed out, the jobs of a project are listed only when it is public.
  const visibility = info?.visibility ?? (session === null && list.jobs !== null ? 'public' : null);
  const lastBranch = list.jobs?.find((job) => job.ref.startsWith('refs/heads/'))?.ref.slice('refs/heads/'.length);

  return (
    <section class="project-page">
      <nav class="breadcrumbs" aria-label="Breadcrumbs">
        <a href="/">Projects</a> / {name}
      </nav>
      <PageHeader
        title={name}
        subtitle={
          <>
            {visibility !== null ? <span class={`visibility visibility-${visibility}`}>{visibility === 'public' ? 'Public' : 'Private'}</span> : null}
            {info !== null && !info.enabled ? <span class="visibility">Disabled</span> : null}
            {info !== null ? <span class="repo mono">{info.repo}</span> : null}
          </>
        }
      >
        <LiveIndicator state={live} />
        {mayManage ? (
          <a class="button secondary" href={`/projects/${encodeURIComponent(name)}/settings`}>
            Settings
          </a>
        ) : null}
      </PageHeader>
      <ErrorBox error={project.error} title="The project's settings could not be read" />
      <h2 class="visually-hidden">Jobs</h2>
      <div class="jobs-toolbar">
        <JobFilters branch={branch} state={state ?? ''} branches={list.jobs ?? []} />
        {mayManage && info !== null ? <RunPipeline project={name} defaultRef={lastBranch ?? 'main'} disabled={!info.enabled} /> : null}
      </div>
      {list.error !== null ? <ErrorBox error={list.error} title="The jobs could not be read" /> : null}
      {list.jobs === null ? (
        list.error === null ? <Loading what="jobs" /> : null
      ) : list.jobs.length === 0 ? (
        filtered ? <NoMatchingJobs project={name} /> : <FirstJobHelp project={name} mayManage={mayManage} />
      ) : (
        <>
          <JobsTable project={name} jobs={list.jobs} now={now} />
          {list.hasMore ? (
            <p class="load-more">
              <button type="button" class="button secondary" disabled={list.loadingMore} onClick={() => void list.loadMore()}>
                {list.loadingMore ? 'Loading…' : 'Load more'}
              </button>
            </p>
          ) : null}
        </>
      )}
    </section>
  );
}
