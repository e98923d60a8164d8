import { z } from 'zod';

/** Header carrying the offset where the worker believes its log chunk starts. */
export const LOG_OFFSET_HEADER = 'x-log-offset';
/**
 * Header carrying an uploaded artifact's path, relative to the task's workdir, percent-encoded as UTF-8
 * (`encodeURIComponent` per segment; plain ASCII paths need no encoding, a literal `%` is `%25`).
 */
export const ARTIFACT_PATH_HEADER = 'x-artifact-path';

export const TASK_STATES = ['blocked', 'waiting', 'running', 'success', 'failure', 'skipped', 'canceled'] as const;
export type TaskState = (typeof TASK_STATES)[number];
export const JOB_STATES = ['running', 'success', 'failure', 'canceled'] as const;
export type JobState = (typeof JOB_STATES)[number];

const name = z.string().min(1).max(200);

export const ClaimRequestSchema = z.strictObject({
  arches: z.array(z.string().min(1).max(64)).max(16),
  features: z.array(z.string().min(1).max(64)).max(64),
  name: name,
});
export type ClaimRequest = z.infer<typeof ClaimRequestSchema>;

export const ServiceSpecSchema = z.strictObject({
  name: z.string(),
  image: z.string(),
  env: z.record(z.string(), z.string()),
  /** Command to run instead of the image's default; empty means the image's own. */
  command: z.array(z.string()),
});
export type ServiceSpec = z.infer<typeof ServiceSpecSchema>;

export const TaskEndpointsSchema = z.strictObject({
  source: z.string().url(),
  log: z.string().url(),
  artifact: z.string().url(),
  heartbeat: z.string().url(),
  done: z.string().url(),
});
export type TaskEndpoints = z.infer<typeof TaskEndpointsSchema>;

/** The claimed-task payload. It carries no project id and no job id, by design. */
export const ClaimedTaskSchema = z.strictObject({
  id: z.string(),
  name: z.string(),
  image: z.string(),
  workdir: z.string(),
  script: z.array(z.string()),
  /** Every variable the script sees. The worker copies them without interpreting them. */
  env: z.record(z.string(), z.string()),
  /** Worker features the task needs (the worker offered all of them when it claimed). */
  requires: z.array(z.string()),
  services: z.array(ServiceSpecSchema),
  artifacts: z.strictObject({ paths: z.array(z.string()) }),
  /** Seconds the script may run before the worker must end it. */
  timeout: z.number().int().positive(),
  attempt: z.number().int().positive(),
  sha: z.string(),
  ref: z.string(),
  /** Values (secret variables) the worker must replace with `***` before any output leaves the machine. */
  masked: z.array(z.string()),
  /** Seconds between heartbeats; three missed intervals lose the task. */
  heartbeat_interval: z.number().int().positive(),
  endpoints: TaskEndpointsSchema,
});
export type ClaimedTask = z.infer<typeof ClaimedTaskSchema>;

export const ClaimResponseSchema = z.strictObject({ task: ClaimedTaskSchema });
export type ClaimResponse = z.infer<typeof ClaimResponseSchema>;

export const CompleteRequestSchema = z.strictObject({
  success: z.boolean(),
  /** The script's exit status; null when it never ran to an exit (a lost container, a cancel). */
  exit_code: z.number().int().min(-2147483648).max(2147483647).nullable(),
  error: z.string().max(4096).nullable().optional(),
});
export type CompleteRequest = z.infer<typeof CompleteRequestSchema>;

/** Answer to complete: the task's state after the report (`waiting` when it was requeued for another attempt). */
export const CompleteResponseSchema = z.object({ state: z.enum(TASK_STATES), attempt: z.number().int() });
export type CompleteResponse = z.infer<typeof CompleteResponseSchema>;

export const HeartbeatResponseSchema = z.object({ cancel: z.boolean() });
export type HeartbeatResponse = z.infer<typeof HeartbeatResponseSchema>;

/** Answer to a log append: the log's length after the append. */
export const LogAppendResponseSchema = z.object({ offset: z.number().int().nonnegative() });
export type LogAppendResponse = z.infer<typeof LogAppendResponseSchema>;

/** 409 body of a log append that would leave a gap. */
export const LogGapResponseSchema = z.object({ error: z.string(), expected_offset: z.number().int().nonnegative() });
export type LogGapResponse = z.infer<typeof LogGapResponseSchema>;

export const ArtifactSchema = z.object({
  id: z.string(),
  path: z.string(),
  size: z.number().int().nonnegative(),
  sha256: z.string(),
  created_at: z.number().int(),
  expires_at: z.number().int().nullable(),
  url: z.string(),
});
export type Artifact = z.infer<typeof ArtifactSchema>;
