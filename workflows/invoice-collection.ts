// An invoice being collected (DESIGN.md decision 13 and "Dunning"), in its customer's time (wall
// time or a test clock: workflows/billing-time.ts). Started when the invoice is finalised with
// something to pay, and at boot for every one still being collected.
// - charge_automatically: charge the card on file; while the processor has not answered, ask
//   again (wall time: the bank's answer does not follow a test clock); on a decline wait for the
//   ladder's next attempt (days 1, 3, 7 and 14 after the first) and charge again, until paid, the
//   ladder ends, or the invoice is closed (paid on its page, voided with its subscription).
// - send_invoice: remind the customer three days before the due date and, if still open when it
//   passes, tell them it is overdue (invoice.overdue).
import { patched, proxyActivities, sleep, workflowInfo } from '@temporalio/workflow';
import type { InvoiceActivities } from '../activities/invoices';
import type { CollectionMethod } from '../domain/invoices';
import { REMINDER_DAYS_BEFORE_DUE } from '../domain/invoices';
import { collectionEnds } from '../domain/dunning';
import { chargePollDelayMs } from '../domain/saved-cards';
import { billingTime } from './billing-time';

export interface InvoiceCollectionInput {
  invoiceId: string;
  /** The customer's test clock, or null (wall time). */
  clockId: string | null;
  collectionMethod: CollectionMethod;
  /** charge_automatically: the attempt to make next (1: the first charge), and when (ms since the epoch; null: now). */
  attempt?: number;
  attemptAt?: number | null;
  /** send_invoice: when the invoice was finalised and when it falls due (ms since the epoch). */
  finalizedAt?: number;
  dueDate?: number;
  /** One attempt only (a charge asked for by POST /v1/invoices/{id}/pay), seen to its outcome. */
  once?: boolean;
}

const { chargeInvoice, noticeInvoice } = proxyActivities<InvoiceActivities>({
  startToCloseTimeout: '30 seconds',
  // Collection must reach its outcome: retried without limit, as a charge's activities are.
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
  // Temporal's priority keys run from 1 (first) to 5, 3 by default. Where activities wait for a
  // worker (a server's backlog, where it supports priority, or the embedded engine's slots), an
  // invoice's charges and notices go ahead of the subscriptions' steps: in a renewal storm each
  // invoice is paid moments after it is made rather than after the last is made.
  priority: { priorityKey: 2 },
});

const DAY_MS = 24 * 60 * 60 * 1000;

/** The change (patched) by which a collection on a clock leaves it with its last charge. */
const LEAVE_WITH_CHARGE = 'leave-clock-with-charge';

export async function invoiceCollection(input: InvoiceCollectionInput): Promise<void> {
  const time = billingTime(input.clockId);
  if (input.collectionMethod === 'send_invoice') {
    const dueDate = input.dueDate!;
    const remindAt = dueDate - REMINDER_DAYS_BEFORE_DUE * DAY_MS;
    let open = true;
    if (remindAt > input.finalizedAt!) {
      await time.until(remindAt);
      open = await noticeInvoice(input.invoiceId, 'reminder');
    }
    if (open) {
      await time.until(dueDate);
      await noticeInvoice(input.invoiceId, 'overdue');
    }
    return time.leave();
  }
  const once = input.once === true;
  // On a clock, the attempt that ends the collection takes its wait off the clock with it. Runs
  // begun before this (their histories) leave by an activity of their own after it.
  const leave = input.clockId !== null && patched(LEAVE_WITH_CHARGE) ? { workflowId: workflowInfo().workflowId, once } : undefined;
  let at = input.attemptAt ?? null;
  for (let attempt = input.attempt ?? 1; ; attempt++) {
    if (at !== null) await time.until(at);
    let step = await chargeInvoice(input.invoiceId, attempt, leave);
    for (let asked = 0; step.kind === 'pending'; asked++) {
      await sleep(chargePollDelayMs(asked));
      step = await chargeInvoice(input.invoiceId, attempt, leave);
    }
    // Not ended: declined, with a retry to wait for (the kind's test is for the type).
    if (collectionEnds(step, once) || step.kind !== 'declined' || step.nextAttemptAt === null) return leave === undefined ? time.leave() : undefined;
    at = step.nextAttemptAt;
  }
}
