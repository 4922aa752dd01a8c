// GET /v1/account: the account as the key's mode sees it (see docs/reference/account.md).
import { accountInMode } from '../../services/account/show';
import { defineRoute } from '../platform/route';
import { accountSchema } from '../schemas/account';

export const accountRoutes = [
  defineRoute<unknown, unknown>({
    method: 'GET',
    path: '/v1/account',
    operationId: 'getAccount',
    summary: 'Get your account: status, plan, this month\'s use of the monthly limit, whether live payments are open, and an upgrade request waiting for a decision',
    tag: 'Account',
    auth: {},
    responses: { 200: { description: 'The account.', schema: accountSchema } },
    async handler(input) {
      return { status: 200, body: await accountInMode(input, input.caller) };
    },
  }),
];
