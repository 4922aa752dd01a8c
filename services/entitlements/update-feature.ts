// Update a feature: its name, and `active`. False archives it: it entitles no one from then on
// (the customers it did entitle are told), it can be attached to no product (its attachments stay,
// inert), and its lookup key may name a new feature. True brings it back, unless its lookup key
// names another active feature by then (409 feature_exists). Only the fields sent change.
import { customersOfFeature, updateFeature as writeFeature, type FeatureChanges, type FeatureRow } from '../../db/entitlements';
import { ApiError } from '../../domain/errors';
import type { TransactionContext } from '../context';
import { refreshEntitlementSummaries } from './refresh-summary';

export async function updateFeature(ctx: TransactionContext, feature: FeatureRow, changes: FeatureChanges): Promise<FeatureRow> {
  const changed = (Object.keys(changes) as (keyof FeatureChanges)[]).filter((field) => changes[field] !== feature[field]);
  if (changed.length === 0) return feature;
  const updated = await writeFeature(ctx.db, feature.id, changes);
  if (updated === undefined) throw new ApiError('feature_exists', `The lookup key ${feature.lookup_key} names another active feature in ${feature.mode} mode: archive that one first.`);
  if (updated.active !== feature.active) await refreshEntitlementSummaries(ctx, await customersOfFeature(ctx.db, feature.id), null);
  return updated;
}
