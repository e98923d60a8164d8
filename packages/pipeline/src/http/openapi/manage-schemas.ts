import { JOB_STATES } from '@conveyor/protocol';
import type { Schema } from '@conveyor/kit';
import { object, ref } from './schemas.js';

// The management API's bodies, field for field as http/present-manage.ts makes them.

const string: Schema = { type: 'string' };
const timestamp: Schema = { type: 'integer', description: 'milliseconds since the epoch' };
const nullableTimestamp: Schema = { type: ['integer', 'null'], description: 'milliseconds since the epoch, or null' };
const visibility: Schema = { type: 'string', enum: ['private', 'public'] };
const steps: Schema = { type: 'array', items: string, description: 'steps a person follows, in order' };

const projectFields: Record<string, Schema> = {
  id: string,
  name: string,
  repo: { type: 'string', description: 'credentials in a URL are masked for those who may not manage the project' },
  visibility,
  enabled: { type: 'boolean' },
  owner_user_id: { type: ['string', 'null'] },
  created_at: timestamp,
  updated_at: timestamp,
  may_manage: { type: 'boolean', description: 'whether the caller may change it (owner or realm administrator)' },
};

export const manageSchemas: Record<string, Schema> = {
  Project: object(projectFields, 'a project; never its trigger secret'),
  ProjectListing: object(
    {
      ...projectFields,
      last_job: {
        oneOf: [
          object({ id: string, number: { type: 'integer' }, state: { type: 'string', enum: [...JOB_STATES] }, ref: string, created_at: timestamp }),
          { type: 'null' },
        ],
        description: 'the newest job, or null when the project has none',
      },
    },
    'a project in the list, with its newest job',
  ),
  ProjectPage: object({
    projects: { type: 'array', items: ref('ProjectListing') },
    next_cursor: { type: ['string', 'null'], description: 'pass as `cursor` for the next page; null on the last page' },
  }),
  ProjectRead: object({ project: ref('Project') }),
  ProjectWithSecret: object({
    project: object({ ...projectFields, trigger_secret: { type: 'string', description: 'shown in this answer only; keep it now' } }),
  }),
  ProjectCreation: {
    type: 'object',
    additionalProperties: false,
    required: ['name', 'repo'],
    properties: {
      name: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{0,62}$' },
      repo: { type: 'string', maxLength: 2048, description: 'an https://, http:// or ssh:// URL; a server path or file:// needs the system-admin role' },
      visibility: { ...visibility, default: 'private' },
    },
  },
  ProjectChanges: {
    type: 'object',
    additionalProperties: false,
    properties: {
      name: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{0,62}$' },
      repo: { type: 'string', maxLength: 2048 },
      visibility,
      enabled: { type: 'boolean', description: 'a disabled project takes no new jobs' },
    },
  },
  Variable: {
    type: 'object',
    required: ['name', 'secret'],
    properties: { name: string, secret: { type: 'boolean' }, value: { type: 'string', description: 'present only when the variable is not secret' } },
  },
  VariableList: object({ variables: { type: 'array', items: ref('Variable') } }),
  VariableRead: object({ variable: ref('Variable') }),
  VariableValue: {
    type: 'object',
    additionalProperties: false,
    required: ['value', 'secret'],
    properties: {
      value: { type: 'string', maxLength: 65536, description: 'at most 64 KiB; a secret one at least 8 characters (so masking it cannot mangle logs)' },
      secret: { type: 'boolean', description: 'masked in logs and never returned' },
    },
  },
  WebhookSetup: object({
    url: { type: 'string', description: "the project's trigger URL" },
    secret_hint: { type: 'string', description: 'where the secret comes from (it is never shown here)' },
    steps: object({ git_hook: steps, github: steps, gitlab: steps, gitea: steps, forgejo: steps }),
  }),
  Worker: object({ id: string, name: string, owner_user_id: { type: ['string', 'null'] }, created_at: timestamp, last_seen_at: nullableTimestamp }),
  WorkerStatus: object({
    id: string,
    name: string,
    owner_user_id: { type: ['string', 'null'] },
    created_at: timestamp,
    last_seen_at: nullableTimestamp,
    state: {
      type: 'string',
      enum: ['idle', 'busy', 'offline'],
      description: '`busy` while it holds a task; else `offline` when not heard from for 90 s (or never); else `idle`',
    },
    current_task: {
      oneOf: [object({ id: string, name: string, project_id: string, project_name: string, job_id: string, job_number: { type: 'integer' } }), { type: 'null' }],
      description: 'the task it holds, when busy',
    },
  }),
  WorkerList: object({ workers: { type: 'array', items: ref('WorkerStatus') } }),
  WorkerCreated: object({ worker: ref('Worker'), token: { type: 'string', description: "the worker's token (`cvw_...`): shown in this answer only" } }),
  Named: { type: 'object', additionalProperties: false, required: ['name'], properties: { name: { type: 'string', maxLength: 100 } } },
  ApiToken: object({ id: string, name: string, created_at: timestamp, last_used_at: nullableTimestamp }),
  ApiTokenList: object({ tokens: { type: 'array', items: ref('ApiToken') } }),
  ApiTokenCreated: object({ api_token: ref('ApiToken'), token: { type: 'string', description: 'the token (`cvy_...`) for `Authorization: Bearer`: shown in this answer only' } }),
};
