/**
 * Wakes claimers that long-poll (`?wait=N`) when tasks become claimable. In-process only: every change
 * that makes work (job creation, requeue, unblocking) happens in this process.
 */
export class WorkSignal {
  private waiters = new Set<() => void>();

  /** Wakes every waiter; each one tries to claim again. */
  notify(): void {
    const waiters = [...this.waiters];
    this.waiters.clear();
    for (const wake of waiters) wake();
  }

  /** Resolves on the next notify, after `ms`, or when `abort` fires, whichever is first. */
  wait(ms: number, abort: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        abort.removeEventListener('abort', done);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      abort.addEventListener('abort', done, { once: true });
      this.waiters.add(done);
    });
  }

  get waiting(): number {
    return this.waiters.size;
  }
}
