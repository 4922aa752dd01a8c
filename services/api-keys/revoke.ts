// Revoke an API key, named by its id or by the key itself (an operator's act: `kasi key revoke`).
// Revoking twice keeps the first revocation time. Servers hear of it by a notification from
// Postgres and stop accepting the key within moments (db/active-key-cache.ts).
import { ApiError } from '../../domain/errors';
import { revokeKey, type ApiKeyRecord } from '../../db/api-keys';
import type { ServiceContext } from '../context';

export async function revokeApiKey(ctx: ServiceContext, keyOrId: string): Promise<ApiKeyRecord> {
  const record = await revokeKey(ctx.db, keyOrId, ctx.clock.now());
  if (!record) throw new ApiError('NOT_FOUND', keyOrId.startsWith('key_') ? `No API key with id ${keyOrId}.` : 'No API key matches that value.');
  return record;
}
