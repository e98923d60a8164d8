import { EmptyState } from '../../components/common';

/** A new project: the three ways its first job starts. */
export function FirstJobHelp({ project, mayManage }: { project: string; mayManage: boolean }) {
  const settings = `/projects/${encodeURIComponent(project)}/settings`;
  return (
    <EmptyState title="No jobs yet">
      <p>A job runs the repository's <code>.pipeline.yml</code> at a commit. Start the first one in any of these ways:</p>
      <ol class="first-job-steps">
        {mayManage ? (
          <li>
            <strong>Run it now:</strong> the <em>Run pipeline</em> button on this page builds the branch, tag or commit you name.
          </li>
        ) : null}
        <li>
          <strong>Push with the hook:</strong> in a repository on the server, <code>conveyor pipeline hook install</code> writes a post-receive hook,
          then every <code>git push</code> starts a job.
        </li>
        <li>
          <strong>From your git host:</strong> point a webhook of GitHub, GitLab, Gitea or Forgejo at this project.{' '}
          {mayManage ? <a href={settings}>The project's settings</a> : 'The project\'s settings (its owner or an administrator)'} give the webhook URL and the
          steps for each host.
        </li>
      </ol>
    </EmptyState>
  );
}

export function NoMatchingJobs({ project }: { project: string }) {
  return (
    <EmptyState title="No jobs match these filters">
      <p>
        Try another branch or state, or <a href={`/projects/${encodeURIComponent(project)}`}>show every job</a>.
      </p>
    </EmptyState>
  );
}
