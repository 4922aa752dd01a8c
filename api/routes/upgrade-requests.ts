// POST /v1/account/upgrade_requests (ask for a bigger plan) and GET /v1/account/upgrade_requests
// (the account's requests and their decisions). Operators decide them with `kasi upgrade-requests`.
import { upgradeRequestsOf, type UpgradeRequestRow, type UpgradeRequestStatus } from '../../db/upgrade-requests';
import { requestUpgrade, type UpgradeRequestInput } from '../../services/account/request-upgrade';
import { upgradeRequestView } from '../../views/upgrade-request';
import type { ListQuery } from '../platform/pagination';
import { listRoute } from '../platform/resource-routes';
import { defineRoute } from '../platform/route';
import { upgradeRequestCreateSchema, upgradeRequestListQuerySchema, upgradeRequestSchema } from '../schemas/upgrade-request';

const TAG = 'Account';

export const upgradeRequestRoutes = [
  defineRoute<UpgradeRequestInput, unknown>({
    method: 'POST',
    path: '/v1/account/upgrade_requests',
    operationId: 'createUpgradeRequest',
    summary: 'Ask for a plan with a higher monthly limit',
    description:
      'An operator approves (the account moves to `plan` at once, and with it the monthly limit) or declines it. One request waits at a time: while one is `pending`, another answers `upgrade_request_pending`. `GET /v1/account` shows the pending one.',
    tag: TAG,
    // The account's own billing with Kasi: the billing permission, secret keys only.
    auth: { permission: 'billing:write' },
    idempotent: true,
    body: upgradeRequestCreateSchema,
    responses: { 201: { description: 'The request, `pending`.', schema: upgradeRequestSchema } },
    errors: ['upgrade_request_pending'],
    async handler(input) {
      return { status: 201, body: upgradeRequestView(await requestUpgrade(input, input.caller, input.body)) };
    },
  }),
  listRoute<UpgradeRequestRow, ListQuery & { status?: UpgradeRequestStatus }>({
    path: '/v1/account/upgrade_requests',
    operationId: 'listUpgradeRequests',
    summary: 'List the account\'s upgrade requests, newest first',
    tag: TAG,
    auth: { permission: 'billing:read' },
    kind: 'upgradeRequest',
    query: upgradeRequestListQuerySchema,
    item: upgradeRequestSchema,
    answer: 'A page of upgrade requests.',
    // The account's, whichever mode the key is of.
    rows: ({ db, scope, query }) => upgradeRequestsOf(db, scope.accountId, query.status),
    view: upgradeRequestView,
  }),
];
