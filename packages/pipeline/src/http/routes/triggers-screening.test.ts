import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createProject } from '../../domain/projects.js';
import { openRaw, postHead, sendHead } from '../../testing/raw-http.js';
import { sign, startTestService, type TestProject, type TestService } from '../../testing/service.js';
import { TRIGGER_BODY_BUDGET } from './triggers.js';

const PIPELINE = 'tasks:\n  build:\n    image: alpine\n    script: [echo build]\n';
const MIB = 1024 * 1024;
/** Just under the 25 MiB trigger limit, as the measurement sends. */
const LARGE = 24 * MIB;

/** Log lines the service wrote, parsed. */
function logCollector(): { write(line: string): void; lines: Array<Record<string, unknown>>; text(): string } {
  const raw: string[] = [];
  return {
    write(line: string) {
      raw.push(line);
    },
    get lines() {
      return raw.map((line) => JSON.parse(line) as Record<string, unknown>);
    },
    text: () => raw.join(''),
  };
}

/** Runs `body` with a fresh connection to the service, which is destroyed however `body` ends. */
async function withConnection<T>(url: string, body: (socket: Socket) => Promise<T>): Promise<T> {
  const socket = await openRaw(url);
  try {
    return await body(socket);
  } finally {
    socket.destroy();
  }
}

