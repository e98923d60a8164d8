import { StateBadge } from '../../components/common';
import { shortRef } from '../../lib/format';
import { Age, Commit, Duration, triggerLabel } from '../job/facts';
import type { JobListing } from './use-job-list';

export function JobsTable({ project, jobs, now }: { project: string; jobs: JobListing[]; now: number }) {
  const base = `/projects/${encodeURIComponent(project)}/jobs`;
  return (
    <table class="list jobs-table">
      <caption class="visually-hidden">Jobs, newest first</caption>
      <thead>
        <tr>
          <th scope="col">State</th>
          <th scope="col">Job</th>
          <th scope="col">Ref</th>
          <th scope="col">Commit</th>
          <th scope="col">Actor</th>
          <th scope="col">Trigger</th>
          <th scope="col">Duration</th>
          <th scope="col">Created</th>
        </tr>
      </thead>
      <tbody>
        {jobs.map((job) => (
          <tr key={job.id} data-job={job.number}>
            <td>
              <StateBadge state={job.state} />
            </td>
            <td class="nowrap">
              <a href={`${base}/${job.number}`} aria-label={`Job ${job.number}`}>
                #{job.number}
              </a>
            </td>
            <td class="ref" title={job.ref}>
              {shortRef(job.ref) || <span class="muted">–</span>}
            </td>
            <td class="commit-cell">
              <Commit sha={job.head_sha} message={job.commit_message} />
            </td>
            <td>{job.actor || <span class="muted">–</span>}</td>
            <td>{triggerLabel(job.trigger)}</td>
            <td class="nowrap">
              <Duration start={job.started_at} end={job.finished_at} now={now} />
            </td>
            <td class="nowrap">
              <Age at={job.created_at} now={now} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
