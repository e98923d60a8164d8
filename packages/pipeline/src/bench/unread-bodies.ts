// Step `unread-bodies`: what large trigger bodies the service must refuse cost it in memory.
import { connect } from 'node:net';
import { currentRss } from './processes.js';
import { say } from './progress.js';
import type { ReportRow } from './report.js';
import { MIB, round } from './stats.js';
import type { Bench } from './steps.js';

const CONNECTIONS = 16;
const BODY_BYTES = 24 * MIB;
const CHUNK = Buffer.alloc(MIB, 0x20);
/** The issue's target: the server's RSS stays within this of idle while such bodies arrive. */
export const UNREAD_BODY_TARGET_BYTES = 50e6;

export interface UnreadBodyCase {
  label: string;
  /** Status lines the connections were answered with, and how many of each. */
  statuses: Record<string, number>;
  /** Body bytes the clients managed to hand to their sockets, summed over the connections. */
  bytesSent: number;
  peakRssBytes: number;
  peakOverIdleBytes: number;
  elapsedMs: number;
}

export interface UnreadBodyFigures {
  connections: number;
  bodyBytes: number;
  idleRssBytes: number;
  cases: UnreadBodyCase[];
}

/**
 * One connection: the head of a POST announcing `BODY_BYTES`, then the body in 1 MiB writes with
 * backpressure, until it is all written or the connection ends; it goes on writing after the answer,
 * as a careless client would. Resolves with the status it got, `reset` when the connection failed
 * before an answer could be read.
 */
function sendLargeBody(port: number, path: string): Promise<{ status: string; sent: number }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let status: string | null = null;
    let sent = 0;
    let finished = false;
    const finish = (fallback: string): void => {
      if (finished) return;
      finished = true;
      socket.destroy();
      resolve({ status: status ?? fallback, sent });
    };
    socket.on('data', (chunk: Buffer) => {
      status ??= /^HTTP\/1\.1 (\d{3})/.exec(chunk.toString('latin1'))?.[1] ?? null;
    });
    socket.on('error', () => finish('reset'));
    socket.on('close', () => finish('closed without an answer'));
    socket.on('connect', () => {
      socket.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${BODY_BYTES}\r\n\r\n`);
      const writeMore = (): void => {
        if (finished) return;
        if (sent >= BODY_BYTES) {
          // All written: give the server a moment to answer, then hang up.
          setTimeout(() => finish('no answer'), 5000);
          return;
        }
        sent += CHUNK.length;
        socket.write(CHUNK, () => setImmediate(writeMore));
      };
      writeMore();
    });
  });
}

/** Samples the server's RSS every 10 ms while `body` runs (VmHWM would keep the earlier steps' peak). */
async function peakRssDuring(pid: number, body: () => Promise<void>): Promise<number> {
  let peak = currentRss(pid) ?? 0;
  const timer = setInterval(() => {
    peak = Math.max(peak, currentRss(pid) ?? 0);
  }, 10);
  try {
    await body();
    // Let what the server still holds show before the last sample.
    await new Promise((resolve) => setTimeout(resolve, 300));
  } finally {
    clearInterval(timer);
  }
  return Math.max(peak, currentRss(pid) ?? 0);
}

/**
 * 16 connections at once, each sending a 24 MiB body that the service must refuse: to an unknown
 * project, then to a known project without any credential header. Reports the server's peak RSS over
 * its RSS at idle (measured just before, with nothing in flight).
 */
export async function measureUnreadBodies(bench: Bench): Promise<UnreadBodyFigures> {
  const port = Number(new URL(bench.api.baseUrl).port);
  const targets = [
    { label: 'unknown project', path: '/api/v1/projects/no-such-project/trigger' },
    { label: 'known project, no credential header', path: `/api/v1/projects/${bench.api.projectName}/trigger` },
  ];
  await new Promise((resolve) => setTimeout(resolve, 500));
  const idleRssBytes = currentRss(bench.serverPid) ?? 0;
  say(`unread bodies: server idle RSS ${(idleRssBytes / 1e6).toFixed(1)} MB`);
  const cases: UnreadBodyCase[] = [];
  for (const target of targets) {
    say(`unread bodies: ${CONNECTIONS} connections x ${BODY_BYTES / MIB} MiB to ${target.path} (${target.label})`);
    const started = Date.now();
    let results: Array<{ status: string; sent: number }> = [];
    const peakRssBytes = await peakRssDuring(bench.serverPid, async () => {
      results = await Promise.all(Array.from({ length: CONNECTIONS }, () => sendLargeBody(port, target.path)));
    });
    const statuses: Record<string, number> = {};
    for (const result of results) statuses[result.status] = (statuses[result.status] ?? 0) + 1;
    const figures: UnreadBodyCase = {
      label: target.label,
      statuses,
      bytesSent: results.reduce((sum, result) => sum + result.sent, 0),
      peakRssBytes,
      peakOverIdleBytes: peakRssBytes - idleRssBytes,
      elapsedMs: Date.now() - started,
    };
    say(
      `unread bodies: ${target.label}: answers ${JSON.stringify(statuses)}, peak RSS ${(peakRssBytes / 1e6).toFixed(1)} MB ` +
        `(+${(figures.peakOverIdleBytes / 1e6).toFixed(1)} MB over idle), ${(figures.bytesSent / MIB).toFixed(0)} MiB of bodies written by the clients`,
    );
    cases.push(figures);
  }
  return { connections: CONNECTIONS, bodyBytes: BODY_BYTES, idleRssBytes, cases };
}

export function unreadBodyRows(figures: UnreadBodyFigures | undefined): ReportRow[] {
  if (figures === undefined) return [];
  return figures.cases.map((entry) => ({
    metric: `Server RSS over idle, ${figures.connections} x ${figures.bodyBytes / MIB} MiB trigger bodies, ${entry.label} (answers ${Object.entries(entry.statuses)
      .map(([status, count]) => `${count}x ${status}`)
      .join(', ')})`,
    value: `+${round(entry.peakOverIdleBytes / 1e6, 1).toFixed(1)} MB`,
    target: `< ${UNREAD_BODY_TARGET_BYTES / 1e6} MB`,
    met: entry.peakOverIdleBytes < UNREAD_BODY_TARGET_BYTES,
  }));
}
