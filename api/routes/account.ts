// GET /v1/account: the account as the key's mode sees it (see docs/account.md).
import { monthlyLimitUse } from '../../services/account/monthly-limit';
import { accountInModeView } from '../../views/account';
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
    async handler(input) {
      const { account, mode } = input.caller;
      return { status: 200, body: accountInModeView(account, mode, await monthlyLimitUse(input, input.caller)) };
    },
  }),
];
