// Boot-time restart: one resumer per long-lived object kind, each returning the workflow start of
// every object of its kind that is not yet final (see docs/orchestration.md).
import type { Knex } from 'knex';
import type { Clock } from '../domain/clock';
import { openCheckouts } from '../db/checkouts';
import { checkoutLifetimeStart, webhookDeliveryStart, webhookResendStart } from '../orchestration/starts';
import { pendingDeliveries } from '../db/webhook-deliveries';
import type { Resumer } from './orchestration';

export function createResumers(deps: { db: Knex; clock: Clock }): Resumer[] {
  return [
    // Every open checkout's lifetime, with the time it has left (one already past its expiresAt
    // expires at once), asking the processor at once about an attempt left with it.
    async () => (await openCheckouts(deps.db)).map((c) => checkoutLifetimeStart(c, c.attempt_in_flight ?? undefined)),
    // Every pending webhook delivery, resuming its retry ladder where it was; a ping whose one
    // attempt was not made is sent now.
    async () =>
      (await pendingDeliveries(deps.db)).map((d) =>
        d.event_id === null
          ? webhookResendStart(d)
          : webhookDeliveryStart(d, { attemptsMade: d.attempt_count, waitMs: Math.max(0, (d.next_attempt_at?.getTime() ?? 0) - deps.clock.now().getTime()) }),
      ),
  ];
}
