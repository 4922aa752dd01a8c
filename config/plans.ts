// Account plans: the monthly limit on card payments and the fee schedule. Configuration, not
// code: KASI_PLANS_FILE may point at a JSON file of the same shape to replace these defaults
// (see docs/reference/account.md).
import { readFileSync } from 'node:fs';
import { DEFAULT_PLAN, type Plan } from '../domain/plans';

export type { Plan };

export const DEFAULT_PLANS: Record<string, Plan> = {
  starter: { monthlyLimitCents: 100_000_000, feeBasisPoints: 330, feeFixedCents: 0 },
  growth: { monthlyLimitCents: 1_000_000_000, feeBasisPoints: 300, feeFixedCents: 0 },
  scale: { monthlyLimitCents: 10_000_000_000, feeBasisPoints: 275, feeFixedCents: 0 },
};

export function loadPlans(file: string | undefined): Record<string, Plan> {
  if (!file) return DEFAULT_PLANS;
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Plan>;
  for (const [name, plan] of Object.entries(parsed)) {
    for (const field of ['monthlyLimitCents', 'feeBasisPoints', 'feeFixedCents'] as const) {
      if (!Number.isSafeInteger(plan[field]) || plan[field] < 0) {
        throw new Error(`${file}: plan ${name}: ${field} must be a non-negative integer`);
      }
    }
  }
  if (!(DEFAULT_PLAN in parsed)) throw new Error(`${file}: the plan "${DEFAULT_PLAN}" must exist`);
  return parsed;
}
