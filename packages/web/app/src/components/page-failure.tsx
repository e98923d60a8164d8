import { PageHeader } from './common';

/**
 * What a page that failed to load or draw shows instead of a blank screen. The usual cause is a page
 * opened before an upgrade asking for a part of the old build that the server no longer has: a reload
 * fetches the new one.
 */
export function PageFailure({ error }: { error: unknown }) {
  const detail = error instanceof Error ? error.message : String(error);
  return (
    <section class="not-found" role="alert">
      <PageHeader title="This page could not be shown" />
      <p>Part of the page did not load. If Conveyor was just upgraded, reloading fetches the new version.</p>
      <p>
        <button type="button" class="button" onClick={() => location.reload()}>
          Reload the page
        </button>
      </p>
      <p class="muted">Details: {detail}</p>
    </section>
  );
}
