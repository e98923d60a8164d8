import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { createManualClock } from '@conveyor/kit';
import { trickle } from '@conveyor/kit/testing';
import { createSigninService, type SigninService } from '../main.js';
import { createSeedingDeps, makeTempDir, seedUser, send, TEST_PASSWORD } from '../testing/harness.js';

const LIMIT_MS = 1500;

describe('request timeouts (AUTH_REQUEST_TIMEOUT)', () => {
  let dataDir: string;
  let service: SigninService;
  let port: number;

  before(async () => {
    dataDir = makeTempDir();
    service = await createSigninService(
      { databasePath: join(dataDir, 'signin.db'), realmsPath: join(dataDir, 'realms') },
      { clock: createManualClock(), requestTimeoutMs: LIMIT_MS },
    );
    await seedUser(await createSeedingDeps(service.deps), { username: 'alice' });
    await service.app.listen({ port: 0, host: '127.0.0.1' });
    const address = service.app.server.address();
    port = typeof address === 'object' && address !== null ? address.port : 0;
  });
  after(async () => {
    await service.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const lastLogin = (): unknown => {
    const db = new Database(join(dataDir, 'signin.db'), { readonly: true });
    try {
      return (db.prepare("SELECT last_login_at FROM users WHERE username = 'alice'").get() as { last_login_at: unknown }).last_login_at;
    } finally {
      db.close();
    }
  };

  it('cuts a sign-in body trickled one byte a second with 408 request_timeout, and signs no one in', async () => {
    const body = JSON.stringify({ identifier: 'alice', password: TEST_PASSWORD }).padEnd(1000, ' ');
    const head = `POST /api/v1/login/password HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    const outcome = await trickle(port, head, body, 1000);
    assert.ok(outcome.elapsedMs >= LIMIT_MS - 100 && outcome.elapsedMs < LIMIT_MS + 1500, `closed after ${outcome.elapsedMs} ms`);
    assert.match(outcome.answer, /^HTTP\/1\.1 408 /);
    assert.match(outcome.answer, /"error":"request_timeout"/);
    assert.equal(lastLogin(), null);
  });

  it('cuts request headers that never end', async () => {
    const outcome = await trickle(port, 'GET /api/v1/session HTTP/1.1\r\nHost: 127.0.0.1\r\n', 'X-Slow: '.padEnd(200, 'z'), 1000);
    assert.ok(outcome.elapsedMs < LIMIT_MS + 1500, `closed after ${outcome.elapsedMs} ms`);
    assert.match(outcome.answer, /^HTTP\/1\.1 408 /);
  });

  it('still answers a body sent at once', async () => {
    const response = await send(port, { method: 'POST', path: '/api/v1/login/password', body: { identifier: 'alice', password: TEST_PASSWORD } });
    assert.equal(response.status, 200, response.text);
  });
});
