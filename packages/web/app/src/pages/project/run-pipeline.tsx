import { useLocation } from 'preact-iso';
import { useState } from 'preact/hooks';
import { pipeline, unwrap } from '../../api/client';
import { ErrorBox } from '../../components/common';

const COMMIT_ID = /^[0-9a-f]{40}$/;

/** Starts a job at a branch, tag or commit, then opens it so its run can be watched. */
export function RunPipeline({ project, defaultRef, disabled }: { project: string; defaultRef: string; disabled: boolean }) {
  const { route } = useLocation();
  const [ref, setRef] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const value = ref ?? defaultRef;

  const run = async () => {
    setBusy(true);
    setError(null);
    try {
      const target = value.trim();
      const body = COMMIT_ID.test(target) ? { sha: target } : { ref: target };
      const created = await unwrap(pipeline.POST('/api/v1/projects/{project}/jobs/start', { params: { path: { project } }, body }));
      const read = await unwrap(pipeline.GET('/api/v1/projects/{project}/jobs/{job}', { params: { path: { project, job: created.job_id } } }));
      route(`/projects/${encodeURIComponent(project)}/jobs/${read.job.number}`);
    } catch (caught) {
      setError(caught);
      setBusy(false);
    }
  };

  return (
    <div class="run-pipeline">
      <form
        class="inline-form"
        aria-label="Run the pipeline"
        onSubmit={(event) => {
          event.preventDefault();
          void run();
        }}
      >
        <div>
          <label for="run-ref">Branch, tag or commit</label>
          <input id="run-ref" name="ref" required value={value} onInput={(event) => setRef(event.currentTarget.value)} />
        </div>
        <button type="submit" class="button" disabled={busy || disabled || value.trim() === ''}>
          {busy ? 'Starting…' : 'Run pipeline'}
        </button>
        {disabled ? <p class="field-hint">The project is disabled: enable it in its settings to run jobs.</p> : null}
      </form>
      <ErrorBox error={error} title="The job could not be started" />
    </div>
  );
}
