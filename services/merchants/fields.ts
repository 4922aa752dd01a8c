// The rules of a merchant's own fields, for every way of making or changing one (the CLI now, the
// dashboard later).
import { accountNameProblem } from '../../domain/account-rules';
import { ApiError, type FieldError } from '../../domain/errors';
import type { ServiceContext } from '../context';

/** Refuses a name outside the rule (domain/account-rules.ts) or a plan not in the catalogue. */
export function checkMerchantFields(ctx: ServiceContext, fields: { name?: string; plan?: string }): void {
  const problems: FieldError[] = [];
  const nameProblem = fields.name === undefined ? null : accountNameProblem(fields.name);
  if (nameProblem !== null) problems.push({ path: 'name', message: nameProblem });
  if (fields.plan !== undefined && !(fields.plan in ctx.config.plans)) {
    problems.push({ path: 'plan', message: `must be one of: ${Object.keys(ctx.config.plans).join(', ')}` });
  }
  if (problems.length > 0) throw new ApiError('VALIDATION_FAILED', 'The merchant is not valid.', { fields: problems });
}
