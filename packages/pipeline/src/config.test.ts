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
    assert.equal(config.artifactRetentionSeconds, 30 * 86_400);
    assert.equal(config.maxArtifactBytes, 10 * 1024 ** 3);
    assert.equal(config.maxTaskArtifactBytes, 20 * 1024 ** 3);
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
      PIPELINE_ARTIFACT_RETENTION: '12h',
      PIPELINE_MAX_ARTIFACT_BYTES: '1000',
      PIPELINE_MAX_TASK_ARTIFACT_BYTES: '5000',
    });
    assert.equal(config.requestTimeoutMs, 2000);
    assert.equal(config.uploadMinBytesPerSecond, 4096);
    assert.equal(config.port, 8080);
    assert.equal(config.publicUrl, 'https://ci.example.com');
    assert.equal(config.maxLogBytes, 2048);
    assert.equal(config.heartbeatInterval, 2);
    assert.equal(config.gitTimeoutMs, 5000);
    assert.equal(config.artifactRetentionSeconds, 12 * 3600);
    assert.equal(config.maxArtifactBytes, 1000);
    assert.equal(config.maxTaskArtifactBytes, 5000);
    for (const [written, seconds] of [['30d', 30 * 86_400], ['45m', 2700], ['90s', 90], ['600', 600]] as const) {
      assert.equal(readPipelineConfig({ PIPELINE_ARTIFACT_RETENTION: written }).artifactRetentionSeconds, seconds, written);
    }
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
      { PIPELINE_ARTIFACT_RETENTION: '1w' },
      { PIPELINE_ARTIFACT_RETENTION: '0' },
      { PIPELINE_ARTIFACT_RETENTION: '3651d' },
      { PIPELINE_ARTIFACT_RETENTION: '1.5h' },
      { PIPELINE_MAX_ARTIFACT_BYTES: '0' },
      { PIPELINE_MAX_ARTIFACT_BYTES: '10GiB' },
      { PIPELINE_MAX_TASK_ARTIFACT_BYTES: '-5' },
    ];
    for (const env of cases) {
      const [name] = Object.keys(env);
      assert.throws(() => readPipelineConfig(env), (error: unknown) => error instanceof ConfigError && error.message.includes(name ?? ''));
    }
  });
});
