// The service's records, with the spec's field names. Timestamps are epoch milliseconds.

export type UserStatus = 'active' | 'disabled';
export type RealmStatus = 'active' | 'disabled';
export type RealmKind = 'realm' | 'system';
export type MembershipStatus = 'active' | 'suspended' | 'invited';
export type AccessMode = 'internal' | 'members' | 'public';
export type JsonObject = Record<string, unknown>;

export const USER_STATUSES: readonly UserStatus[] = ['active', 'disabled'];
export const REALM_STATUSES: readonly RealmStatus[] = ['active', 'disabled'];
export const MEMBERSHIP_STATUSES: readonly MembershipStatus[] = ['active', 'suspended', 'invited'];
export const ACCESS_MODES: readonly AccessMode[] = ['internal', 'members', 'public'];

export const SYSTEM_REALM_ID = 'system';
export const DEFAULT_SYSTEM_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];
export const BUILT_IN_ROLES: readonly { slug: string; name: string }[] = [
  { slug: 'realm-admin', name: 'Realm administrator' },
  { slug: 'system-admin', name: 'System administrator' },
];
export const ADMIN_UI_CLIENT_ID = 'admin-ui';

export interface Realm {
  id: string;
  slug: string;
  owner_user_id: string | null;
  created_at: number;
}

export interface RealmEmailDomain {
  domain: string;
  realm_id: string;
  verified: boolean;
  verification_token: string | null;
  verified_at: number | null;
  created_at: number;
}

export interface User {
  id: string;
  username: string;
  display_name: string;
  status: UserStatus;
  home_realm_id: string | null;
  profile: JsonObject;
  last_login_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface UserEmail {
  id: string;
  user_id: string;
  email: string;
  normalized_email: string;
  verified: boolean;
  is_primary: boolean;
  created_at: number;
  verified_at: number | null;
}

export interface Credential {
  id: string;
  user_id: string;
  type: string;
  secret_hash: string;
  created_at: number;
  updated_at: number;
}

export interface RealmSettings {
  slug: string;
  display_name: string;
  kind: RealmKind;
  status: RealmStatus;
  branding: JsonObject;
  allow_session_duration_choice: boolean;
  created_at: number;
  updated_at: number;
}

/** What callers are shown of a realm. */
export interface RealmMetadata {
  slug: string;
  display_name: string;
  branding: JsonObject;
  allow_session_duration_choice: boolean;
}

export interface Membership {
  user_id: string;
  status: MembershipStatus;
  created_at: number;
  updated_at: number;
}

export interface Role {
  id: string;
  slug: string;
  name: string;
  created_at: number;
}

export interface IdentityProvider {
  id: string;
  slug: string;
  display_name: string;
  enabled: boolean;
  issuer: string;
  client_id: string;
  created_at: number;
  updated_at: number;
}

export interface OidcClient {
  id: string;
  client_id: string;
  name: string;
  redirect_uris: string[];
  scopes: string;
  access_mode: AccessMode;
  enabled: boolean;
  created_at: number;
  updated_at: number;
  /** Slugs of the required roles. */
  required_roles: string[];
}

export interface Session {
  id: string;
  user_id: string;
  ttl: number;
  created_at: number;
  expires_at: number;
  last_seen_at: number;
  user_agent: string | null;
  ip: string | null;
}

export function toRealmMetadata(settings: RealmSettings): RealmMetadata {
  return {
    slug: settings.slug,
    display_name: settings.display_name,
    branding: settings.branding,
    allow_session_duration_choice: settings.allow_session_duration_choice,
  };
}
