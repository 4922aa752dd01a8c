// An API key's record as the CLI shows it: never the key itself (it exists only in the creation
// answer; only its SHA-256 is stored).
import type { ApiKeyRecord } from '../db/api-keys';
import { timestamp } from '../domain/time';

export function apiKeyView(record: ApiKeyRecord) {
  return {
    object: 'api_key',
    id: record.id,
    accountId: record.accountId,
    kind: record.kind,
    mode: record.mode,
    permissions: record.permissions,
    hint: record.hint,
    expiresAt: timestamp(record.expiresAt),
    revokedAt: timestamp(record.revokedAt),
    createdAt: record.createdAt.toISOString(),
  };
}
