import { useEffect, useState } from 'preact/hooks';
import { pipeline, unwrap, type PipelineSchemas } from '../../api/client';
import { EmptyState, ErrorBox, Loading, PageHeader, SignInPrompt } from '../../components/common';
import { ConfirmButton, OutcomeLine, type Outcome } from '../../components/manage';
import { formatAge, formatTime } from '../../lib/format';
import { isAdministrator, useSession } from '../../lib/session';
import { useResource } from '../../lib/use-resource';
import { useTitle } from '../../lib/use-title';
import { NewWorker } from './new-worker';
import './workers.css';

type WorkerStatus = PipelineSchemas['WorkerStatus'];

/** Workers report on every claim and heartbeat; the list is read again this often while the tab is visible. */
const REFRESH_MS = 5000;

const STATE_WORDS: Record<WorkerStatus['state'], string> = { idle: 'Idle', busy: 'Busy', offline: 'Offline' };

function CurrentTask({ worker }: { worker: WorkerStatus }) {
  const task = worker.current_task;
  if (task === null) return <span class="muted">None</span>;
  const href = `/projects/${encodeURIComponent(task.project_name)}/jobs/${task.job_number}/tasks/${encodeURIComponent(task.id)}`;
  return (
    <a href={href}>
      {task.project_name} #{task.job_number} · {task.name}
    </a>
  );
}

function WorkerRow({ worker, onRevoke }: { worker: WorkerStatus; onRevoke(): Promise<void> }) {
  return (
    <tr>
      <th scope="row">{worker.name}</th>
      <td>
        <span class={`state worker-${worker.state}`}>{STATE_WORDS[worker.state]}</span>
      </td>
      <td>
        {worker.last_seen_at === null ? (
          <span class="muted">Never</span>
        ) : (
          <time dateTime={new Date(worker.last_seen_at).toISOString()} title={formatTime(worker.last_seen_at)}>
            {formatAge(worker.last_seen_at)}
          </time>
        )}
      </td>
      <td>
        <CurrentTask worker={worker} />
      </td>
      <td class="actions-cell">
        <div class="row-actions">
          <ConfirmButton
            label="Revoke"
            confirmLabel={`Revoke ${worker.name}`}
            question={`Revoke the worker ${worker.name}? Its token stops working at once; a task it is running fails and is retried elsewhere.`}
            danger
            small
            onConfirm={onRevoke}
          />
        </div>
      </td>
    </tr>
  );
}

/** Re-reads the list every REFRESH_MS while the page is shown and the tab visible, so last contact stays current. */
function useRefresh(reload: () => Promise<void>, enabled: boolean): void {
  useEffect(() => {
    if (!enabled) return;
    const timer = window.setInterval(() => {
      if (document.visibilityState === 'visible') void reload();
    }, REFRESH_MS);
    return () => window.clearInterval(timer);
  }, [reload, enabled]);
}

export default function Workers() {
  const { session } = useSession();
  useTitle('Workers');
  const [creating, setCreating] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>(null);
  const list = useResource(`workers:${session?.user.id ?? ''}`, () =>
    session === null ? Promise.resolve([]) : unwrap(pipeline.GET('/api/v1/workers', {})).then((answer) => answer.workers),
  );
  useRefresh(list.reload, session !== null);

  if (session === null) return <SignInPrompt what="see and add workers" />;

  const revoke = async (worker: WorkerStatus) => {
    setOutcome(null);
    try {
      await unwrap(pipeline.DELETE('/api/v1/workers/{worker}', { params: { path: { worker: worker.id } } }));
      await list.reload();
      setOutcome({ ok: `Worker ${worker.name} revoked: its token no longer works.` });
    } catch (error) {
      setOutcome({ failed: error });
    }
  };

  const workers = list.data;
  // As the API decides: workers serve every realm, so only the system realm's administrators see them all.
  const seesAll = session.roles.includes('system-admin') || (session.realm.slug === 'system' && isAdministrator(session));
  const subtitle = seesAll
    ? "Every worker: the machines that run tasks. A worker made here takes only its creator's projects' tasks."
    : "Your workers: the machines that run your projects' tasks.";
  return (
    <>
      <PageHeader title="Workers" subtitle={subtitle}>
        {creating ? null : (
          <button type="button" class="button" onClick={() => setCreating(true)}>
            New worker
          </button>
        )}
      </PageHeader>
      {creating ? <NewWorker onClose={() => setCreating(false)} onCreated={() => void list.reload()} /> : null}
      <OutcomeLine outcome={outcome} title="The worker was not revoked" />
      {list.error !== null ? <ErrorBox error={list.error} title="The workers could not be loaded" /> : null}
      {workers === null ? (
        list.loading ? <Loading what="workers" /> : null
      ) : workers.length === 0 ? (
        <EmptyState title="No workers yet">
          <p>
            A worker is a program on a machine of yours that asks Conveyor for tasks, runs their scripts (in a shell or a container) and
            sends back logs and artifacts. Create one here: you get a token and the exact command that starts it.
          </p>
          {creating ? null : (
            <p>
              <button type="button" class="button" onClick={() => setCreating(true)}>
                New worker
              </button>
            </p>
          )}
        </EmptyState>
      ) : (
        <table class="list workers">
          <caption class="visually-hidden">Workers</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">State</th>
              <th scope="col">Last contact</th>
              <th scope="col">Current task</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {workers.map((worker) => (
              <WorkerRow key={worker.id} worker={worker} onRevoke={() => revoke(worker)} />
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
