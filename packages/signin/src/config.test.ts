import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from './config.js';

describe('loadConfig: AUTH_REQUEST_TIMEOUT', () => {
  it('defaults to 60 seconds', () => {
    assert.equal(loadConfig({}).requestTimeoutMs, 60_000);
  });
  it('reads whole seconds', () => {
    assert.equal(loadConfig({ AUTH_REQUEST_TIMEOUT: '2' }).requestTimeoutMs, 2000);
  });
  it('names the variable when the value is wrong', () => {
    for (const value of ['0', '1.5', 'soon', '3601']) {
      assert.throws(() => loadConfig({ AUTH_REQUEST_TIMEOUT: value }), (error: unknown) => error instanceof ConfigError && error.message.includes('AUTH_REQUEST_TIMEOUT'));
    }
  });
});

describe('config: sign-in limits', () => {
  it('defaults to 10 per identifier, 100 per IP, 64 waiting hashes, one hashing slot per core', () => {
    const config = loadConfig({});
    assert.deepEqual(
      [config.maxFailures, config.maxIpFailures, config.maxPendingHashes, config.hashConcurrency],
      [10, 100, 64, availableParallelism()],
    );
  });

  it('reads the variables', () => {
    const config = loadConfig({ AUTH_MAX_FAILURES: '5', AUTH_MAX_IP_FAILURES: '50', AUTH_MAX_PENDING_HASHES: '0', AUTH_HASH_CONCURRENCY: '3' });
    assert.deepEqual([config.maxFailures, config.maxIpFailures, config.maxPendingHashes, config.hashConcurrency], [5, 50, 0, 3]);
  });

  for (const [name, value] of [
    ['AUTH_MAX_FAILURES', '0'],
    ['AUTH_MAX_FAILURES', 'ten'],
    ['AUTH_MAX_IP_FAILURES', '-1'],
    ['AUTH_MAX_PENDING_HASHES', '1.5'],
    ['AUTH_HASH_CONCURRENCY', '0'],
  ] as const) {
    it(`refuses ${name}=${value} with a message naming the variable`, () => {
      assert.throws(() => loadConfig({ [name]: value }), (error) => error instanceof ConfigError && error.message.startsWith(`${name} must be an integer`));
    });
  }
});
