import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { describeError } from '../api/client';

/** A failure in words, with what to do next, announced to screen readers. */
export function ErrorBox({ error, title = 'Something went wrong' }: { error: unknown; title?: string }) {
  if (error == null) return null;
  return (
    <div class="error-box" role="alert">
      <strong>{title}</strong>
      <p>{describeError(error)}</p>
    </div>
  );
}

/** What a page shows when it has nothing yet, and how to get something. */
export function EmptyState({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <section class="empty-state" aria-label={title}>
      <h2>{title}</h2>
      {children}
    </section>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="loading" role="status">
      Loading {what}…
    </p>
  );
}

// The pipeline's job states (running, success, failure, canceled) and task states (also blocked, waiting, skipped).
const STATE_LABELS: Record<string, string> = {
  blocked: 'Blocked',
  waiting: 'Waiting',
  running: 'Running',
  success: 'Succeeded',
  failure: 'Failed',
  canceled: 'Canceled',
  skipped: 'Skipped',
};

/** A job or task state as a coloured label; the colour is never the only signal (the word is there). */
export function StateBadge({ state }: { state: string }) {
  return <span class={`state state-${state}`}>{STATE_LABELS[state] ?? state}</span>;
}

/** A button that copies `text`, saying so once it has. */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(true);
      window.setTimeout(() => setCopied(false), 2000);
    } catch {
      window.prompt('Copy this text:', text);
    }
  };
  return (
    // The name keeps the visible word in it ("Copied"), as WCAG 2.5.3 asks of a labelled button.
    <button type="button" class="button secondary small" aria-label={copied ? `${label}, copied` : label} onClick={() => void copy()}>
      {copied ? 'Copied' : 'Copy'}
    </button>
  );
}

/** A page heading with optional actions beside it. */
export function PageHeader({ title, children, subtitle }: { title: ComponentChildren; subtitle?: ComponentChildren; children?: ComponentChildren }) {
  return (
    <div class="page-header">
      <div>
        <h1>{title}</h1>
        {subtitle !== undefined ? <p class="subtitle">{subtitle}</p> : null}
      </div>
      {children !== undefined ? <div class="actions">{children}</div> : null}
    </div>
  );
}

/** For pages only signed-in people can use. */
export function SignInPrompt({ what }: { what: string }) {
  const next = encodeURIComponent(location.pathname + location.search);
  return (
    <EmptyState title="Sign in to continue">
      <p>
        You need to be signed in to {what}. <a href={`/sign-in?next=${next}`}>Sign in</a>
      </p>
    </EmptyState>
  );
}
