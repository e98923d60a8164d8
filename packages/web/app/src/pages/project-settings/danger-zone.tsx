import { useState } from 'preact/hooks';
import { pipeline, unwrap } from '../../api/client';
import { ErrorBox } from '../../components/common';

/** Deleting the project: the name typed out first, because nothing brings it back. */
export function DangerZone({ project, onDeleted }: { project: string; onDeleted(): void }) {
  const [typed, setTyped] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const remove = async (event: Event) => {
    event.preventDefault();
    if (typed !== project) return;
    setBusy(true);
    setError(null);
    try {
      await unwrap(pipeline.DELETE('/api/v1/projects/{project}', { params: { path: { project } } }));
      onDeleted();
    } catch (caught) {
      setError(caught);
      setBusy(false);
    }
  };

  return (
    <section class="card danger-zone" aria-labelledby="danger-title">
      <h2 id="danger-title">Delete this project</h2>
      <p>
        Deleting <strong>{project}</strong> removes it with all its variables, jobs, logs and artifacts, for good. Running tasks are stopped at
        their next report.
      </p>
      <form onSubmit={(event) => void remove(event)} noValidate>
        <label for="delete-confirm">
          Type <strong class="mono">{project}</strong> to confirm
        </label>
        <input id="delete-confirm" value={typed} autoComplete="off" spellcheck={false} onInput={(event) => setTyped(event.currentTarget.value)} />
        <button type="submit" class="button danger" disabled={busy || typed !== project}>
          {busy ? 'Deleting…' : 'Delete this project'}
        </button>
      </form>
      <ErrorBox error={error} title="The project was not deleted" />
    </section>
  );
}
