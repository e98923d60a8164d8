import {
  anonymous,
  attemptQuery,
  badAttempt,
  error,
  header,
  hidden,
  internal,
  job,
  json,
  noWorker,
  ok,
  project,
  rangeAnswers,
  rangeHeader,
  session,
  signature,
  slowBody,
  task,
  tooLarge,
  worker,
} from './parts.js';
import { manageJobPaths } from './manage-jobs.js';
import { managePaths } from './manage-paths.js';
import { manageSchemas } from './manage-schemas.js';
import { ref, schemas } from './schemas.js';
import type { OpenApiDocument, Parameter, PathItem, Response } from '@conveyor/kit';

/** Answers of `/trigger` and `/jobs`, checked in this order: 404, 401, 409, 400, 422. */
const jobStartAnswers = {
  '401': error('the signature (or token) is missing or wrong'),
  '404': error('no such project (`{"error": "not found", "code": "not_found"}`)'),
  '408': slowBody,
  '409': error('the project is disabled'),
  '422': error('the pipeline file at that commit is invalid', ref('InvalidPipeline')),
  '500': internal,
};

const triggerPaths: Record<string, PathItem> = {
  '/api/v1/projects/{project}/trigger': {
    post: {
      operationId: 'triggerPush',
      tags: ['jobs'],
      summary: 'Start a job from a push delivery',
      description:
        'Reads the pushed commit from the delivery (the normalised shape, or the push event of GitHub, GitLab, Gitea or Forgejo, recognised by its event header), compiles `.pipeline.yml` at that commit and creates the job. A branch or tag deletion, a ping and any other event are answered 200 `ignored`. The body is read as JSON whatever its Content-Type.',
      security: [signature, { gitToken: [] }, { gitlabToken: [] }],
      parameters: [
        project,
        header('X-GitHub-Event', 'GitHub event name (`push` builds; `ping` and others are ignored)'),
        header('X-Gitlab-Event', 'GitLab event name (`Push Hook` and `Tag Push Hook` build)'),
        header('X-Gitea-Event', 'Gitea event name (`push` builds)'),
        header('X-Forgejo-Event', 'Forgejo event name (`push` builds)'),
      ],
      requestBody: { description: 'the push delivery (at most 25 MiB)', required: true, content: json({ oneOf: [ref('NormalisedPush'), ref('HostedPush')] }) },
      responses: {
        '200': ok('a job was created, or the delivery was ignored (nothing to build)', { oneOf: [ref('JobCreated'), ref('PushIgnored')] }),
        '400': error('no usable commit in the payload, a field of the wrong type, or a body that is not a JSON object'),
        '413': tooLarge('25 MiB'),
        ...jobStartAnswers,
      },
    },
  },
  '/api/v1/projects/{project}/jobs': {
    post: {
      operationId: 'createJob',
      tags: ['jobs'],
      summary: 'Start a job at a given commit',
      description: '`sha` is required and never inferred; `trigger` is recorded as given (default `api`).',
      security: [signature],
      parameters: [project],
      requestBody: { description: 'the commit to build', required: true, content: json(ref('JobCreation')) },
      responses: {
        '200': ok('the job was created', ref('JobCreated')),
        '400': error('malformed JSON, a missing or short `sha`, a field of the wrong type, an unknown field, or a commit the repository does not have'),
        '413': tooLarge('1 MiB'),
        ...jobStartAnswers,
      },
    },
  },
  '/api/v1/projects/{project}/jobs/{job}/cancel': {
    post: {
      operationId: 'cancelJob',
      tags: ['jobs'],
      summary: 'Cancel a job',
      description:
        'Waiting and blocked tasks become `canceled`; running ones learn it from their next heartbeat. Cancelling a finished job changes nothing. The signature must be over a body that names the job, `{"job": "<job id>"}`, so a read signature (over the empty body) cannot cancel. Checked in this order: project (404), signature (401), job (404), empty body (401), body (400).',
      security: [signature],
      parameters: [project, job],
      requestBody: { description: 'names the job being cancelled, by id (also when the path gives its number)', required: true, content: json(ref('CancelRequest')) },
      responses: {
        '200': ok('the job and its tasks after the cancel', ref('JobRead')),
        '400': error('the body is not JSON, has no string `job`, or names another job'),
        '401': error('the signature is missing or wrong, or the body is empty (a read signature)'),
        '404': error('no such project, or no such job in it'),
        '408': slowBody,
        '413': tooLarge('1 MiB'),
        '500': internal,
      },
    },
  },
};

