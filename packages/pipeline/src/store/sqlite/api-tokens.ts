import type { ApiToken, PipelineStore } from '../types.js';
import type { Db } from './database.js';

type TokenMethods = Pick<PipelineStore, 'createApiToken' | 'findApiTokenByHash' | 'listApiTokens' | 'revokeApiToken' | 'touchApiToken'>;

interface TokenRow {
  id: string;
  user_id: string;
  realm: string;
  name: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

function toApiToken(row: TokenRow): ApiToken {
  return { id: row.id, userId: row.user_id, realm: row.realm, name: row.name, createdAt: row.created_at, lastUsedAt: row.last_used_at, revokedAt: row.revoked_at };
}

const COLUMNS = 'id, user_id, realm, name, created_at, last_used_at, revoked_at';

/** API tokens: looked up by the hash of the token, never by the token. */
export function createApiTokenMethods(db: Db): TokenMethods {
  return {
    async createApiToken(token, tokenHash) {
      db.prepare('INSERT INTO api_tokens (id, user_id, realm, name, token_hash, created_at) VALUES (?, ?, ?, ?, ?, ?)').run(
        token.id,
        token.userId,
        token.realm,
        token.name,
        tokenHash,
        token.createdAt,
      );
    },
    async findApiTokenByHash(tokenHash) {
      const row = db.prepare<[string], TokenRow>(`SELECT ${COLUMNS} FROM api_tokens WHERE token_hash = ? AND revoked_at IS NULL`).get(tokenHash);
      return row === undefined ? null : toApiToken(row);
    },
    async listApiTokens(userId, realm) {
      return db
        .prepare<[string, string], TokenRow>(`SELECT ${COLUMNS} FROM api_tokens WHERE user_id = ? AND realm = ? AND revoked_at IS NULL ORDER BY created_at, id`)
        .all(userId, realm)
        .map(toApiToken);
    },
    async revokeApiToken(id, userId, realm, now) {
      return db.prepare('UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND user_id = ? AND realm = ? AND revoked_at IS NULL').run(now, id, userId, realm).changes > 0;
    },
    async touchApiToken(id, now) {
      // Last use is for people deciding what to revoke; a write every few seconds is precise enough.
      db.prepare('UPDATE api_tokens SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ? - 5000)').run(now, id, now);
    },
  };
}
