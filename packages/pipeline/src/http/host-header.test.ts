import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ClaimedTask } from '@conveyor/protocol';
import { isValidHostHeader } from './base-url.js';
import { openRaw, postHead, sendHead } from '../testing/raw-http.js';
import { claimBody, startTestService, type TestProject, type TestService } from '../testing/service.js';

const PIPELINE = 'tasks:\n  build:\n    image: alpine\n    script: [echo build]\n    artifacts: ["out/*"]\n';

const INVALID_HOSTS = [
  'evil.com/x?',
  'evil.com:80/x',
  'evil.com?',
  'evil.com#frag',
  'user@evil.com',
  'a b.example',
  'ci.example.test:99999',
  'ci.example.test:0',
  'ci.example.test:',
  'ci.example.test:80:80',
  '[::1',
  '[not-v6]:80',
  '-lead.example',
  '',
];
const VALID_HOSTS = ['ci.example.test', 'ci.example.test:8443', '127.0.0.1:3000', '[::1]:3000', '[::1]', 'pipeline_service:3000', 'localhost', 'ci.example.test.'];

describe('isValidHostHeader', () => {
  it('accepts host[:port] and nothing else', () => {
    for (const host of VALID_HOSTS) assert.equal(isValidHostHeader(host), true, host);
    for (const host of INVALID_HOSTS) assert.equal(isValidHostHeader(host), false, host);
    assert.equal(isValidHostHeader('a\u0001b'), false);
    assert.equal(isValidHostHeader(`${'a'.repeat(64)}.example`), false, 'a label is at most 63 characters');
  });
});

/** A raw request with a Host of our choosing (fetch will not send one). */
async function callWithHost(service: TestService, host: string, method: string, path: string, headers: Record<string, string>, body = '') {
  const socket = await openRaw(service.url);
  try {
    const head = method === 'POST' ? postHead(path, Buffer.byteLength(body), headers, host) : [`${method} ${path} HTTP/1.1`, `Host: ${host}`, ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)].join('\r\n');
    const answer = await sendHead(socket, head, 5000, body);
    return { status: answer.status, body: answer.body === '' ? null : (JSON.parse(answer.body) as Record<string, unknown>) };
  } finally {
    socket.destroy();
  }
}

describe('absolute URLs from the Host header when PIPELINE_PUBLIC_URL is unset', () => {
  let service: TestService;
  let demo: TestProject;
  let sha: string;
  let token: string;

  before(async () => {
    service = await startTestService();
    demo = await service.addProject({ name: 'demo', pipeline: PIPELINE, visibility: 'public' });
    sha = await demo.commit({ 'README.md': 'x\n' });
    token = (await service.addWorker()).token;
  });
  after(() => service.stop());

  it('refuses a claim with an invalid Host with 400 and hands nothing out', async () => {
    const { body } = await service.startJob(demo, sha);
    const claim = JSON.stringify(claimBody());
    for (const host of ['evil.com/x?', 'a b.example', 'ci.example.test:99999']) {
      const answer = await callWithHost(service, host, 'POST', '/api/v1/tasks/claim', { Authorization: `Bearer ${token}` }, claim);
      assert.equal(answer.status, 400, host);
      assert.match(answer.body?.error as string, /^invalid Host header: .*PIPELINE_PUBLIC_URL/, host);
    }
    assert.deepEqual((await service.deps.store.listTasksOfJob(body.job_id)).map((task) => task.state), ['waiting'], 'nothing claimed');

    const answer = await callWithHost(service, 'ci.example.test:8443', 'POST', '/api/v1/tasks/claim', { Authorization: `Bearer ${token}` }, claim);
    assert.equal(answer.status, 200);
    const task = (answer.body as { task: ClaimedTask }).task;
    assert.ok(task.endpoints.done.startsWith('http://ci.example.test:8443/api/v1/tasks/'), task.endpoints.done);

    // An upload with a bad Host is refused before its body is stored; a good one gets a url from its Host.
    const path = new URL(task.endpoints.artifact).pathname;
    const upload = { Authorization: `Bearer ${token}`, 'X-Artifact-Path': 'out/a.txt', 'Content-Type': 'application/octet-stream' };
    const refused = await callWithHost(service, 'evil.com/x?', 'POST', path, upload, 'hello');
    assert.equal(refused.status, 400);
    assert.deepEqual(await service.deps.store.listArtifacts(task.id, task.attempt), [], 'nothing stored');
    const stored = await callWithHost(service, '[::1]:8080', 'POST', path, upload, 'hello');
    assert.equal(stored.status, 201);
    assert.match(stored.body?.url as string, /^http:\/\/\[::1\]:8080\/api\/v1\/projects\//);

    // Reads that build artifact urls refuse a bad Host too.
    assert.equal((await callWithHost(service, 'evil.com?', 'GET', `/api/v1/tasks/${task.id}`, {})).status, 400);
    assert.equal((await callWithHost(service, 'localhost:3000', 'GET', `/api/v1/tasks/${task.id}`, {})).status, 200);
  });

  it('ignores the Host header altogether when PIPELINE_PUBLIC_URL is set', async () => {
    const configured = await startTestService({ config: { publicUrl: 'https://ci.example.com' } });
    try {
      const project = await configured.addProject({ pipeline: PIPELINE });
      await configured.startJob(project, await project.commit({ 'a.txt': 'a' }));
      const worker = (await configured.addWorker()).token;
      const answer = await callWithHost(configured, 'evil.com/x?', 'POST', '/api/v1/tasks/claim', { Authorization: `Bearer ${worker}` }, JSON.stringify(claimBody()));
      assert.equal(answer.status, 200);
      assert.ok((answer.body as { task: ClaimedTask }).task.endpoints.done.startsWith('https://ci.example.com/api/v1/tasks/'));
    } finally {
      await configured.stop();
    }
  });
});