const resumeHeader = header('Last-Event-ID', 'the last event `id` received: the stream resumes after it, losing and repeating nothing');
const afterQuery: Parameter = { name: 'after', in: 'query', required: false, description: 'without Last-Event-ID: start after this event id (0, the default, replays every event)', schema: { type: 'string', pattern: '^[0-9]{1,15}$' } };
const eventStream = (description: string): Response => ({ description: `${description} (headers \`Cache-Control: no-cache\`, \`X-Accel-Buffering: no\`)`, content: { 'text/event-stream': { schema: { type: 'string' } } } });
const badResume = error('`Last-Event-ID` or `after` is not a non-negative integer');

const livePaths: Record<string, PathItem> = {
  '/api/v1/projects/{project}/jobs/{job}/events': {
    get: {
      operationId: 'followJobEvents',
      tags: ['reads'],
      summary: "Follow a job's state and its tasks' states as server-sent events",
      description:
        'Readable as the job is. Every change recorded since the job was created, then each new one: `event: job` with `{"id", "number", "state", "ref", "head_sha", "trigger", "actor", "created_at", "finished_at"}` ' +
        'and `event: task` with `{"id", "job_id", "name", "state", "attempt", "exit_code", "started_at", "finished_at"}`, each as it was at that change. ' +
        '`id` is the change\'s position in the service\'s event log (increasing, not consecutive); a reconnect with `Last-Event-ID` resumes after it. ' +
        'The stream does not end when the job does (a re-run of failed tasks reopens it): close it when done. A comment line every PIPELINE_SSE_KEEPALIVE seconds keeps it open.',
      security: [anonymous, signature, session],
      parameters: [project, job, resumeHeader, afterQuery],
      responses: { '200': eventStream('the events'), '400': badResume, '404': hidden, '500': internal },
    },
  },
  '/api/v1/projects/{project}/events': {
    get: {
      operationId: 'followProjectEvents',
      tags: ['reads'],
      summary: "Follow a project's new jobs and job state changes as server-sent events",
      description:
        "Readable by whoever may read the project's jobs (anyone for a public project; the trigger secret or a session that may manage it for a private one). " +
        '`event: job` as in the job events, one when a job is created and one on each change of its state; same `id` and resume rules.',
      security: [anonymous, signature, session],
      parameters: [project, resumeHeader, afterQuery],
      responses: { '200': eventStream('the events'), '400': badResume, '404': hidden, '500': internal },
    },
  },
};

