import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { parseWith } from '@conveyor/protocol';
import { PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX } from '../domain/manage-projects.js';
import { errors } from '../errors.js';
import { parseJsonBody } from './body.js';

/** A management body: JSON, exactly the schema's fields (strict schemas refuse unknown ones), else 400. */
export function parseManageBody<T>(request: FastifyRequest, schema: z.ZodType<T>): T {
  const body = parseJsonBody(request);
  if (body === undefined) throw errors.invalidRequest('a JSON object body is required');
  const parsed = parseWith(schema, body);
  if (!parsed.ok) throw errors.invalidRequest(parsed.message);
  return parsed.value;
}

/** `?limit=` (1 to 100, default 50) and the opaque `?cursor=` of the page before. */
export function parsePage(query: unknown): { limit: number; cursor: string | null } {
  const { limit, cursor } = (query ?? {}) as { limit?: unknown; cursor?: unknown };
  if (limit !== undefined && (typeof limit !== 'string' || !/^[1-9]\d{0,2}$/.test(limit) || Number(limit) > PAGE_LIMIT_MAX)) {
    throw errors.invalidRequest(`limit must be a whole number from 1 to ${PAGE_LIMIT_MAX}`);
  }
  if (cursor !== undefined && (typeof cursor !== 'string' || cursor.length === 0 || cursor.length > 200)) {
    throw errors.invalidRequest('cursor must be the next_cursor of the page before');
  }
  return { limit: limit === undefined ? PAGE_LIMIT_DEFAULT : Number(limit), cursor: cursor ?? null };
}
