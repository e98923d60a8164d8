import { homeRealmConflict } from '../errors.js';
import type { SigninStore } from '../store/types.js';
import { extractEmailDomain } from './rules/normalise.js';
import { canReceiveHomeRealm } from './rules/home-realm.js';
import type { User } from './types.js';

/**
 * The home realm rule for a verified email being attached to `user`: when a realm has verified the
 * email's domain, a user without a home realm gets that realm (returned); a user whose home realm is
 * a different realm is refused with `home_realm_conflict`. Undefined means nothing to change.
 */
export async function decideHomeRealmForVerifiedEmail(store: SigninStore, user: Pick<User, 'home_realm_id'>, normalizedEmail: string): Promise<string | undefined> {
  const owned = await store.system.findDomain(extractEmailDomain(normalizedEmail));
  if (owned === undefined || !owned.verified) return undefined;
  if (canReceiveHomeRealm(user)) return owned.realm_id;
  if (user.home_realm_id === owned.realm_id) return undefined;
  const owner = (await store.system.findRealmById(owned.realm_id))?.slug ?? owned.realm_id;
  const home = user.home_realm_id === null ? '' : ((await store.system.findRealmById(user.home_realm_id))?.slug ?? user.home_realm_id);
  throw homeRealmConflict(`the domain of '${normalizedEmail}' belongs to realm '${owner}', but the user's home realm is '${home}'`);
}
