// Small pieces the project page's job list and the job page's header both show.
import { elapsed, formatAge, formatTime, shortSha, type Instant } from '../../lib/format';
import type { LiveState } from '../../lib/use-live-events';
import './facts.css';

/** "3 minutes ago", with the full local time for those who hover or read the title. */
export function Age({ at, now }: { at: Instant; now: number }) {
  if (at == null) return null;
  return (
    <time dateTime={new Date(typeof at === 'number' ? at : Date.parse(at)).toISOString()} title={formatTime(at)}>
      {formatAge(at, now)}
    </time>
  );
}

/** How long it ran (or has been running), or a dash before it started. */
export function Duration({ start, end, now }: { start: Instant; end: Instant; now: number }) {
  if (start == null) return <span class="muted">–</span>;
  return <span class="duration">{elapsed(start, end, now)}</span>;
}

/** The short commit id, and its subject line where the job recorded one. */
export function Commit({ sha, message }: { sha: string; message: string | null | undefined }) {
  return (
    <span class="commit">
      <code title={sha}>{shortSha(sha)}</code>
      {message != null && message !== '' ? <span class="commit-message">{message}</span> : null}
    </span>
  );
}

const TRIGGERS: Record<string, string> = { push: 'Push', api: 'API', manual: 'Manual', rerun: 'Re-run' };

export function triggerLabel(trigger: string): string {
  return TRIGGERS[trigger] ?? trigger;
}

/** Whether the page is following the service's events; announced politely when it changes. */
export function LiveIndicator({ state }: { state: LiveState }) {
  const words = state === 'live' ? 'Live' : state === 'connecting' ? 'Connecting…' : 'Reconnecting…';
  return (
    <span class={`live live-${state}`} role="status" aria-live="polite">
      <span class="live-dot" aria-hidden="true" />
      {words}
    </span>
  );
}
