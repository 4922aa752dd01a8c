// Boot-time restart: one resumer per long-lived object kind, each returning the workflow start of
// every object of its kind that is not yet final (see docs/operators/orchestration.md).
import type { Knex } from 'knex';
import type { Clock } from '../domain/clock';
import { openCheckouts } from '../db/checkouts';
import { pendingRefunds } from '../db/refunds';
import { checkoutsWithCardToKeep, processingCharges } from '../db/saved-cards';
import { cardChargeStart, cardExpiringStart, checkoutLifetimeStart, invoiceCollectionStart, invoicePaymentStart, monthlyLimitResetStart, refundStart, subscriptionStart, testClockAdvanceStart, webhookDeliveryStart, webhookResendStart } from '../orchestration/starts';
import { pendingDeliveries } from '../db/webhook-deliveries';
import { advancingClocks } from '../db/test-clocks';
import { runningSubscriptions } from '../db/subscriptions';
import { invoicesBeingCollected } from '../db/invoices';
import { unfinishedInvoiceCharges } from '../db/invoice-charges';
import type { Resumer } from './orchestration';

export function createResumers(deps: { db: Knex; clock: Clock }): Resumer[] {
  return [
    // Every open checkout's lifetime, with the time it has left (one already past its expiresAt
    // expires at once), asking the processor at once about an attempt left with it.
    async () => (await openCheckouts(deps.db)).map((c) => checkoutLifetimeStart(c, c.attempt_in_flight ?? undefined)),
    // A paid checkout whose card the process stopped before keeping: its lifetime applies the
    // paying attempt again, which keeps the card (services/cards/keep.ts).
    async () => (await checkoutsWithCardToKeep(deps.db)).map((c) => checkoutLifetimeStart(c, c.settled_attempt)),
    // Every saved-card charge still with the processor, asked about again.
    async () => (await processingCharges(deps.db)).map(cardChargeStart),
    // The monthly card.expiring sweep, which makes this month's at once if its instant has passed
    // (it sends nothing twice).
    async () => [cardExpiringStart()],
    // Every refund still with the processor: asked for again (the processor makes one per refund).
    async () => (await pendingRefunds(deps.db)).map(refundStart),
    // Every pending webhook delivery, resuming its retry ladder where it was; a ping whose one
    // attempt was not made is sent now.
    async () =>
      (await pendingDeliveries(deps.db)).map((d) =>
        d.event_id === null
          ? webhookResendStart(d)
          : webhookDeliveryStart(d, { attemptsMade: d.attempt_count, waitMs: Math.max(0, (d.next_attempt_at?.getTime() ?? 0) - deps.clock.now().getTime()) }),
      ),
    // The monthly limit's reset, running for ever (left alone where it runs already): its first run
    // sends the month's resets still due.
    async () => [monthlyLimitResetStart()],
    // Every test clock whose advance had not finished goes on to its target.
    async () => (await advancingClocks(deps.db)).map(testClockAdvanceStart),
    // Every subscription not ended, renewed at the end of its current period.
    async () => (await runningSubscriptions(deps.db)).map(subscriptionStart),
    // Every invoice still being collected, from its next attempt or its reminders (one whose
    // workflow runs already is left alone).
    async () => (await invoicesBeingCollected(deps.db)).map((invoice) => invoiceCollectionStart(invoice, invoice.clock_id)),
    // Every invoice charge a process may have stopped in the middle of: still with the processor,
    // whatever its invoice's status (one voided while the bank decided is no longer being
    // collected), or decided but not applied to its invoice: seen to its end, as a charge asked for
    // by hand is (refunded if it succeeded for an invoice it did not pay).
    async () => (await unfinishedInvoiceCharges(deps.db)).map(({ invoice, attempt, clockId }) => invoicePaymentStart(invoice, attempt, clockId)),
  ];
}