const readPaths: Record<string, PathItem> = {
  '/api/v1/projects/{project}/jobs/{job}': {
    get: {
      operationId: 'readJob',
      tags: ['reads'],
      summary: 'Read a job and its task summaries',
      description: 'Public jobs are readable by anyone; private ones with the trigger secret (a signature over the empty body) or a session that may manage the project.',
      security: [anonymous, signature, session],
      parameters: [project, job],
      responses: { '200': ok('the job', ref('JobRead')), '404': hidden, '500': internal },
    },
  },
  '/api/v1/projects/{project}/jobs/{job}/tasks/{task}/log': {
    get: {
      operationId: 'readTaskLog',
      tags: ['reads'],
      summary: "Read a task's log",
      description: [
        "Readable as the job is. The current attempt's log unless `attempt` names an earlier one.",
        '',
        'With `Accept: text/event-stream` the log is followed as server-sent events, from the stored log (a restart of the service loses nothing). ' +
          "First `event: attempt` with `{\"attempt\": n}` (the attempt followed: the current one, or the first for a task not yet started). " +
          'Then unnamed events, each with up to 64 KiB of the log **base64-encoded** in `data` (logs are bytes: a character split between events, a CR or invalid UTF-8 survive; ' +
          'decode with a streaming UTF-8 decoder) and `id` = the byte offset after them. `event: end` (`{"attempt", "size"}`, `id` = size) follows the last byte once the attempt is final; the service then closes the stream. ' +
          'A reconnect with `Last-Event-ID` (or a first connection with `?offset=`) resumes exactly at that byte; follow one attempt by naming it in `attempt`. ' +
          'A comment line every PIPELINE_SSE_KEEPALIVE seconds (15) keeps proxies from closing an idle stream.',
      ].join('\n'),
      security: [anonymous, signature, session],
      parameters: [
        project,
        job,
        task,
        attemptQuery('the attempt whose log to read (1, 2, ...)'),
        rangeHeader,
        header('Accept', '`text/event-stream` to follow the log as server-sent events'),
        header('Last-Event-ID', 'event stream only: the byte offset to resume at (the last `id` received)'),
        { name: 'offset', in: 'query', required: false, description: 'event stream only, without Last-Event-ID: the byte offset to start at', schema: { type: 'string', pattern: '^[0-9]{1,15}$' } },
      ],
      responses: {
        '200': {
          description: 'the log, or with `Accept: text/event-stream` the followed log (headers `Cache-Control: no-cache`, `X-Accel-Buffering: no`)',
          content: { 'text/plain; charset=utf-8': { schema: { type: 'string' } }, 'text/event-stream': { schema: { type: 'string' } } },
        },
        ...rangeAnswers('text/plain; charset=utf-8'),
        '400': error('`attempt` is not a positive integer, or (event stream) `Last-Event-ID`/`offset` is not a non-negative integer or lies past the log'),
        '404': hidden,
        '500': internal,
      },
    },
  },
  '/api/v1/tasks/{task}': {
    get: {
      operationId: 'readTask',
      tags: ['reads'],
      summary: 'Read a task by its id alone',
      description: 'Public tasks, or a session that may manage the project. A signature proves nothing here (there is no project to look up a secret).',
      security: [anonymous, session],
      parameters: [task, attemptQuery('the attempt whose artifacts to list (default: the current one)')],
      responses: { '200': ok("the task and the attempt's stored, unexpired artifacts", ref('TaskRead')), '400': badAttempt, '404': hidden, '500': internal },
    },
  },
  '/api/v1/projects/{project}/tasks/{task}': {
    get: {
      operationId: 'readProjectTask',
      tags: ['reads'],
      summary: 'Read a task through its project',
      description: 'The project must own the task. Readable as the job is.',
      security: [anonymous, signature, session],
      parameters: [project, task, attemptQuery('the attempt whose artifacts to list (default: the current one)')],
      responses: { '200': ok("the task and the attempt's stored, unexpired artifacts", ref('TaskRead')), '400': badAttempt, '404': hidden, '500': internal },
    },
  },
  '/api/v1/projects/{project}/jobs/{job}/tasks/{task}/artifacts/{artifact}': {
    get: {
      operationId: 'downloadArtifact',
      tags: ['reads'],
      summary: 'Download an artifact',
      description: 'Project, job, task and artifact must all agree. Public jobs: anyone; private ones: the owner or an administrator (session). Always an attachment. An expired artifact is 404 at once, whether or not the sweeper has removed its file yet.',
      security: [anonymous, session],
      parameters: [project, job, task, { name: 'artifact', in: 'path', required: true, description: "the artifact's id", schema: { type: 'string' } }, rangeHeader, header('If-None-Match', 'the ETag of a copy the caller has')],
      responses: {
        '200': {
          description: 'the file bytes',
          headers: {
            ETag: { description: 'the quoted sha256', schema: { type: 'string' } },
            'Content-Disposition': { description: '`attachment` with the file name', schema: { type: 'string' } },
          },
          content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
        },
        ...rangeAnswers('application/octet-stream'),
        '304': { description: 'If-None-Match matched: the caller has this file' },
        '404': hidden,
        '500': internal,
      },
    },
  },
};

