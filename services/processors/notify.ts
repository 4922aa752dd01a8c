// A notification from the bank's gateway (POST /processor-notifications/{accountId}/{mode}): its
// secret checked by the account's gateway adapter (in constant time), then taken only as a hint.
// The payment's settle step reads the order from the gateway again, so the outcome recorded is
// still what RETRIEVE_ORDER says, once: a checkout's attempt is signalled to its lifetime
// workflow; a saved-card or invoice charge is asked about now (its workflow finds it decided).
import type { Mode } from '../../domain/api-keys';
import { findCheckout } from '../../db/checkouts';
import { findPaymentOf, referencedAttempt } from '../../db/payments';
import { settleCharges } from '../cards/settle-charge';
import { signalAttempt } from '../checkouts/lifetime';
import type { ProcessorServiceDeps } from '../context';

export type NotificationResult = 'refused' | 'read_again' | 'nothing_to_do';

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
  if (payment === undefined || payment.status !== 'processing' || payment.attempts !== named!.attempt) return 'nothing_to_do';
  const checkout = payment.checkout_id === null ? undefined : await findCheckout(deps.db, payment.checkout_id);
  if (checkout !== undefined) await signalAttempt(deps.workflows, checkout, named!.attempt);
  else if (payment.saved_card_id !== null) await settleCharges(deps, [payment.id]);
  else return 'nothing_to_do';
  return 'read_again';
}
