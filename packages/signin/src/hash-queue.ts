import { busy } from './errors.js';
import type { PasswordHasher } from './passwords.js';

/**
 * A bounded queue for password hashing: at most `concurrency` hashes run at once (about one per
 * core), at most `maxPending` wait, and past that a hash is refused at once with 503 `busy`. So a
 * flood of sign-ins costs the others a bounded wait instead of an unbounded one.
 */
export interface HashQueue {
  run<T>(task: () => Promise<T>): Promise<T>;
  readonly running: number;
  readonly waiting: number;
}

export interface HashQueueOptions {
  concurrency: number;
  maxPending: number;
}

export function createHashQueue(options: HashQueueOptions): HashQueue {
  const concurrency = Math.max(1, options.concurrency);
  const waiters: (() => void)[] = [];
  let running = 0;

  const release = (): void => {
    const next = waiters.shift();
    if (next === undefined) running -= 1;
    else next(); // the slot passes straight to the next waiter
  };

  const acquire = (): Promise<void> => {
    if (running < concurrency) {
      running += 1;
      return Promise.resolve();
    }
    if (waiters.length >= options.maxPending) return Promise.reject(busy());
    return new Promise((resolve) => waiters.push(resolve));
  };

  return {
    async run(task) {
      await acquire();
      try {
        return await task();
      } finally {
        release();
      }
    },
    get running() {
      return running;
    },
    get waiting() {
      return waiters.length;
    },
  };
}

/** The hasher with every argon2 run (real and dummy checks, new hashes) going through the queue. */
export function queuePasswordHasher(hasher: PasswordHasher, queue: HashQueue): PasswordHasher {
  return {
    hashPassword: (password) => queue.run(() => hasher.hashPassword(password)),
    verifyPassword: (secretHash, password) => queue.run(() => hasher.verifyPassword(secretHash, password)),
    verifyDummy: (password) => queue.run(() => hasher.verifyDummy(password)),
  };
}
