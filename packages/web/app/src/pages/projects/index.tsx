import { useState } from 'preact/hooks';
import { pipeline, unwrap, type PipelineSchemas } from '../../api/client';
import { EmptyState, ErrorBox, Loading, PageHeader, StateBadge } from '../../components/common';
import { formatAge, formatTime, shortRef } from '../../lib/format';
import { useSession } from '../../lib/session';
import { useResource } from '../../lib/use-resource';
import { useTitle } from '../../lib/use-title';
import { NewProject } from './new-project';
import './projects.css';

type Listing = PipelineSchemas['ProjectListing'];

interface Loaded {
  projects: Listing[];
  nextCursor: string | null;
}

async function loadPage(cursor: string | null): Promise<Loaded> {
  const page = await unwrap(pipeline.GET('/api/v1/projects', { params: { query: cursor === null ? {} : { cursor } } }));
  return { projects: page.projects, nextCursor: page.next_cursor };
}

function LastJob({ project }: { project: Listing }) {
  const job = project.last_job;
  if (job === null) return <span class="muted">No jobs yet</span>;
  const href = `/projects/${encodeURIComponent(project.name)}/jobs/${job.number}`;
  return (
    <span class="last-job">
      <StateBadge state={job.state} />{' '}
      <a href={href} aria-label={`Job ${job.number} of ${project.name}`}>
        #{job.number}
      </a>{' '}
      <span class="mono">{shortRef(job.ref)}</span>{' '}
      <time class="muted" dateTime={new Date(job.created_at).toISOString()} title={formatTime(job.created_at)}>
        {formatAge(job.created_at)}
      </time>
    </span>
  );
}

function ProjectRow({ project }: { project: Listing }) {
  const base = `/projects/${encodeURIComponent(project.name)}`;
  return (
    <tr>
      <td>
        <a href={base} class="project-name">
          {project.name}
        </a>
        {project.enabled ? null : <span class="tag">disabled</span>}
        <div class="muted repo" title={project.repo}>
          {project.repo}
        </div>
      </td>
      <td>
        <span class={`tag visibility-${project.visibility}`}>{project.visibility === 'public' ? 'Public' : 'Private'}</span>
      </td>
      <td>
        <LastJob project={project} />
      </td>
      <td>
        {project.may_manage ? (
          <a href={`${base}/settings`} aria-label={`Settings of ${project.name}`}>
            Settings
          </a>
        ) : null}
      </td>
    </tr>
  );
}

function SignedOut() {
  return (
    <>
      <PageHeader title="Projects" />
      <EmptyState title="Sign in to see projects">
        <p>
          Once you sign in, this page lists the projects you manage and this realm's public projects, each with its latest job. A public
          project's jobs and logs can also be opened from a link without signing in.
        </p>
        <p>
          <a class="button" href="/sign-in?next=%2F">
            Sign in
          </a>
        </p>
      </EmptyState>
    </>
  );
}

function NoProjects({ onCreate }: { onCreate(): void }) {
  return (
    <EmptyState title="No projects yet">
      <p>
        A project is a git repository Conveyor builds: each push (or a start from this interface) becomes a job that runs the tasks of the
        repository's <code>.pipeline.yml</code> on your workers.
      </p>
      <p>
        <button type="button" class="button" onClick={onCreate}>
          New project
        </button>
      </p>
    </EmptyState>
  );
}

export default function Projects() {
  const { session } = useSession();
  useTitle('Projects');
  const [creating, setCreating] = useState(false);
  const [more, setMore] = useState<{ busy: boolean; error: unknown }>({ busy: false, error: null });
  const list = useResource(session === null ? 'signed-out' : `projects:${session.user.id}`, () =>
    session === null ? Promise.resolve({ projects: [], nextCursor: null }) : loadPage(null),
  );

  if (session === null) return <SignedOut />;

  const loadMore = async (cursor: string) => {
    setMore({ busy: true, error: null });
    try {
      const next = await loadPage(cursor);
      list.set((current) => ({ projects: [...(current?.projects ?? []), ...next.projects], nextCursor: next.nextCursor }));
      setMore({ busy: false, error: null });
    } catch (error) {
      setMore({ busy: false, error });
    }
  };

  const data = list.data;
  return (
    <>
      <PageHeader title="Projects" subtitle="The projects you manage and the public ones, each with its latest job.">
        {creating ? null : (
          <button type="button" class="button" onClick={() => setCreating(true)}>
            New project
          </button>
        )}
      </PageHeader>
      {creating ? <NewProject onClose={() => setCreating(false)} onCreated={() => void list.reload()} /> : null}
      {list.error !== null ? <ErrorBox error={list.error} title="The projects could not be loaded" /> : null}
      {data === null ? (
        list.loading ? <Loading what="projects" /> : null
      ) : data.projects.length === 0 ? (
        creating ? null : <NoProjects onCreate={() => setCreating(true)} />
      ) : (
        <>
          <table class="list projects">
            <caption class="visually-hidden">Projects</caption>
            <thead>
              <tr>
                <th scope="col">Project</th>
                <th scope="col">Visibility</th>
                <th scope="col">Latest job</th>
                <th scope="col">
                  <span class="visually-hidden">Settings</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {data.projects.map((project) => (
                <ProjectRow key={project.id} project={project} />
              ))}
            </tbody>
          </table>
          {data.nextCursor !== null ? (
            <p>
              <button type="button" class="button secondary" disabled={more.busy} onClick={() => void loadMore(data.nextCursor ?? '')}>
                {more.busy ? 'Loading…' : 'Show more projects'}
              </button>
            </p>
          ) : null}
          <ErrorBox error={more.error} title="More projects could not be loaded" />
        </>
      )}
    </>
  );
}