const workerPaths: Record<string, PathItem> = {
  '/api/v1/tasks/claim': {
    post: {
      operationId: 'claimTask',
      tags: ['worker'],
      summary: 'Claim a task',
      description: 'The only URL a worker must know. With `wait`, the call waits up to that many seconds (at most 60) for work.',
      security: [worker],
      parameters: [{ name: 'wait', in: 'query', required: false, description: 'seconds to wait for work (0 to 99999; more than 60 counts as 60)', schema: { type: 'string', pattern: '^[0-9]{1,5}$' } }],
      requestBody: { description: 'what the worker offers', required: true, content: json(ref('ClaimRequest')) },
      responses: {
        '200': ok('a task is now held by this worker', ref('ClaimResponse')),
        '204': { description: 'no work (after waiting, if asked to)' },
        '400': error('the claim body or `wait` is malformed'),
        '401': noWorker,
        '408': slowBody,
        '413': tooLarge('1 MiB'),
        '500': internal,
      },
    },
  },
  '/api/v1/tasks/{task}/source.tar.gz': {
    get: {
      operationId: 'downloadSource',
      tags: ['worker'],
      summary: 'The source tree at the commit',
      security: [worker],
      parameters: [task],
      responses: {
        '200': { description: 'a gzip tar archive of the commit', content: { 'application/gzip': { schema: { type: 'string', format: 'binary' } } } },
        '401': noWorker,
        '404': error('the worker does not hold the task, or the commit is gone from the repository'),
        '500': internal,
      },
    },
  },
  '/api/v1/tasks/{task}/log': {
    post: {
      operationId: 'appendLog',
      tags: ['worker'],
      summary: 'Append output to the log',
      description: 'An overlapping chunk is trimmed, so a retry after a dropped connection is safe.',
      security: [worker],
      parameters: [task, header('X-Log-Offset', 'the byte offset where this chunk starts', { type: 'string', pattern: '^[0-9]{1,15}$' }, true)],
      requestBody: { description: 'the output bytes (at most 8 MiB)', required: true, content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } },
      responses: {
        '200': ok('appended', ref('LogAppendResponse')),
        '400': error('X-Log-Offset is missing or not a non-negative integer'),
        '401': noWorker,
        '404': error('the worker does not hold the task'),
        '408': slowBody,
        '409': error('the chunk starts past the end of the log', ref('LogGap')),
        '413': error('the chunk is over 8 MiB (`{"error"}`), or the log would pass PIPELINE_MAX_LOG_BYTES (with `max_log_bytes`)', { oneOf: [ref('Error'), ref('LogFull')] }),
        '500': internal,
      },
    },
  },
  '/api/v1/tasks/{task}/artifacts': {
    post: {
      operationId: 'uploadArtifact',
      tags: ['worker'],
      summary: 'Upload one file',
      description:
        'The body is streamed to disk while hashed and kept only if its length matches Content-Length and the connection stayed intact; a re-upload of the same path replaces the file. The upload may take as long as it needs while it brings at least PIPELINE_UPLOAD_MIN_RATE bytes per second.',
      security: [worker],
      parameters: [
        task,
        header('X-Artifact-Path', 'destination path, percent-encoded UTF-8; traversal components are stripped', { type: 'string' }, true),
        header('Content-Length', 'the exact size of the file', { type: 'string', pattern: '^[0-9]{1,15}$' }, true),
      ],
      requestBody: { description: 'the file bytes', required: true, content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } },
      responses: {
        '201': ok('stored', ref('Artifact')),
        '400': error('X-Artifact-Path is missing or invalid, or the body does not match its declared length (nothing is kept)'),
        '401': noWorker,
        '404': error('the worker does not hold the task'),
        '408': error('the body arrived slower than PIPELINE_UPLOAD_MIN_RATE; nothing is kept'),
        '411': error('Content-Length is required (a chunked upload is refused)'),
        '413': error('the file is over PIPELINE_MAX_ARTIFACT_BYTES (`max_artifact_bytes`), or the attempt\'s artifacts together would pass PIPELINE_MAX_TASK_ARTIFACT_BYTES (`max_task_artifact_bytes`); refused before any byte is stored', ref('ArtifactTooLarge')),
        '500': internal,
      },
    },
  },
  '/api/v1/tasks/{task}/heartbeat': {
    post: {
      operationId: 'heartbeat',
      tags: ['worker'],
      summary: 'Stay alive and learn of cancellation',
      description: 'Renews the lease (three heartbeat intervals). The body is ignored.',
      security: [worker],
      parameters: [task],
      responses: {
        '200': ok('the lease was renewed', ref('HeartbeatResponse')),
        '401': noWorker,
        '404': error('the worker does not hold the task'),
        '408': slowBody,
        '500': internal,
      },
    },
  },
  '/api/v1/tasks/{task}/complete': {
    post: {
      operationId: 'completeTask',
      tags: ['worker'],
      summary: 'Report the outcome',
      description: 'A failure requeues the task while attempts remain; otherwise it fails and everything downstream is skipped.',
      security: [worker],
      parameters: [task],
      requestBody: { description: 'the outcome', required: true, content: json(ref('CompleteRequest')) },
      responses: {
        '200': ok("the task's state after the report", ref('CompleteResponse')),
        '400': error('the body is malformed'),
        '401': noWorker,
        '404': error('the worker does not hold the task'),
        '408': slowBody,
        '413': tooLarge('1 MiB'),
        '500': internal,
      },
    },
  },
};

