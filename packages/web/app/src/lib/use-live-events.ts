import { useEffect, useRef, useState } from 'preact/hooks';

/** How long to wait before opening a stream again after the browser gave up on it (a 4xx/5xx, a restart). */
const RETRY_MS = 5000;

export type LiveState = 'connecting' | 'live' | 'reconnecting';

/**
 * Follows a server-sent event stream of the pipeline service. The browser's EventSource resumes a
 * dropped connection by itself with Last-Event-ID; when it gives up (an answer that is not a stream),
 * the stream is opened again with `?after=<last id>`, so no event is lost or repeated either way.
 * `onEvent` may change between renders; the stream is reopened only when `url` changes.
 */
export function useLiveEvents(url: string | null, names: readonly string[], onEvent: (name: string, data: unknown) => void): LiveState {
  const handler = useRef(onEvent);
  handler.current = onEvent;
  const [state, setState] = useState<LiveState>('connecting');
  const key = names.join(',');

  useEffect(() => {
    if (url === null) return undefined;
    let source: EventSource | null = null;
    let retry: number | undefined;
    let lastId = '';
    let closed = false;

    const open = () => {
      // The last event seen wins over the position the stream was first opened at.
      const target = new URL(url, location.origin);
      if (lastId !== '') target.searchParams.set('after', lastId);
      source = new EventSource(target.pathname + target.search);
      source.onopen = () => setState('live');
      source.onerror = () => {
        if (closed || source === null) return;
        if (source.readyState === EventSource.CLOSED) {
          source = null;
          setState('reconnecting');
          retry = window.setTimeout(open, RETRY_MS);
        } else {
          setState('reconnecting');
        }
      };
      for (const name of key.split(',')) {
        source.addEventListener(name, (event: MessageEvent<string>) => {
          if (event.lastEventId !== '') lastId = event.lastEventId;
          let data: unknown;
          try {
            data = JSON.parse(event.data);
          } catch {
            return;
          }
          handler.current(name, data);
        });
      }
    };
    open();
    return () => {
      closed = true;
      window.clearTimeout(retry);
      source?.close();
    };
  }, [url, key]);

  return state;
}

/**
 * Runs `action` at most once per `intervalMs`, after the latest request: a burst of events costs one
 * call at its start and one after it, never one per event.
 */
export function useCoalesced(action: () => void, intervalMs: number): () => void {
  const latest = useRef(action);
  latest.current = action;
  const state = useRef<{ last: number; timer: number | undefined }>({ last: 0, timer: undefined });
  useEffect(() => () => window.clearTimeout(state.current.timer), []);
  const request = useRef(() => {
    const current = state.current;
    if (current.timer !== undefined) return;
    const wait = Math.max(0, current.last + intervalMs - performance.now());
    current.timer = window.setTimeout(() => {
      current.timer = undefined;
      current.last = performance.now();
      latest.current();
    }, wait);
  });
  return request.current;
}

/** The current time, updated every `intervalMs` while `active` (durations of running things tick). */
export function useNow(active: boolean, intervalMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return undefined;
    setNow(Date.now());
    const timer = window.setInterval(() => setNow(Date.now()), intervalMs);
    return () => window.clearInterval(timer);
  }, [active, intervalMs]);
  return now;
}
