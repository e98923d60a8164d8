import type { User } from '../types.js';

/** Only a user without a home realm is given one; an existing home realm is never replaced. */
export function canReceiveHomeRealm(user: Pick<User, 'home_realm_id'>): boolean {
  return user.home_realm_id === null;
}
