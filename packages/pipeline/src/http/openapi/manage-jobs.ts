import { error, hidden, internal, job, json, ok, project, session, slowBody, tooLarge } from './parts.js';
import { ref } from './schemas.js';
import type { Parameter, PathItem } from '@conveyor/kit';

// The management API's job calls: a signed-in person (session cookie) who may manage the project.

const query = (name: string, description: string, schema: Parameter['schema']): Parameter => ({ name, in: 'query', required: false, description, schema });
const notSignedIn = error('no session (`{"error": "sign in first", "code": "not_signed_in"}`)');
const managedHidden = error('no such project or job, or the caller may not manage the project (`not_found`)');
const noParameters = { description: 'no parameters: an empty body or `{}`', required: false, content: json({ type: 'object', additionalProperties: false }) };
const noParametersRefused = error('the body is not JSON, or not the empty object');
const created = ok('the job was created', ref('JobCreated'));

export const manageJobPaths: Record<string, PathItem> = {
  '/api/v1/projects/{project}/jobs': {
    get: {
      operationId: 'listJobs',
      tags: ['manage'],
      summary: "List a project's jobs",
      description:
        "Newest first, with each job's task counts by state. Readable as the job read is by people: anyone for a public project, else a session that may manage it (the trigger signature does not list jobs). Page with `cursor` (from `next_cursor`) and `limit`.",
      security: [{}, session],
      parameters: [
        project,
        query('ref', 'only jobs of this ref, exactly as recorded (`refs/heads/main`)', { type: 'string', minLength: 1, maxLength: 1024 }),
        query('state', 'only jobs in this state', { type: 'string', enum: ['running', 'success', 'failure', 'canceled'] }),
        query('trigger', 'only jobs with this trigger (`push`, `api`, `manual`, `rerun`, ...)', { type: 'string', minLength: 1, maxLength: 64 }),
        query('cursor', '`next_cursor` of the previous page (opaque)', { type: 'string' }),
        query('limit', 'jobs per page, 1 to 100', { type: 'string', pattern: '^[0-9]{1,3}$', default: '25' }),
      ],
      responses: {
        '200': ok('a page of jobs', ref('JobsPage')),
        '400': error('an unknown parameter, a state that is not a job state, a limit outside 1..100, or a cursor this service did not hand out'),
        '404': hidden,
        '500': internal,
      },
    },
  },
  '/api/v1/projects/{project}/jobs/start': {
    post: {
      operationId: 'startJob',
      tags: ['manage'],
      summary: 'Start a job at a branch, tag or commit',
      description:
        "`{ref}` is resolved to its commit now (a URL repository is fetched first; a branch wins over a tag of the same name) and recorded as the full ref; `{sha, ref?}` builds that commit. The job's `trigger` is `manual` and its `actor` the caller's username. Checked in this order: session (401), body (400), project (404), disabled project (409), commit (400), pipeline (422).",
      security: [session],
      parameters: [project],
      requestBody: { description: 'what to build', required: true, content: json(ref('JobStart')) },
      responses: {
        '200': created,
        '400': error('malformed JSON, neither `ref` nor `sha`, an unknown field, a ref no branch or tag has, or a commit the repository does not have'),
        '401': notSignedIn,
        '404': managedHidden,
        '408': slowBody,
        '409': error('the project is disabled'),
        '413': tooLarge('1 MiB'),
        '422': error('the pipeline file at that commit is invalid', ref('InvalidPipeline')),
        '500': internal,
      },
    },
  },
  '/api/v1/projects/{project}/jobs/{job}/rerun': {
    post: {
      operationId: 'rerunJob',
      tags: ['manage'],
      summary: 'Run a job again as a new job',
      description: "A new job at the same commit and ref (the pipeline file compiled again), `trigger` `rerun`, `actor` the caller's username.",
      security: [session],
      parameters: [project, job],
      requestBody: noParameters,
      responses: {
        '200': created,
        '400': noParametersRefused,
        '401': notSignedIn,
        '404': managedHidden,
        '408': slowBody,
        '409': error('the project is disabled'),
        '413': tooLarge('1 MiB'),
        '422': error('the pipeline file at that commit is now invalid', ref('InvalidPipeline')),
        '500': internal,
      },
    },
  },
  '/api/v1/projects/{project}/jobs/{job}/rerun-failed': {
    post: {
      operationId: 'rerunFailedTasks',
      tags: ['manage'],
      summary: "Run a finished job's failed tasks again",
      description:
        "In the same job, every failed or canceled task, and every task skipped because of one (transitively), goes back to waiting (or blocked, until what it needs succeeds) and runs as a new attempt; its attempt limit becomes its attempts so far plus the pipeline file's `retries` + 1, so retries apply again. Other tasks keep their results. The job is `running` again (`finished_at` null). Earlier attempts' logs and artifacts stay readable with `?attempt=N`. One transaction: nothing changes when it is refused.",
      security: [session],
      parameters: [project, job],
      requestBody: noParameters,
      responses: {
        '200': ok('the job and its tasks after the change', ref('RerunFailedRead')),
        '400': noParametersRefused,
        '401': notSignedIn,
        '404': managedHidden,
        '408': slowBody,
        '409': error('the job is still running (`job_running`), has no failed or canceled task (`nothing_to_rerun`), or the project is disabled'),
        '413': tooLarge('1 MiB'),
        '500': internal,
      },
    },
  },
  '/api/v1/projects/{project}/jobs/{job}/stop': {
    post: {
      operationId: 'stopJob',
      tags: ['manage'],
      summary: 'Cancel a job (signed in)',
      description:
        'As the trigger-secret `/cancel`: waiting and blocked tasks become `canceled`, running ones learn it at their next heartbeat; stopping a finished job changes nothing. Allowed on a disabled project.',
      security: [session],
      parameters: [project, job],
      requestBody: noParameters,
      responses: {
        '200': ok('the job and its tasks after the cancel', ref('JobRead')),
        '400': noParametersRefused,
        '401': notSignedIn,
        '404': managedHidden,
        '408': slowBody,
        '413': tooLarge('1 MiB'),
        '500': internal,
      },
    },
  },
};
