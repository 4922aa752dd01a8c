// The live card processor: the Mastercard Gateway's REST API (version 100), which Sri Lankan
// banks' internet payment gateways run on (DESIGN.md "Live card processor"). The adapter keeps
// no state of its own: Kasi's ids are the gateway's ids (an order's id is the payment's
// reference, a transaction's id the charge's or refund's reference), so a retried step repeats
// the same request and the gateway, not the adapter, remembers what was done. Every outcome is
// read back from the gateway (RETRIEVE_ORDER or the transaction's own answer), never taken from
// the customer's browser; one it cannot tell yet (no answer, a 5xx, our timeout, UNKNOWN) is
// `pending`, and the service asks again.
import { createHash, timingSafeEqual } from 'node:crypto';
import { systemClock, type Clock } from '../../domain/clock';
import { ApiError } from '../../domain/errors';
import { CURRENCY, decimalAmount } from '../../domain/money';
import type { CardProcessor, ProcessorOutcome, RefundOutcome, RefundRequest, SavedCardCharge } from '../port';
import { nextBankWorkingDay } from './bank-days';
import { gatewayClient, type GatewayAnswer } from './client';
import { approved, gatewayCents, keptToken, orderIsFor, orderOutcome, paymentOf, paymentOutcome, reportedCard, splitToken, type GatewayOrder, type GatewayTransaction } from './outcomes';

export { API_VERSION } from './client';

/** The header the gateway sends the merchant's notification secret in. */
export const NOTIFICATION_SECRET_HEADER = 'x-notification-secret';

/**
 * The gateway's hosted payment page for a checkout session: the page checkout.js's
 * showPaymentPage() opens, reached by a plain redirect (Kasi's pages run no third-party script).
 */
export function hostedPaymentPageUrl(gatewayUrl: string, sessionId: string): string {
  return `${gatewayUrl.replace(/\/+$/, '')}/checkout/pay/${encodeURIComponent(sessionId)}?checkoutVersion=1.0.0`;
}

export interface MastercardGatewayConfig {
  /** The gateway's base URL, e.g. `https://<bank>.gateway.mastercard.com` or the simulator's. */
  gatewayUrl: string;
  merchantId: string;
  apiPassword: string;
  /** The secret the gateway sends with each notification; none: notifications are refused. */
  notificationSecret?: string | null;
  /** Where the gateway posts notifications about this merchant's orders; none: no notifications. */
  notificationUrl?: (() => string) | null;
  clock?: Clock;
  /** Each request's own timeout; past it the outcome is unknown (`pending`). */
  timeoutMs?: number;
}

export type MastercardGatewayProcessor = CardProcessor & {
  /**
   * A notification the gateway posted: its secret header compared in constant time; when it
   * matches, the order's id (Kasi's payment reference) to read again. Only a hint: the outcome
   * still comes from RETRIEVE_ORDER. Null when the secret does not match or the body names no order.
   */
  acceptNotification(headers: Record<string, string | string[] | undefined>, rawBody: string): Promise<{ reference: string } | null>;
};

const DEFAULT_TIMEOUT_MS = 15_000;
/** The least time on the hosted page the adapter asks for (a checkout about to expire still gets a minute). */
const MIN_TIMEOUT_S = 60;
/**
 * How long after its page stops taking the card the gateway may still record a payment begun on
 * it (the card's bank deciding, 3-D Secure coming back): the checkout is not closed before.
 */
const IN_FLIGHT_MS = 2 * 60 * 1000;
/** An agreement set up at the first payment, for charges at no fixed schedule (renewals, invoices). */
const AGREEMENT_TYPE = 'UNSCHEDULED';

const UNAVAILABLE_MESSAGE = 'The bank\'s card gateway did not answer; try again shortly.';

/**
 * Work on one order, one at a time: the gateway refuses a transaction on an order while another
 * is in progress (SERVER_BUSY), so this process never sends it two at once. In-process only:
 * two Kasi processes may still meet, and the loser's answer (SERVER_BUSY) reads as unavailable,
 * so its step is repeated.
 */
function perOrderQueue(): <T>(orderId: string, work: () => Promise<T>) => Promise<T> {
  const tails = new Map<string, Promise<unknown>>();
  return (orderId, work) => {
    const run = (tails.get(orderId) ?? Promise.resolve()).then(work, work);
    const tail = run.catch(() => undefined);
    tails.set(orderId, tail);
    void tail.then(() => {
      if (tails.get(orderId) === tail) tails.delete(orderId);
    });
    return run;
  };
}

