// `kasi upgrade-requests list|approve|decline`: how an operator sees the merchants' requests for a
// bigger plan and decides them (services/account/decide-upgrade-request.ts). Each request is
// printed as the merchant sees it (views/upgrade-request.ts) with the account it is for.
import { newestUpgradeRequests, UPGRADE_REQUEST_STATUSES, type UpgradeRequestRow, type UpgradeRequestStatus } from '../db/upgrade-requests';
import { ApiError } from '../domain/errors';
import { approveUpgradeRequest, declineUpgradeRequest } from '../services/account/decide-upgrade-request';
import { inTransaction } from '../services/run';
import { upgradeRequestView } from '../views/upgrade-request';
import { UsageError, type CommandInput, type CommandOutput } from './commands';
import { shown } from './text';

/** The operator's list: the newest this many. */
export const LIST_LIMIT = 200;

function requestJson(row: UpgradeRequestRow, accountName?: string) {
  return { ...upgradeRequestView(row), accountId: row.account_id, ...(accountName === undefined ? {} : { accountName }) };
}

function line(request: ReturnType<typeof requestJson>): string {
  const who = request.accountName === undefined ? request.accountId : `${request.accountId} (${shown(request.accountName)})`;
  const note = request.status === 'declined' ? request.declineReason : request.message;
  return `${request.id}  ${request.status.padEnd(8)}  ${who}  ${request.fromPlan} -> ${request.plan}  ${request.createdAt}${note === null ? '' : `  "${shown(note)}"`}`;
}

/** The one `<id>` argument. */
function requestId(input: CommandInput): string {
  const [id, ...rest] = input.args;
  if (!id) throw new UsageError('missing <upgradeRequestId>');
  if (rest.length) throw new UsageError(`unexpected arguments: ${rest.join(' ')}`);
  return id;
}

export const upgradeRequestCommands: Record<string, (input: CommandInput) => Promise<CommandOutput>> = {
  async 'upgrade-requests list'(input) {
    if (input.args.length) throw new UsageError(`unexpected arguments: ${input.args.join(' ')}`);
    const status = input.options.status;
    if (status !== undefined && !UPGRADE_REQUEST_STATUSES.includes(status as UpgradeRequestStatus)) {
      throw new UsageError(`--status must be one of: ${UPGRADE_REQUEST_STATUSES.join(', ')}`);
    }
    const rows = await newestUpgradeRequests(input.deps.db, { status: status as UpgradeRequestStatus | undefined, limit: LIST_LIMIT });
    const list = rows.map((row) => requestJson(row, row.account_name));
    return { json: list, text: list.length ? list.map(line).join('\n') : `no ${status === undefined ? '' : `${status} `}upgrade requests` };
  },

  async 'upgrade-requests approve'(input) {
    const id = requestId(input);
    const { request, account } = await inTransaction(input.deps, (ctx) => approveUpgradeRequest(ctx, id));
    return { json: requestJson(request, account.name), text: `approved ${request.id}: ${account.id} (${shown(account.name)}) is on plan ${account.plan} now (was ${request.from_plan})` };
  },

  async 'upgrade-requests decline'(input) {
    const id = requestId(input);
    const reason = input.options.reason;
    if (reason !== undefined && typeof reason !== 'string') throw new UsageError('--reason takes a value');
    const request = await inTransaction(input.deps, (ctx) => declineUpgradeRequest(ctx, id, reason ?? null)).catch((err: unknown) => {
      const field = err instanceof ApiError ? err.fields?.[0] : undefined;
      throw field === undefined ? err : new UsageError(`--${field.path} ${field.message}`);
    });
    return { json: requestJson(request), text: `declined ${request.id}: ${request.account_id} keeps its plan` };
  },
};
