// A notification from the bank's gateway (POST /processor-notifications/{accountId}/{mode}): its
// secret checked by the account's gateway adapter (in constant time), then taken only as a hint.
// The payment's settle step reads the order from the gateway again, so the outcome recorded is
// still what RETRIEVE_ORDER says, once: a checkout's attempt is signalled to its lifetime
// workflow; a saved-card or invoice charge is asked about now (its workflow finds it decided); an
// approval of a payment already canceled is voided at the gateway.
import type { Mode } from '../../domain/api-keys';
import { findCheckout } from '../../db/checkouts';
import { centsFromDb } from '../../domain/money';
import { findPaymentOf, referencedAttempt, type PaymentRow } from '../../db/payments';
import type { CardProcessor } from '../../processor/port';
import { settleCharges } from '../cards/settle-charge';
import { signalAttempt } from '../checkouts/lifetime';
import type { ProcessorServiceDeps } from '../context';

export type NotificationResult = 'refused' | 'read_again' | 'nothing_to_do';

/**
 * A payment canceled (its checkout expired) that the gateway approved after all (its page took
 * the card late): Kasi will not record it, so it is voided at the gateway, not kept there while
 * the payment shows canceled. Read from the gateway, as every outcome is.
 */
async function releaseLateApproval(deps: ProcessorServiceDeps, gateway: CardProcessor, reference: string, payment: PaymentRow): Promise<NotificationResult> {
  const outcome = await gateway.outcome(reference, centsFromDb(payment.amount_cents));
  if (outcome.status !== 'approved') return 'nothing_to_do';
  await gateway.voidApproval(reference);
  deps.log.warn({ paymentId: payment.id, reference, accountId: payment.account_id, mode: payment.mode }, 'approval after the payment was canceled: voided at the gateway');
  return 'read_again';
}

export async function acceptGatewayNotification(
  deps: ProcessorServiceDeps,
  target: { accountId: string; mode: Mode },
  headers: Record<string, string | string[] | undefined>,
  rawBody: string,
): Promise<NotificationResult> {
  const gateway = await deps.processors.gateway(target.accountId, target.mode);
  const hint = gateway === null ? null : await gateway.acceptNotification(headers, rawBody);
  if (hint === null) return 'refused';
  const named = referencedAttempt(hint.reference);
  const payment = named === null ? undefined : await findPaymentOf(deps.db, target.accountId, target.mode, named.paymentId);
  if (payment === undefined || payment.attempts !== named!.attempt) return 'nothing_to_do';
  if (payment.status === 'canceled') return releaseLateApproval(deps, gateway!, hint.reference, payment);
  if (payment.status !== 'processing') return 'nothing_to_do';
  const checkout = payment.checkout_id === null ? undefined : await findCheckout(deps.db, payment.checkout_id);
  if (checkout !== undefined) await signalAttempt(deps.workflows, checkout, named!.attempt);
  else if (payment.saved_card_id !== null) await settleCharges(deps, [payment.id]);
  else return 'nothing_to_do';
  return 'read_again';
}
