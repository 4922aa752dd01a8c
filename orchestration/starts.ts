// One start builder per workflow: its type, id, arguments and search attributes in one place, for
// the routes, the pages and the resumers alike. The type is checked against the workflows' own
// exports, so a renamed workflow fails `tsc` here.
import type * as workflows from '../workflows';
import type { CheckoutLifetimeInput } from '../workflows/checkout-lifetime';
import type { PaymentRefundInput } from '../workflows/refund';
import type { CardChargeInput } from '../workflows/card-charge';
import type { TestClockAdvanceInput } from '../workflows/test-clock-advance';
import type { SubscriptionLifeInput } from '../workflows/subscription';
import type { InvoiceCollectionInput } from '../workflows/invoice-collection';
import { nextSubscriptionStep, type SubscriptionTimes } from '../domain/subscription-rules';
import { workflowIdFor } from './ids';
import type { Mode, WorkflowStart } from './port';

type WorkflowType = keyof typeof workflows;
const type = <T extends WorkflowType>(name: T): T => name;

/** A checkout's 30 minutes, startable from its row alone (and the attempt with the processor, if any). */
export function checkoutLifetimeStart(
  checkout: { id: string; expires_at: Date; account_id: string; mode: Mode },
  attemptInFlight?: number,
): WorkflowStart {
  const input: CheckoutLifetimeInput = { checkoutId: checkout.id, expiresAt: checkout.expires_at.toISOString(), ...(attemptInFlight === undefined ? {} : { attemptInFlight }) };
  return { workflowType: type('checkoutLifetime'), workflowId: workflowIdFor('checkout', checkout.id), args: [input], accountId: checkout.account_id, mode: checkout.mode };
}

type DeliveryRow = { id: string; account_id: string; mode: Mode };

/** A delivery's retry ladder, from its first attempt or resumed where it was. */
export function webhookDeliveryStart(delivery: DeliveryRow, resume?: { attemptsMade: number; waitMs: number }): WorkflowStart {
  return {
    workflowType: type('webhookDelivery'),
    workflowId: workflowIdFor('webhook-delivery', delivery.id),
    args: resume === undefined ? [delivery.id] : [delivery.id, resume],
    accountId: delivery.account_id,
    mode: delivery.mode,
  };
}

/** One attempt by hand (a ping, or a re-send): a run of its own per attempt number. */
export function webhookResendStart(delivery: DeliveryRow & { attempt_count: number }): WorkflowStart {
  return {
    workflowType: type('webhookResend'),
    workflowId: workflowIdFor('webhook-resend', `${delivery.id}/${delivery.attempt_count + 1}`),
    args: [delivery.id],
    accountId: delivery.account_id,
    mode: delivery.mode,
  };
}

/** A saved-card charge with the processor, asked about until the bank has answered. */
export function cardChargeStart(payment: { id: string; account_id: string; mode: Mode }): WorkflowStart {
  const input: CardChargeInput = { paymentId: payment.id };
  return { workflowType: type('cardCharge'), workflowId: workflowIdFor('charge', payment.id), args: [input], accountId: payment.account_id, mode: payment.mode };
}

/** The monthly card.expiring sweep: one for the service (every account's cards: no account attribute). */
export function cardExpiringStart(): WorkflowStart {
  return { workflowType: type('cardExpiringNotices'), workflowId: workflowIdFor('card-expiring', 'monthly'), args: [] };
}

/** The monthly limit's reset, one for the whole service: runs for ever, continuing as new each month. */
export function monthlyLimitResetStart(): WorkflowStart {
  // A run that failed or was terminated on Temporal is started again at the next boot.
  return { workflowType: type('monthlyLimitReset'), workflowId: workflowIdFor('limit-reset', 'monthly'), args: [], idReuse: 'allow-duplicate' };
}

/** A refund with the processor until its outcome, startable from the refund's row alone. */
export function refundStart(refund: { id: string; account_id: string; mode: Mode }): WorkflowStart {
  const input: PaymentRefundInput = { refundId: refund.id };
  return { workflowType: type('paymentRefund'), workflowId: workflowIdFor('refund', refund.id), args: [input], accountId: refund.account_id, mode: refund.mode };
}

/** One advance of a clock: a workflow of its own per target (a clock is advanced many times). */
export const testClockAdvanceWorkflowId = (clock: { id: string; advancing_to: Date }): string => workflowIdFor('test-clock', `${clock.id}/${clock.advancing_to.getTime()}`);

/** A test clock's advance, from the clock's row alone (where it is and where it goes are in it). */
export function testClockAdvanceStart(clock: { id: string; account_id: string; mode: Mode; advancing_to: Date }): WorkflowStart {
  const input: TestClockAdvanceInput = { clockId: clock.id };
  return { workflowType: type('testClockAdvance'), workflowId: testClockAdvanceWorkflowId(clock), args: [input], accountId: clock.account_id, mode: clock.mode };
}

/** A subscription's life, from its row alone: waiting for its next step. */
export function subscriptionStart(subscription: SubscriptionTimes & { id: string; account_id: string; mode: Mode; test_clock_id: string | null }): WorkflowStart {
  const input: SubscriptionLifeInput = { subscriptionId: subscription.id, clockId: subscription.test_clock_id, next: nextSubscriptionStep(subscription) };
  return { workflowType: type('subscriptionLife'), workflowId: workflowIdFor('subscription', subscription.id), args: [input], accountId: subscription.account_id, mode: subscription.mode };
}

type CollectedInvoice = {
  id: string;
  account_id: string;
  mode: Mode;
  collection_method: InvoiceCollectionInput['collectionMethod'];
  attempt_count: number;
  next_attempt_at: Date | null;
  finalized_at: Date | null;
  due_date: Date | null;
};

/** An invoice's collection, from its row and its customer's clock: from its next attempt, or its reminders. */
export function invoiceCollectionStart(invoice: CollectedInvoice, clockId: string | null): WorkflowStart {
  const input: InvoiceCollectionInput =
    invoice.collection_method === 'send_invoice'
      ? { invoiceId: invoice.id, clockId, collectionMethod: 'send_invoice', finalizedAt: invoice.finalized_at!.getTime(), dueDate: invoice.due_date!.getTime() }
      : { invoiceId: invoice.id, clockId, collectionMethod: 'charge_automatically', attempt: invoice.attempt_count + 1, attemptAt: invoice.next_attempt_at?.getTime() ?? null };
  return { workflowType: type('invoiceCollection'), workflowId: workflowIdFor('invoice', invoice.id), args: [input], accountId: invoice.account_id, mode: invoice.mode };
}

/** One attempt at an invoice's charge asked for by the merchant (POST /v1/invoices/{id}/pay), asked about until decided. */
export function invoicePaymentStart(invoice: { id: string; account_id: string; mode: Mode }, attempt: number, clockId: string | null): WorkflowStart {
  const input: InvoiceCollectionInput = { invoiceId: invoice.id, clockId, collectionMethod: 'charge_automatically', attempt, attemptAt: null, once: true };
  return { workflowType: type('invoiceCollection'), workflowId: workflowIdFor('invoice-payment', `${invoice.id}/${attempt}`), args: [input], accountId: invoice.account_id, mode: invoice.mode };
}
