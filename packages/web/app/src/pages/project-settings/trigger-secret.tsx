import { useState } from 'preact/hooks';
import { pipeline, unwrap } from '../../api/client';
import { ConfirmButton, OutcomeLine, SecretOnce, type Outcome } from '../../components/manage';

/** A new trigger secret, after a confirmation; shown once. */
export function TriggerSecret({ project }: { project: string }) {
  const [secret, setSecret] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>(null);

  const rotate = async () => {
    setBusy(true);
    setOutcome(null);
    try {
      const answer = await unwrap(pipeline.POST('/api/v1/projects/{project}/trigger-secret', { params: { path: { project } } }));
      setSecret(answer.project.trigger_secret);
      setOutcome({ ok: 'The trigger secret was rotated: the old one no longer works.' });
    } catch (error) {
      setOutcome({ failed: error });
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="card" aria-labelledby="trigger-secret-title">
      <h2 id="trigger-secret-title">Trigger secret</h2>
      <p class="muted">
        Git servers sign their push deliveries with this secret. Rotate it when it may have leaked; then give the new one to every git server
        that triggers this project.
      </p>
      <ConfirmButton
        label="Rotate the trigger secret"
        confirmLabel="Rotate it now"
        question="Rotate the trigger secret? The current one stops working at once, so pushes fail until each git server has the new one."
        busy={busy}
        onConfirm={rotate}
      />
      <OutcomeLine outcome={outcome} title="The secret was not rotated" />
      {secret !== null ? <SecretOnce title="The new trigger secret" secret={secret} copyLabel="Copy the new trigger secret" /> : null}
    </section>
  );
}
