export interface FetchQueue<T> {
  /** Resolves, with that fetch's outcome, once a fetch that started after this call (or a decision that none was needed) has finished. */
  request(key: string, sha: string): Promise<T>;
}

/**
 * One fetch at a time per key, coalescing: callers arriving while a fetch runs share the single next
 * one, which is handed all of their shas (so it can skip the network if the running fetch brought them)
 * and whose outcome they all receive. `work` must not reject.
 */
export function createFetchQueue<T>(work: (key: string, shas: ReadonlySet<string>) => Promise<T>): FetchQueue<T> {
  const tails = new Map<string, Promise<unknown>>();
  const waiting = new Map<string, { shas: Set<string>; done: Promise<T> }>();
  return {
    request(key, sha) {
      const queued = waiting.get(key);
      if (queued !== undefined) {
        queued.shas.add(sha);
        return queued.done;
      }
      const shas = new Set([sha]);
      const previous = tails.get(key) ?? Promise.resolve();
      const done = previous.then(() => {
        // From here on the batch is closed: later callers need a fetch that starts after this one.
        waiting.delete(key);
        return work(key, shas);
      });
      waiting.set(key, { shas, done });
      tails.set(key, done);
      void done.then(() => {
        if (tails.get(key) === done) tails.delete(key);
      });
      return done;
    },
  };
}