const documentPaths: Record<string, PathItem> = {
  '/api/v1/openapi.json': {
    get: {
      operationId: 'readOpenApiDocument',
      tags: ['meta'],
      summary: 'This document',
      security: [anonymous],
      responses: { '200': ok('the OpenAPI 3.1 document of the pipeline service', ref('OpenApiDocument')) },
    },
  },
};

/** The paths of each part, methods of one path from several parts side by side (`/jobs`: POST signed, GET listed). */
function mergePaths(...parts: Record<string, PathItem>[]): Record<string, PathItem> {
  const merged: Record<string, PathItem> = {};
  for (const part of parts) for (const [path, item] of Object.entries(part)) merged[path] = { ...merged[path], ...item };
  return merged;
}

/** The pipeline service's HTTP contract; served at `GET /api/v1/openapi.json` and rendered into docs/api.md. */
export const pipelineOpenApiDocument: OpenApiDocument = {
  openapi: '3.1.0',
  info: {
    title: 'Conveyor pipeline service',
    version: '1',
    description:
      'Starts jobs, serves jobs, tasks, logs and artifacts, and speaks the worker protocol. Every error body is `{"error": "<message>", "code": "<code>"}` (plus `problems` on 422, `expected_offset` on a log gap; the codes are listed in docs/pipeline-service.md). A resource the caller may not see is 404, never 403. Every GET also answers HEAD.',
  },
  tags: [
    { name: 'jobs', description: 'starting and cancelling jobs (trigger secret)' },
    { name: 'reads', description: 'jobs, tasks, logs and artifacts' },
    { name: 'worker', description: 'the worker protocol (worker token)' },
    { name: 'manage', description: 'the management API: jobs (a signed-in person who may manage the project)' },
    { name: 'projects', description: 'managing projects, their variables, trigger secret and webhooks (session or API token)' },
    { name: 'workers', description: 'managing workers (session or API token)' },
    { name: 'tokens', description: "the caller's API tokens for scripts" },
    { name: 'meta', description: 'about the API itself' },
  ],
  paths: mergePaths(triggerPaths, readPaths, livePaths, workerPaths, manageJobPaths, managePaths, documentPaths),
  components: {
    schemas: { ...schemas, ...manageSchemas },
    securitySchemes: {
      triggerSignature: {
        type: 'apiKey',
        in: 'header',
        name: 'X-Hub-Signature-256',
        description: "`sha256=<hex>`: HMAC-SHA256 of the exact request body (the empty body for a GET), keyed with the project's trigger secret",
      },
      gitToken: { type: 'apiKey', in: 'header', name: 'X-Git-Token', description: "the project's trigger secret itself (push trigger only)" },
      gitlabToken: { type: 'apiKey', in: 'header', name: 'X-Gitlab-Token', description: "the project's trigger secret itself, as GitLab sends it (push trigger only)" },
      apiToken: { type: 'http', scheme: 'bearer', description: '`Authorization: Bearer cvy_...`: an API token made with `POST /api/v1/tokens`; it acts with its owner\'s current rights in its realm' },
      workerToken: { type: 'http', scheme: 'bearer', description: '`Authorization: Bearer <worker token>`, issued by `conveyor pipeline admin worker create`' },
      session: {
        type: 'apiKey',
        in: 'cookie',
        name: 'auth_session_<realm>',
        description: "the sign-in service's session cookie of the realm (`auth_session_<realm_slug>`) of a user who may manage the project (its owner or an administrator)",
      },
    },
  },
  'x-catch-all': [
    {
      path: '/api/v1/tasks/{task}/*',
      description: 'any other method or path below a task is worker territory: 401 without a valid worker token, else 404',
    },
  ],
};
