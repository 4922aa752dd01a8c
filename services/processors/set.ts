// Set a mode's card processor (`kasi processor set`): the bank's Mastercard Gateway profile, its
// API password and notification secret sealed with the secret key. Servers read the row at each
// payment step (processor/index.ts), so the change holds from the next one on.
import { gatewayProfileProblems, gatewayUrlOf, type GatewayProfileFields } from '../../domain/card-processor';
import { ApiError } from '../../domain/errors';
import { upsertCardProcessor, type CardProcessorRow } from '../../db/processors';
import type { AccountScope, ServiceContext } from '../context';

export async function setCardProcessor(ctx: ServiceContext, scope: AccountScope, fields: GatewayProfileFields): Promise<CardProcessorRow> {
  const problems = gatewayProfileProblems(fields);
  if (problems.length > 0) throw new ApiError('VALIDATION_FAILED', 'The gateway profile is not valid.', { fields: problems });
  const { url } = gatewayUrlOf(fields.gatewayUrl) as { url: string };
  return upsertCardProcessor(ctx.db, { ...fields, gatewayUrl: url, accountId: scope.account.id, mode: scope.mode }, ctx.config.secretKey(), ctx.clock.now());
}
