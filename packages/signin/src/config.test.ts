import assert from 'node:assert/strict';
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
