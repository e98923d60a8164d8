import { ref } from './schemas.js';
import type { Header, MediaType, Parameter, Response, Schema } from '@conveyor/kit';

// Small builders so each operation in document.ts reads as its list of facts.

export const json = (schema: Schema): Record<string, MediaType> => ({ 'application/json': { schema } });

export function ok(description: string, schema: Schema, headers?: Record<string, Header>): Response {
  return headers === undefined ? { description, content: json(schema) } : { description, headers, content: json(schema) };
}

export function error(description: string, schema: Schema = ref('Error')): Response {
  return { description, content: json(schema) };
}

export function pathParam(name: string, description: string): Parameter {
  return { name, in: 'path', required: true, description, schema: { type: 'string' } };
}

export function header(name: string, description: string, schema: Schema = { type: 'string' }, required = false): Parameter {
  return { name, in: 'header', required, description, schema };
}

export const project = pathParam('project', "the project's id or name");
export const job = pathParam('job', "the job's id or its per-project number");
export const task = pathParam('task', "the task's id");

export const attemptQuery = (description: string): Parameter => ({ name: 'attempt', in: 'query', required: false, description, schema: { type: 'string', pattern: '^[1-9][0-9]{0,4}$' } });
export const badAttempt = error('`attempt` is not a positive integer');

export const rangeHeader = header('Range', 'one range `bytes=a-b`, `bytes=a-` or `bytes=-n`; other forms get the whole body');

/** Security alternatives: any one of them suffices; `{}` is anonymous. */
export const anonymous = {};
export const signature = { triggerSignature: [] };
export const session = { session: [] };
export const worker = { workerToken: [] };

/** Answers every route may give: a body too slow to arrive, and the service's own failure. */
export const slowBody = error('the request body did not arrive within PIPELINE_REQUEST_TIMEOUT; the connection is closed after this answer');
export const internal = error('the service failed; nothing was changed by the failed step, and a retry may succeed');
export const hidden = error('no such resource, or the caller may not see it (`{"error": "not found", "code": "not_found"}`)');
export const noWorker = error('the worker token is missing or unknown');
export const tooLarge = (limit: string): Response => error(`the body is larger than ${limit}`);

export const rangeAnswers = (mediaType: string): Record<string, Response> => ({
  '206': {
    description: 'the requested range',
    headers: { 'Content-Range': { description: '`bytes a-b/size`', schema: { type: 'string' } } },
    content: { [mediaType]: { schema: { type: 'string', format: 'binary' } } },
  },
  '416': {
    description: 'the range lies outside the body',
    headers: { 'Content-Range': { description: '`bytes */size`', schema: { type: 'string' } } },
    content: json(ref('Error')),
  },
});