describe('trigger routes refuse what they can before reading the body', () => {
  let service: TestService;
  let demo: TestProject;
  const log = logCollector();

  before(async () => {
    service = await startTestService({ config: { logLevel: 'info' }, logStream: log });
    demo = await service.addProject({ name: 'demo', pipeline: PIPELINE });
    await demo.commit({ 'README.md': 'x\n' });
  });
  after(() => service.stop());

  for (const route of ['trigger', 'jobs']) {
    it(`answers 404 for an unknown project on /${route} before a byte of a 24 MiB body is sent, and closes`, async () => {
      await withConnection(service.url, async (socket) => {
        const answer = await sendHead(socket, postHead(`/api/v1/projects/nope/${route}`, LARGE, { 'X-Hub-Signature-256': `sha256=${'0'.repeat(64)}` }));
        assert.equal(answer.status, 404);
        assert.deepEqual(JSON.parse(answer.body), { error: 'not found', code: 'not_found' });
        assert.equal(await answer.closedWithin(1000), true, 'the server closes rather than read 24 MiB it will not use');
      });
    });

    it(`answers 401 on /${route} before reading the body when no credential header is present, and closes`, async () => {
      await withConnection(service.url, async (socket) => {
        const answer = await sendHead(socket, postHead(`/api/v1/projects/demo/${route}`, LARGE));
        assert.equal(answer.status, 401);
        assert.deepEqual(JSON.parse(answer.body), { error: 'signature missing or wrong', code: 'signature_invalid' });
        assert.equal(await answer.closedWithin(2000), true);
      });
    });
  }

  it('keeps the connection after a refusal whose unread body is small', async () => {
    await withConnection(service.url, async (socket) => {
      const answer = await sendHead(socket, postHead('/api/v1/projects/demo/jobs', 10));
      assert.equal(answer.status, 401);
      assert.equal(await answer.closedWithin(300), false);
    });
  });

  it('lets a client that keeps sending its body read the answer before the connection is closed', async () => {
    // Closing a socket with unread bytes makes the kernel reset it, which can destroy the answer unread.
    const outcomes = await Promise.all(
      [0, 1, 2, 3, 4, 5, 6, 7].map(() =>
        withConnection(service.url, (socket) =>
          new Promise<string>((resolve) => {
            let received = '';
            socket.on('data', (chunk: Buffer) => {
              received += chunk.toString('latin1');
            });
            socket.on('error', () => resolve(received === '' ? 'reset before the answer' : received));
            socket.on('close', () => resolve(received));
            socket.write(`${postHead('/api/v1/projects/nope/trigger', LARGE)}\r\n\r\n`);
            const chunk = Buffer.alloc(MIB, 0x20);
            let sent = 0;
            const writeMore = (): void => {
              if (socket.destroyed || sent >= LARGE) return;
              sent += chunk.length;
              socket.write(chunk, () => setImmediate(writeMore));
            };
            writeMore();
          }),
        ),
      ),
    );
    for (const outcome of outcomes) assert.match(outcome, /^HTTP\/1\.1 404 /);
  });

  it('counts X-Git-Token and X-Gitlab-Token as credentials on /trigger only', async () => {
    for (const header of ['X-Git-Token', 'X-Gitlab-Token']) {
      // The header is there, so the body must be read before the token can be judged: no early answer.
      await withConnection(service.url, (socket) =>
        assert.rejects(sendHead(socket, postHead('/api/v1/projects/demo/trigger', LARGE, { [header]: 'wrong' }), 400), /no answer/),
      );
      await withConnection(service.url, async (socket) => {
        const answer = await sendHead(socket, postHead('/api/v1/projects/demo/jobs', LARGE, { [header]: 'wrong' }));
        assert.equal(answer.status, 401, `${header} is not a credential of /jobs`);
      });
    }
  });

  it('keeps the spec order: an unknown project is 404 even without a credential, a disabled one 401 without', async () => {
    const disabled = await service.addProject({ pipeline: PIPELINE });
    await service.deps.store.updateProject(disabled.project.id, { enabled: false }, 0);
    let response = await service.call('POST', '/api/v1/projects/nope/trigger', { body: '{}' });
    assert.equal(response.status, 404);
    response = await service.call('POST', `/api/v1/projects/${disabled.project.name}/trigger`, { body: '{}' });
    assert.equal(response.status, 401);
    response = await service.call('POST', `/api/v1/projects/${disabled.project.name}/trigger`, { body: '{}', secret: disabled.secret });
    assert.equal(response.status, 409);
  });

  it('bounds the trigger bodies buffered at once: past the budget 503 with Retry-After, before reading', async () => {
    const signed = { 'X-Hub-Signature-256': `sha256=${'0'.repeat(64)}` };
    // Two bodies at the trigger limit do not fit the budget together.
    assert.ok(2 * 25 * MIB > TRIGGER_BODY_BUDGET && 25 * MIB + 1024 <= TRIGGER_BODY_BUDGET);
    const holder = await openRaw(service.url);
    try {
      await assert.rejects(sendHead(holder, postHead('/api/v1/projects/demo/trigger', 25 * MIB, signed), 300), /no answer/);
      await withConnection(service.url, async (refused) => {
        const answer = await sendHead(refused, postHead('/api/v1/projects/demo/trigger', 25 * MIB, signed));
        assert.equal(answer.status, 503);
        assert.equal(answer.headers['retry-after'], '5');
        assert.match(JSON.parse(answer.body).error as string, /retry in 5 seconds/);
        assert.equal(await answer.closedWithin(2000), true);
      });
    } catch (error) {
      holder.destroy();
      throw error;
    }

    // A small body still fits beside the held one.
    const small = JSON.stringify({ sha: 'f'.repeat(40) });
    const fits = await service.call('POST', '/api/v1/projects/demo/jobs', { body: small, headers: { 'x-hub-signature-256': sign(small, 'wrong') } });
    assert.equal(fits.status, 401);

    // A client that goes away gives its share back.
    holder.destroy();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const big = Buffer.alloc(25 * MIB, 0x20);
    const after = await service.call('POST', '/api/v1/projects/demo/trigger', { body: big, headers: signed });
    assert.equal(after.status, 401, 'read and judged, not refused for want of budget');
    // And one that was answered gives it back too: another at the limit is read again.
    const again = await service.call('POST', '/api/v1/projects/demo/trigger', { body: big, headers: signed });
    assert.equal(again.status, 401);
  });

  it('logs every refused trigger with project, status and reason, never a credential', async () => {
    const start = log.lines.length;
    const invalidSha = await demo.commit({ '.pipeline.yml': 'tasks:\n  a:\n    image: x\n    timeout: forever\n    script: [echo]\n' });
    const disabled = await service.addProject({ pipeline: PIPELINE });
    const disabledSha = await disabled.commit({ 'b.txt': 'b' });
    await service.deps.store.updateProject(disabled.project.id, { enabled: false }, 0);
    const wrongToken = 'not-the-secret-but-close-0123456789';

    const body = JSON.stringify({ sha: invalidSha });
    const calls: Array<[number, () => Promise<Response>]> = [
      [401, () => service.call('POST', '/api/v1/projects/demo/trigger', { body, headers: { 'x-git-token': wrongToken } })],
      [401, () => service.call('POST', '/api/v1/projects/demo/jobs', { body, headers: { 'x-hub-signature-256': sign(body, wrongToken) } })],
      [409, () => service.call('POST', `/api/v1/projects/${disabled.project.name}/jobs`, { body: JSON.stringify({ sha: disabledSha }), secret: disabled.secret })],
      [422, () => service.call('POST', '/api/v1/projects/demo/jobs', { body, secret: demo.secret })],
      [400, () => service.call('POST', '/api/v1/projects/demo/jobs', { body: JSON.stringify({ sha: 'e'.repeat(40) }), secret: demo.secret })],
    ];
    for (const [status, call] of calls) assert.equal((await call()).status, status);

    const refusals = log.lines.slice(start).filter((line) => line.msg === 'trigger refused');
    const seen = refusals.map((line) => [line.project, line.status]);
    assert.deepEqual(seen, [
      ['demo', 401],
      ['demo', 401],
      [disabled.project.name, 409],
      ['demo', 422],
      ['demo', 400],
    ]);
    for (const line of refusals) assert.equal(typeof line.reason, 'string');
    assert.equal(refusals[2]?.reason, 'the project is disabled');
    assert.deepEqual(refusals[3]?.problems, ['tasks.a.timeout']);
    assert.match(refusals[4]?.reason as string, /no usable commit: e{40} is not a commit/);
    const text = log.text();
    for (const secret of [demo.secret, disabled.secret, wrongToken]) assert.ok(!text.includes(secret), 'no credential in the log');
    await demo.commit({ '.pipeline.yml': PIPELINE });
  });

  it("puts git's own error about a failed fetch in the 400, with the URL's credentials masked", async () => {
    // A git server that has no such repository: git reports the 404 on stderr.
    const server: Server = createServer((_request, response) => response.writeHead(404).end('no such repository'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    assert.ok(address !== null && typeof address === 'object');
    try {
      const repo = `http://builder:tok-3141592653@127.0.0.1:${address.port}/team/app.git`;
      const project = await createProject(service.deps, { name: 'remote', repo });
      const start = log.lines.length;
      const mirrored: TestProject = { project, repo, secret: project.triggerSecret, commit: demo.commit };
      const { status, body } = await service.startJob(mirrored, 'a'.repeat(40));
      assert.equal(status, 400);
      assert.match(body.error ?? '', /^no usable commit: a{40} could not be fetched \(git clone --mirror http:\/\/builder:\*\*\*@127\.0\.0\.1:\d+\/team\/app\.git failed \(exit 128\): fatal: repository .* not found\)/);
      assert.ok(!(body.error ?? '').includes('tok-3141592653'));
      const logged = log.lines.slice(start).find((line) => line.msg === 'trigger refused');
      assert.equal(logged?.reason, body.error, 'the same account reaches the server log');
      assert.ok(!log.text().includes('tok-3141592653'));
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
