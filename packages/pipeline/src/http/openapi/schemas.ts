import { JOB_STATES, TASK_STATES } from '@conveyor/protocol';
import { ERROR_CODES, type ErrorCode } from '../../errors.js';
import type { Schema } from '@conveyor/kit';

// The bodies the routes send and accept, field for field as present.ts and the protocol's schemas make them.

const string: Schema = { type: 'string' };
const integer: Schema = { type: 'integer' };
const timestamp: Schema = { type: 'integer', description: 'milliseconds since the epoch' };
const nullableTimestamp: Schema = { type: ['integer', 'null'], description: 'milliseconds since the epoch, or null' };
const nullableString: Schema = { type: ['string', 'null'] };
const strings: Schema = { type: 'array', items: string };
const stringMap: Schema = { type: 'object', additionalProperties: string };
const visibility: Schema = { type: 'string', enum: ['private', 'public'] };
const fullSha: Schema = { type: 'string', pattern: '^[0-9a-f]{40}$', description: 'a full 40-hex commit id' };

export function object(properties: Record<string, Schema>, description?: string, optional: string[] = []): Schema {
  const schema: Schema = {
    type: 'object',
    properties,
    required: Object.keys(properties).filter((name) => !optional.includes(name)),
  };
  return description === undefined ? schema : { description, ...schema };
}

export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

/** The fields of every error body: the spec's message and the catalogue's code (errors.ts). */
const errorMessage: Schema = { type: 'string', description: 'what went wrong and what to do next' };
const errorCode = (code: ErrorCode): Schema => ({ type: 'string', const: code, description: ERROR_CODES[code] });

