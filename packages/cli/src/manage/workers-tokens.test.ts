// The management API for workers and API tokens over real HTTP, with real sign-ins.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { admin } from '@conveyor/pipeline';
import { updateMember } from '@conveyor/signin';
import { startManageServer, type Caller, type ManageServer } from './harness.js';

const sign = (body: string, secret: string): string => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

describe('management API: workers and API tokens', () => {
  let server: ManageServer;
  const as: Record<string, Caller> = {};

  before(async () => {
    server = await startManageServer();
    for (const name of ['olivia', 'mel', 'ada', 'sam']) as[name] = { cookie: await server.signIn(name) };
    as.raviAcme = { cookie: await server.signIn('ravi', 'acme.test'), host: 'acme.test' };
  });
  after(() => server.stop());

  describe('API tokens', () => {
    it('creates a cvy_ token shown once, stored as its SHA-256 only, that acts as its owner', async () => {
      const created = await server.call('POST', '/api/v1/tokens', as.mel, { name: 'laptop' });
      assert.equal(created.status, 201, created.text);
      const token = String(created.json.token);
      assert.match(token, /^cvy_[A-Za-z0-9_-]{43}$/);
      const listed = await server.call('GET', '/api/v1/tokens', as.mel);
      assert.deepEqual(listed.json.tokens, [created.json.api_token]);
      assert.ok(!listed.text.includes(token));
      assert.deepEqual(Object.keys(created.json.api_token as object).sort(), ['created_at', 'id', 'last_used_at', 'name']);

      const viaToken = await server.call('POST', '/api/v1/projects', { token }, { name: 'by-token', repo: 'https://git.example.test/x.git' });
      assert.equal(viaToken.status, 201, viaToken.text);
      assert.equal((viaToken.json.project as { owner_user_id: string }).owner_user_id, server.users.mel);
      const used = await server.call('GET', '/api/v1/tokens', { token });
      assert.equal(used.status, 200, 'a token may list tokens');
      assert.equal(typeof (used.json.tokens as { last_used_at: unknown }[])[0]?.last_used_at, 'number');
    });

    it('refuses to create a token with a token (403 session_required), and stores nothing', async () => {
      const token = String((await server.call('POST', '/api/v1/tokens', as.olivia, { name: 'ci' })).json.token);
      const answer = await server.call('POST', '/api/v1/tokens', { token }, { name: 'child' });
      assert.equal(answer.status, 403);
      assert.equal(answer.json.code, 'session_required');
      assert.deepEqual((await server.pipeline.store.listApiTokens(server.users.olivia ?? '', 'system')).map((each) => each.name), ['ci']);
    });

    it("counts only on its realm's hosts, and re-checks the user's rights on every use", async () => {
      const token = String((await server.call('POST', '/api/v1/tokens', as.ada, { name: 'admin script' })).json.token);
      assert.equal((await server.call('GET', '/api/v1/workers', { token })).status, 200);
      assert.equal((await server.call('GET', '/api/v1/workers', { token, host: 'acme.test' })).status, 401, "another realm's host");
      const listAll = async () => ((await server.call('GET', '/api/v1/projects', { token })).json.projects as unknown[]).length;
      await admin.createProject(server.pipeline, { name: 'hidden', repo: server.repo, ownerUserId: server.users.olivia });
      assert.equal(await listAll(), 2, "a realm-admin sees others' private projects");
      await updateMember(server.signin.deps, { realm: 'system', user: 'ada', roles: [] });
      assert.equal(await listAll(), 0, 'the role is gone at the next use');
      await updateMember(server.signin.deps, { realm: 'system', user: 'ada', status: 'suspended' });
      assert.equal((await server.call('GET', '/api/v1/projects', { token })).status, 401, 'a suspended member');
      await updateMember(server.signin.deps, { realm: 'system', user: 'ada', status: 'active', roles: ['realm-admin'] });
      assert.equal(await listAll(), 2);
    });

    it("revokes one's own token at once; another person's is 404", async () => {
      const created = await server.call('POST', '/api/v1/tokens', as.sam, { name: 'short-lived' });
      const id = (created.json.api_token as { id: string }).id;
      const token = String(created.json.token);
      assert.equal((await server.call('DELETE', `/api/v1/tokens/${id}`, as.mel)).status, 404);
      assert.equal((await server.call('GET', '/api/v1/tokens', { token })).status, 200);
      assert.equal((await server.call('DELETE', `/api/v1/tokens/${id}`, { token })).status, 204, 'a token may revoke itself');
      assert.equal((await server.call('GET', '/api/v1/tokens', { token })).status, 401);
      assert.equal((await server.call('DELETE', `/api/v1/tokens/${id}`, as.sam)).status, 404, 'already revoked');
      assert.deepEqual((await server.call('GET', '/api/v1/tokens', as.sam)).json.tokens, []);
    });

    it('refuses bad token bodies with 400 and stores nothing', async () => {
      for (const body of ['{', '', { name: '' }, { name: '   ' }, { name: 'x'.repeat(101) }, { name: 5 }, { name: 'ok', scope: 'all' }, { name: 'bell\u0007' }, ['ok']]) {
        const answer = await server.call('POST', '/api/v1/tokens', as.raviAcme, body);
        assert.equal(answer.status, 400, `${JSON.stringify(body)}: ${answer.text}`);
      }
      assert.deepEqual(await server.pipeline.store.listApiTokens(server.users.ravi ?? '', 'acme'), []);
    });
  });

  describe('workers', () => {
    it('creates a worker owned by the caller, its token shown once; refuses bad bodies and stores nothing', async () => {
      for (const body of ['{', '', { name: '' }, { name: 'bad name' }, { name: 'x'.repeat(101) }, { name: 1 }, { name: 'ok', arch: 'amd64' }]) {
        const answer = await server.call('POST', '/api/v1/workers', as.mel, body);
        assert.equal(answer.status, 400, `${JSON.stringify(body)}: ${answer.text}`);
      }
      assert.deepEqual(await server.pipeline.store.listWorkers(), []);
      const created = await server.call('POST', '/api/v1/workers', as.olivia, { name: 'olivia-box' });
      assert.equal(created.status, 201, created.text);
      assert.match(String(created.json.token), /^cvw_/);
      assert.equal((created.json.worker as { owner_user_id: string }).owner_user_id, server.users.olivia);
      assert.equal((await server.call('POST', '/api/v1/workers', as.mel, { name: 'olivia-box' })).status, 409);
      assert.equal((await server.call('POST', '/api/v1/workers', as.mel, { name: 'mel-box' })).status, 201);
    });

    it('lists all workers for system administrators and their own for others, with state and current task', async () => {
      const names = async (caller: Caller | undefined) => ((await server.call('GET', '/api/v1/workers', caller)).json.workers as { name: string }[]).map((worker) => worker.name);
      assert.deepEqual(await names(as.olivia), ['olivia-box']);
      assert.deepEqual(await names(as.mel), ['mel-box']);
      assert.deepEqual(await names(as.ada), ['olivia-box', 'mel-box']);
      assert.deepEqual(await names(as.sam), ['olivia-box', 'mel-box']);
      assert.deepEqual(await names(as.raviAcme), [], "an acme administrator is not an administrator of the shared workers");

      const before = (await server.call('GET', '/api/v1/workers', as.olivia)).json.workers as Record<string, unknown>[];
      assert.equal(before[0]?.state, 'offline', 'never seen');
      assert.equal(before[0]?.current_task, null);

      const project = await admin.createProject(server.pipeline, { name: 'busywork', repo: server.repo, ownerUserId: server.users.olivia });
      const push = JSON.stringify({ sha: server.sha, ref: 'refs/heads/main' });
      const job = await fetch(`${server.url}/api/v1/projects/busywork/trigger`, { method: 'POST', body: push, headers: { 'content-type': 'application/json', 'x-hub-signature-256': sign(push, project.triggerSecret) } });
      assert.equal(job.status, 200);
      const jobId = ((await job.json()) as { job_id: string }).job_id;
      const worker = await admin.createWorker(server.pipeline, { name: 'olivia-runner', ownerUserId: server.users.olivia });
      const claim = await fetch(`${server.url}/api/v1/tasks/claim`, {
        method: 'POST',
        body: JSON.stringify({ arches: ['amd64', 'arm64'], features: [], name: 'olivia-runner' }),
        headers: { 'content-type': 'application/json', authorization: `Bearer ${worker.token}` },
      });
      assert.equal(claim.status, 200);
      const taskId = ((await claim.json()) as { task: { id: string } }).task.id;

      const listed = (await server.call('GET', '/api/v1/workers', as.olivia)).json.workers as Record<string, unknown>[];
      const runner = listed.find((entry) => entry.name === 'olivia-runner');
      assert.equal(runner?.state, 'busy');
      assert.deepEqual(runner?.current_task, { id: taskId, name: 'build', project_id: project.id, project_name: 'busywork', job_id: jobId, job_number: 1 });
      assert.equal(typeof runner?.last_seen_at, 'number');

      const done = await fetch(`${server.url}/api/v1/tasks/${taskId}/complete`, {
        method: 'POST',
        body: JSON.stringify({ success: true, exit_code: 0 }),
        headers: { 'content-type': 'application/json', authorization: `Bearer ${worker.token}` },
      });
      assert.equal(done.status, 200, await done.clone().text());
      const after = ((await server.call('GET', '/api/v1/workers', as.olivia)).json.workers as Record<string, unknown>[]).find((entry) => entry.name === 'olivia-runner');
      assert.equal(after?.state, 'idle', 'seen just now, holding nothing');
      assert.equal(after?.current_task, null);
    });

    it("revokes one's own worker (or any, for an administrator); another's is 404 and stays", async () => {
      const byName = async (name: string) => (await server.pipeline.store.listWorkerActivity(null)).find((entry) => entry.worker.name === name)?.worker;
      const oliviaBox = await byName('olivia-box');
      const melBox = await byName('mel-box');
      assert.ok(oliviaBox !== undefined && melBox !== undefined);
      assert.equal((await server.call('DELETE', `/api/v1/workers/${oliviaBox.id}`, as.mel)).status, 404);
      assert.equal((await server.call('DELETE', `/api/v1/workers/${oliviaBox.id}`, as.raviAcme)).status, 404);
      assert.equal((await server.call('DELETE', '/api/v1/workers/olivia-box', as.olivia)).status, 404, 'by id only');
      assert.equal((await byName('olivia-box'))?.revokedAt, null);
      assert.equal((await server.call('DELETE', `/api/v1/workers/${oliviaBox.id}`, as.olivia)).status, 204);
      assert.equal((await server.call('DELETE', `/api/v1/workers/${melBox.id}`, as.ada)).status, 204);
      assert.equal((await server.call('DELETE', `/api/v1/workers/${melBox.id}`, as.ada)).status, 404, 'already revoked');
      assert.deepEqual(((await server.call('GET', '/api/v1/workers', as.sam)).json.workers as { name: string }[]).map((worker) => worker.name), ['olivia-runner']);
    });
  });
});
