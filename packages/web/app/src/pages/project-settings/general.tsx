import { useState } from 'preact/hooks';
import { ApiError, describeError, pipeline, unwrap } from '../../api/client';
import { OutcomeLine, type Outcome } from '../../components/manage';
import { explainProjectError } from '../projects/project-errors';
import type { Project } from './index';

type Changes = { visibility?: 'private' | 'public'; enabled?: boolean; repo?: string };

/** What changed, in words, for the status line. */
function describeChanges(changes: Changes): string {
  const parts: string[] = [];
  if (changes.visibility !== undefined) parts.push(`the project is now ${changes.visibility}`);
  if (changes.enabled !== undefined) parts.push(changes.enabled ? 'it takes new jobs again' : 'it takes no new jobs');
  if (changes.repo !== undefined) parts.push('the repository URL is changed');
  return `Saved: ${parts.join('; ')}.`;
}

/** Visibility, enabled and the repository: one PATCH with only what changed. */
export function GeneralSettings({ project, onChanged }: { project: Project; onChanged(next: Project): void }) {
  const [visibility, setVisibility] = useState(project.visibility);
  const [enabled, setEnabled] = useState(project.enabled);
  const [repo, setRepo] = useState(project.repo);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>(null);

  const changes: Changes = {
    ...(visibility !== project.visibility ? { visibility } : {}),
    ...(enabled !== project.enabled ? { enabled } : {}),
    ...(repo.trim() !== project.repo ? { repo: repo.trim() } : {}),
  };
  const changed = Object.keys(changes).length > 0;

  const save = async (event: Event) => {
    event.preventDefault();
    if (!changed) return;
    setBusy(true);
    setOutcome(null);
    try {
      const answer = await unwrap(pipeline.PATCH('/api/v1/projects/{project}', { params: { path: { project: project.name } }, body: changes }));
      onChanged(answer.project);
      setRepo(answer.project.repo);
      setOutcome({ ok: describeChanges(changes) });
    } catch (error) {
      setOutcome({ failed: error instanceof ApiError ? new Error(explainProjectError(error).text) : new Error(describeError(error)) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="card" aria-labelledby="general-title">
      <h2 id="general-title">General</h2>
      <form onSubmit={(event) => void save(event)} noValidate>
        <fieldset class="choices">
          <legend>Visibility</legend>
          <label>
            <input type="radio" name="visibility" checked={visibility === 'private'} onChange={() => setVisibility('private')} />
            Private: only the owner and the realm's administrators see it
          </label>
          <label>
            <input type="radio" name="visibility" checked={visibility === 'public'} onChange={() => setVisibility('public')} />
            Public: anyone can read its jobs, logs and artifacts
          </label>
        </fieldset>
        <label class="checkbox">
          <input type="checkbox" checked={enabled} onChange={(event) => setEnabled(event.currentTarget.checked)} />
          Enabled: pushes and starts make new jobs
        </label>
        <label for="settings-repo">Repository URL</label>
        <input id="settings-repo" value={repo} spellcheck={false} autoComplete="off" onInput={(event) => setRepo(event.currentTarget.value)} />
        <p class="field-hint">Jobs fetch their commits from here; a change applies to the next job.</p>
        <button type="submit" class="button" disabled={busy || !changed}>
          {busy ? 'Saving…' : 'Save changes'}
        </button>
      </form>
      <OutcomeLine outcome={outcome} title="The changes were not saved" />
    </section>
  );
}
