import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canUseClient, userManagementRights, type ClientUseContext } from './authorization.js';
import { emailHasDomain } from './rules/normalise.js';
import { acceptsNewSessions, capUserAgent, computeExpiresAt, decideSessionTouch, isExpired, needsRefresh, sessionTtlSeconds } from './rules/session-rules.js';

describe('session rules', () => {
  it('chooses the lifetime: long only when asked and allowed', () => {
    assert.equal(sessionTtlSeconds(true, true), 604_800);
    assert.equal(sessionTtlSeconds(true, false), 43_200);
    assert.equal(sessionTtlSeconds(false, true), 43_200);
    assert.equal(sessionTtlSeconds(false, false), 43_200);
  });

  it('expires at expires_at (inclusive) and refreshes from 60 s of activity', () => {
    assert.equal(isExpired(1000, 999), false);
    assert.equal(isExpired(1000, 1000), true);
    assert.equal(needsRefresh(0, 59_999), false);
    assert.equal(needsRefresh(0, 60_000), true);
    assert.equal(computeExpiresAt(5, 2), 2005);
  });

  it('decides a touch: expired first, then refresh from 60 s, else keep', () => {
    assert.equal(decideSessionTouch({ expires_at: 1000, last_seen_at: 0 }, 1000), 'expired');
    assert.equal(decideSessionTouch({ expires_at: 100_000, last_seen_at: 0 }, 60_000), 'refresh');
    assert.equal(decideSessionTouch({ expires_at: 100_000, last_seen_at: 1 }, 60_000), 'keep');
  });

  it('caps the user agent at 512 code points, never cutting a surrogate pair', () => {
    assert.equal(capUserAgent(null), null);
    assert.equal(capUserAgent('curl/8'), 'curl/8');
    assert.equal(capUserAgent('x'.repeat(513)), 'x'.repeat(512));
    const emoji = '😀'.repeat(600);
    assert.equal(capUserAgent(emoji), '😀'.repeat(512));
  });

  it('lets only an active realm take new sessions', () => {
    assert.equal(acceptsNewSessions({ status: 'active' }), true);
    assert.equal(acceptsNewSessions({ status: 'disabled' }), false);
    assert.equal(acceptsNewSessions(undefined), false);
  });

  it("matches an email's domain part, trailing dot and case aside", () => {
    assert.equal(emailHasDomain('a@corp.test', 'corp.test'), true);
    assert.equal(emailHasDomain('a@corp.test.', 'corp.test'), true);
    assert.equal(emailHasDomain('a@sub.corp.test', 'corp.test'), false);
    assert.equal(emailHasDomain('a@corp.test.evil', 'corp.test'), false);
    assert.equal(emailHasDomain('corp.test', 'corp.test'), false);
  });
});

describe('authorisation: use of an OIDC client', () => {
  const base: ClientUseContext = {
    user: { status: 'active', home_realm_id: 'r1' },
    client: { enabled: true, access_mode: 'members', required_roles: ['realm-admin', 'system-admin'] },
    realmId: 'r1',
    membership: { status: 'active' },
    roles: ['realm-admin'],
  };
  const withChanges = (changes: Partial<ClientUseContext>, client: Partial<ClientUseContext['client']> = {}) =>
    canUseClient({ ...base, ...changes, client: { ...base.client, ...client } });

  it('requires an active user and an enabled client, whatever the mode', () => {
    assert.equal(withChanges({ user: { status: 'disabled', home_realm_id: 'r1' } }, { access_mode: 'public' }), false);
    assert.equal(withChanges({}, { enabled: false, access_mode: 'public' }), false);
  });

  it('public: allowed without membership or roles', () => {
    assert.equal(withChanges({ membership: undefined, roles: [] }, { access_mode: 'public' }), true);
  });

  it('members: active membership and one required role (or none required)', () => {
    assert.equal(withChanges({}), true);
    assert.equal(withChanges({ roles: [] }), false);
    assert.equal(withChanges({ roles: [] }, { required_roles: [] }), true);
    assert.equal(withChanges({ membership: { status: 'suspended' } }), false);
    assert.equal(withChanges({ membership: undefined }, { required_roles: [] }), false);
    assert.equal(withChanges({ user: { status: 'active', home_realm_id: 'other' } }), true);
  });

  it('internal: additionally the home realm must be this realm', () => {
    assert.equal(withChanges({}, { access_mode: 'internal' }), true);
    assert.equal(withChanges({ user: { status: 'active', home_realm_id: 'other' } }, { access_mode: 'internal' }), false);
    assert.equal(withChanges({ user: { status: 'active', home_realm_id: null } }, { access_mode: 'internal', required_roles: [] }), false);
    assert.equal(withChanges({ roles: [] }, { access_mode: 'internal' }), false);
    assert.equal(withChanges({ membership: { status: 'invited' } }, { access_mode: 'internal' }), false);
  });
});

describe('authorisation: managing a user', () => {
  it('system admin: full rights over anyone', () => {
    assert.equal(userManagementRights(['system-admin'], 'r1', { home_realm_id: 'other' }), 'full');
  });
  it('realm admin: full over home-realm users, membership-only over others', () => {
    assert.equal(userManagementRights(['realm-admin'], 'r1', { home_realm_id: 'r1' }), 'full');
    assert.equal(userManagementRights(['realm-admin'], 'r1', { home_realm_id: 'other' }), 'membership');
    assert.equal(userManagementRights(['realm-admin'], 'r1', { home_realm_id: null }), 'membership');
  });
  it('everyone else: none', () => {
    assert.equal(userManagementRights([], 'r1', { home_realm_id: 'r1' }), 'none');
    assert.equal(userManagementRights(['viewer'], 'r1', { home_realm_id: 'r1' }), 'none');
  });
});
