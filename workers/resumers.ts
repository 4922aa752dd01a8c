// Boot-time restart: one resumer per long-lived object kind, each returning the workflow start of
// every object of its kind that is not yet final (see docs/orchestration.md).
import type { Knex } from 'knex';
import type { Clock } from '../domain/clock';
import { openCheckouts } from '../db/checkouts';
import { checkoutLifetimeStart } from '../orchestration/starts';
import { pendingDeliveries } from '../db/webhook-deliveries';
import { workflowIdFor } from '../orchestration/ids';
import type { Resumer } from './orchestration';

export function createResumers(deps: { db: Knex; clock: Clock }): Resumer[] {
  return [
    // Every open checkout's lifetime, with the time it has left (one already past its expiresAt
    // expires at once), asking the processor at once about an attempt left with it.
    async () => (await openCheckouts(deps.db)).map((c) => checkoutLifetimeStart(c, c.attempt_in_flight ?? undefined)),
    // Every pending webhook delivery, resuming its retry ladder where it was.
    async () =>
      (await pendingDeliveries(deps.db)).map((d) => ({
        workflowType: 'webhookDelivery',
        workflowId: workflowIdFor('webhook-delivery', d.id),
        args: [d.id, { attemptsMade: d.attempt_count, waitMs: Math.max(0, (d.next_attempt_at?.getTime() ?? 0) - deps.clock.now().getTime()) }],
        accountId: d.account_id,
        mode: d.mode,
      })),
  ];
}
