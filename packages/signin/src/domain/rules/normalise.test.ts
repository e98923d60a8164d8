import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SigninError } from '../../errors.js';
import { countCharacters, extractEmailDomain, extractHostFromHeader, parseDomain, parseEmail, parseHost, parseSlug, parseUsername } from './normalise.js';

const refuses = (fn: () => unknown) => assert.throws(fn, (error) => error instanceof SigninError && error.code === 'invalid_request');

describe('normalisation', () => {
  it('takes the realm host from a Host header: no port, lower case, no trailing dot', () => {
    assert.equal(extractHostFromHeader('LocalHost:4000'), 'localhost');
    assert.equal(extractHostFromHeader('example.com.'), 'example.com');
    assert.equal(extractHostFromHeader('Example.COM.:443'), 'example.com');
    assert.equal(extractHostFromHeader('[::1]:4000'), '[::1]');
    assert.equal(extractHostFromHeader('[::1]'), '[::1]');
    assert.equal(extractHostFromHeader('127.0.0.1:80'), '127.0.0.1');
    assert.equal(extractHostFromHeader(''), undefined);
    assert.equal(extractHostFromHeader(undefined), undefined);
  });

  it('parses hosts for storage and refuses ports, paths and junk', () => {
    assert.equal(parseHost(' Login.Acme.TEST. '), 'login.acme.test');
    assert.equal(parseHost('[::1]'), '[::1]');
    for (const bad of ['acme.test:8080', 'a/b', '', 'a..b', 'ex ample.com', '-x.test']) refuses(() => parseHost(bad));
  });

  it('normalises domains (trim, lower case, trailing dot) and refuses @', () => {
    assert.equal(parseDomain('  Corp.Test. '), 'corp.test');
    refuses(() => parseDomain('a@corp.test'));
    refuses(() => parseDomain(''));
  });

  it('normalises emails (trim, lower case) and takes their domain', () => {
    assert.deepEqual(parseEmail('  Bob@Corp.TEST '), { email: 'Bob@Corp.TEST', normalised: 'bob@corp.test' });
    assert.equal(extractEmailDomain('bob@Corp.Test.'), 'corp.test');
    for (const bad of ['bob', '@corp.test', 'bob@', 'a@b@c.test', 'a b@c.test']) refuses(() => parseEmail(bad));
  });

  it('normalises usernames (trim, lower case) and keeps @ out of them', () => {
    assert.deepEqual(parseUsername('  Alice '), { username: 'Alice', normalised: 'alice' });
    for (const bad of ['', '   ', 'a@b', 'a b', 'x'.repeat(129), 'a\u0000b']) refuses(() => parseUsername(bad));
  });

  it('checks realm slugs against ^[a-z0-9][a-z0-9-]*$', () => {
    assert.equal(parseSlug('acme-2'), 'acme-2');
    for (const bad of ['-acme', 'Acme', 'a_b', '', 'a.b', 'x'.repeat(64)]) refuses(() => parseSlug(bad));
  });

  it('counts characters as code points', () => {
    assert.equal(countCharacters('😀'.repeat(3)), 3);
    assert.equal(countCharacters('abc'), 3);
  });
});
