// What the management pages (projects, settings, workers) share: a secret shown once, an in-page
// confirmation, and a status line that says in words whether a change worked.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ErrorBox, CopyButton } from './common';
import './manage.css';

/**
 * A secret the server gave in this answer only (a trigger secret, a worker token): shown in a box that
 * says so, with a Copy button. It lives in the page's memory alone, so a reload makes it gone for good.
 * Focus moves to the box so that a keyboard or screen-reader user lands on what they must keep.
 */
export function SecretOnce({ title, secret, copyLabel, children }: { title: string; secret: string; copyLabel: string; children?: ComponentChildren }) {
  const box = useRef<HTMLElement>(null);
  useEffect(() => {
    box.current?.focus();
  }, [secret]);
  return (
    <section class="secret-once" ref={box} tabIndex={-1} aria-label={title}>
      <h2>{title}</h2>
      <p>
        <strong>This is shown only once.</strong> Copy it now and keep it somewhere safe: Conveyor will not show it again (a lost one can
        only be replaced).
      </p>
      <div class="secret-value">
        <code>{secret}</code>
        <CopyButton text={secret} label={copyLabel} />
      </div>
      {children}
    </section>
  );
}

/**
 * A button whose action asks first, in the page rather than in a browser dialog: the question, the
 * consequence in words, then a second button that does it and one that cancels. Focus moves to the
 * question and back to the first button on cancel.
 */
export function ConfirmButton({
  label,
  confirmLabel,
  question,
  onConfirm,
  danger = false,
  small = false,
  busy = false,
  children,
}: {
  label: string;
  confirmLabel: string;
  question: string;
  onConfirm(): void | Promise<void>;
  danger?: boolean;
  /** The small button of a table row. */
  small?: boolean;
  busy?: boolean;
  children?: ComponentChildren;
}) {
  const [asking, setAsking] = useState(false);
  const questionRef = useRef<HTMLDivElement>(null);
  const opener = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) questionRef.current?.focus();
  }, [asking]);
  if (!asking) {
    return (
      <button type="button" ref={opener} class={`button ${danger ? 'danger' : 'secondary'}${small ? ' small' : ''}`} onClick={() => setAsking(true)} disabled={busy}>
        {label}
      </button>
    );
  }
  const cancel = () => {
    setAsking(false);
    window.setTimeout(() => opener.current?.focus(), 0);
  };
  return (
    <div class="confirm" role="group" aria-label={question} ref={questionRef} tabIndex={-1}>
      <p class="confirm-question">
        <strong>{question}</strong>
      </p>
      {children}
      <div class="confirm-actions">
        <button
          type="button"
          class={danger ? 'button danger' : 'button'}
          disabled={busy}
          onClick={() => {
            void Promise.resolve(onConfirm()).finally(() => setAsking(false));
          }}
        >
          {confirmLabel}
        </button>
        <button type="button" class="button secondary" onClick={cancel}>
          Cancel
        </button>
      </div>
    </div>
  );
}

/** The outcome of the last change: a sentence announced politely, or the failure in an ErrorBox. */
export type Outcome = { ok: string } | { failed: unknown } | null;

export function OutcomeLine({ outcome, title = 'That did not work' }: { outcome: Outcome; title?: string }) {
  if (outcome !== null && 'failed' in outcome) return <ErrorBox error={outcome.failed} title={title} />;
  return (
    <p class="status-line ok" role="status">
      {outcome !== null ? outcome.ok : ''}
    </p>
  );
}
