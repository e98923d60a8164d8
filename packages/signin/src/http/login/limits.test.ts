import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { seedUser, send, startTestServer, TEST_PASSWORD, type RawResponse, type TestServer } from '../../testing/harness.js';

// The sign-in attempt limits over real HTTP, with the mock clock for windows and delays. Each test
// uses its own identifiers and its own X-Forwarded-For address, so the per-IP counter of one test
// does not leak into another.

const MINUTE = 60_000;

describe('POST /api/v1/login/password: attempt limits (defaults: 10 per identifier, 100 per IP)', () => {
  let server: TestServer;
  let hashes = 0;
  let ipCounter = 0;

  const signIn = (identifier: string, password: string, ip: string) =>
    send(server.port, { method: 'POST', path: '/api/v1/login/password', body: { identifier, password }, headers: { 'x-forwarded-for': ip } });
  const newIp = () => `198.51.100.${(ipCounter += 1)}`;
  const statuses = (responses: RawResponse[]) => responses.map((res) => res.status);
  async function failTimes(identifier: string, ip: string, times: number): Promise<number[]> {
    const seen: number[] = [];
    for (let i = 0; i < times; i += 1) seen.push((await signIn(identifier, 'wrong password', ip)).status);
    return seen;
  }

  before(async () => {
    server = await startTestServer();
    // Spies that still run the real argon2 checks: "decided before any hashing" is counted here.
    const { passwords } = server.deps;
    const realDummy = passwords.verifyDummy;
    const realVerify = passwords.verifyPassword;
    passwords.verifyDummy = async (password) => {
      hashes += 1;
      await realDummy(password);
    };
    passwords.verifyPassword = async (secretHash, password) => {
      hashes += 1;
      return realVerify(secretHash, password);
    };
    for (const username of ['alice', 'bob', 'carol', 'dan', 'erin', 'race', 'bystander']) await seedUser(server.seedingDeps, { username });
  });
  after(async () => server.close());

  it('after 10 failures the identifier gets 429 too_many_attempts with Retry-After, before any hashing', async () => {
    const ip = newIp();
    assert.deepEqual(await failTimes('alice', ip, 10), Array(10).fill(401));
    const before = hashes;
    const res = await signIn('alice', 'wrong password', ip);
    assert.equal(res.status, 429);
    assert.equal(res.headers['retry-after'], '30');
    assert.equal(res.json.error, 'too_many_attempts');
    assert.match(String(res.json.message), /try again in 30 seconds/);
    assert.equal(res.setCookies.length, 0);
    // The correct password is refused as well while the delay runs, and nothing was hashed.
    const correct = await signIn('alice', TEST_PASSWORD, newIp());
    assert.equal(correct.status, 429);
    assert.equal(hashes, before);
  });

  it('an identifier without an account is limited the same way, with the same answer (no enumeration)', async () => {
    const ip = newIp();
    assert.deepEqual(await failTimes('bob', ip, 10), Array(10).fill(401));
    assert.deepEqual(await failTimes('no-such-user', ip, 10), Array(10).fill(401));
    const existing = await signIn('bob', 'wrong password', ip);
    const missing = await signIn('no-such-user', 'wrong password', ip);
    assert.equal(existing.status, 429);
    assert.deepEqual(missing.json, existing.json);
    assert.equal(missing.headers['retry-after'], existing.headers['retry-after']);
    // The identifier is normalised: case and spaces do not make a new key.
    assert.equal((await signIn('  NO-SUCH-USER ', 'wrong password', newIp())).status, 429);
  });

  it('the delay doubles with each failure after it, up to 15 minutes; a success resets it', async () => {
    const ip = newIp();
    await failTimes('carol', ip, 10);
    const delays: string[] = [];
    for (let i = 0; i < 7; i += 1) {
      const refused = await signIn('carol', 'wrong password', ip);
      assert.equal(refused.status, 429);
      const retryAfter = String(refused.headers['retry-after']);
      delays.push(retryAfter);
      server.clock.advance(Number(retryAfter) * 1000);
      // Once the delay is over, one attempt goes through; it fails, and the next delay is longer.
      assert.equal((await signIn('carol', 'wrong password', ip)).status, 401);
    }
    assert.deepEqual(delays, ['30', '60', '120', '240', '480', '900', '900']);
    assert.equal((await signIn('carol', TEST_PASSWORD, ip)).status, 429);
    server.clock.advance(15 * MINUTE);
    assert.equal((await signIn('carol', TEST_PASSWORD, ip)).status, 200);
    // Reset: a full budget of failures again before the next 429.
    assert.deepEqual(await failTimes('carol', ip, 10), Array(10).fill(401));
    assert.equal((await signIn('carol', 'wrong password', ip)).status, 429);
  });

  it('failures are forgotten after 15 minutes without one', async () => {
    const ip = newIp();
    assert.deepEqual(await failTimes('dan', ip, 9), Array(9).fill(401));
    server.clock.advance(15 * MINUTE);
    assert.deepEqual(await failTimes('dan', ip, 10), Array(10).fill(401));
    assert.equal((await signIn('dan', 'wrong password', ip)).status, 429);
  });

  it('a malformed request (400) or another realm error is not an attempt', async () => {
    const ip = newIp();
    for (let i = 0; i < 15; i += 1) {
      const malformed = await signIn('erin', 'x'.repeat(1025), ip);
      assert.equal(malformed.status, 400);
      const unknownRealm = await send(server.port, {
        method: 'POST',
        path: '/api/v1/login/password',
        body: { identifier: 'erin', password: 'wrong password', realm: 'nope' },
        headers: { host: 'nowhere.example', 'x-forwarded-for': ip },
      });
      assert.equal(unknownRealm.status, 404);
    }
    assert.deepEqual(await failTimes('erin', ip, 10), Array(10).fill(401));
  });

  it('50 parallel wrong guesses for one identifier get exactly the budget of 401s, the rest 429', async () => {
    const ip = newIp();
    const before = hashes;
    const responses = await Promise.all(Array.from({ length: 50 }, () => signIn('race', 'wrong password', ip)));
    const counts = { 401: 0, 429: 0 } as Record<number, number>;
    for (const status of statuses(responses)) counts[status] = (counts[status] ?? 0) + 1;
    assert.deepEqual(counts, { 401: 10, 429: 40 });
    assert.equal(hashes - before, 10);
  });

  it('per client IP: after 100 failures (any identifiers) the IP gets 429; other IPs are not affected', async () => {
    const ip = newIp();
    for (let batch = 0; batch < 10; batch += 1) {
      const responses = await Promise.all(Array.from({ length: 10 }, (_, i) => signIn(`ip-user-${batch}-${i}`, 'wrong password', ip)));
      assert.deepEqual(statuses(responses), Array(10).fill(401));
    }
    const before = hashes;
    const refused = await signIn('bystander', TEST_PASSWORD, ip);
    assert.equal(refused.status, 429);
    assert.equal(refused.json.error, 'too_many_attempts');
    assert.equal(refused.headers['retry-after'], '30');
    assert.equal(hashes, before);
    assert.equal((await signIn('bystander', TEST_PASSWORD, newIp())).status, 200);
    // A success from the limited IP does not clear the IP's failures (an attacker's own account cannot reset them).
    server.clock.advance(30_000);
    assert.equal((await signIn('bystander', TEST_PASSWORD, ip)).status, 200);
    assert.equal((await signIn('bystander', TEST_PASSWORD, ip)).status, 200);
    assert.equal((await signIn('ip-user-x', 'wrong password', ip)).status, 401);
    assert.equal((await signIn('ip-user-y', 'wrong password', ip)).status, 429);
  });
});

