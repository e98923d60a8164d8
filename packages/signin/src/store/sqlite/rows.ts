import type {
  IdentityProvider,
  JsonObject,
  RealmEmailDomain,
  RealmSettings,
  User,
  UserEmail,
} from '../../domain/types.js';

// Conversions between SQLite rows (0/1 booleans, JSON text) and the domain's records.

export function parseJsonObject(text: string): JsonObject {
  const value: unknown = JSON.parse(text);
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonObject) : {};
}

export type UserRow = Omit<User, 'profile'> & { profile: string };
export function toUser(row: UserRow): User {
  return { ...row, profile: parseJsonObject(row.profile) };
}

export type UserEmailRow = Omit<UserEmail, 'verified' | 'is_primary'> & { verified: number; is_primary: number };
export function toUserEmail(row: UserEmailRow): UserEmail {
  return { ...row, verified: row.verified === 1, is_primary: row.is_primary === 1 };
}

export type DomainRow = Omit<RealmEmailDomain, 'verified'> & { verified: number };
export function toDomain(row: DomainRow): RealmEmailDomain {
  return { ...row, verified: row.verified === 1 };
}

export type SettingsRow = Omit<RealmSettings, 'branding' | 'allow_session_duration_choice'> & {
  branding: string;
  allow_session_duration_choice: number;
};
export function toSettings(row: SettingsRow): RealmSettings {
  return {
    slug: row.slug,
    display_name: row.display_name,
    kind: row.kind,
    status: row.status,
    branding: parseJsonObject(row.branding),
    allow_session_duration_choice: row.allow_session_duration_choice === 1,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export type ProviderRow = Omit<IdentityProvider, 'enabled'> & { enabled: number };
export function toProvider(row: ProviderRow): IdentityProvider {
  return {
    id: row.id,
    slug: row.slug,
    display_name: row.display_name,
    enabled: row.enabled === 1,
    issuer: row.issuer,
    client_id: row.client_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
