import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { FastifyInstance } from 'fastify';
import { compareRoutes, recordRoutes, type RouteKey } from '../openapi/coverage.js';
import type { OpenApiDocument } from '../openapi/types.js';

export interface OpenApiContract {
  document: OpenApiDocument;
  /** A fresh server, not listening (the service's `Fastify()`: kit has no runtime dependency on it). */
  createServer(): FastifyInstance;
  /** Registers the service on that server, as its own app does. */
  registerService(app: FastifyInstance): PromiseLike<unknown>;
  /** A route the service certainly has, in the document's spelling: proves the routes were recorded at all. */
  knownRoute: RouteKey;
  /** Adds one route beside the service that its document lacks, and names it as the document would. */
  undocumentedRoute: { add(app: FastifyInstance): void; key: RouteKey };
  /** GET /api/v1/openapi.json from the running service, without credentials. */
  fetchServed(): Promise<{ status: number; contentType: string; json: unknown }>;
}

/** The service's routes as a fresh server registers them, plus whatever `extra` adds beside it. */
async function registeredRoutes(contract: OpenApiContract, extra?: (app: FastifyInstance) => void): Promise<RouteKey[]> {
  const app = contract.createServer();
  const routes = recordRoutes(app);
  await contract.registerService(app);
  extra?.(app);
  await app.ready();
  await app.close();
  return routes;
}

/**
 * The checks every service's OpenAPI document must pass, as node:test cases in the caller's
 * `describe`: a valid 3.1 document whose references resolve, route coverage both ways (each
 * direction shown to catch a gap), and the served JSON equal to the document.
 */
export function testOpenApiContract(contract: OpenApiContract): void {
  const { document } = contract;

  it('is a valid OpenAPI 3.1 document whose references all resolve', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document) as unknown as Record<string, unknown>);
    assert.deepEqual(result.errors, undefined);
    assert.equal(result.valid, true);
    assert.equal(validator.version, '3.1');
    assert.doesNotThrow(() => validator.resolveRefs());
    const serialised = JSON.stringify(document);
    for (const [, name] of serialised.matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
      assert.ok(name !== undefined && name in document.components.schemas, `unresolved $ref ${name}`);
    }
  });

  it('is checked by a validator that does refuse a broken document', async () => {
    const broken = structuredClone(document) as unknown as { paths: Record<string, Record<string, { responses: unknown }>> };
    const [first] = Object.values(broken.paths);
    const [operation] = Object.values(first ?? {});
    if (operation !== undefined) operation.responses = { '200': { content: 'not a media type map' } };
    const result = await new Validator().validate(broken as unknown as Record<string, unknown>);
    assert.equal(result.valid, false);
  });

  it('names every route the app registers, and no route it does not', async () => {
    const routes = await registeredRoutes(contract);
    assert.ok(routes.includes(contract.knownRoute), routes.join('\n'));
    assert.deepEqual(compareRoutes(routes, document), { undocumented: [], unregistered: [] });
  });

  it('reports a route added without documentation', async () => {
    const routes = await registeredRoutes(contract, contract.undocumentedRoute.add);
    assert.deepEqual(compareRoutes(routes, document), { undocumented: [contract.undocumentedRoute.key], unregistered: [] });
  });

  it('reports a documented route the app does not have', async () => {
    const routes = await registeredRoutes(contract);
    const extended: OpenApiDocument = {
      ...document,
      paths: { ...document.paths, '/api/v1/projects/{project}/pause': { post: { operationId: 'pause', summary: 'x', security: [], responses: {} } } },
      'x-catch-all': [...(document['x-catch-all'] ?? []), { path: '/api/v1/projects/{project}/*', description: 'x' }],
    };
    assert.deepEqual(compareRoutes(routes, extended), {
      undocumented: [],
      unregistered: ['ALL /api/v1/projects/{project}/*', 'POST /api/v1/projects/{project}/pause'],
    });
  });

  it('is served at GET /api/v1/openapi.json without authentication', async () => {
    const response = await contract.fetchServed();
    assert.equal(response.status, 200);
    assert.match(response.contentType, /^application\/json/);
    assert.deepEqual(response.json, JSON.parse(JSON.stringify(document)));
  });
}
