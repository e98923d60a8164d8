// Both services mounted as plugins on one Fastify server (one origin): each keeps its routes, its
// parsers, its body limits and its error bodies; unknown paths get the pipeline's 404.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { admin, openPipeline, pipelinePlugin, pipelineServerOptions, readPipelineConfig, type PipelineDeps } from '@conveyor/pipeline';
import { addMember, createSigninService, createUser, type SigninService } from '@conveyor/signin';
import { signinPlugin } from '@conveyor/signin/plugin';
import { gitSync } from '@conveyor/kit/testing';

const PASSWORD = 'correct horse battery staple';

const git = gitSync;

/** A real repository with one commit carrying a valid pipeline file. */
function makeRepository(dir: string): { repo: string; sha: string } {
  const repo = join(dir, 'repo');
  git(dir, ['init', '-q', '-b', 'main', repo]);
  writeFileSync(join(repo, '.pipeline.yml'), 'tasks:\n  build:\n    image: x\n    script: [make]\n');
  git(repo, ['add', '--all']);
  git(repo, ['commit', '-q', '-m', 'pipeline']);
  return { repo, sha: git(repo, ['rev-parse', 'HEAD']) };
}

function postWithHost(base: string, path: string, body: string, host: string): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(`${base}${path}`, { method: 'POST', headers: { host, 'content-type': 'application/json' } }, (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown> }));
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

const sign = (body: string, secret: string): string => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

