import { invalidRequest } from '../errors.js';

// Rule 1 of the sign-in endpoints, and the same discipline for the others: a body that is not a JSON
// object, or a field of the wrong type, is 400 invalid_request. Unknown fields are ignored.

export type Body = Record<string, unknown>;

/** The body as an object; an absent body counts as `{}` where the endpoint allows it. */
export function asObject(body: unknown, options: { optional: boolean }): Body {
  if (body === undefined && options.optional) return {};
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalidRequest('the request body must be a JSON object');
  return body as Body;
}

export function requiredString(body: Body, field: string): string {
  const value = body[field];
  if (typeof value !== 'string') throw invalidRequest(`'${field}' must be a string`);
  return value;
}

export function optionalString(body: Body, field: string): string | undefined {
  const value = body[field];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw invalidRequest(`'${field}' must be a string`);
  return value;
}

export function optionalBoolean(body: Body, field: string): boolean | undefined {
  const value = body[field];
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') throw invalidRequest(`'${field}' must be a boolean`);
  return value;
}

/** A query parameter given once as a string; repeated or odd values are refused. */
export function optionalQueryString(query: unknown, field: string): string | undefined {
  if (typeof query !== 'object' || query === null) return undefined;
  const value = (query as Record<string, unknown>)[field];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw invalidRequest(`query parameter '${field}' must be given once`);
  return value;
}