export const schemas: Record<string, Schema> = {
  Error: object(
    {
      error: errorMessage,
      code: { type: 'string', enum: Object.keys(ERROR_CODES), description: 'a stable code for scripts; each is explained in docs/pipeline-service.md, "Error codes"' },
    },
    'every error: `{"error": "<message>", "code": "<code>"}`',
  ),
  InvalidPipeline: object(
    {
      error: errorMessage,
      code: errorCode('pipeline_invalid'),
      problems: {
        type: 'array',
        description: 'every problem of the pipeline file, each naming the wrong key',
        items: object({ path: { type: 'string', description: 'the key, e.g. `tasks.build.image`' }, message: string }),
      },
    },
    'the pipeline file at that commit is invalid',
  ),
  LogGap: object(
    { error: errorMessage, code: errorCode('log_gap'), expected_offset: { type: 'integer', minimum: 0, description: 'the log length: where the next chunk must start' } },
    'the chunk would leave a gap in the log',
  ),
  LogFull: object(
    { error: errorMessage, code: errorCode('log_full'), max_log_bytes: { type: 'integer', description: 'the limit (PIPELINE_MAX_LOG_BYTES)' } },
    'the append would make the log longer than its limit',
  ),
  ArtifactTooLarge: object(
    {
      error: errorMessage,
      code: errorCode('artifact_too_large'),
      max_artifact_bytes: { type: 'integer', description: 'the per-file limit (PIPELINE_MAX_ARTIFACT_BYTES), when that one was passed' },
      max_task_artifact_bytes: { type: 'integer', description: "the limit of one attempt's artifacts together (PIPELINE_MAX_TASK_ARTIFACT_BYTES), when that one was passed" },
    },
    'the upload would pass a size limit; nothing was stored',
    ['max_artifact_bytes', 'max_task_artifact_bytes'],
  ),
  CancelRequest: object({ job: { type: 'string', description: "the id of the job being cancelled (the same job as the path's)" } }, 'what a cancel signs'),
  JobCreated: object({ status: { type: 'string', const: 'created' }, job_id: string, tasks: { type: 'integer', description: 'number of tasks created' } }),
  PushIgnored: object(
    { status: { type: 'string', const: 'ignored' }, reason: { type: 'string', description: 'why nothing is built: a deletion, a ping, another event' } },
    'nothing to build; no job was created',
  ),
  NormalisedPush: object(
    {
      sha: { type: 'string', pattern: '^[0-9a-fA-F]{40}$', description: 'the pushed commit; all zeros is a deletion (ignored)' },
      base: { type: 'string', pattern: '^([0-9a-fA-F]{40})?$', description: 'the previous commit of the ref, or empty' },
      ref: { type: 'string', maxLength: 1024, description: 'e.g. `refs/heads/main`' },
      actor: { type: 'string', maxLength: 256, description: 'who pushed' },
    },
    'the normalised push shape, sent by the post-receive hook and scripts',
    ['base', 'ref', 'actor'],
  ),
  HostedPush: {
    type: 'object',
    additionalProperties: true,
    description: 'a push event as GitHub, GitLab, Gitea or Forgejo send it, recognised by its event header (see docs/triggers.md)',
  },
  JobCreation: {
    type: 'object',
    additionalProperties: false,
    required: ['sha'],
    properties: {
      sha: fullSha,
      ref: { type: 'string', maxLength: 1024, default: '' },
      base: { type: ['string', 'null'], maxLength: 1024, default: null },
      actor: { type: 'string', maxLength: 256, default: '' },
      trigger: { type: 'string', minLength: 1, maxLength: 64, default: 'api', description: 'recorded as given' },
    },
  },
  Job: object({
    id: string,
    number: { type: 'integer', description: 'per-project job number' },
    state: { type: 'string', enum: [...JOB_STATES] },
    ref: string,
    head_sha: fullSha,
    commit_message: { type: ['string', 'null'], description: "the commit's subject line, read when the job was created; null where unknown (jobs made before it was recorded, an unreadable commit)" },
    visibility,
    created_at: timestamp,
    finished_at: nullableTimestamp,
    trigger: { type: 'string', description: '`push`, `api` or what the creator gave' },
    actor: string,
    base: nullableString,
  }),
  TaskSummary: object({
    id: string,
    name: { type: 'string', description: '`<base_name>` or `<base_name>:<key>=<value>[,...]` for matrix variants' },
    base_name: { type: 'string', description: "the task's name in the pipeline file; matrix variants share it" },
    needs: { ...strings, description: 'the names of the tasks this one waits for (every variant of a matrix task it needs)' },
    matrix: { ...stringMap, description: "the variant's matrix values; empty for a task without a matrix" },
    state: { type: 'string', enum: [...TASK_STATES] },
    exit_code: { type: ['integer', 'null'] },
    arch: string,
    attempt: integer,
    worker_name: nullableString,
    started_at: { ...nullableTimestamp, description: "when the current attempt was claimed (milliseconds since the epoch), or null" },
    finished_at: nullableTimestamp,
    waiting_reason: {
      type: ['string', 'null'],
      description:
        'for a waiting task that no connected worker could take, why (`no worker is connected`, `no worker offers arch arm64`, `no worker offers the features gpu, docker`, ...); otherwise null',
    },
  }),
  JobRead: object({ job: ref('Job'), tasks: { type: 'array', items: ref('TaskSummary') } }),
  JobListing: object({
    id: string,
    number: integer,
    state: { type: 'string', enum: [...JOB_STATES] },
    ref: string,
    head_sha: fullSha,
    commit_message: { type: ['string', 'null'], description: "the commit's subject line, read when the job was created; null where unknown (jobs made before it was recorded, an unreadable commit)" },
    actor: string,
    trigger: { type: 'string', description: '`push`, `api`, `manual` (started from the management API), `rerun`, or what the creator gave' },
    created_at: timestamp,
    started_at: { ...nullableTimestamp, description: "the earliest start among its tasks' current attempts, or null before any was claimed" },
    finished_at: nullableTimestamp,
    task_counts: object(
      Object.fromEntries(TASK_STATES.map((state) => [state, integer])),
      'how many of its tasks are in each state',
    ),
  }),
  JobsPage: object({
    jobs: { type: 'array', items: ref('JobListing'), description: 'newest (highest number) first' },
    next_cursor: { type: ['string', 'null'], description: 'pass as `cursor` for the next page; null on the last page' },
    events_after: {
      type: 'integer',
      minimum: 0,
      description: "the newest job event's id when this page was read: pass it as `after` to `GET /api/v1/projects/{project}/events` to follow only what changes from here (without it the stream replays the project's history)",
    },
  }),
  JobStart: {
    oneOf: [
      { type: 'object', additionalProperties: false, required: ['ref'], properties: { ref: { type: 'string', minLength: 1, maxLength: 1024, description: 'a branch or tag name, or a full ref (`refs/heads/main`), resolved to its commit now' } } },
      {
        type: 'object',
        additionalProperties: false,
        required: ['sha'],
        properties: { sha: fullSha, ref: { type: 'string', minLength: 1, maxLength: 1024, description: 'recorded with the job as given (default empty)' } },
      },
    ],
  },
  RerunFailedRead: object({
    job: ref('Job'),
    tasks: { type: 'array', items: ref('TaskSummary') },
    rerun_tasks: { type: 'integer', minimum: 1, description: 'how many tasks run again' },
  }),
  Task: object(
    {
      id: string,
      name: { type: 'string', description: '`<base_name>` or `<base_name>:<key>=<value>[,...]` for matrix variants' },
      base_name: string,
      state: { type: 'string', enum: [...TASK_STATES] },
      arch: string,
      image: string,
      attempt: { type: 'integer', description: '0 until the first claim; counts claims' },
      max_attempts: integer,
      allow_failure: { type: 'boolean' },
      exit_code: { type: ['integer', 'null'] },
      error: nullableString,
      worker_name: nullableString,
      timeout: { type: 'integer', description: 'seconds' },
      workdir: string,
      needs: strings,
      matrix: stringMap,
      artifact_paths: { type: 'array', items: string, description: 'glob patterns the task was told to collect' },
      log_size: { type: 'integer', description: "bytes in the current attempt's log" },
      created_at: timestamp,
      started_at: nullableTimestamp,
      finished_at: nullableTimestamp,
      project_id: string,
      job_id: string,
      job_number: integer,
      ref: string,
      sha: fullSha,
      visibility,
    },
    'the public task read: deliberately without `env`, `services` and `script`',
  ),
  Artifact: object({
    id: string,
    path: { type: 'string', description: 'the sanitised path' },
    size: { type: 'integer', minimum: 0, description: 'bytes' },
    sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' },
    created_at: timestamp,
    expires_at: nullableTimestamp,
    url: { type: 'string', description: 'absolute download URL; a convenience, not a permission' },
  }),
  TaskRead: object({ task: ref('Task'), artifacts: { type: 'array', items: ref('Artifact') } }),
  ClaimRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['arches', 'features', 'name'],
    properties: {
      arches: { type: 'array', maxItems: 16, items: { type: 'string', minLength: 1, maxLength: 64 } },
      features: { type: 'array', maxItems: 64, items: { type: 'string', minLength: 1, maxLength: 64 } },
      name: { type: 'string', minLength: 1, maxLength: 200, description: 'the worker name' },
    },
  },
  ServiceSpec: object({ name: string, image: string, env: stringMap, command: { type: 'array', items: string, description: "empty: the image's own" } }),
  ClaimedTask: object(
    {
      id: string,
      name: string,
      image: string,
      workdir: string,
      script: strings,
      env: { type: 'object', additionalProperties: string, description: 'every variable the script sees, copied without interpreting' },
      requires: { type: 'array', items: string, description: 'worker features the task needs' },
      services: { type: 'array', items: ref('ServiceSpec') },
      artifacts: object({ paths: strings }),
      timeout: { type: 'integer', minimum: 1, description: 'seconds the script may run' },
      attempt: { type: 'integer', minimum: 1 },
      sha: fullSha,
      ref: string,
      masked: { type: 'array', items: string, description: 'values to replace with `***` before any output leaves the worker' },
      heartbeat_interval: { type: 'integer', minimum: 1, description: 'seconds; three missed intervals lose the task' },
      endpoints: object({ source: string, log: string, artifact: string, heartbeat: string, done: string }, 'absolute URLs of the worker calls for this task'),
    },
    'the task as a worker receives it: no project id, no job id',
  ),
  ClaimResponse: object({ task: ref('ClaimedTask') }),
  CompleteRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['success', 'exit_code'],
    properties: {
      success: { type: 'boolean' },
      exit_code: { type: ['integer', 'null'], description: 'null when the script never ran to an exit' },
      error: { type: ['string', 'null'], maxLength: 4096 },
    },
  },
  CompleteResponse: object({
    state: { type: 'string', enum: [...TASK_STATES], description: '`waiting` when the task was requeued for another attempt' },
    attempt: integer,
  }),
  HeartbeatResponse: object({ cancel: { type: 'boolean', description: 'true: the job was cancelled; stop the task and report it' } }),
  LogAppendResponse: object({ offset: { type: 'integer', minimum: 0, description: 'the log length after the append' } }),
  OpenApiDocument: { type: 'object', additionalProperties: true, description: 'an OpenAPI 3.1 document' },
};