describe('both services as plugins on one server', () => {
  let dir: string;
  let pipeline: PipelineDeps;
  let signin: SigninService;
  let app: FastifyInstance;
  let url: string;
  let secret: string;
  let sha: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'combined-'));
    const config = readPipelineConfig({ PIPELINE_DATABASE_PATH: join(dir, 'pipeline.db'), PIPELINE_DATA_PATH: join(dir, 'data'), PIPELINE_LOG_LEVEL: 'silent' });
    pipeline = openPipeline(config);
    const repository = makeRepository(dir);
    sha = repository.sha;
    secret = (await admin.createProject(pipeline, { name: 'demo', repo: repository.repo, visibility: 'public' })).triggerSecret;
    signin = await createSigninService({ databasePath: join(dir, 'signin.db'), realmsPath: join(dir, 'realms') });
    const user = await createUser(signin.deps, { username: 'alice', password: PASSWORD });
    await addMember(signin.deps, { realm: 'system', user: user.id, status: 'active', roles: [] });

    app = Fastify(pipelineServerOptions({ requestTimeoutMs: config.requestTimeoutMs }));
    await app.register(pipelinePlugin, { deps: pipeline });
    // One not-found handler and one OpenAPI route per server: the pipeline's (see docs/architecture.md).
    await app.register(signinPlugin, { deps: signin.deps, handleNotFound: false, serveOpenApi: false });
    // A route beside both services (as the web interface's files will be): neither may reach it.
    app.post('/probe', async (request) => ({ body: Buffer.isBuffer(request.body) ? 'raw bytes' : typeof request.body }));
    app.get('/probe-error', async () => {
      throw Object.assign(new Error('teapot'), { statusCode: 418 });
    });
    url = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(async () => {
    await app.close();
    await signin.close();
    await pipeline.store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${url}${path}`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });

  it('signs in with a password and starts a job from a push, on the same server', async () => {
    const login = await post('/api/v1/login/password', JSON.stringify({ identifier: 'alice', password: PASSWORD }));
    assert.equal(login.status, 200, await login.clone().text());
    assert.match(login.headers.get('set-cookie') ?? '', /^auth_session_system=/);
    assert.equal(((await login.json()) as { user: { username: string } }).user.username, 'alice');

    const push = JSON.stringify({ sha, ref: 'refs/heads/main', actor: 'alice' });
    const trigger = await post('/api/v1/projects/demo/trigger', push, { 'x-hub-signature-256': sign(push, secret) });
    assert.equal(trigger.status, 200, await trigger.clone().text());
    assert.deepEqual({ ...((await trigger.json()) as object), job_id: '' }, { status: 'created', job_id: '', tasks: 1 });
  });

  it("keeps each service's error body for its own 400 and 404", async () => {
    const badLogin = await post('/api/v1/login/password', '{not json');
    assert.equal(badLogin.status, 400);
    assert.deepEqual(Object.keys((await badLogin.json()) as object).sort(), ['error', 'message']);

    const badJob = await post('/api/v1/projects/demo/jobs', '{not json', { 'x-hub-signature-256': sign('{not json', secret) });
    assert.equal(badJob.status, 400);
    assert.deepEqual(Object.keys((await badJob.json()) as object), ['error', 'code']);

    // fetch cannot set Host, which would pick the system realm; node's client can.
    const unknownRealm = await postWithHost(url, '/api/v1/login/resolve', JSON.stringify({ identifier: 'alice', realm: 'nope' }), 'elsewhere.test');
    assert.equal(unknownRealm.status, 404);
    assert.deepEqual(Object.keys(unknownRealm.body).sort(), ['error', 'message']);
    assert.equal(unknownRealm.body.error, 'unknown_realm');

    const unknownProject = await post('/api/v1/projects/nope/trigger', '{}');
    assert.equal(unknownProject.status, 404);
    assert.deepEqual(await unknownProject.json(), { error: 'not found', code: 'not_found' });
  });

  it('answers unknown paths with the pipeline\'s {"error":"not found"}', async () => {
    for (const path of ['/api/v1/nothing', '/api/v1/login/nothing', '/elsewhere']) {
      const response = await fetch(`${url}${path}`);
      assert.equal(response.status, 404, path);
      assert.deepEqual(await response.json(), { error: 'not found', code: 'not_found' }, path);
    }
  });

  it("does not let the pipeline's raw-body parsers reach the sign-in routes", async () => {
    // The pipeline takes any content type as raw bytes; the sign-in service still refuses non-JSON.
    const form = await post('/api/v1/login/password', 'identifier=alice&password=x', { 'content-type': 'application/x-www-form-urlencoded' });
    assert.equal(form.status, 400);
    assert.equal(((await form.json()) as { error: string }).error, 'invalid_request');
    // ...and keeps its own 64 KiB limit, below the pipeline's 1 MiB.
    const large = await post('/api/v1/login/password', JSON.stringify({ identifier: 'alice', password: 'x'.repeat(100 * 1024) }));
    assert.equal(large.status, 413);
    assert.equal(((await large.json()) as { error: string }).error, 'invalid_request');
    // The pipeline still reads its bodies raw: a signed push sent as text/plain is accepted.
    const push = JSON.stringify({ sha, ref: 'refs/heads/main' });
    const trigger = await post('/api/v1/projects/demo/trigger', push, { 'content-type': 'text/plain', 'x-hub-signature-256': sign(push, secret) });
    assert.equal(trigger.status, 200, await trigger.clone().text());
  });

  it('leaves the parsers and the error handler of routes beside both services as Fastify made them', async () => {
    const probe = await post('/probe', '{"a":1}');
    assert.deepEqual(await probe.json(), { body: 'object' });
    const failure = await fetch(`${url}/probe-error`);
    assert.equal(failure.status, 418);
    assert.deepEqual(await failure.json(), { statusCode: 418, error: "I'm a Teapot", message: 'teapot' });
  });

  it("serves the pipeline's OpenAPI document once", async () => {
    const response = await fetch(`${url}/api/v1/openapi.json`);
    assert.equal(response.status, 200);
    assert.equal(((await response.json()) as { info: { title: string } }).info.title, 'Conveyor pipeline service');
  });

  it('refuses a second not-found handler, so the choice is made explicitly', async () => {
    const twice = Fastify();
    await twice.register(pipelinePlugin, { deps: pipeline, serveOpenApi: false });
    await assert.rejects(async () => {
      await twice.register(signinPlugin, { deps: signin.deps, serveOpenApi: false });
      await twice.ready();
    }, /Not found handler already set/);
    await twice.close().catch(() => undefined);
  });
});
