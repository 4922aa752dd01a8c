// GET /v1/account: the account as the key's mode sees it (see docs/account.md).
import { accountView } from '../../db/accounts';
import { monthlyUsageCents } from '../../db/monthly-usage';
import { colomboMonth } from '../../domain/time';
import { defineRoute } from '../platform/route';
import { accountSchema } from '../schemas/account';

export const accountRoutes = [
  defineRoute<unknown, unknown>({
    method: 'GET',
    path: '/v1/account',
    operationId: 'getAccount',
    summary: 'Get your account: status, plan, this month\'s use of the monthly limit, and whether live payments are open',
    tag: 'Account',
    auth: {},
    responses: { 200: { description: 'The account.', schema: accountSchema } },
    async handler({ caller, db, clock, config }) {
      const { account, mode } = caller;
      const now = clock.now();
      const limitCents = config.plans[account.plan]?.monthlyLimitCents ?? 0;
      const usedCents = await monthlyUsageCents(db, account.id, mode, now);
      const month = colomboMonth(now);
      return {
        status: 200,
        body: {
          ...accountView(account),
          mode,
          monthlyLimit: {
            limitCents,
            usedCents,
            remainingCents: Math.max(0, limitCents - usedCents),
            periodStart: month.start.toISOString(),
            periodEnd: month.end.toISOString(),
          },
        },
      };
    },
  }),
];
