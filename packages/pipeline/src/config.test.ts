import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, readPipelineConfig } from './config.js';

describe('readPipelineConfig', () => {
  it('has the documented defaults', () => {
    const config = readPipelineConfig({});
    assert.equal(config.databasePath, resolve('./data/pipeline.db'));
    assert.equal(config.dataPath, resolve('./data/pipeline'));
    assert.equal(config.port, 3000);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.publicUrl, null);
    assert.equal(config.maxLogBytes, 64 * 1024 * 1024);
    assert.equal(config.heartbeatInterval, 10);
    assert.equal(config.gitTimeoutMs, 120_000);
    assert.equal(config.requestTimeoutMs, 60_000);
    assert.equal(config.uploadMinBytesPerSecond, 1024);
    assert.ok(Object.isFrozen(config));
  });
  it('reads every variable', () => {
    const config = readPipelineConfig({
      PIPELINE_PORT: '8080',
      PIPELINE_HOST: '0.0.0.0',
      PIPELINE_PUBLIC_URL: 'https://ci.example.com/',
      PIPELINE_MAX_LOG_BYTES: '2048',
      PIPELINE_HEARTBEAT_INTERVAL: '2',
      PIPELINE_GIT_TIMEOUT: '5',
      PIPELINE_LOG_LEVEL: 'warn',
      PIPELINE_REQUEST_TIMEOUT: '2',
      PIPELINE_UPLOAD_MIN_RATE: '4096',
    });
    assert.equal(config.requestTimeoutMs, 2000);
    assert.equal(config.uploadMinBytesPerSecond, 4096);
    assert.equal(config.port, 8080);
    assert.equal(config.publicUrl, 'https://ci.example.com');
    assert.equal(config.maxLogBytes, 2048);
    assert.equal(config.heartbeatInterval, 2);
    assert.equal(config.gitTimeoutMs, 5000);
  });
  it('names the variable when a value is wrong', () => {
    const cases: Record<string, string>[] = [
      { PIPELINE_PORT: '-1' },
      { PIPELINE_PORT: '70000' },
      { PIPELINE_PUBLIC_URL: 'ftp://x' },
      { PIPELINE_PUBLIC_URL: 'not a url' },
      { PIPELINE_HEARTBEAT_INTERVAL: '0' },
      { PIPELINE_LOG_LEVEL: 'loud' },
      { PIPELINE_REQUEST_TIMEOUT: '0' },
      { PIPELINE_REQUEST_TIMEOUT: '1.5' },
      { PIPELINE_UPLOAD_MIN_RATE: '0' },
    ];
    for (const env of cases) {
      const [name] = Object.keys(env);
      assert.throws(() => readPipelineConfig(env), (error: unknown) => error instanceof ConfigError && error.message.includes(name ?? ''));
    }
  });
});
