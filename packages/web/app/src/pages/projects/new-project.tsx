import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, describeError, pipeline, unwrap, type PipelineSchemas } from '../../api/client';
import { SecretOnce } from '../../components/manage';
import { useSession } from '../../lib/session';
import { explainProjectError, type ProjectField } from './project-errors';

type Created = PipelineSchemas['ProjectWithSecret']['project'];

/** The form that creates a project, then its trigger secret, shown this once. */
export function NewProject({ onClose, onCreated }: { onClose(): void; onCreated(): void }) {
  const { session } = useSession();
  const [name, setName] = useState('');
  const [repo, setRepo] = useState('');
  const [visibility, setVisibility] = useState<'private' | 'public'>('private');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<{ field: ProjectField | null; text: string } | null>(null);
  const [created, setCreated] = useState<Created | null>(null);
  const nameField = useRef<HTMLInputElement>(null);
  const repoField = useRef<HTMLInputElement>(null);

  useEffect(() => {
    nameField.current?.focus();
  }, []);

  const submit = async (event: Event) => {
    event.preventDefault();
    setError(null);
    setBusy(true);
    try {
      const answer = await unwrap(pipeline.POST('/api/v1/projects', { body: { name: name.trim(), repo: repo.trim(), visibility } }));
      setCreated(answer.project);
      onCreated();
    } catch (caught) {
      const explained = caught instanceof ApiError ? explainProjectError(caught) : { field: null, text: describeError(caught) };
      setError(explained);
      (explained.field === 'repo' ? repoField : nameField).current?.focus();
    } finally {
      setBusy(false);
    }
  };

  if (created !== null) {
    const base = `/projects/${encodeURIComponent(created.name)}`;
    return (
      <SecretOnce title={`Project ${created.name} created: its trigger secret`} secret={created.trigger_secret} copyLabel="Copy the trigger secret">
        <p>
          Your git server signs each push with this secret. The project's settings show how to connect GitHub, GitLab, Gitea, Forgejo or a git
          hook.
        </p>
        <p class="secret-links">
          <a class="button" href={base}>
            Open {created.name}
          </a>
          <a class="button secondary" href={`${base}/settings`}>
            Connect a git server
          </a>
          <button type="button" class="button secondary" onClick={onClose}>
            Done
          </button>
        </p>
      </SecretOnce>
    );
  }

  const invalid = (field: ProjectField) => (error?.field === field ? true : undefined);
  const described = (field: ProjectField, hint: string) => (error?.field === field ? `${hint} new-project-error` : hint);
  return (
    <form class="card new-project" onSubmit={(event) => void submit(event)} noValidate aria-labelledby="new-project-title">
      <h2 id="new-project-title">New project</h2>
      <label for="project-name">Name</label>
      <input
        id="project-name"
        ref={nameField}
        value={name}
        autoComplete="off"
        autoCapitalize="none"
        spellcheck={false}
        onInput={(event) => setName(event.currentTarget.value)}
        aria-invalid={invalid('name')}
        aria-describedby={described('name', 'project-name-hint')}
      />
      <p id="project-name-hint" class="field-hint">
        Lower-case letters, digits and dashes, up to 63 characters; it appears in the project's addresses.
      </p>
      <label for="project-repo">Repository URL</label>
      <input
        id="project-repo"
        ref={repoField}
        value={repo}
        autoComplete="off"
        spellcheck={false}
        placeholder="https://git.example.com/team/app.git"
        onInput={(event) => setRepo(event.currentTarget.value)}
        aria-invalid={invalid('repo')}
        aria-describedby={described('repo', 'project-repo-hint')}
      />
      <p id="project-repo-hint" class="field-hint">
        An https://, http:// or ssh:// address the server can fetch.
        {session?.roles.includes('system-admin') === true ? ' As a system administrator you may also give a path on the server.' : ''}
      </p>
      <fieldset class="choices">
        <legend>Visibility</legend>
        <label>
          <input type="radio" name="visibility" value="private" checked={visibility === 'private'} onChange={() => setVisibility('private')} />
          Private: only you and the realm's administrators see it
        </label>
        <label>
          <input type="radio" name="visibility" value="public" checked={visibility === 'public'} onChange={() => setVisibility('public')} />
          Public: anyone can read its jobs and logs
        </label>
      </fieldset>
      {error !== null ? (
        <p id="new-project-error" class="form-error" role="alert">
          {error.text}
        </p>
      ) : null}
      <div class="form-actions">
        <button type="submit" class="button" disabled={busy}>
          {busy ? 'Creating…' : 'Create project'}
        </button>
        <button type="button" class="button secondary" onClick={onClose}>
          Cancel
        </button>
      </div>
    </form>
  );
}
