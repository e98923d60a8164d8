import type { Header, MediaType, OpenApiDocument, Parameter, Response, Schema } from '@conveyor/kit';

// The sign-in service's HTTP contract, field for field as the routes in http/login and http/session
// build their answers and as http/errors.ts shapes every error.

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: Schema): Record<string, MediaType> => ({ 'application/json': { schema } });

function ok(description: string, schema: Schema, headers?: Record<string, Header>): Response {
  return headers === undefined ? { description, content: json(schema) } : { description, headers, content: json(schema) };
}

/** An error answer: `{"error": <one of codes>, "message": <text>}`. */
function error(description: string, codes: string[], headers?: Record<string, Header>): Response {
  const schema: Schema = {
    type: 'object',
    required: ['error', 'message'],
    properties: { error: { type: 'string', enum: codes }, message: { type: 'string', description: 'what went wrong, for a person' } },
  };
  return headers === undefined ? { description, content: json(schema) } : { description, headers, content: json(schema) };
}

const retryAfter: Record<string, Header> = { 'Retry-After': { description: 'seconds to wait before trying again', required: true, schema: { type: 'integer', minimum: 1 } } };
const setCookie = (description: string): Record<string, Header> => ({ 'Set-Cookie': { description, schema: { type: 'string' } } });

const realmQuery: Parameter = { name: 'realm', in: 'query', required: false, description: 'realm slug, used when the Host header matches no realm', schema: { type: 'string' } };
const hostHeader: Parameter = { name: 'Host', in: 'header', required: false, description: 'chooses the realm when it matches a realm host (port ignored); wins over a slug', schema: { type: 'string' } };

const malformed = error('a field of the wrong type, a password over 1024 characters, a body that is not a JSON object, or a Content-Type other than application/json', ['invalid_request']);
const unknownRealm = error('no realm matches the Host or the slug, or the realm is not active', ['unknown_realm']);
const slowBody = error('the request body did not arrive within AUTH_REQUEST_TIMEOUT; the connection is closed after this answer', ['request_timeout']);
const tooLarge = error('the body is larger than 64 KiB', ['invalid_request']);
const internal = error('the service failed; no internals are shown', ['internal_error']);

const realmSlug: Schema = { type: 'string', description: 'realm slug, used when the Host header matches no realm' };

const schemas: Record<string, Schema> = {
  Error: {
    type: 'object',
    required: ['error', 'message'],
    properties: { error: { type: 'string', description: 'a code such as `invalid_credentials`' }, message: { type: 'string' } },
  },
  RealmMetadata: {
    type: 'object',
    required: ['slug', 'display_name', 'branding', 'allow_session_duration_choice'],
    properties: {
      slug: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]*$' },
      display_name: { type: 'string' },
      branding: { type: 'object', additionalProperties: true },
      allow_session_duration_choice: { type: 'boolean' },
    },
  },
  User: {
    type: 'object',
    required: ['id', 'username', 'display_name'],
    properties: { id: { type: 'string' }, username: { type: 'string' }, display_name: { type: 'string' } },
  },
  ResolveRequest: {
    type: 'object',
    required: ['identifier'],
    properties: { identifier: { type: 'string', description: 'a username, or an email (it contains `@`)' }, realm: realmSlug },
    description: 'unknown fields are ignored',
  },
  Resolution: {
    type: 'object',
    description: "the realm's metadata (both at the top level and under `realm`) and the next step",
    required: ['slug', 'display_name', 'branding', 'allow_session_duration_choice', 'realm', 'next'],
    properties: {
      slug: { type: 'string' },
      display_name: { type: 'string' },
      branding: { type: 'object', additionalProperties: true },
      allow_session_duration_choice: { type: 'boolean' },
      realm: ref('RealmMetadata'),
      next: { type: 'string', enum: ['password', 'provider'], description: '`provider` when an upstream identity provider applies' },
      provider: {
        type: 'object',
        description: 'only with `next: "provider"`',
        required: ['slug', 'display_name'],
        properties: { slug: { type: 'string' }, display_name: { type: 'string' } },
      },
    },
  },
  PasswordRequest: {
    type: 'object',
    required: ['identifier', 'password'],
    description: 'unknown fields are ignored; `null` for an optional field is a wrong type',
    properties: {
      identifier: { type: 'string', description: 'a username or a verified email' },
      password: { type: 'string', description: 'at most 1024 characters (Unicode code points)' },
      realm: realmSlug,
      long_session: { type: 'boolean', description: 'asks for the long session (7 days instead of 12 hours) when the realm allows the choice' },
    },
  },
  SignedIn: {
    type: 'object',
    required: ['realm', 'user', 'expires_at'],
    properties: { realm: ref('RealmMetadata'), user: ref('User'), expires_at: { type: 'integer', description: 'milliseconds since the epoch' } },
  },
  Session: {
    type: 'object',
    required: ['realm', 'user', 'roles', 'expires_at'],
    properties: {
      realm: ref('RealmMetadata'),
      user: ref('User'),
      roles: { type: 'array', items: { type: 'string' }, description: 'role slugs in the realm, sorted ascending' },
      expires_at: { type: 'integer', description: 'milliseconds since the epoch' },
    },
  },
  LogoutRequest: { type: 'object', properties: { realm: realmSlug }, description: 'optional; unknown fields are ignored' },
  LoggedOut: { type: 'object', required: ['ok'], properties: { ok: { type: 'boolean', const: true } } },
  OpenApiDocument: { type: 'object', additionalProperties: true, description: 'an OpenAPI 3.1 document' },
};

