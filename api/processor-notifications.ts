// POST /processor-notifications/{accountId}/{mode}: where the bank's gateway posts its
// notifications about an account's orders (the adapter gives it this URL with each order). No API
// key: the notification secret the operator set (`kasi processor set --notification-secret`) is
// the credential. Accepted notifications are hints only (services/processors/notify.ts).
import Router from '@koa/router';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { MODES, type Mode } from '../domain/api-keys';
import { NOTIFICATIONS_PATH } from '../domain/card-processor';
import type { ProcessorServiceDeps } from '../services/context';
import { acceptGatewayNotification } from '../services/processors/notify';
import { readLimited } from '../web/body';
import { pageLimiter } from './pages/hosted-page';

/** A notification is one order's summary: a few kilobytes. */
const NOTIFICATION_LIMIT_BYTES = 64 * 1024;
const ACCOUNT_ID = /^acct_[0-9a-z]{24}$/;

export function processorNotificationsRouter(deps: ProcessorServiceDeps & { limiter: RateLimiterAbstract }): Router {
  const router = new Router({ strict: true, sensitive: true });
  // The API's budget per client address, as each page has: guessing secrets costs as much as any call.
  const limited = pageLimiter(deps.limiter, (ctx) => {
    ctx.status = 429;
    ctx.type = 'json';
    ctx.body = { error: 'too many requests' };
  });
  const accept = limited('POST /processor-notifications', async (ctx) => {
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
  router.post(`${NOTIFICATIONS_PATH}/:accountId/:mode`, (ctx) => accept(ctx, 'en'));
  return router;
}
