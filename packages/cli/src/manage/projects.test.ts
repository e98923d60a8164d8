// The management API for projects over real HTTP, with real sign-ins on the combined server.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { admin } from '@conveyor/pipeline';
import { startManageServer, type Caller, type ManageServer } from './harness.js';

const sign = (body: string, secret: string): string => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
const REMOTE = 'https://git.example.test/team/app.git';

describe('management API: projects, variables, trigger secret, webhook', () => {
  let server: ManageServer;
  const as: Record<string, Caller> = {};

  before(async () => {
    server = await startManageServer();
    for (const name of ['olivia', 'mel', 'ada', 'sam']) as[name] = { cookie: await server.signIn(name) };
    as.raviAcme = { cookie: await server.signIn('ravi', 'acme.test'), host: 'acme.test' };
    as.oliviaAcme = { cookie: await server.signIn('olivia', 'acme.test'), host: 'acme.test' };
    const logout = await server.signIn('olivia');
    assert.equal((await server.call('POST', '/api/v1/logout', { cookie: logout })).status, 200);
    as.loggedOut = { cookie: logout };
    const token = await server.call('POST', '/api/v1/tokens', as.olivia, { name: 'script' });
    assert.equal(token.status, 201, token.text);
    as.oliviaToken = { token: String(token.json.token) };
    const revoked = await server.call('POST', '/api/v1/tokens', as.olivia, { name: 'old' });
    as.revokedToken = { token: String(revoked.json.token) };
    const revokedId = (revoked.json.api_token as { id: string }).id;
    assert.equal((await server.call('DELETE', `/api/v1/tokens/${revokedId}`, as.olivia)).status, 204);
  });
  after(() => server.stop());

  const projectNames = async () => (await server.pipeline.store.listProjects()).map((project) => project.name);

  it('refuses every route without a caller: 401 not_signed_in, nothing stored', async () => {
    const routes: [string, string, unknown?][] = [
      ['GET', '/api/v1/projects'],
      ['POST', '/api/v1/projects', { name: 'anon', repo: REMOTE }],
      ['GET', '/api/v1/projects/anon'],
      ['PATCH', '/api/v1/projects/anon', { enabled: false }],
      ['DELETE', '/api/v1/projects/anon'],
      ['GET', '/api/v1/projects/anon/variables'],
      ['PUT', '/api/v1/projects/anon/variables/A', { value: 'x', secret: false }],
      ['DELETE', '/api/v1/projects/anon/variables/A'],
      ['POST', '/api/v1/projects/anon/trigger-secret'],
      ['GET', '/api/v1/projects/anon/webhook'],
      ['GET', '/api/v1/workers'],
      ['POST', '/api/v1/workers', { name: 'anon' }],
      ['DELETE', '/api/v1/workers/anon'],
      ['GET', '/api/v1/tokens'],
      ['POST', '/api/v1/tokens', { name: 'anon' }],
      ['DELETE', '/api/v1/tokens/anon'],
    ];
    for (const [method, path, body] of routes) {
      for (const caller of [{}, as.loggedOut ?? {}, as.revokedToken ?? {}, { token: 'cvy_not-a-token' }]) {
        const answer = await server.call(method, path, caller, body);
        assert.equal(answer.status, 401, `${method} ${path}: ${answer.text}`);
        assert.deepEqual(answer.json, { error: 'sign in first', code: 'not_signed_in' });
      }
    }
    assert.deepEqual(await projectNames(), []);
    assert.deepEqual(await server.pipeline.store.listWorkers(), []);
  });

  it('creates a project owned by the caller and shows its trigger secret only in that answer', async () => {
    const created = await server.call('POST', '/api/v1/projects', as.olivia, { name: 'app', repo: REMOTE });
    assert.equal(created.status, 201, created.text);
    const project = created.json.project as Record<string, unknown>;
    assert.equal(project.owner_user_id, server.users.olivia);
    assert.equal(project.visibility, 'private');
    assert.match(String(project.trigger_secret), /^[0-9a-f]{64}$/);
    assert.equal((await server.pipeline.store.findProject('app'))?.triggerSecret, project.trigger_secret);

    const read = await server.call('GET', '/api/v1/projects/app', as.olivia);
    assert.equal(read.status, 200);
    const { trigger_secret: _secret, ...withoutSecret } = project;
    assert.deepEqual(read.json.project, withoutSecret);
    assert.ok(!read.text.includes(String(project.trigger_secret)));
    const listed = await server.call('GET', '/api/v1/projects', as.olivia);
    assert.ok(!listed.text.includes(String(project.trigger_secret)));
  });

  it('refuses bad project bodies with 400 and stores nothing', async () => {
    const before = await projectNames();
    const bodies: [unknown, RegExp][] = [
      ['{"name": "x", ', /JSON/],
      ['', /JSON object body is required/],
      [{ name: 'bad', repo: REMOTE, owner: 'me' }, /unrecognized|Unrecognized/i],
      [{ name: 7, repo: REMOTE }, /name/],
      [{ name: 'ok', repo: ['x'] }, /repo/],
      [{ name: 'ok', repo: REMOTE, visibility: 'secret' }, /visibility/],
      [{ name: 'x'.repeat(101), repo: REMOTE }, /name/],
      [{ name: 'ok', repo: `https://h.test/${'r'.repeat(3000)}` }, /repo/],
      [{ name: 'Bad Name', repo: REMOTE }, /must match/],
      [{ name: 'ok', repo: 'ftp://h.test/x' }, /scheme/],
      [{ name: 'ok', repo: server.repo }, /system-admin/],
      [{ name: 'ok', repo: `file://${server.repo}` }, /system-admin/],
      [[1, 2], /object/],
    ];
    for (const [body, message] of bodies) {
      const answer = await server.call('POST', '/api/v1/projects', as.mel, body);
      assert.equal(answer.status, 400, `${JSON.stringify(body)}: ${answer.text}`);
      assert.match(String(answer.json.error), message, JSON.stringify(body));
    }
    const duplicate = await server.call('POST', '/api/v1/projects', as.mel, { name: 'app', repo: REMOTE });
    assert.equal(duplicate.status, 409);
    assert.deepEqual(await projectNames(), before);
  });

  it('lets a system-admin register a repository on the server', async () => {
    const created = await server.call('POST', '/api/v1/projects', as.sam, { name: 'local', repo: server.repo, visibility: 'public' });
    assert.equal(created.status, 201, created.text);
  });

  it('lets the owner, realm administrators and the owner\'s API token manage a private project; others get 404', async () => {
    const matrix: [string, number][] = [
      ['olivia', 200],
      ['ada', 200],
      ['sam', 200],
      ['oliviaToken', 200],
      ['mel', 404],
      ['raviAcme', 404],
      ['oliviaAcme', 404],
    ];
    for (const [who, status] of matrix) {
      const caller = as[who] ?? {};
      for (const [method, path, body] of [
        ['GET', '/api/v1/projects/app'],
        ['PATCH', '/api/v1/projects/app', { enabled: true }],
        ['GET', '/api/v1/projects/app/variables'],
        ['PUT', '/api/v1/projects/app/variables/FROM_TEST', { value: who, secret: false }],
        ['GET', '/api/v1/projects/app/webhook'],
      ] as [string, string, unknown?][]) {
        const answer = await server.call(method, path, caller, body);
        assert.equal(answer.status, status, `${who} ${method} ${path}: ${answer.text}`);
        if (status === 404) assert.deepEqual(answer.json, { error: 'not found', code: 'not_found' });
      }
    }
    const variables = await server.pipeline.store.listVariables((await server.pipeline.store.findProject('app'))?.id ?? '');
    assert.deepEqual(variables, [{ name: 'FROM_TEST', value: 'oliviaToken', secret: false }], 'the last allowed caller wrote it; no refused one did');
  });

  it('lists what the caller may manage plus public projects, by name, paged, with the newest job', async () => {
    const secret = (await admin.createProject(server.pipeline, { name: 'zeta', repo: server.repo, ownerUserId: server.users.olivia })).triggerSecret;
    const push = JSON.stringify({ sha: server.sha, ref: 'refs/heads/main', actor: 'olivia' });
    const triggered = await server.call('POST', '/api/v1/projects/zeta/trigger', {}, push);
    assert.equal(triggered.status, 401);
    const job = await fetch(`${server.url}/api/v1/projects/zeta/trigger`, { method: 'POST', body: push, headers: { 'content-type': 'application/json', 'x-hub-signature-256': sign(push, secret) } });
    assert.equal(job.status, 200);

    const names = async (caller: Caller, query = '') => {
      const answer = await server.call('GET', `/api/v1/projects${query}`, caller);
      assert.equal(answer.status, 200, answer.text);
      return { names: (answer.json.projects as { name: string }[]).map((project) => project.name), body: answer.json };
    };
    assert.deepEqual((await names(as.mel ?? {})).names, ['local']);
    assert.deepEqual((await names(as.olivia ?? {})).names, ['app', 'local', 'zeta']);
    assert.deepEqual((await names(as.ada ?? {})).names, ['app', 'local', 'zeta']);
    assert.deepEqual((await names(as.raviAcme ?? {})).names, [], "another realm's host lists its own realm's projects");

    const first = await names(as.ada ?? {}, '?limit=2');
    assert.deepEqual(first.names, ['app', 'local']);
    const cursor = String(first.body.next_cursor);
    const second = await names(as.ada ?? {}, `?limit=2&cursor=${encodeURIComponent(cursor)}`);
    assert.deepEqual(second.names, ['zeta']);
    assert.equal(second.body.next_cursor, null);
    const zeta = (second.body.projects as Record<string, unknown>[])[0] ?? {};
    assert.deepEqual(Object.keys(zeta).sort(), ['created_at', 'enabled', 'id', 'last_job', 'may_manage', 'name', 'owner_user_id', 'repo', 'updated_at', 'visibility']);
    assert.deepEqual({ ...(zeta.last_job as object), id: '', created_at: 0 }, { id: '', number: 1, state: 'running', ref: 'refs/heads/main', created_at: 0 });

    for (const query of ['?limit=0', '?limit=101', '?limit=x', '?cursor=%%%', '?cursor=bm90IGEgbmFtZQ']) {
      const answer = await server.call('GET', `/api/v1/projects${query}`, as.ada);
      assert.equal(answer.status, 400, `${query}: ${answer.text}`);
    }
  });

  it('lets a signed-in person read a public project but not change it', async () => {
    assert.equal((await server.call('GET', '/api/v1/projects/local', as.mel)).json.project !== undefined, true);
    assert.equal((await server.call('GET', '/api/v1/projects/local', as.mel)).status, 200);
    assert.equal((await server.call('PATCH', '/api/v1/projects/local', as.mel, { enabled: false })).status, 404);
    assert.equal((await server.call('GET', '/api/v1/projects/local/variables', as.mel)).status, 404);
    assert.equal((await server.pipeline.store.findProject('local'))?.enabled, true);
  });

  it('changes name, repo, visibility and enabled; refuses bad changes and changes nothing', async () => {
    const before = await server.pipeline.store.findProject('app');
    const bodies: unknown[] = ['{', { name: 'Bad Name' }, { enabled: 'no' }, { visibility: 'open' }, { repo: server.repo }, { trigger_secret: 'x' }, { name: 'n'.repeat(101) }, 'null'];
    for (const body of bodies) {
      const answer = await server.call('PATCH', '/api/v1/projects/app', as.olivia, body);
      assert.equal(answer.status, 400, `${JSON.stringify(body)}: ${answer.text}`);
    }
    assert.equal((await server.call('PATCH', '/api/v1/projects/app', as.olivia, { name: 'zeta' })).status, 409);
    assert.deepEqual(await server.pipeline.store.findProject('app'), before);

    const changed = await server.call('PATCH', '/api/v1/projects/app', as.olivia, { name: 'app2', visibility: 'public', enabled: false, repo: 'https://git.example.test/team/app2.git' });
    assert.equal(changed.status, 200, changed.text);
    assert.deepEqual(
      { ...(changed.json.project as object), id: '', created_at: 0, updated_at: 0, owner_user_id: '' },
      { id: '', name: 'app2', repo: 'https://git.example.test/team/app2.git', visibility: 'public', enabled: false, owner_user_id: '', created_at: 0, updated_at: 0, may_manage: true },
    );
    assert.equal(await server.pipeline.store.findProject('app'), null);
    assert.equal((await server.call('PATCH', '/api/v1/projects/app2', as.olivia, { name: 'app', visibility: 'private', enabled: true })).status, 200);
  });

  it('sets, lists (secret values never returned) and unsets variables; refuses bad ones and stores nothing', async () => {
    const id = (await server.pipeline.store.findProject('app'))?.id ?? '';
    const put = (name: string, body: unknown) => server.call('PUT', `/api/v1/projects/app/variables/${name}`, as.olivia, body);
    assert.equal((await put('TOKEN', { value: 'a-long-secret-value', secret: true })).status, 200);
    const plain = await put('MODE', { value: 'fast', secret: false });
    assert.deepEqual(plain.json, { variable: { name: 'MODE', secret: false, value: 'fast' } });
    const listed = await server.call('GET', '/api/v1/projects/app/variables', as.olivia);
    assert.deepEqual(listed.json.variables, [
      { name: 'FROM_TEST', secret: false, value: 'oliviaToken' },
      { name: 'MODE', secret: false, value: 'fast' },
      { name: 'TOKEN', secret: true },
    ]);
    assert.ok(!listed.text.includes('a-long-secret-value'));

    const before = await server.pipeline.store.listVariables(id);
    const refused: [string, unknown][] = [
      ['SHORT', { value: 'short', secret: true }],
      ['CI', { value: 'x', secret: false }],
      ['PIPELINE_X', { value: 'x', secret: false }],
      ['bad-name', { value: 'x', secret: false }],
      ['OK', { value: 'x' }],
      ['OK', { value: 1, secret: false }],
      ['OK', { value: 'x', secret: 'yes' }],
      ['OK', { value: 'x', secret: false, extra: 1 }],
      ['OK', { value: 'v'.repeat(64 * 1024 + 1), secret: false }],
      ['OK', '{"value":'],
      ['OK', ''],
    ];
    for (const [name, body] of refused) {
      const answer = await put(name, body);
      assert.equal(answer.status, 400, `${name} ${JSON.stringify(body).slice(0, 80)}: ${answer.text}`);
    }
    assert.deepEqual(await server.pipeline.store.listVariables(id), before);

    assert.equal((await server.call('DELETE', '/api/v1/projects/app/variables/MODE', as.olivia)).status, 204);
    assert.equal((await server.call('DELETE', '/api/v1/projects/app/variables/MODE', as.olivia)).status, 404);
    assert.equal((await server.call('DELETE', '/api/v1/projects/app/variables/TOKEN', as.mel)).status, 404);
    assert.deepEqual((await server.pipeline.store.listVariables(id)).map((variable) => variable.name), ['FROM_TEST', 'TOKEN']);
  });

  it('rotates the trigger secret: the new one is shown once and works, the old one stops at once', async () => {
    const old = (await server.pipeline.store.findProject('zeta'))?.triggerSecret ?? '';
    assert.equal((await server.call('POST', '/api/v1/projects/zeta/trigger-secret', as.mel)).status, 404);
    assert.equal((await server.pipeline.store.findProject('zeta'))?.triggerSecret, old);
    const rotated = await server.call('POST', '/api/v1/projects/zeta/trigger-secret', as.olivia);
    assert.equal(rotated.status, 200, rotated.text);
    const fresh = String((rotated.json.project as { trigger_secret: string }).trigger_secret);
    assert.notEqual(fresh, old);
    const push = JSON.stringify({ sha: server.sha, ref: 'refs/heads/main' });
    const trigger = (secret: string) =>
      fetch(`${server.url}/api/v1/projects/zeta/trigger`, { method: 'POST', body: push, headers: { 'content-type': 'application/json', 'x-hub-signature-256': sign(push, secret) } });
    assert.equal((await trigger(old)).status, 401);
    assert.equal((await trigger(fresh)).status, 200);
  });

  it('gives the trigger URL and setup steps for a git hook, GitHub, GitLab, Gitea and Forgejo', async () => {
    const answer = await server.call('GET', '/api/v1/projects/zeta/webhook', as.olivia);
    assert.equal(answer.status, 200, answer.text);
    const url = `${server.url}/api/v1/projects/zeta/trigger`;
    assert.equal(answer.json.url, url);
    const steps = answer.json.steps as Record<string, string[]>;
    assert.deepEqual(Object.keys(steps), ['git_hook', 'github', 'gitlab', 'gitea', 'forgejo']);
    for (const [kind, list] of Object.entries(steps)) {
      if (kind === 'git_hook') continue;
      assert.ok(list.some((step) => step.includes(url)), `${kind} names the URL`);
      assert.ok(list.some((step) => /[Pp]ush/.test(step)), `${kind} names the events`);
    }
    assert.ok(steps.github?.some((step) => step.includes('application/json')));
    assert.ok(steps.gitlab?.some((step) => step.includes('X-Gitlab-Token')));
    assert.ok(steps.git_hook?.includes(`exec conveyor pipeline hook post-receive --url '${server.url}' --project 'zeta' --secret-file /etc/conveyor/zeta.secret`));
    const secret = (await server.pipeline.store.findProject('zeta'))?.triggerSecret ?? '';
    assert.ok(!answer.text.includes(secret), 'the secret itself is never repeated');
  });

  it('deletes a project with its jobs, tasks, variables, logs and artifacts; others get 404 and nothing goes', async () => {
    const { store, blobs } = server.pipeline;
    const zeta = await store.findProject('zeta');
    assert.ok(zeta !== null);
    const worker = await admin.createWorker(server.pipeline, { name: 'deleter', ownerUserId: server.users.olivia });
    const claim = await fetch(`${server.url}/api/v1/tasks/claim`, {
      method: 'POST',
      body: JSON.stringify({ arches: ['amd64', 'arm64'], features: [], name: 'deleter' }),
      headers: { 'content-type': 'application/json', authorization: `Bearer ${worker.token}` },
    });
    assert.equal(claim.status, 200, await claim.clone().text());
    const taskId = ((await claim.json()) as { task: { id: string } }).task.id;
    const workerCall = (path: string, body: string, headers: Record<string, string>) =>
      fetch(`${server.url}/api/v1/tasks/${taskId}/${path}`, { method: 'POST', body, headers: { authorization: `Bearer ${worker.token}`, ...headers } });
    assert.equal((await workerCall('log', 'hello\n', { 'x-log-offset': '0', 'content-type': 'application/octet-stream' })).status, 200);
    assert.equal((await workerCall('artifacts', 'bytes', { 'x-artifact-path': 'out.txt', 'content-type': 'application/octet-stream' })).status, 201);
    assert.equal((await blobs.list('logs/')).length, 1);
    assert.equal((await blobs.list('artifacts/')).length, 1);

    for (const who of ['mel', 'raviAcme', 'oliviaAcme']) assert.equal((await server.call('DELETE', '/api/v1/projects/zeta', as[who])).status, 404, who);
    assert.notEqual(await store.findProject('zeta'), null);

    const deleted = await server.call('DELETE', '/api/v1/projects/zeta', as.olivia);
    assert.equal(deleted.status, 204, deleted.text);
    assert.equal(deleted.text, '');
    assert.equal(await store.findProject('zeta'), null);
    assert.equal(await store.getTask(taskId), null);
    assert.deepEqual(await blobs.list('logs/'), []);
    assert.deepEqual(await blobs.list('artifacts/'), []);
    assert.equal((await server.call('GET', '/api/v1/projects/zeta', as.olivia)).status, 404);
    assert.equal((await workerCall('heartbeat', '', {})).status, 404, 'the worker learns its task is gone');
    assert.equal((await server.call('DELETE', '/api/v1/projects/zeta', as.olivia)).status, 404);
    const again = await admin.createProject(server.pipeline, { name: 'zeta', repo: server.repo });
    assert.equal(again.name, 'zeta', 'the name is free again');
  });
});
