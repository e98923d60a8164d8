import { useLocation } from 'preact-iso';
import { useState } from 'preact/hooks';
import { pipeline, unwrap, type PipelineSchemas } from '../../api/client';
import { ErrorBox } from '../../components/common';

type JobRead = PipelineSchemas['JobRead'];

interface Props {
  project: string;
  read: JobRead;
  /** The job after a cancel or a re-run of failed tasks, straight from the answer. */
  onChanged(read: JobRead): void;
}

const RERUNNABLE = new Set(['failure', 'canceled']);

/** Cancel, re-run and re-run failed tasks; a button that does not apply says why beside it. */
export function JobActions({ project, read, onChanged }: Props) {
  const { route } = useLocation();
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<string | null>(null);
  const job = read.job;
  const running = job.state === 'running';
  const failed = read.tasks.filter((task) => RERUNNABLE.has(task.state)).length;
  const path = { project, job: job.id };

  const act = async (name: string, action: () => Promise<void>) => {
    setBusy(name);
    setError(null);
    setDone(null);
    try {
      await action();
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(null);
    }
  };

  const cancel = () =>
    act('cancel', async () => {
      onChanged(await unwrap(pipeline.POST('/api/v1/projects/{project}/jobs/{job}/stop', { params: { path }, body: {} })));
      setDone('Cancel requested: waiting tasks are canceled, running ones stop at their next heartbeat.');
    });
  const rerun = () =>
    act('rerun', async () => {
      const created = await unwrap(pipeline.POST('/api/v1/projects/{project}/jobs/{job}/rerun', { params: { path }, body: {} }));
      const next = await unwrap(pipeline.GET('/api/v1/projects/{project}/jobs/{job}', { params: { path: { project, job: created.job_id } } }));
      route(`/projects/${encodeURIComponent(project)}/jobs/${next.job.number}`);
    });
  const rerunFailed = () =>
    act('rerun-failed', async () => {
      const answer = await unwrap(pipeline.POST('/api/v1/projects/{project}/jobs/{job}/rerun-failed', { params: { path }, body: {} }));
      onChanged({ job: answer.job, tasks: answer.tasks });
      setDone(`${answer.rerun_tasks} ${answer.rerun_tasks === 1 ? 'task runs' : 'tasks run'} again in this job.`);
    });

  const reasons: string[] = [];
  if (!running) reasons.push('Cancel: the job has finished.');
  if (running) reasons.push('Re-run failed tasks: wait for the job to finish.');
  else if (failed === 0) reasons.push('Re-run failed tasks: no task failed or was canceled.');

  return (
    <div class="job-actions">
      <div class="buttons" aria-describedby="action-reasons">
        <button type="button" class="button danger" disabled={!running || busy !== null} onClick={() => void cancel()}>
          {busy === 'cancel' ? 'Canceling…' : 'Cancel'}
        </button>
        <button type="button" class="button secondary" disabled={busy !== null} onClick={() => void rerun()}>
          {busy === 'rerun' ? 'Starting…' : 'Re-run'}
        </button>
        <button type="button" class="button" disabled={running || failed === 0 || busy !== null} onClick={() => void rerunFailed()}>
          {busy === 'rerun-failed' ? 'Starting…' : 'Re-run failed tasks'}
        </button>
      </div>
      <p id="action-reasons" class="field-hint">
        {reasons.join(' ')}
      </p>
      <p class="action-done" role="status" aria-live="polite">
        {done}
      </p>
      <ErrorBox error={error} title="That did not work" />
    </div>
  );
}
