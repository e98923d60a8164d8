// The web interface on the combined server: hashed assets cached for a year, the page revalidated,
// client routes answered with the page, and /api/ paths never swallowed by it.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { readServeConfig } from './config.js';
import { startCombinedServer, type CombinedServer } from './server.js';
import { registerWebApp } from './web.js';

describe('the web interface on the combined server', () => {
  let directory: string;
  let server: CombinedServer;

  before(async () => {
    directory = mkdtempSync(join(tmpdir(), 'conveyor-web-serve-'));
    server = await startCombinedServer(readServeConfig({ CONVEYOR_PORT: '0', CONVEYOR_DATA_PATH: join(directory, 'data'), PIPELINE_LOG_LEVEL: 'warn' }));
  });
  after(async () => {
    await server.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  it('serves the built page at / and at client routes, revalidated, with a content security policy', async () => {
    for (const path of ['/', '/projects/demo', '/projects/demo/jobs/abc/tasks/def', '/workers', '/no/such/page']) {
      const response = await fetch(`${server.url}${path}`, { headers: { accept: 'text/html' } });
      assert.equal(response.status, 200, path);
      assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
      assert.equal(response.headers.get('cache-control'), 'no-cache', path);
      assert.match(response.headers.get('content-security-policy') ?? '', /default-src 'self'/);
      assert.match(await response.text(), /<div id="app">/);
    }
  });

  it('serves hashed assets with a year-long immutable cache', async () => {
    const page = await (await fetch(`${server.url}/`)).text();
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(page)?.[1];
    assert.ok(script !== undefined, 'the page names its script');
    const response = await fetch(`${server.url}${script}`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /javascript/);
    assert.equal(response.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    const plain = Buffer.from(await response.arrayBuffer());
    // undici's fetch decodes what it accepts: ask with a raw request to see the bytes on the wire.
    const encoded = await new Promise<{ encoding: string | undefined; length: number }>((resolve, reject) => {
      request(`${server.url}${script}`, { headers: { 'accept-encoding': 'br, gzip' } }, (answer) => {
        let length = 0;
        answer.on('data', (chunk: Buffer) => (length += chunk.length));
        answer.on('end', () => resolve({ encoding: answer.headers['content-encoding'], length }));
      })
        .on('error', reject)
        .end();
    });
    assert.equal(encoded.encoding, 'br', "the build's precompressed brotli file is sent");
    assert.ok(encoded.length < plain.length / 2, `${encoded.length} compressed bytes of ${plain.length}`);
  });

  it('leaves /api/ paths and other methods to the services: JSON 404s, not the page', async () => {
    for (const path of ['/api/v1/nothing-here', '/api', '/api/']) {
      const response = await fetch(`${server.url}${path}`, { headers: { accept: 'text/html' } });
      assert.equal(response.status, 404, path);
      assert.deepEqual(await response.json(), { error: 'not found', code: 'not_found' });
    }
    const missingAsset = await fetch(`${server.url}/assets/index-from-an-older-build.js`);
    assert.equal(missingAsset.status, 404, 'a missing asset is a 404, not the page');
    assert.match(missingAsset.headers.get('content-type') ?? '', /json/);
    const post = await fetch(`${server.url}/projects/demo`, { method: 'POST' });
    assert.equal(post.status, 404);
    assert.equal(((await post.json()) as { code: string }).code, 'not_found');
    assert.equal((await fetch(`${server.url}/api/v1/realm`)).status, 200);
  });

  it('refuses paths that climb out of the build directory', async () => {
    for (const path of ['/assets/../../package.json', '/assets/%2e%2e/%2e%2e/package.json', '/..%2f..%2fpackage.json']) {
      const response = await fetch(`${server.url}${path}`);
      const body = await response.text();
      assert.doesNotMatch(body, /"name": "@conveyor\/web"/, path);
    }
  });
});

describe('the web interface before it is built', () => {
  let app: FastifyInstance;
  let directory: string;

  before(async () => {
    directory = mkdtempSync(join(tmpdir(), 'conveyor-web-unbuilt-'));
    app = Fastify();
    await registerWebApp(app, { directory: join(directory, 'not-built') });
    await app.ready();
  });
  after(async () => {
    await app.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('says how to build it, with 503, instead of a blank page', async () => {
    const response = await app.inject({ url: '/projects', headers: { accept: 'text/html' } });
    assert.equal(response.statusCode, 503);
    assert.match(response.body, /npm run build -w @conveyor\/web/);
  });
});
