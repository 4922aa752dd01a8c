// POST /processor-notifications/{accountId}/{mode}: where the bank's gateway posts its
// notifications about an account's orders (the adapter gives it this URL with each order). No API
// key: the notification secret the operator set (`kasi processor set --notification-secret`) is
// the credential. Accepted notifications are hints only (services/processors/notify.ts).
import Router from '@koa/router';
import { MODES, type Mode } from '../domain/api-keys';
import { NOTIFICATIONS_PATH } from '../domain/card-processor';
import type { ProcessorServiceDeps } from '../services/context';
import { acceptGatewayNotification } from '../services/processors/notify';
import { readLimited } from '../web/body';

/** A notification is one order's summary: a few kilobytes. */
const NOTIFICATION_LIMIT_BYTES = 64 * 1024;
const ACCOUNT_ID = /^acct_[0-9a-z]{24}$/;

export function processorNotificationsRouter(deps: ProcessorServiceDeps): Router {
  const router = new Router({ strict: true, sensitive: true });
  router.post(`${NOTIFICATIONS_PATH}/:accountId/:mode`, async (ctx) => {
    const { accountId, mode } = ctx.params as { accountId: string; mode: string };
    ctx.type = 'json';
    if (!ACCOUNT_ID.test(accountId) || !MODES.includes(mode as Mode)) {
      ctx.status = 404;
      ctx.body = { error: 'no such notification address' };
      return;
    }
    const body = await readLimited(ctx, NOTIFICATION_LIMIT_BYTES);
    const result = await acceptGatewayNotification(deps, { accountId, mode: mode as Mode }, ctx.headers, body);
    // Refused alike whether the account has no gateway or the secret is wrong: nothing to learn here.
    ctx.status = result === 'refused' ? 401 : 200;
    ctx.body = result === 'refused' ? { error: 'notification secret refused' } : { received: true };
  });
  return router;
}
