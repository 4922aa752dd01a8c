// Charge a saved card without the customer present (POST /v1/cards/{id}/charge). Three steps, so
// that the processor is never called while a transaction holds a connection, and never twice for
// one payment:
// 1. under the account's advisory lock (the one Pay takes), one statement checks the month's room
//    and that the card is still active, writes the payment `processing` and records the
//    Idempotency-Key with that answer (db/saved-cards.ts openCharge: the lock and the statement in
//    one round trip). From its commit on, a retry replays it and the boot-time resumer finds the
//    charge. Then the limit's notices the month's new use calls for (a refusal's too);
// 2. the processor is asked for the charge by the payment's stable reference;
// 3. a charge it decides at once (refused: the card has expired) is recorded with its event and
//    the key's answer updated before the request answers; otherwise the charge's workflow asks the
//    processor until the bank has answered.
import { randomUUID } from 'node:crypto';
import { newId } from '../../crypto/ids';
import { ApiError } from '../../domain/errors';
import { limitNoticesDue, monthlyLimitReached, mostUsedForPayment, planOf } from '../../domain/plans';
import { completeKey, type KeyToRecord } from '../../db/idempotency-keys';
import { noteLimitRefusal, noteLimitUsage } from '../account/note-limit-usage';
import { monthlyRoomLockKey } from '../../db/monthly-usage';
import { findPayment, type PaymentRow } from '../../db/payments';
import { newChargeRow, openCharge, type SavedCardRow } from '../../db/saved-cards';
import { cardChargeStart } from '../../orchestration/starts';
import type { Processors } from '../../processor';
import type { ProcessorOutcome } from '../../processor/port';
import { paymentView } from '../../views/payment';
import type { AccountScope, ServiceContext } from '../context';
import { recordPaymentOutcome } from '../checkouts/settle-attempt';
import { chargeRequest, decidedCharge } from './settle-charge';

export interface ChargeInput {
  amountCents: number;
  description: string;
  reference?: string;
}

const notReusable = (why: string) => new ApiError('card_not_reusable', why);

export async function chargeSavedCard(
  ctx: ServiceContext,
  processors: Processors,
  scope: AccountScope,
  card: SavedCardRow,
  input: ChargeInput,
  key: KeyToRecord,
): Promise<{ payment: PaymentRow; json: string }> {
  const deleted = () => notReusable('This card was deleted: it cannot be charged again.');
  if (card.retired_at !== null) throw deleted();
  if (card.processor_token === null) throw notReusable('The processor holds nothing to charge this card with.');
  const processor = await processors.required(scope.account.id, scope.mode);
  const { account, mode } = scope;
  const now = ctx.clock.now();
  const plan = planOf(ctx.config.plans, account.plan);
  const payment = newChargeRow({ card, id: newId('payment', now.getTime()), amountCents: input.amountCents, description: input.description, reference: input.reference ?? null, now });
  const lockToken = randomUUID();
  const json = JSON.stringify(paymentView(payment));
  // The lock Pay takes (services/checkouts/pay.ts): one payment at a time per account and mode
  // enters the month's count, so two cannot both squeeze under the limit.
  const opened = await openCharge(ctx.db, monthlyRoomLockKey(account.id, mode), payment, card, mostUsedForPayment(plan, input.amountCents), { key, answer: { status: 201, json }, lockToken });
  if (!opened.opened && !opened.cardActive) throw deleted();
  if (!opened.opened) {
    await noteLimitRefusal(ctx, scope);
    throw monthlyLimitReached(account.plan, plan, opened.usedCents);
  }
  // The limit's notices the month's new use calls for, in a transaction of their own, opened only
  // when one can be due.
  const usedCents = opened.usedCents + input.amountCents;
  if (limitNoticesDue(plan, usedCents).length > 0) await ctx.db.transaction((trx) => noteLimitUsage({ ...ctx, db: trx }, scope, usedCents));
  // A processor that cannot be reached now is asked again by the charge's workflow, with the same request.
  const answer: ProcessorOutcome = await processor.chargeSaved([chargeRequest(payment, card, account.name)]).then(([one]) => one!, () => ({ status: 'pending' }));
  const outcome = await decidedCharge(account, payment, card, processor, answer);
  if (outcome === null) {
    ctx.afterCommit(async () => {
      await ctx.workflows.start(cardChargeStart(payment));
    });
    return { payment, json };
  }
  return ctx.db.transaction(async (trx) => {
    const decided = (await recordPaymentOutcome({ ...ctx, db: trx }, payment, outcome, payment.attempts, { plan: account.plan, name: account.name, locale: card.consent_locale })) ?? (await findPayment(trx, payment.id));
    const decidedJson = JSON.stringify(paymentView(decided));
    await completeKey(trx, key.scope, lockToken, 201, decidedJson);
    return { payment: decided, json: decidedJson };
  });
}
