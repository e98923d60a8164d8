import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, parseDurationSeconds, parseEnum, parseHttpUrl, parseInteger, readEnv } from './env.js';

const refusal = (pattern: RegExp) => (error: unknown) => error instanceof ConfigError && pattern.test(error.message);

describe('the environment reader', () => {
  it('takes the default for an unset or empty variable', () => {
    const read = readEnv({ EMPTY: '' });
    assert.equal(read.integer('EMPTY', 7, { min: 0 }), 7);
    assert.equal(read.integer('UNSET', 7, { min: 0 }), 7);
    assert.equal(read.text('EMPTY', 'x'), 'x');
    assert.equal(read.oneOf('EMPTY', 'info', ['info', 'debug'] as const), 'info');
    assert.equal(read.httpUrl('EMPTY'), null);
    assert.equal(readEnv({ URL: 'https://CI.example.com/' }).httpUrl('URL'), 'https://CI.example.com/');
    assert.equal(read.path('EMPTY', './data'), resolve('./data'));
  });

  it('reads integers within their range, naming the variable otherwise', () => {
    assert.equal(readEnv({ PORT: '8080' }).integer('PORT', 0, { min: 0, max: 65535 }), 8080);
    for (const raw of ['-1', '70000', '1.5', 'ten', ' 1', '0x10']) {
      assert.throws(() => readEnv({ PORT: raw }).integer('PORT', 0, { min: 0, max: 65535 }), refusal(/^PORT must be an integer from 0 to 65535, got '/));
    }
    assert.throws(() => parseInteger('--grace (GRACE)', '0', { min: 1 }), refusal(/^--grace \(GRACE\) must be an integer of at least 1, got '0'$/));
    assert.throws(() => parseInteger('BIG', '9'.repeat(30), { min: 1 }), refusal(/^BIG must be an integer/));
  });

  it('reads durations as whole seconds or s, m, h, d', () => {
    for (const [raw, seconds] of [['90', 90], ['90s', 90], ['45m', 2700], ['12h', 43_200], ['30d', 2_592_000]] as const) {
      assert.equal(parseDurationSeconds('KEEP', raw, { min: 1, max: 3650 * 86_400 }), seconds, raw);
    }
    for (const raw of ['1w', '1.5h', 'h', '-1']) assert.throws(() => parseDurationSeconds('KEEP', raw, { min: 1 }), refusal(/^KEEP must be whole seconds or a duration/));
    assert.throws(() => parseDurationSeconds('KEEP', '0', { min: 1, max: 86_400 }), refusal(/^KEEP must be between 1 second and 1d, got '0'$/));
    assert.throws(() => parseDurationSeconds('KEEP', '9'.repeat(400) + 'd', { min: 1, max: 86_400 }), refusal(/^KEEP must be between/));
  });

  it('reads enums and http(s) URLs', () => {
    assert.equal(parseEnum('LEVEL', 'warn', ['info', 'warn']), 'warn');
    assert.throws(() => parseEnum('LEVEL', 'loud', ['info', 'warn']), refusal(/^LEVEL must be one of info, warn, got 'loud'$/));
    assert.equal(parseHttpUrl('URL', 'https://ci.example.com/').host, 'ci.example.com');
    assert.throws(() => parseHttpUrl('URL', 'ftp://x'), refusal(/^URL must be an http or https URL/));
    assert.throws(() => parseHttpUrl('URL', 'not a url'), refusal(/^URL must be an absolute http or https URL/));
  });
});
