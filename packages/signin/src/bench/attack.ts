// The attack measurements of `npm run bench:signin`: parallel guesses against one account, and the
// sign-in latency of another user while clients guess wrong passwords.
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';

export interface SignInResult {
  status: number;
  cookie: string;
}

export async function signIn(url: string, identifier: string, password: string, ip?: string): Promise<SignInResult> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (ip !== undefined) headers['x-forwarded-for'] = ip;
  const res = await fetch(`${url}/api/v1/login/password`, { method: 'POST', headers, body: JSON.stringify({ identifier, password }) });
  await res.arrayBuffer();
  return { status: res.status, cookie: (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '' };
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return 0;
  const rank = (sorted.length - 1) * p;
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  return (sorted[low] ?? 0) + ((sorted[high] ?? 0) - (sorted[low] ?? 0)) * (rank - low);
}

export function countStatuses(statuses: number[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

/** `parallel` wrong guesses for one account, all at once, from one client address. */
export async function guessInParallel(url: string, identifier: string, parallel: number): Promise<Record<string, number>> {
  const results = await Promise.all(Array.from({ length: parallel }, () => signIn(url, identifier, 'wrong guess', '10.50.0.1')));
  return countStatuses(results.map((r) => r.status));
}

/** Sequential sign-ins of one user (correct password), each timed on the client. */
export async function timeSignIns(url: string, identifier: string, password: string, rounds: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < rounds; i += 1) {
    const start = performance.now();
    const { status } = await signIn(url, identifier, password, `10.60.${Math.floor(i / 250)}.${i % 250}`);
    times.push(performance.now() - start);
    if (status !== 200) throw new Error(`expected 200 for ${identifier}, got ${status}`);
  }
  return times;
}

export interface Attack {
  stop(): Promise<Record<string, number>>;
}

export type AttackMode = 'one-account' | 'spray';

/**
 * `clients` loops, each sending wrong passwords back to back from its own address, in a worker
 * thread: the attackers' own work must not sit in the event loop of the client being measured.
 * `perClientPerSecond` paces each client (default: back to back).
 * `one-account` guesses the password of `target` (the incident); `spray` forges a new address and a
 * new identifier for every guess, so neither counter stops it and only the hashing queue is left.
 */
export async function startAttack(url: string, clients: number, mode: AttackMode, target: string, perClientPerSecond = Infinity): Promise<Attack> {
  const worker = new Worker(new URL('./attack-worker.js', import.meta.url), { workerData: { url, clients, mode, target, perClientPerSecond } });
  await once(worker, 'message'); // started
  return {
    async stop() {
      worker.postMessage('stop');
      const [counts] = (await once(worker, 'message')) as [Record<string, number>];
      await worker.terminate();
      return counts;
    },
  };
}
