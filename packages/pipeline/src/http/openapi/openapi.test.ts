import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import Fastify, { type FastifyInstance } from 'fastify';
import { pipelinePlugin } from '../../app.js';
import { startTestService, type TestService } from '../../testing/service.js';
import { compareRoutes, recordRoutes, type RouteKey } from '@conveyor/kit';
import { pipelineOpenApiDocument } from './document.js';
import type { OpenApiDocument } from '@conveyor/kit';

/** The service's routes as a fresh server registers them, plus whatever `extra` adds beside it. */
async function registeredRoutes(service: TestService, extra?: (app: FastifyInstance) => void): Promise<RouteKey[]> {
  const app = Fastify();
  const routes = recordRoutes(app);
  await app.register(pipelinePlugin, { deps: service.deps });
  extra?.(app);
  await app.ready();
  await app.close();
  return routes;
}

describe('the pipeline OpenAPI document', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(() => service.stop());

  it('is a valid OpenAPI 3.1 document whose references all resolve', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(pipelineOpenApiDocument) as unknown as Record<string, unknown>);
    assert.deepEqual(result.errors, undefined);
    assert.equal(result.valid, true);
    assert.equal(validator.version, '3.1');
    assert.doesNotThrow(() => validator.resolveRefs());
    const serialised = JSON.stringify(pipelineOpenApiDocument);
    for (const [, name] of serialised.matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
      assert.ok(name !== undefined && name in pipelineOpenApiDocument.components.schemas, `unresolved $ref ${name}`);
    }
  });

  it('is checked by a validator that does refuse a broken document', async () => {
    const broken = structuredClone(pipelineOpenApiDocument) as unknown as { paths: Record<string, Record<string, { responses: unknown }>> };
    const [first] = Object.values(broken.paths);
    const [operation] = Object.values(first ?? {});
    if (operation !== undefined) operation.responses = { '200': { content: 'not a media type map' } };
    const result = await new Validator().validate(broken as unknown as Record<string, unknown>);
    assert.equal(result.valid, false);
  });

  it('names every route the app registers, and no route it does not', async () => {
    const routes = await registeredRoutes(service);
    assert.ok(routes.includes('POST /api/v1/projects/{project}/trigger'), routes.join('\n'));
    assert.deepEqual(compareRoutes(routes, pipelineOpenApiDocument), { undocumented: [], unregistered: [] });
  });

  it('reports a route added without documentation', async () => {
    const routes = await registeredRoutes(service, (app) => app.post('/api/v1/projects/:project/archive', async () => ({})));
    assert.deepEqual(compareRoutes(routes, pipelineOpenApiDocument), { undocumented: ['POST /api/v1/projects/{project}/archive'], unregistered: [] });
  });

  it('reports a documented route the app does not have', async () => {
    const routes = await registeredRoutes(service);
    const document: OpenApiDocument = {
      ...pipelineOpenApiDocument,
      paths: { ...pipelineOpenApiDocument.paths, '/api/v1/projects/{project}/pause': { post: { operationId: 'pause', summary: 'x', security: [], responses: {} } } },
      'x-catch-all': [...(pipelineOpenApiDocument['x-catch-all'] ?? []), { path: '/api/v1/projects/{project}/*', description: 'x' }],
    };
    assert.deepEqual(compareRoutes(routes, document), {
      undocumented: [],
      unregistered: ['ALL /api/v1/projects/{project}/*', 'POST /api/v1/projects/{project}/pause'],
    });
  });

  it('is served at GET /api/v1/openapi.json without authentication', async () => {
    const response = await service.call('GET', '/api/v1/openapi.json');
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
    assert.deepEqual(await response.json(), JSON.parse(JSON.stringify(pipelineOpenApiDocument)));
  });

  it('documents the headers and error bodies the routes use', () => {
    const text = JSON.stringify(pipelineOpenApiDocument);
    for (const needle of ['X-Hub-Signature-256', 'X-Git-Token', 'X-Log-Offset', 'X-Artifact-Path', '"Range"', '"bearer"', 'expected_offset', 'problems']) {
      assert.ok(text.includes(needle), `the document does not mention ${needle}`);
    }
  });
});