/** The sign-in service's HTTP contract; served at `GET /api/v1/openapi.json` and rendered into docs/api.md. */
export const signinOpenApiDocument: OpenApiDocument = {
  openapi: '3.1.0',
  info: {
    title: 'Conveyor sign-in service',
    version: '1',
    description:
      'Password sign-in, identifier resolution and sessions for realms. The realm of a request is chosen by its Host header, else by an explicit realm slug. Every error body is `{"error": "<code>", "message": "<text>"}`. Bodies must be JSON (`Content-Type: application/json`). Every GET also answers HEAD.',
  },
  tags: [
    { name: 'sign-in', description: 'deciding the sign-in step and signing in' },
    { name: 'session', description: 'the session behind the cookie' },
    { name: 'meta', description: 'about the API itself' },
  ],
  paths: {
    '/api/v1/login/resolve': {
      post: {
        operationId: 'resolveIdentifier',
        tags: ['sign-in'],
        summary: 'Decide the next sign-in step for an identifier',
        description: 'Resolution is independent of the selected realm: an email whose domain is verified-owned by a realm that maps a provider to it gets `provider`; everything else `password`.',
        security: [{}],
        parameters: [hostHeader],
        requestBody: { description: 'the identifier', required: true, content: json(ref('ResolveRequest')) },
        responses: {
          '200': ok("the realm's metadata and the next step", ref('Resolution')),
          '400': malformed,
          '404': unknownRealm,
          '408': slowBody,
          '413': tooLarge,
          '500': internal,
        },
      },
    },
    '/api/v1/login/password': {
      post: {
        operationId: 'signInWithPassword',
        tags: ['sign-in'],
        summary: 'Sign in with a password',
        description:
          'Checks in the order 400, 404 (realm), 403 (identifier with `@` that must use its provider), 401, then 409/403 for a home realm that manages a provider for the account. Success creates a session (12 hours, or 7 days with `long_session` where the realm allows it) and sets its cookie.',
        security: [{}],
        parameters: [hostHeader, { name: 'X-Forwarded-For', in: 'header', required: false, description: 'its first value is stored as the session\'s client IP', schema: { type: 'string' } }],
        requestBody: { description: 'the credentials', required: true, content: json(ref('PasswordRequest')) },
        responses: {
          '200': ok('signed in', ref('SignedIn'), setCookie('`auth_session_<realm>=<token>; Max-Age=<ttl>; Path=/; HttpOnly; SameSite=Lax` (plus `Secure` over TLS or `X-Forwarded-Proto: https`)')),
          '400': malformed,
          '401': error('unknown or inactive user, no password, no active membership in the realm, or a wrong password (one answer for all)', ['invalid_credentials']),
          '403': error('the account must sign in through its identity provider', ['provider_required']),
          '404': unknownRealm,
          '408': slowBody,
          '409': error("the account's identity provider is disabled", ['provider_disabled']),
          '413': tooLarge,
          '429': error('too many failed attempts for this account or client; wait for Retry-After seconds', ['too_many_attempts'], retryAfter),
          '500': internal,
          '503': error('the server is busy checking other passwords; retry after Retry-After seconds', ['busy'], retryAfter),
        },
      },
    },
    '/api/v1/session': {
      get: {
        operationId: 'readSession',
        tags: ['session'],
        summary: 'The session behind the cookie',
        description: 'Extends the session (and re-issues the cookie) at most once a minute of activity.',
        security: [{ sessionCookie: [] }],
        parameters: [hostHeader, realmQuery],
        responses: {
          '200': ok('a live session', ref('Session'), setCookie('the cookie again with a fresh Max-Age, when the session was extended')),
          '400': error('the `realm` query parameter is given more than once', ['invalid_request']),
          '401': error('no valid session in this realm', ['not_authenticated'], setCookie('a clearing cookie (`Max-Age=0`) when the user or membership is no longer active')),
          '404': unknownRealm,
          '500': internal,
        },
      },
    },
    '/api/v1/realm': {
      get: {
        operationId: 'readRealm',
        tags: ['session'],
        summary: "The realm's public metadata",
        description:
          'The realm the Host (else `?realm=`) selects: its slug, display name, branding and whether the sign-in page offers a session-duration choice. Needs no session: a sign-in page shows it before anyone signs in.',
        security: [{}],
        parameters: [hostHeader, realmQuery],
        responses: {
          '200': ok('the realm', ref('RealmMetadata')),
          '400': error('the `realm` query parameter is given more than once', ['invalid_request']),
          '404': unknownRealm,
          '500': internal,
        },
      },
    },
    '/api/v1/logout': {
      post: {
        operationId: 'logout',
        tags: ['session'],
        summary: 'End the session',
        description: 'Deletes the session named by the cookie, if any, and always clears the cookie.',
        security: [{}, { sessionCookie: [] }],
        parameters: [hostHeader, realmQuery],
        requestBody: { description: 'optional', required: false, content: json(ref('LogoutRequest')) },
        responses: {
          '200': ok('signed out (also without a session)', ref('LoggedOut'), setCookie('the clearing cookie, `Max-Age=0`')),
          '400': malformed,
          '404': unknownRealm,
          '408': slowBody,
          '413': tooLarge,
          '500': internal,
        },
      },
    },
    '/api/v1/openapi.json': {
      get: {
        operationId: 'readOpenApiDocument',
        tags: ['meta'],
        summary: 'This document',
        security: [{}],
        responses: { '200': ok('the OpenAPI 3.1 document of the sign-in service', ref('OpenApiDocument')) },
      },
    },
  },
  components: {
    schemas,
    securitySchemes: {
      sessionCookie: {
        type: 'apiKey',
        in: 'cookie',
        name: 'auth_session_<realm>',
        description: 'the session cookie of the realm, `auth_session_<realm_slug>`: a random token; only the cookie of the selected realm is read',
      },
    },
  },
};
