import { useRef, useState } from 'preact/hooks';
import { pipeline, unwrap, type PipelineSchemas } from '../../api/client';
import { ErrorBox, Loading } from '../../components/common';
import { ConfirmButton, OutcomeLine, type Outcome } from '../../components/manage';
import { useResource } from '../../lib/use-resource';

type Variable = PipelineSchemas['Variable'];

function VariableRow({ variable, onEdit, onDelete }: { variable: Variable; onEdit(): void; onDelete(): Promise<void> }) {
  return (
    <tr>
      <th scope="row" class="mono">
        {variable.name}
      </th>
      <td>{variable.secret ? <span class="muted">secret, hidden</span> : <code class="variable-value">{variable.value ?? ''}</code>}</td>
      <td class="actions-cell">
        <div class="row-actions">
          <button type="button" class="button secondary small" onClick={onEdit} aria-label={`Replace ${variable.name}`}>
            Replace
          </button>
          <ConfirmButton
            label="Delete"
            confirmLabel={`Delete ${variable.name}`}
            question={`Delete the variable ${variable.name}? Jobs started from now on will not have it.`}
            danger
            small
            onConfirm={onDelete}
          />
        </div>
      </td>
    </tr>
  );
}

/** The project's variables: plain values shown, secret ones write-only; set, replace and delete. */
export function Variables({ project }: { project: string }) {
  const path = { project };
  const list = useResource(`variables:${project}`, () => unwrap(pipeline.GET('/api/v1/projects/{project}/variables', { params: { path } })).then((answer) => answer.variables));
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const [secret, setSecret] = useState(false);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>(null);
  const nameField = useRef<HTMLInputElement>(null);
  const valueField = useRef<HTMLInputElement>(null);

  const save = async (event: Event) => {
    event.preventDefault();
    const trimmed = name.trim();
    setOutcome(null);
    if (trimmed === '') {
      setOutcome({ failed: new Error('Give the variable a name, e.g. DEPLOY_TOKEN.') });
      nameField.current?.focus();
      return;
    }
    setBusy(true);
    try {
      const replaced = (list.data ?? []).some((existing) => existing.name === trimmed);
      await unwrap(pipeline.PUT('/api/v1/projects/{project}/variables/{name}', { params: { path: { project, name: trimmed } }, body: { value, secret } }));
      setName('');
      setValue('');
      setSecret(false);
      await list.reload();
      setOutcome({ ok: `Variable ${trimmed} ${replaced ? 'replaced' : 'added'}${secret ? ' as a secret: its value is masked in logs and never shown again' : ''}.` });
    } catch (error) {
      setOutcome({ failed: error });
    } finally {
      setBusy(false);
    }
  };

  const remove = async (variable: string) => {
    setOutcome(null);
    try {
      await unwrap(pipeline.DELETE('/api/v1/projects/{project}/variables/{name}', { params: { path: { project, name: variable } } }));
      await list.reload();
      setOutcome({ ok: `Variable ${variable} deleted.` });
    } catch (error) {
      setOutcome({ failed: error });
    }
  };

  const edit = (variable: Variable) => {
    setName(variable.name);
    setValue(variable.secret ? '' : (variable.value ?? ''));
    setSecret(variable.secret);
    valueField.current?.focus();
  };

  const variables = list.data;
  return (
    <section class="card" aria-labelledby="variables-title">
      <h2 id="variables-title">Variables</h2>
      <p class="muted">
        Every task of the project's jobs gets these as environment variables. A secret one's value is masked in logs and never shown again,
        here or anywhere.
      </p>
      {list.error !== null ? <ErrorBox error={list.error} title="The variables could not be loaded" /> : null}
      {variables === null ? (
        list.loading ? <Loading what="variables" /> : null
      ) : variables.length === 0 ? (
        <p class="muted">No variables yet: add one below.</p>
      ) : (
        <table class="list variables">
          <caption class="visually-hidden">Variables</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Value</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {variables.map((variable) => (
              <VariableRow key={variable.name} variable={variable} onEdit={() => edit(variable)} onDelete={() => remove(variable.name)} />
            ))}
          </tbody>
        </table>
      )}
      <form class="variable-form" onSubmit={(event) => void save(event)} noValidate aria-labelledby="variable-form-title">
        <h3 id="variable-form-title">Add or replace a variable</h3>
        <div class="variable-fields">
          <div>
            <label for="variable-name">Variable name</label>
            <input
              id="variable-name"
              ref={nameField}
              class="mono"
              value={name}
              autoComplete="off"
              autoCapitalize="none"
              spellcheck={false}
              onInput={(event) => setName(event.currentTarget.value)}
            />
          </div>
          <div>
            <label for="variable-value">Value</label>
            {/* A secret's value is typed into a password field, so it is not shown on screen while typed. */}
            {secret ? (
              <input id="variable-value" ref={valueField} type="password" class="mono" value={value} autoComplete="off" onInput={(event) => setValue(event.currentTarget.value)} />
            ) : (
              <input id="variable-value" ref={valueField} type="text" class="mono" value={value} autoComplete="off" spellcheck={false} onInput={(event) => setValue(event.currentTarget.value)} />
            )}
          </div>
        </div>
        <label class="checkbox">
          <input type="checkbox" checked={secret} onChange={(event) => setSecret(event.currentTarget.checked)} />
          Secret: masked in logs, never shown again (at least 8 characters)
        </label>
        <p class="field-hint">Letters, digits and _, not starting with a digit. A variable of the same name is replaced. CI and PIPELINE_* are set by Conveyor.</p>
        <button type="submit" class="button" disabled={busy}>
          {busy ? 'Saving…' : 'Save variable'}
        </button>
      </form>
      <OutcomeLine outcome={outcome} title="The change did not go through" />
    </section>
  );
}
