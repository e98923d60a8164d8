import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Project } from '../store/types.js';
import { mayDownloadArtifact, mayManage, mayReadBareTask, mayReadJob, mayTrigger, type Reader } from './policies.js';

const project = (visibility: 'public' | 'private'): Project => ({
  id: 'p1',
  name: 'demo',
  repo: '/srv/demo.git',
  visibility,
  enabled: true,
  ownerUserId: 'owner',
  triggerSecret: 'the-secret',
  createdAt: 0,
  updatedAt: 0,
});

const anonymous: Reader = { kind: 'anonymous' };
const trigger: Reader = { kind: 'trigger', projectId: 'p1' };
const otherTrigger: Reader = { kind: 'trigger', projectId: 'p2' };
const session = (userId: string, roles: string[], realm = 'system'): Reader => ({ kind: 'session', viewer: { userId, username: userId, realm, roles } });
const owner = session('owner', []);
const admin = session('someone', ['realm-admin']);
const stranger = session('someone', []);
const viewer = session;

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

  it('lets realm and system administrators manage only the projects of their own realm', () => {
    const priv = project('private');
    assert.equal(mayManage(session('x', ['system-admin']), priv), true);
    assert.equal(mayManage(session('x', ['realm-admin'], 'other'), priv), false);
    assert.equal(mayManage(session('x', ['system-admin'], 'other'), priv), false);
    assert.equal(mayManage(session('x', ['developer']), priv), false);
    // The owner keeps the project wherever they sign in.
    assert.equal(mayManage(session('owner', [], 'other'), priv), true);
  });

  it("counts a realm's administrators in that realm's projects", () => {
    const priv = project('private');
    assert.equal(mayManage(viewer('someone', ['realm-admin'], 'acme'), { ...priv, realm: 'acme' } as Project), true);
  });

  it('lets only a proof of the project\'s trigger secret trigger', () => {
    assert.equal(mayTrigger({ proves: (secret) => secret === 'the-secret' }, project('private')), true);
    assert.equal(mayTrigger({ proves: () => false }, project('public')), false);
  });
});