function secretsEqual(sent: string, expected: string): boolean {
  // Digests first: timingSafeEqual needs equal lengths, and the length must not leak either.
  const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();
  return timingSafeEqual(digest(sent), digest(expected));
}

function headerValue(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : headers[key];
  return Array.isArray(value) ? value[0] : value;
}

export function createMastercardGatewayProcessor(config: MastercardGatewayConfig): MastercardGatewayProcessor {
  const request = gatewayClient({ ...config, timeoutMs: config.timeoutMs ?? DEFAULT_TIMEOUT_MS });
  const clock = config.clock ?? systemClock;
  const serialised = perOrderQueue();
  const orderPath = (orderId: string) => `/order/${encodeURIComponent(orderId)}`;
  const transactionPath = (orderId: string, transactionId: string) => `${orderPath(orderId)}/transaction/${encodeURIComponent(transactionId)}`;
  const notificationUrl = () => config.notificationUrl?.() ?? undefined;

  /** RETRIEVE_ORDER: the order, `unknown` when the gateway has none by that id, null when it did not answer. */
  const retrieveOrder = async (orderId: string): Promise<GatewayOrder | 'unknown' | null> => {
    const answer = await request('GET', orderPath(orderId));
    return answer.kind === 'done' ? (answer.body as GatewayOrder) : answer.kind === 'refused' ? 'unknown' : null;
  };

  /**
   * A transaction made with Kasi's id (PUT: repeating it repeats the same request). Refused but
   * there already (made by an earlier try whose answer was lost): that one, as the gateway keeps it.
   */
  const transact = async (orderId: string, transactionId: string, body: unknown): Promise<GatewayAnswer> => {
    const answer = await request('PUT', transactionPath(orderId, transactionId), body);
    if (answer.kind !== 'refused') return answer;
    const existing = await request('GET', transactionPath(orderId, transactionId));
    return existing.kind === 'done' ? existing : answer;
  };

  /** Voids the order's approved payment (a VOID transaction `<orderId>-void`); harmless when repeated. Unserialised: see voidPayment. */
  const voidNow = async (orderId: string) => {
    const order = await retrieveOrder(orderId);
    if (order === null) throw new Error(`the gateway did not answer about order ${orderId}`);
    if (order === 'unknown') return;
    const payment = paymentOf(order);
    if (order.status === 'CANCELLED' || payment === undefined || !approved(payment)) return;
    const answer = await transact(orderId, `${orderId}-void`, { apiOperation: 'VOID', transaction: { targetTransactionId: payment.transaction?.id } });
    if (answer.kind === 'unavailable') throw new Error(`the gateway did not void order ${orderId}: ${answer.reason}`);
  };
  const voidPayment = (orderId: string) => serialised(orderId, () => voidNow(orderId));

  /**
   * The outcome of an order's payment for `amountCents`. An approval Kasi cannot keep is voided
   * (by `release`) and reported declined, so the customer is not charged for a payment Kasi never
   * records: one of another amount or currency (an order Kasi did not ask for under this id), or of
   * a card it cannot show (a scheme it does not take), which would otherwise stay `processing` for ever.
   */
  const keptOutcome = async (order: GatewayOrder, outcome: ProcessorOutcome, amountCents: number, release: () => Promise<void>): Promise<ProcessorOutcome> => {
    const payment = paymentOf(order);
    if (order.status === 'CANCELLED' || payment === undefined || !approved(payment)) return outcome;
    const cents = gatewayCents(order.amount);
    const held = `${cents === null ? String(order.amount) : decimalAmount(cents)} ${String(order.currency)}`;
    const card = order.sourceOfFunds?.provided?.card ?? payment.sourceOfFunds?.provided?.card;
    const why = !orderIsFor(order, amountCents)
      ? `The bank's gateway took this payment as ${held}, not ${decimalAmount(amountCents)} ${CURRENCY}`
      : outcome.status !== 'approved'
        ? `The card (${card?.brand ?? card?.scheme ?? 'of no scheme the gateway named'}) is not one this service takes`
        : null;
    if (why === null) return outcome;
    await release();
    return { status: 'declined', code: 'card_declined', message: `${why}: the payment was voided and nothing was charged.`, card: outcome.status === 'approved' ? outcome.card : null };
  };
  const outcomeFor = (orderId: string, order: GatewayOrder, amountCents: number) => keptOutcome(order, orderOutcome(order), amountCents, () => voidPayment(orderId));

  const chargeOne = (charge: SavedCardCharge): Promise<ProcessorOutcome> =>
    serialised(charge.reference, async () => {
      const { gatewayToken, agreementId } = splitToken(charge.token);
      const answer = await transact(charge.reference, charge.reference, {
        apiOperation: 'PAY',
        order: { amount: decimalAmount(charge.amountCents), currency: CURRENCY, ...(notificationUrl() ? { notificationUrl: notificationUrl() } : {}) },
        sourceOfFunds: { type: 'CARD', token: gatewayToken },
        // Merchant-initiated, under the agreement the customer consented to at the first payment.
        agreement: { id: agreementId, type: AGREEMENT_TYPE },
        transaction: { source: 'MERCHANT' },
      });
      if (answer.kind === 'unavailable') return { status: 'pending' };
      if (answer.kind === 'refused') {
        return { status: 'declined', code: 'card_declined', message: `The bank's gateway refused the charge: ${answer.explanation}`, card: null };
      }
      const transaction = answer.body as GatewayTransaction;
      const outcome = paymentOutcome(transaction, reportedCard(transaction.sourceOfFunds?.provided?.card, charge.token));
      // The charge's order as its answer shows it (already in this order's queue: voided at once).
      return keptOutcome({ ...transaction.order, transaction: [transaction] }, outcome, charge.amountCents, () => voidNow(charge.reference));
    });

  /** A REFUND transaction's answer as the port tells it: approved refunds reach the card on the next bank working day. */
  const refundAnswer = (answer: GatewayAnswer): RefundOutcome => {
    if (answer.kind === 'unavailable') return { status: 'pending', expectedAt: null };
    if (answer.kind === 'refused') return { status: 'failed', message: `The bank's gateway refused the refund: ${answer.explanation}` };
    const transaction = answer.body as GatewayTransaction;
    const code = transaction.response?.gatewayCode;
    if (transaction.result === 'SUCCESS' && code === 'APPROVED') {
      const recorded = transaction.timeOfRecord ? new Date(transaction.timeOfRecord) : clock.now();
      const expectedAt = nextBankWorkingDay(Number.isNaN(recorded.getTime()) ? clock.now() : recorded);
      return expectedAt.getTime() > clock.now().getTime() ? { status: 'pending', expectedAt } : { status: 'succeeded' };
    }
    if (transaction.result === 'FAILURE') return { status: 'failed', message: `The card's bank refused the refund (${code ?? 'no code'}).` };
    return { status: 'pending', expectedAt: null };
  };

  /** A REFUND transaction with the refund's id: made once, however often asked for. */
  const refundOne = (refund: RefundRequest): Promise<RefundOutcome> =>
    serialised(refund.paymentReference, async () =>
      refundAnswer(
        await transact(refund.paymentReference, refund.reference, {
          apiOperation: 'REFUND',
          transaction: { amount: decimalAmount(refund.amountCents), currency: CURRENCY },
        }),
      ),
    );

  return {
    async openSession(session) {
      const answer = await request('POST', '/session', {
        apiOperation: 'INITIATE_CHECKOUT',
        interaction: {
          operation: 'PURCHASE',
          returnUrl: session.returnUrl,
          locale: session.locale,
          merchant: { name: session.merchantName },
          // The payer's time on the gateway's page ends when the checkout does.
          ...(session.expiresAt ? { timeout: Math.max(MIN_TIMEOUT_S, Math.ceil((session.expiresAt.getTime() - clock.now().getTime()) / 1000)) } : {}),
        },
        order: {
          id: session.reference,
          amount: decimalAmount(session.amountCents),
          currency: CURRENCY,
          ...(notificationUrl() ? { notificationUrl: notificationUrl() } : {}),
        },
        // The customer's consent to keep the card: this first payment sets up the agreement later
        // merchant-initiated charges are made under (its id is the payment's reference).
        ...(session.keepCard
          ? { agreement: { id: session.reference, type: AGREEMENT_TYPE }, sourceOfFunds: { provided: { card: { storedOnFile: 'TO_BE_STORED' } } } }
          : {}),
      });
      const sessionId = answer.kind === 'done' ? (answer.body.session as { id?: string } | undefined)?.id : undefined;
      if (sessionId === undefined) throw new ApiError('SERVICE_UNAVAILABLE', UNAVAILABLE_MESSAGE);
      return { redirectUrl: hostedPaymentPageUrl(config.gatewayUrl, sessionId) };
    },
    async outcome(reference, amountCents) {
      const order = await retrieveOrder(reference);
      return order === null || order === 'unknown' ? { status: 'pending' } : outcomeFor(reference, order, amountCents);
    },
    async cancel(reference, expiredAt, amountCents) {
      // The gateway has no call to close a checkout session: its page stops taking the card at
      // the session's timeout, which is the checkout's expiry or, for a session opened in the
      // checkout's last minute, up to MIN_TIMEOUT_S later. Until then (and a payment begun on it
      // has been recorded) an order with no payment yet is pending; after, canceled. One with a
      // payment is reported as it stands.
      const order = await retrieveOrder(reference);
      if (order === null) return { status: 'pending' };
      if (order !== 'unknown' && (paymentOf(order) !== undefined || order.status === 'AUTHENTICATION_UNSUCCESSFUL')) return outcomeFor(reference, order, amountCents);
      const pageClosedAt = expiredAt.getTime() + MIN_TIMEOUT_S * 1000 + IN_FLIGHT_MS;
      return clock.now().getTime() < pageClosedAt ? { status: 'pending' } : { status: 'canceled' };
    },
    voidApproval: voidPayment,
    voidCharge: voidPayment,
    async saveCard(reference) {
      const order = await retrieveOrder(reference);
      if (order === null) throw new ApiError('SERVICE_UNAVAILABLE', UNAVAILABLE_MESSAGE);
      if (order === 'unknown' || orderOutcome(order).status !== 'approved') return { status: 'refused', message: 'Only the card of an approved payment can be kept.' };
      const agreementId = order.agreement?.id;
      if (!agreementId) return { status: 'refused', message: 'The first payment set up no stored-credential agreement (the customer did not agree to keep the card).' };
      const answer = await request('POST', '/token', { sourceOfFunds: { type: 'CARD' }, referenceOrderId: reference });
      if (answer.kind === 'unavailable') throw new ApiError('SERVICE_UNAVAILABLE', UNAVAILABLE_MESSAGE);
      const token = answer.kind === 'done' ? (answer.body.token as string | undefined) : undefined;
      if (!token) return { status: 'refused', message: `The bank's gateway did not keep the card: ${answer.kind === 'refused' ? answer.explanation : 'no token'}` };
      const card = reportedCard(order.sourceOfFunds?.provided?.card, keptToken(token, agreementId));
      return card === null ? { status: 'refused', message: 'The bank\'s gateway did not say which card it kept.' } : { status: 'saved', card };
    },
    chargeSaved: (charges) => Promise.all(charges.map(chargeOne)),
    async deleteCard(token) {
      const answer = await request('DELETE', `/token/${encodeURIComponent(splitToken(token).gatewayToken)}`);
      // Refused: the gateway has no such token (deleted before): nothing left to forget.
      if (answer.kind === 'unavailable') throw new Error(`the gateway did not delete the token: ${answer.reason}`);
    },
    refund: (requests) => Promise.all(requests.map(refundOne)),
    refundOutcome(requests) {
      return Promise.all(
        requests.map(async (refund) => {
          const answer = await request('GET', transactionPath(refund.paymentReference, refund.reference));
          // Never made (the refund's request met no answer, a 5xx, before the gateway had it): made now.
          return answer.kind === 'refused' ? refundOne(refund) : refundAnswer(answer);
        }),
      );
    },
    async acceptNotification(headers, rawBody) {
      const secret = config.notificationSecret;
      const sent = headerValue(headers, NOTIFICATION_SECRET_HEADER);
      if (!secret || sent === undefined || !secretsEqual(sent, secret)) return null;
      try {
        const body = JSON.parse(rawBody) as { order?: { id?: unknown } };
        return typeof body.order?.id === 'string' ? { reference: body.order.id } : null;
      } catch {
        return null;
      }
    },
  };
}
