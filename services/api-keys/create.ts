// Create an API key for an account: of a kind and mode, with its permissions (the kind's defaults
// unless given) and, for an agent key, an end date. The key is shown this once; only its hash is
// kept. `kasi key create`.
import { ApiError, type FieldError } from '../../domain/errors';
import type { KeyKind, Mode, Permission } from '../../domain/api-keys';
import type { AccountRecord } from '../../db/accounts';
import { createApiKey as insertApiKey, type ApiKeyRecord } from '../../db/api-keys';
import type { ServiceContext } from '../context';

export interface ApiKeyInput {
  kind: KeyKind;
  mode: Mode;
  permissions?: readonly Permission[];
  /** Agent keys only: when the key stops working. */
  expiresAt?: Date | null;
}

export async function createApiKey(ctx: ServiceContext, account: AccountRecord, input: ApiKeyInput): Promise<{ record: ApiKeyRecord; key: string }> {
  const now = ctx.clock.now();
  const problems: FieldError[] = [];
  if (input.permissions !== undefined && input.permissions.length === 0) problems.push({ path: 'permissions', message: 'needs at least one permission' });
  if (input.expiresAt != null) {
    if (input.kind !== 'agent') problems.push({ path: 'expiresAt', message: 'is for agent keys' });
    else if (Number.isNaN(input.expiresAt.getTime()) || input.expiresAt <= now) problems.push({ path: 'expiresAt', message: 'must be an ISO time in the future' });
  }
  if (problems.length > 0) throw new ApiError('VALIDATION_FAILED', 'The key is not valid.', { fields: problems });
  return insertApiKey(ctx.db, { accountId: account.id, kind: input.kind, mode: input.mode, permissions: input.permissions, expiresAt: input.expiresAt ?? null, now });
}
