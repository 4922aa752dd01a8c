// Create a feature: something a merchant's app lets a customer use, named by a lookup key the app
// asks about. A lookup key names one active feature per account and mode (409 feature_exists),
// also when two creates race: the table's unique index decides.
import { newId } from '../../crypto/ids';
import { insertFeature, type FeatureRow } from '../../db/entitlements';
import { ApiError } from '../../domain/errors';
import type { AccountScope, ServiceContext } from '../context';

export interface FeatureInput {
  name: string;
  lookupKey: string;
}

export async function createFeature(ctx: ServiceContext, scope: AccountScope, input: FeatureInput): Promise<FeatureRow> {
  const now = ctx.clock.now();
  const row: FeatureRow = {
    id: newId('entitlementFeature', now.getTime()),
    account_id: scope.account.id,
    mode: scope.mode,
    name: input.name,
    lookup_key: input.lookupKey,
    active: true,
    created_at: now,
  };
  if (!(await insertFeature(ctx.db, row))) throw new ApiError('feature_exists', `The lookup key ${input.lookupKey} already names a feature in ${scope.mode} mode.`);
  return row;
}
