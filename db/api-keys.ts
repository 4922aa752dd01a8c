// API keys, stored as SHA-256 hashes: the key itself exists only in the creation answer.
import type { Knex } from 'knex';
import { newId } from '../crypto/ids';
import { DEFAULT_PERMISSIONS, redactKey, type KeyKind, type Mode, type Permission } from '../domain/api-keys';
import { generateKey, hashKey } from '../crypto/api-keys';
import { ACCOUNT_COLUMNS, accountFromRow, type AccountRecord, type AccountRow } from './accounts';
import { sql } from './sql';

export interface ApiKeyRecord {
  id: string;
  accountId: string;
  kind: KeyKind;
  mode: Mode;
  permissions: Permission[];
  hint: string;
  expiresAt: Date | null;
  revokedAt: Date | null;
  createdAt: Date;
}

interface ApiKeyRow {
  id: string;
  account_id: string;
  kind: KeyKind;
  mode: Mode;
  permissions: Permission[];
  key_hint: string;
  expires_at: Date | null;
  revoked_at: Date | null;
  created_at: Date;
}

const KEY_COLUMNS = ['id', 'account_id', 'kind', 'mode', 'permissions', 'key_hint', 'expires_at', 'revoked_at', 'created_at'];

function keyFromRow(row: ApiKeyRow): ApiKeyRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    kind: row.kind,
    mode: row.mode,
    permissions: row.permissions,
    hint: row.key_hint,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    createdAt: row.created_at,
  };
}

export async function createApiKey(
  db: Knex | Knex.Transaction,
  input: { accountId: string; kind: KeyKind; mode: Mode; permissions?: readonly Permission[]; expiresAt?: Date | null; now: Date },
): Promise<{ record: ApiKeyRecord; key: string }> {
  const key = generateKey(input.kind, input.mode);
  const [row] = (await db('api_keys')
    .insert({
      id: newId('apiKey', input.now.getTime()),
      account_id: input.accountId,
      kind: input.kind,
      mode: input.mode,
      permissions: [...(input.permissions ?? DEFAULT_PERMISSIONS[input.kind])],
      key_hash: hashKey(key),
      key_hint: redactKey(key),
      expires_at: input.expiresAt ?? null,
      revoked_at: null,
      created_at: input.now,
    })
    .returning(KEY_COLUMNS)) as ApiKeyRow[];
  return { record: keyFromRow(row as ApiKeyRow), key };
}

// Built once: this runs on every authenticated request.
const ACTIVE_KEY_SQL = `select ${KEY_COLUMNS.map((c) => `k.${c}`).join(', ')}, ${ACCOUNT_COLUMNS.map((c) => `a.${c} as account_${c}`).join(', ')}
  from api_keys k join accounts a on a.id = k.account_id
  where k.key_hash = $1 and k.revoked_at is null and (k.expires_at is null or k.expires_at > $2)`;

export interface ActiveKey {
  key: ApiKeyRecord;
  account: AccountRecord;
}

/**
 * The key and its account for a presented key (by its hash), if the key is usable at `now`: not
 * revoked and not past its end date. One indexed query.
 */
export async function findActiveKey(db: Knex, keyHash: string, now: Date): Promise<ActiveKey | null> {
  const [row] = await sql<Record<string, unknown>>(db, ACTIVE_KEY_SQL, [keyHash, now]);
  if (!row) return null;
  const accountRow = Object.fromEntries(ACCOUNT_COLUMNS.map((c) => [c, row[`account_${c}`]]));
  return { key: keyFromRow(row as unknown as ApiKeyRow), account: accountFromRow(accountRow as unknown as AccountRow) };
}

/** Revokes by id or by the key itself; revoking twice keeps the first revocation time. */
export async function revokeKey(db: Knex | Knex.Transaction, keyOrId: string, now: Date): Promise<ApiKeyRecord | null> {
  const where = keyOrId.startsWith('key_') ? { id: keyOrId } : { key_hash: hashKey(keyOrId) };
  const [row] = (await db('api_keys')
    .where(where)
    .update({ revoked_at: db.raw('coalesce(revoked_at, ?)', [now]) })
    .returning(KEY_COLUMNS)) as ApiKeyRow[];
  return row ? keyFromRow(row) : null;
}