describe('POST /api/v1/login/password: bounded hashing queue', () => {
  let server: TestServer;

  before(async () => {
    // One hash at a time and none waiting: the second concurrent sign-in finds the queue full.
    server = await startTestServer({ hashConcurrency: 1, maxPendingHashes: 0 });
    await seedUser(server.seedingDeps, { username: 'queued' });
  });
  after(async () => server.close());

  const signIn = (identifier: string, password: string) =>
    send(server.port, { method: 'POST', path: '/api/v1/login/password', body: { identifier, password }, headers: { 'x-forwarded-for': '203.0.113.9' } });

  it('past the bound a sign-in is 503 busy with Retry-After, and is not counted as a failure', async () => {
    const responses = await Promise.all(Array.from({ length: 8 }, () => signIn('queued', 'wrong password')));
    const busy = responses.filter((res) => res.status === 503);
    const failed = responses.filter((res) => res.status === 401);
    assert.ok(busy.length >= 1, `statuses: ${responses.map((res) => res.status).join(',')}`);
    assert.equal(busy.length + failed.length, 8);
    assert.deepEqual(busy[0]?.json, { error: 'busy', message: 'the server is busy checking other passwords; try again in 1 second(s)' });
    assert.equal(busy[0]?.headers['retry-after'], '1');
    // Only the 401s used the budget: the rest of the 10 are still there, one at a time.
    for (let i = failed.length; i < 10; i += 1) assert.equal((await signIn('queued', 'wrong password')).status, 401);
    assert.equal((await signIn('queued', 'wrong password')).status, 429);
  });

  it('one at a time, sign-ins go through', async () => {
    assert.equal((await signIn('nobody-here', 'wrong password')).status, 401);
  });
});
