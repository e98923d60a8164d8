import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Fastify from 'fastify';
import { testOpenApiContract } from '@conveyor/kit/testing';
import { signinPlugin } from '../../app.js';
import { send, startTestServer, type TestServer } from '../../testing/harness.js';
import { signinOpenApiDocument } from './document.js';

/** Every error code the spec names, plus the service's own. */
const SPEC_CODES = ['invalid_request', 'invalid_credentials', 'not_authenticated', 'provider_required', 'unknown_realm', 'provider_disabled', 'too_many_attempts', 'busy'];

describe('the sign-in OpenAPI document', () => {
  let service: TestServer;
  before(async () => {
    service = await startTestServer();
  });
  after(() => service.close());

  testOpenApiContract({
    document: signinOpenApiDocument,
    createServer: () => Fastify(),
    registerService: (app) => app.register(signinPlugin, { deps: service.deps }),
    knownRoute: 'POST /api/v1/login/password',
    undocumentedRoute: { add: (app) => app.delete('/api/v1/sessions/:session', async () => ({})), key: 'DELETE /api/v1/sessions/{session}' },
    fetchServed: async () => {
      const response = await send(service.port, { path: '/api/v1/openapi.json' });
      return { status: response.status, contentType: String(response.headers['content-type']), json: response.json };
    },
  });

  it('documents the headers and error bodies the routes use', () => {
    const text = JSON.stringify(signinOpenApiDocument);
    for (const needle of ['"identifier"', '"long_session"', 'auth_session_<realm>', 'Retry-After', 'Set-Cookie', ...SPEC_CODES]) {
      assert.ok(text.includes(needle), `the document does not mention ${needle}`);
    }
  });
});
