import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Fastify from 'fastify';
import { testOpenApiContract } from '@conveyor/kit/testing';
import { pipelinePlugin } from '../../app.js';
import { startTestService, type TestService } from '../../testing/service.js';
import { pipelineOpenApiDocument } from './document.js';

describe('the pipeline OpenAPI document', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(() => service.stop());

  testOpenApiContract({
    document: pipelineOpenApiDocument,
    createServer: () => Fastify(),
    registerService: (app) => app.register(pipelinePlugin, { deps: service.deps }),
    knownRoute: 'POST /api/v1/projects/{project}/trigger',
    undocumentedRoute: { add: (app) => app.post('/api/v1/projects/:project/archive', async () => ({})), key: 'POST /api/v1/projects/{project}/archive' },
    fetchServed: async () => {
      const response = await service.call('GET', '/api/v1/openapi.json');
      return { status: response.status, contentType: response.headers.get('content-type') ?? '', json: await response.json() };
    },
  });

  it('documents the headers and error bodies the routes use', () => {
    const text = JSON.stringify(pipelineOpenApiDocument);
    for (const needle of ['X-Hub-Signature-256', 'X-Git-Token', 'X-Log-Offset', 'X-Artifact-Path', '"Range"', '"bearer"', 'expected_offset', 'problems']) {
      assert.ok(text.includes(needle), `the document does not mention ${needle}`);
    }
  });
});
