// The attacking clients of bench/attack.ts, in their own thread. Posts once when started and once,
// with the answers' status counts, after it is told to stop.
import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import { countStatuses, signIn, type AttackMode } from './attack.js';

const { url, clients, mode, target, perClientPerSecond } = workerData as { url: string; clients: number; mode: AttackMode; target: string; perClientPerSecond: number };
const interval = Number.isFinite(perClientPerSecond) ? 1000 / perClientPerSecond : 0;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let running = true;
const statuses: number[] = [];

function nextGuess(client: number, n: number): { identifier: string; ip: string } {
  if (mode === 'one-account') return { identifier: target, ip: `10.80.0.${client}` };
  return { identifier: `${target}-${client}-${n}`, ip: `10.90.${client}.${n}` };
}

const loops = Array.from({ length: clients }, async (_, client) => {
  const start = performance.now();
  for (let n = 0; running; n += 1) {
    // At a fixed rate when one is given (guess n goes out at start + n * interval), else back to back.
    const wait = start + n * interval - performance.now();
    if (wait > 0) await sleep(wait);
    const { identifier, ip } = nextGuess(client, n);
    statuses.push((await signIn(url, identifier, 'wrong guess', ip)).status);
  }
});

parentPort?.on('message', () => {
  running = false;
  void Promise.all(loops).then(() => parentPort?.postMessage(countStatuses(statuses)));
});
parentPort?.postMessage('started');
