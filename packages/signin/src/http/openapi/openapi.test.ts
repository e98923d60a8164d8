import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import Fastify, { type FastifyInstance } from 'fastify';
import { signinPlugin } from '../../app.js';
import { send, startTestServer, type TestServer } from '../../testing/harness.js';
import { compareRoutes, recordRoutes, type RouteKey } from '@conveyor/kit';
import { signinOpenApiDocument } from './document.js';
import type { OpenApiDocument } from '@conveyor/kit';

/** The service's routes as a fresh server registers them, plus whatever `extra` adds beside it. */
async function registeredRoutes(service: TestServer, extra?: (app: FastifyInstance) => void): Promise<RouteKey[]> {
  const app = Fastify();
  const routes = recordRoutes(app);
  await app.register(signinPlugin, { deps: service.deps });
  extra?.(app);
  await app.ready();
  await app.close();
  return routes;
}

/** Every error code the spec names, plus the service's own. */
const SPEC_CODES = ['invalid_request', 'invalid_credentials', 'not_authenticated', 'provider_required', 'unknown_realm', 'provider_disabled', 'too_many_attempts', 'busy'];

describe('the sign-in OpenAPI document', () => {
  let service: TestServer;
  before(async () => {
    service = await startTestServer();
  });
  after(() => service.close());

  it('is a valid OpenAPI 3.1 document whose references all resolve', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(signinOpenApiDocument) as unknown as Record<string, unknown>);
    assert.deepEqual(result.errors, undefined);
    assert.equal(result.valid, true);
    assert.equal(validator.version, '3.1');
    assert.doesNotThrow(() => validator.resolveRefs());
    const serialised = JSON.stringify(signinOpenApiDocument);
    for (const [, name] of serialised.matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
      assert.ok(name !== undefined && name in signinOpenApiDocument.components.schemas, `unresolved $ref ${name}`);
    }
  });

  it('is checked by a validator that does refuse a broken document', async () => {
    const broken = structuredClone(signinOpenApiDocument) as unknown as { paths: Record<string, Record<string, { responses: unknown }>> };
    const [first] = Object.values(broken.paths);
    const [operation] = Object.values(first ?? {});
    if (operation !== undefined) operation.responses = { '200': { content: 'not a media type map' } };
    const result = await new Validator().validate(broken as unknown as Record<string, unknown>);
    assert.equal(result.valid, false);
  });

  it('names every route the app registers, and no route it does not', async () => {
    const routes = await registeredRoutes(service);
    assert.ok(routes.includes('POST /api/v1/login/password'), routes.join('\n'));
    assert.deepEqual(compareRoutes(routes, signinOpenApiDocument), { undocumented: [], unregistered: [] });
  });

  it('reports a route added without documentation', async () => {
    const routes = await registeredRoutes(service, (app) => app.delete('/api/v1/sessions/:session', async () => ({})));
    assert.deepEqual(compareRoutes(routes, signinOpenApiDocument), { undocumented: ['DELETE /api/v1/sessions/{session}'], unregistered: [] });
  });

  it('reports a documented route the app does not have', async () => {
    const routes = await registeredRoutes(service);
    const document: OpenApiDocument = {
      ...signinOpenApiDocument,
      paths: { ...signinOpenApiDocument.paths, '/api/v1/projects/{project}/pause': { post: { operationId: 'pause', summary: 'x', security: [], responses: {} } } },
      'x-catch-all': [...(signinOpenApiDocument['x-catch-all'] ?? []), { path: '/api/v1/projects/{project}/*', description: 'x' }],
    };
    assert.deepEqual(compareRoutes(routes, document), {
      undocumented: [],
      unregistered: ['ALL /api/v1/projects/{project}/*', 'POST /api/v1/projects/{project}/pause'],
    });
  });

  it('is served at GET /api/v1/openapi.json without authentication', async () => {
    const response = await send(service.port, { path: '/api/v1/openapi.json' });
    assert.equal(response.status, 200);
    assert.match(String(response.headers['content-type']), /^application\/json/);
    assert.deepEqual(response.json, JSON.parse(JSON.stringify(signinOpenApiDocument)));
  });

  it('documents the headers and error bodies the routes use', () => {
    const text = JSON.stringify(signinOpenApiDocument);
    for (const needle of ['"identifier"', '"long_session"', 'auth_session_<realm>', 'Retry-After', 'Set-Cookie', ...SPEC_CODES]) {
      assert.ok(text.includes(needle), `the document does not mention ${needle}`);
    }
  });
});
