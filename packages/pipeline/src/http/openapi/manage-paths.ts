import type { Operation, Parameter, PathItem, Response } from '@conveyor/kit';
import { error, hidden, internal, json, ok, pathParam, project, session, slowBody, tooLarge } from './parts.js';
import { ref } from './schemas.js';

const apiToken = { apiToken: [] };
const people = [session, apiToken];
const notSignedIn = error('no session cookie and no valid API token (`{"error": "sign in first", "code": "not_signed_in"}`)');
const badBody = error('malformed JSON, a missing field, a field of the wrong type or too long, or an unknown field; nothing is stored');
const deleted: Response = { description: 'done; no body' };

function operation(operationId: string, tags: string[], summary: string, description: string, rest: Pick<Operation, 'responses'> & Partial<Operation>): Operation {
  return { operationId, tags, summary, description, security: people, ...rest };
}

const variableName: Parameter = pathParam('name', 'the variable name (`[A-Za-z_][A-Za-z0-9_]*`, at most 128 characters)');
const bodyAnswers = { '400': badBody, '401': notSignedIn, '408': slowBody, '413': tooLarge('1 MiB'), '500': internal };

export const managePaths: Record<string, PathItem> = {
  '/api/v1/projects': {
    get: operation(
      'listProjects',
      ['projects'],
      'List projects',
      "The projects of the request's realm the caller may manage (all of them for a realm administrator) plus the public ones, by name, each with its newest job. Paged: pass `next_cursor` back as `cursor`.",
      {
        parameters: [
          { name: 'limit', in: 'query', required: false, description: 'projects per page, 1 to 100 (default 50)', schema: { type: 'string', pattern: '^[1-9][0-9]{0,2}$' } },
          { name: 'cursor', in: 'query', required: false, description: 'the `next_cursor` of the page before (opaque)', schema: { type: 'string' } },
        ],
        responses: { '200': ok('one page', ref('ProjectPage')), '400': error('`limit` or `cursor` is malformed'), '401': notSignedIn, '500': internal },
      },
    ),
    post: operation(
      'createProject',
      ['projects'],
      'Create a project',
      "Owned by the caller, in the request's realm, under the admin CLI's rules (name pattern, a reachable location). The answer carries the trigger secret, this once.",
      {
        requestBody: { description: 'the new project', required: true, content: json(ref('ProjectCreation')) },
        responses: {
          '201': ok('created; keep `trigger_secret` now', ref('ProjectWithSecret')),
          ...bodyAnswers,
          '409': error('a project of that name (or with that id) already exists'),
        },
      },
    ),
  },
  '/api/v1/projects/{project}': {
    get: operation('readProject', ['projects'], 'Read a project', 'Its settings, never its trigger secret. Those who may manage it, and anyone signed in for a public project of the realm.', {
      parameters: [project],
      responses: { '200': ok('the project', ref('ProjectRead')), '401': notSignedIn, '404': hidden, '500': internal },
    }),
    patch: operation('updateProject', ['projects'], 'Change a project', 'Any of name, repo, visibility, enabled; the owner or a realm administrator.', {
      parameters: [project],
      requestBody: { description: 'the fields to change', required: true, content: json(ref('ProjectChanges')) },
      responses: { '200': ok('the project after the change', ref('ProjectRead')), ...bodyAnswers, '404': hidden, '409': error('the new name is taken') },
    }),
    delete: operation(
      'deleteProject',
      ['projects'],
      'Delete a project',
      'Removes the project with its variables, jobs, tasks, logs and artifacts. Tasks being run lose their lease on the next call (404). The name is free again afterwards.',
      { parameters: [project], responses: { '204': deleted, '401': notSignedIn, '404': hidden, '500': internal } },
    ),
  },
  '/api/v1/projects/{project}/variables': {
    get: operation('listVariables', ['projects'], 'List variables', "By name; a secret variable's value is never returned.", {
      parameters: [project],
      responses: { '200': ok('the variables', ref('VariableList')), '401': notSignedIn, '404': hidden, '500': internal },
    }),
  },
  '/api/v1/projects/{project}/variables/{name}': {
    put: operation('setVariable', ['projects'], 'Set a variable', 'Creates or replaces it, under the admin CLI\'s rules (`CI` and `PIPELINE_*` are reserved).', {
      parameters: [project, variableName],
      requestBody: { description: 'the value', required: true, content: json(ref('VariableValue')) },
      responses: { '200': ok('stored (a secret value is not echoed)', ref('VariableRead')), ...bodyAnswers, '404': hidden },
    }),
    delete: operation('unsetVariable', ['projects'], 'Unset a variable', 'Removes it; 404 when the project has no such variable.', {
      parameters: [project, variableName],
      responses: { '204': deleted, '401': notSignedIn, '404': hidden, '500': internal },
    }),
  },
  '/api/v1/projects/{project}/trigger-secret': {
    post: operation('rotateTriggerSecret', ['projects'], 'Rotate the trigger secret', 'A new secret, in this answer only; the old one stops working at once. No body.', {
      parameters: [project],
      responses: { '200': ok('the project with its new secret', ref('ProjectWithSecret')), '401': notSignedIn, '404': hidden, '500': internal },
    }),
  },
  '/api/v1/projects/{project}/webhook': {
    get: operation(
      'readWebhookSetup',
      ['projects'],
      'How to connect a git server',
      "The trigger URL (from PIPELINE_PUBLIC_URL, else the request's validated Host) and the steps for a git post-receive hook, GitHub, GitLab, Gitea and Forgejo. The secret itself is not repeated.",
      {
        parameters: [project],
        responses: { '200': ok('the URL and the steps', ref('WebhookSetup')), '400': error('invalid Host header and no PIPELINE_PUBLIC_URL'), '401': notSignedIn, '404': hidden, '500': internal },
      },
    ),
  },
  '/api/v1/workers': {
    get: operation('listWorkers', ['workers'], 'List workers', 'Live (not revoked) workers: all of them for an administrator of the system realm (or a system-admin), else the caller\'s own.', {
      responses: { '200': ok('the workers, oldest first', ref('WorkerList')), '401': notSignedIn, '500': internal },
    }),
    post: operation('createWorker', ['workers'], 'Create a worker', "Owned by the caller: it takes only tasks of the caller's projects. The token is in this answer only.", {
      requestBody: { description: 'the name (`[A-Za-z0-9][A-Za-z0-9_.-]*`, unique among live workers)', required: true, content: json(ref('Named')) },
      responses: { '201': ok('created; keep `token` now', ref('WorkerCreated')), ...bodyAnswers, '409': error('a live worker of that name exists') },
    }),
  },
  '/api/v1/workers/{worker}': {
    delete: operation('revokeWorker', ['workers'], 'Revoke a worker', 'Its token stops working at once. Its own worker, or any for an administrator of workers.', {
      parameters: [pathParam('worker', "the worker's id")],
      responses: { '204': deleted, '401': notSignedIn, '404': hidden, '500': internal },
    }),
  },
  '/api/v1/tokens': {
    get: operation('listApiTokens', ['tokens'], "List the caller's API tokens", "Live tokens of the request's realm; never the tokens themselves.", {
      responses: { '200': ok('the tokens, oldest first', ref('ApiTokenList')), '401': notSignedIn, '500': internal },
    }),
    post: {
      ...operation(
        'createApiToken',
        ['tokens'],
        'Create an API token',
        "For scripts: `Authorization: Bearer <token>` then acts with the caller's current rights in this realm (re-checked on each use). Needs a session: an API token cannot create tokens. At most 50 live tokens per person and realm.",
        {
          requestBody: { description: 'a name to recognise it by (1 to 100 characters)', required: true, content: json(ref('Named')) },
          responses: { '201': ok('created; keep `token` now', ref('ApiTokenCreated')), ...bodyAnswers, '403': error('called with an API token (`session_required`)') },
        },
      ),
      security: [session],
    },
  },
  '/api/v1/tokens/{token}': {
    delete: operation('revokeApiToken', ['tokens'], 'Revoke an API token', "One of the caller's own; it stops working at once.", {
      parameters: [pathParam('token', "the token's id (not the token)")],
      responses: { '204': deleted, '401': notSignedIn, '404': hidden, '500': internal },
    }),
  },
};
