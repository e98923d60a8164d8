import type { ClaimFigures, CompletionFigures } from './claims.js';
import type { JobCreationFigures } from './jobs.js';
import type { LogIngestFigures } from './logs.js';
import { pushRows, type PushFigures } from './push.js';
import type { ReportRow } from './report.js';
import type { SseLatencyFigures } from './sse.js';
import { MIB } from './stats.js';
import { unreadBodyRows, type UnreadBodyFigures } from './unread-bodies.js';
import { SESSION_READ_TARGET_RATIO, sessionReadRows, type SessionReadFigures } from './session-reads.js';
import type { UploadFigures } from './uploads.js';

/** The targets of the issue; all figures are measured on the 2-core machines the service runs on. */
export const TARGETS = {
  claimsPerSecond: 1000,
  jobCreationP50Ms: 50,
  artifactRatio: 0.8,
  peakRssBytes: 200e6,
  sseLatencyP50Ms: 50,
  sessionReadRatio: SESSION_READ_TARGET_RATIO,
};

/** What a server process did during a step, and what the load generator (this process) spent meanwhile. */
export interface ServerUsage {
  cpuSeconds: number | null;
  /** Server CPU seconds per wall-clock second (1.0 = one core busy). */
  cpuShare: number | null;
  /** The server's peak RSS so far (VmHWM). */
  peakRssBytes: number | null;
  /** CPU seconds this benchmark process used over the same step. */
  clientCpuSeconds: number;
}

export type Observed<T> = T & { server: ServerUsage };

export interface Results {
  push?: PushFigures;
  claims?: Observed<ClaimFigures>;
  completions?: CompletionFigures;
  jobCreation?: Observed<JobCreationFigures>;
  logIngest?: Observed<LogIngestFigures>;
  artifact?: {
    pipeline: Observed<UploadFigures>;
    baseline: Observed<UploadFigures>;
    ratio: number;
    baselinePeakRssBytes: number | null;
  };
  serverPeakRssBytes?: number | null;
  unreadBodies?: UnreadBodyFigures;
  sse?: SseLatencyFigures;
  sessionReads?: SessionReadFigures;
}

const mb = (bytes: number | null | undefined): string => (bytes == null ? 'n/a' : `${(bytes / 1e6).toFixed(1)} MB`);

/** The table rows: each measured figure, with its target and whether it was met where there is one. */
export function rowsOf(results: Results): ReportRow[] {
  const rows: ReportRow[] = [...unreadBodyRows(results.unreadBodies)];
  const { claims, completions, jobCreation, logIngest, artifact } = results;
  if (results.push !== undefined) rows.push(...pushRows(results.push));
  if (claims !== undefined) {
    rows.push({
      metric: `Claims/s, ${claims.concurrency} concurrent claimers (${claims.claims} tasks)`,
      value: `${claims.claimsPerSecond.toFixed(0)}/s`,
      target: `>= ${TARGETS.claimsPerSecond.toLocaleString('en-US')}/s`,
      met: claims.claimsPerSecond >= TARGETS.claimsPerSecond,
    });
    if (claims.server.cpuSeconds !== null) {
      rows.push({
        metric: 'Server CPU time per claim (1,000/s on one core needs < 1 ms)',
        value: `${((claims.server.cpuSeconds * 1000) / claims.claims).toFixed(2)} ms`,
        target: '-',
        met: null,
      });
    }
    rows.push({ metric: 'Task ids handed out twice', value: String(claims.claims - claims.distinctTasks), target: '0', met: claims.claims === claims.distinctTasks });
  }
  if (completions !== undefined) {
    rows.push({ metric: 'Completions/s, 32 concurrent (not a target)', value: `${completions.completionsPerSecond.toFixed(0)}/s`, target: '-', met: null });
  }
  if (jobCreation !== undefined) {
    rows.push({
      metric: `Job creation, ${jobCreation.tasksPerJob}-variant matrix, p50 (${jobCreation.jobs} jobs)`,
      value: `${jobCreation.p50Ms.toFixed(1)} ms`,
      target: `< ${TARGETS.jobCreationP50Ms} ms`,
      met: jobCreation.p50Ms < TARGETS.jobCreationP50Ms,
    });
    rows.push({ metric: `Job creation, ${jobCreation.tasksPerJob}-variant matrix, p95`, value: `${jobCreation.p95Ms.toFixed(1)} ms`, target: '-', met: null });
  }
  if (logIngest !== undefined) {
    rows.push({
      metric: `Log ingest, ${logIngest.chunkBytes / 1024} KiB chunks (${(logIngest.bytes / MIB).toFixed(0)} MiB, sequential)`,
      value: `${logIngest.mbPerSecond.toFixed(1)} MB/s`,
      target: '-',
      met: null,
    });
  }
  if (artifact !== undefined) {
    const gib = artifact.pipeline.bytes / MIB / 1024;
    const size = `${gib.toFixed(gib >= 1 ? 0 : 2)} GiB`;
    rows.push({ metric: `Artifact upload ${size}, pipeline service`, value: `${artifact.pipeline.mbPerSecond.toFixed(0)} MB/s`, target: '-', met: null });
    rows.push({ metric: `Artifact upload ${size}, plain node:http baseline`, value: `${artifact.baseline.mbPerSecond.toFixed(0)} MB/s`, target: '-', met: null });
    rows.push({
      metric: 'Artifact throughput ratio, service / baseline',
      value: artifact.ratio.toFixed(2),
      target: `>= ${TARGETS.artifactRatio}`,
      met: artifact.ratio >= TARGETS.artifactRatio,
    });
    rows.push({ metric: 'Baseline server peak RSS (VmHWM)', value: mb(artifact.baselinePeakRssBytes), target: '-', met: null });
  }
  if (results.sse !== undefined) {
    const { sse } = results;
    rows.push({
      metric: `Log append answered -> SSE event at a follower, p50 (${sse.appends} appends of ${sse.chunkBytes} B)`,
      value: `${sse.p50Ms.toFixed(2)} ms`,
      target: `< ${TARGETS.sseLatencyP50Ms} ms`,
      met: sse.p50Ms < TARGETS.sseLatencyP50Ms,
    });
    rows.push({ metric: 'Log append answered -> SSE event, p95', value: `${sse.p95Ms.toFixed(2)} ms`, target: '-', met: null });
  }
  if (results.serverPeakRssBytes !== undefined) {
    const peak = results.serverPeakRssBytes;
    rows.push({
      metric: 'Pipeline server peak RSS over the whole run (VmHWM)',
      value: mb(peak),
      target: `< ${TARGETS.peakRssBytes / 1e6} MB`,
      met: peak === null ? null : peak < TARGETS.peakRssBytes,
    });
  }
  rows.push(...sessionReadRows(results.sessionReads));
  return rows;
}
