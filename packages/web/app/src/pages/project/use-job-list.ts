import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { pipeline, unwrap, type PipelineSchemas } from '../../api/client';

export type JobListing = PipelineSchemas['JobListing'];
export type JobStateFilter = 'running' | 'success' | 'failure' | 'canceled';

export const PAGE_SIZE = 25;
/** The API's largest page: a refresh reads back at most this many of the rows on screen. */
const MAX_PAGE = 100;

export interface JobFilter {
  ref: string | undefined;
  state: JobStateFilter | undefined;
}

export interface JobList {
  jobs: JobListing[] | null;
  error: unknown;
  /** True once more pages exist after the rows shown. */
  hasMore: boolean;
  loadingMore: boolean;
  loadMore(): Promise<void>;
  /** Reads the rows on screen again (a live event said something changed). */
  refresh(): Promise<void>;
  /** The project's events to follow, from the first page's `events_after`: only what changed since it was read. */
  eventsAfter: number | null;
}

async function readPage(project: string, filter: JobFilter, limit: number, cursor?: string) {
  return unwrap(
    pipeline.GET('/api/v1/projects/{project}/jobs', {
      params: { path: { project }, query: { ref: filter.ref, state: filter.state, limit: String(limit), cursor } },
    }),
  );
}

/**
 * The project's jobs, newest first, a page at a time. A refresh re-reads as many rows as are shown
 * (up to the API's page limit) so a new job at the top never leaves a gap between pages.
 */
export function useJobList(project: string, filter: JobFilter): JobList {
  const [jobs, setJobs] = useState<JobListing[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loadingMore, setLoadingMore] = useState(false);
  const [eventsAfter, setEventsAfter] = useState<number | null>(null);
  const generation = useRef(0);
  const shown = useRef(0);
  shown.current = jobs?.length ?? 0;
  const key = `${project}\n${filter.ref ?? ''}\n${filter.state ?? ''}`;
  const current = useRef({ project, filter });
  current.current = { project, filter };

  const refresh = useCallback(async () => {
    const mine = ++generation.current;
    const { project: name, filter: active } = current.current;
    const limit = Math.min(MAX_PAGE, Math.max(PAGE_SIZE, shown.current));
    try {
      const page = await readPage(name, active, limit);
      if (mine !== generation.current) return;
      // Only the first read's position: the stream, once open, resumes by itself.
      setEventsAfter((before) => before ?? page.events_after);
      setJobs((before) => {
        // Rows beyond what a refresh can read back stay as they were.
        const seen = new Set(page.jobs.map((job) => job.id));
        const rest = before === null || before.length <= limit ? [] : before.slice(limit).filter((job) => !seen.has(job.id));
        if (rest.length === 0) setNext(page.next_cursor);
        return [...page.jobs, ...rest];
      });
      setError(null);
    } catch (caught) {
      if (mine === generation.current) setError(caught);
    }
  }, []);

  useEffect(() => {
    setJobs(null);
    setNext(null);
    setError(null);
    setEventsAfter(null);
    void refresh();
  }, [key, refresh]);

  const loadMore = useCallback(async () => {
    if (next === null) return;
    const mine = generation.current;
    setLoadingMore(true);
    try {
      const page = await readPage(current.current.project, current.current.filter, PAGE_SIZE, next);
      if (mine !== generation.current) return;
      setJobs((before) => {
        const seen = new Set((before ?? []).map((job) => job.id));
        return [...(before ?? []), ...page.jobs.filter((job) => !seen.has(job.id))];
      });
      setNext(page.next_cursor);
    } catch (caught) {
      setError(caught);
    } finally {
      setLoadingMore(false);
    }
  }, [next]);

  return { jobs, error, hasMore: next !== null, loadingMore, loadMore, refresh, eventsAfter };
}
