import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Project } from '../store/types.js';
import { isServedInRealm, mayDownloadArtifact, mayManage, mayReadBareTask, mayReadJob, mayTrigger, type Reader } from './policies.js';

const project = (visibility: 'public' | 'private'): Project => ({
  id: 'p1',
  name: 'demo',
  repo: '/srv/demo.git',
  visibility,
  enabled: true,
  ownerUserId: 'owner',
  realm: 'acme',
  triggerSecret: 'the-secret',
  createdAt: 0,
  updatedAt: 0,
});

const anonymous: Reader = { kind: 'anonymous' };
const trigger: Reader = { kind: 'trigger', projectId: 'p1' };
const otherTrigger: Reader = { kind: 'trigger', projectId: 'p2' };
const session = (userId: string, roles: string[], realm = 'acme'): Reader => ({ kind: 'session', viewer: { userId, username: userId, realm, roles } });
const owner = session('owner', []);
const admin = session('someone', ['realm-admin']);
const stranger = session('someone', []);

describe('policies', () => {
  it('lets everyone read a public project', () => {
    for (const reader of [anonymous, trigger, otherTrigger, owner, admin, stranger]) {
      assert.equal(mayReadJob(reader, project('public')), true);
      assert.equal(mayReadBareTask(reader, project('public')), true);
      assert.equal(mayDownloadArtifact(reader, project('public')), true);
    }
  });

  it('lets only the owner, an administrator and (for jobs) the project\'s own trigger secret read a private project', () => {
    const priv = project('private');
    assert.deepEqual([anonymous, trigger, otherTrigger, owner, admin, stranger].map((reader) => mayReadJob(reader, priv)), [false, true, false, true, true, false]);
    assert.deepEqual([anonymous, trigger, otherTrigger, owner, admin, stranger].map((reader) => mayReadBareTask(reader, priv)), [false, false, false, true, true, false]);
    assert.deepEqual([anonymous, trigger, otherTrigger, owner, admin, stranger].map((reader) => mayDownloadArtifact(reader, priv)), [false, false, false, true, true, false]);
    assert.deepEqual([trigger, owner, admin, stranger].map((reader) => mayManage(reader, priv)), [false, true, true, false]);
  });

  it('lets manage: the owner, or a realm-admin or system-admin of the project\'s realm; no other role, no other realm', () => {
    const priv = project('private');
    const cases: [Reader, boolean][] = [
      [session('owner', []), true],
      [session('owner', [], 'system'), true],
      [session('root', ['system-admin']), true],
      [session('ruth', ['realm-admin']), true],
      [session('ruth', ['realm-admin', 'other'], 'acme'), true],
      [session('root', ['system-admin'], 'system'), false],
      [session('ruth', ['realm-admin'], 'other'), false],
      [session('eve', ['developer', 'realm-administrator']), false],
      [session('eve', []), false],
    ];
    for (const [reader, expected] of cases) assert.equal(mayManage(reader, priv), expected, JSON.stringify(reader));
    assert.equal(mayManage(session('owner', []), { ...priv, ownerUserId: null }), false);
  });

  it('serves a project only in its own realm', () => {
    assert.equal(isServedInRealm(project('public'), 'acme'), true);
    assert.equal(isServedInRealm(project('public'), 'system'), false);
    assert.equal(isServedInRealm(project('public'), null), false);
  });

  it('lets only a proof of the project\'s trigger secret trigger', () => {
    assert.equal(mayTrigger({ proves: (secret) => secret === 'the-secret' }, project('private')), true);
    assert.equal(mayTrigger({ proves: () => false }, project('public')), false);
  });
});
