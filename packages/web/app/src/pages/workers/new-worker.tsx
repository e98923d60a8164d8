import { useEffect, useRef, useState } from 'preact/hooks';
import { pipeline, unwrap } from '../../api/client';
import { describeError } from '../../api/client';
import { CopyButton } from '../../components/common';
import { SecretOnce } from '../../components/manage';

/** POSIX single quotes, so the command pastes into any shell unchanged. */
function shellQuote(value: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * The command that starts the worker: `conveyor worker` reads its settings from CONVEYOR_WORKER_*
 * variables, and the token only from the environment or a file, never the command line (where `ps` shows it).
 */
export function workerCommand(url: string, token: string, name: string): string {
  const env = [
    ['CONVEYOR_WORKER_URL', url],
    ['CONVEYOR_WORKER_TOKEN', token],
    ['CONVEYOR_WORKER_NAME', name],
  ];
  return `${env.map(([key, value]) => `${key}=${shellQuote(value ?? '')}`).join(' ')} npx conveyor worker`;
}

/** The form that creates a worker, then its token and the command that runs it, shown this once. */
export function NewWorker({ onClose, onCreated }: { onClose(): void; onCreated(): void }) {
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [created, setCreated] = useState<{ name: string; token: string } | null>(null);
  const nameField = useRef<HTMLInputElement>(null);

  useEffect(() => {
    nameField.current?.focus();
  }, []);

  const submit = async (event: Event) => {
    event.preventDefault();
    setError(null);
    if (name.trim() === '') {
      setError('Give the worker a name, e.g. the machine it runs on.');
      nameField.current?.focus();
      return;
    }
    setBusy(true);
    try {
      const answer = await unwrap(pipeline.POST('/api/v1/workers', { body: { name: name.trim() } }));
      setCreated({ name: answer.worker.name, token: answer.token });
      onCreated();
    } catch (caught) {
      setError(describeError(caught));
      nameField.current?.focus();
    } finally {
      setBusy(false);
    }
  };

  if (created !== null) {
    const command = workerCommand(location.origin, created.token, created.name);
    return (
      <SecretOnce title={`Worker ${created.name} created: its token`} secret={created.token} copyLabel="Copy the worker token">
        <h3>Start it</h3>
        <p>
          On the machine that should run tasks, with Node.js 20 and Conveyor installed, run this command (it holds the token: treat it as a
          password):
        </p>
        <div class="command">
          <pre class="block" tabIndex={0}>
            <code>{command}</code>
          </pre>
          <CopyButton text={command} label="Copy the command" />
        </div>
        <p class="field-hint">
          It runs scripts in a shell by default; add <code>CONVEYOR_WORKER_EXECUTOR=podman</code> (or docker) for containers.{' '}
          <code>npx conveyor worker --help</code> lists every setting.
        </p>
        <p>
          <button type="button" class="button secondary" onClick={onClose}>
            Done
          </button>
        </p>
      </SecretOnce>
    );
  }

  return (
    <form class="card new-worker" onSubmit={(event) => void submit(event)} noValidate aria-labelledby="new-worker-title">
      <h2 id="new-worker-title">New worker</h2>
      <label for="worker-name">Worker name</label>
      <input
        id="worker-name"
        ref={nameField}
        value={name}
        autoComplete="off"
        autoCapitalize="none"
        spellcheck={false}
        onInput={(event) => setName(event.currentTarget.value)}
        aria-invalid={error !== null ? true : undefined}
        aria-describedby={error !== null ? 'worker-name-hint new-worker-error' : 'worker-name-hint'}
      />
      <p id="worker-name-hint" class="field-hint">
        Letters, digits, '.', '_' and '-', starting with a letter or digit; unique among the workers.
      </p>
      {error !== null ? (
        <p id="new-worker-error" class="form-error" role="alert">
          {error}
        </p>
      ) : null}
      <div class="form-actions">
        <button type="submit" class="button" disabled={busy}>
          {busy ? 'Creating…' : 'Create worker'}
        </button>
        <button type="button" class="button secondary" onClick={onClose}>
          Cancel
        </button>
      </div>
    </form>
  );
}
