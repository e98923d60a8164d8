import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { WEBHOOK_FIXTURES } from '../../testing/fixtures.js';
import { readPushDelivery, type HeaderBag } from './push-payload.js';

interface Fixture {
  headers: Record<string, string>;
  body: Record<string, unknown>;
  expect: { kind: string; sha: string | null; ref: string | null; actor: string | null };
}

const FIXTURES = WEBHOOK_FIXTURES;
const SHA = '3f786850e387550fdab836ed7e6dc881de23001b';
const OTHER = '28e1879d029cb852e4844d9c718537df08844e03';
const ZERO = '0'.repeat(40);

function loadFixture(name: string): Fixture {
  return JSON.parse(readFileSync(join(FIXTURES, name), 'utf8')) as Fixture;
}

function lowerCased(headers: Record<string, string>): HeaderBag {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

describe('readPushDelivery over the webhook fixtures', () => {
  const names = readdirSync(FIXTURES).filter((name) => name.endsWith('.json')).sort();

  it('finds every fixture', () => {
    assert.equal(names.length, 10);
  });

  for (const name of names) {
    it(name, () => {
      const { headers, body, expect } = loadFixture(name);
      const delivery = readPushDelivery(lowerCased(headers), body);
      assert.equal(delivery.kind, expect.kind);
      if (delivery.kind === 'push') {
        assert.equal(delivery.sha, expect.sha);
        assert.equal(delivery.ref, expect.ref);
        assert.equal(delivery.actor, expect.actor);
        const before = typeof body.before === 'string' ? body.before : '';
        assert.equal(delivery.base, before === ZERO ? '' : before);
      } else if (delivery.kind === 'ignored') {
        assert.equal(expect.sha, null);
        assert.equal(delivery.ref ?? null, expect.ref);
        assert.equal(delivery.actor ?? null, expect.actor);
      }
    });
  }
});

describe('readPushDelivery by service', () => {
  it('takes head_commit for a GitHub annotated tag', () => {
    const { headers, body } = loadFixture('github-tag.json');
    const tagObject = 'a'.repeat(40);
    const delivery = readPushDelivery(lowerCased(headers), { ...body, after: tagObject });
    assert.deepEqual(delivery, { kind: 'push', sha: SHA, base: '', ref: 'refs/tags/v1.0.0', actor: 'Codertocat' });
  });

  it('keeps after for a GitHub branch even if head_commit differs', () => {
    const { headers, body } = loadFixture('github-push.json');
    const delivery = readPushDelivery(lowerCased(headers), { ...body, head_commit: { id: OTHER } });
    assert.equal(delivery.kind === 'push' && delivery.sha, SHA);
  });

  it('falls back to sender.login for the GitHub actor', () => {
    const { headers, body } = loadFixture('github-push.json');
    const delivery = readPushDelivery(lowerCased(headers), { ...body, pusher: {} });
    assert.equal(delivery.kind === 'push' && delivery.actor, 'Codertocat');
  });

  it('ignores other GitHub events, naming them', () => {
    const delivery = readPushDelivery({ 'x-github-event': 'issues' }, { action: 'opened' });
    assert.equal(delivery.kind, 'ignored');
    assert.match(delivery.kind === 'ignored' ? delivery.reason : '', /issues/);
  });

  it('refuses a GitHub push without a usable commit', () => {
    const { headers, body } = loadFixture('github-push.json');
    for (const after of [undefined, 'main', SHA.slice(1), 42]) {
      assert.deepEqual(readPushDelivery(lowerCased(headers), { ...body, after }), { kind: 'invalid', message: 'no usable commit in the payload' });
    }
  });

  it('takes checkout_sha for a GitLab annotated tag', () => {
    const { headers, body } = loadFixture('gitlab-tag.json');
    const delivery = readPushDelivery(lowerCased(headers), { ...body, after: 'b'.repeat(40) });
    assert.deepEqual(delivery, { kind: 'push', sha: SHA, base: '', ref: 'refs/tags/v1.0.0', actor: 'jsmith' });
  });

  it('ignores other GitLab events', () => {
    assert.equal(readPushDelivery({ 'x-gitlab-event': 'Merge Request Hook' }, {}).kind, 'ignored');
  });

  it('reads Gitea before GitHub headers, and falls back for the actor', () => {
    const { headers, body } = loadFixture('gitea-push.json');
    const delivery = readPushDelivery(lowerCased(headers), { ...body, pusher: { username: 'someone' } });
    assert.equal(delivery.kind === 'push' && delivery.actor, 'someone');
    assert.equal(readPushDelivery({ 'x-gitea-event': 'create', 'x-github-event': 'push' }, body).kind, 'ignored');
    const deleted = readPushDelivery({ 'x-forgejo-event': 'push' }, { ...body, after: ZERO });
    assert.equal(deleted.kind, 'ignored');
  });

  it('expands a Gitea delete of a tag to the full ref', () => {
    const delivery = readPushDelivery({ 'x-gitea-event': 'delete' }, { ref: 'v1.0.0', ref_type: 'tag', sender: { login: 'gitea' } });
    assert.equal(delivery.kind === 'ignored' && delivery.ref, 'refs/tags/v1.0.0');
  });

  it('accepts a header given as an array', () => {
    const { body } = loadFixture('github-push.json');
    assert.equal(readPushDelivery({ 'x-github-event': ['push'] }, body).kind, 'push');
  });
});

describe('readPushDelivery, normalised shape', () => {
  it('reads all four fields', () => {
    assert.deepEqual(readPushDelivery({}, { sha: SHA, base: OTHER, ref: 'refs/heads/main', actor: 'alice' }), {
      kind: 'push',
      sha: SHA,
      base: OTHER,
      ref: 'refs/heads/main',
      actor: 'alice',
    });
  });

  it('defaults the optional fields and treats a zero base as none', () => {
    assert.deepEqual(readPushDelivery({}, { sha: SHA }), { kind: 'push', sha: SHA, base: '', ref: '', actor: '' });
    assert.deepEqual(readPushDelivery({}, { sha: SHA, base: ZERO }), { kind: 'push', sha: SHA, base: '', ref: '', actor: '' });
  });

  it('lower-cases upper-case hex', () => {
    const delivery = readPushDelivery({}, { sha: SHA.toUpperCase(), base: OTHER.toUpperCase() });
    assert.deepEqual(delivery, { kind: 'push', sha: SHA, base: OTHER, ref: '', actor: '' });
  });

  it('ignores an all-zero sha as a deletion', () => {
    const delivery = readPushDelivery({}, { sha: ZERO, base: SHA, ref: 'refs/heads/gone', actor: 'alice' });
    assert.equal(delivery.kind, 'ignored');
    assert.equal(delivery.kind === 'ignored' && delivery.ref, 'refs/heads/gone');
  });

  it('refuses wrong types and malformed values, naming the field', () => {
    const cases: Array<[unknown, RegExp]> = [
      [{}, /sha/],
      [{ sha: 42 }, /sha/],
      [{ sha: SHA.slice(0, 7) }, /sha/],
      [{ sha: `${SHA} ` }, /sha/],
      [{ sha: SHA, base: null }, /base/],
      [{ sha: SHA, base: 'main' }, /base/],
      [{ sha: SHA, ref: 7 }, /ref/],
      [{ sha: SHA, ref: 'x'.repeat(1025) }, /ref/],
      [{ sha: SHA, actor: ['alice'] }, /actor/],
    ];
    for (const [body, message] of cases) {
      const delivery = readPushDelivery({}, body);
      assert.equal(delivery.kind, 'invalid', JSON.stringify(body));
      assert.match(delivery.kind === 'invalid' ? delivery.message : '', message);
    }
  });

  it('refuses a body that is not a JSON object', () => {
    for (const body of [null, undefined, [], 'sha', 42, true]) {
      assert.equal(readPushDelivery({}, body).kind, 'invalid');
      assert.equal(readPushDelivery({ 'x-github-event': 'push' }, body).kind, 'invalid');
    }
  });
});
