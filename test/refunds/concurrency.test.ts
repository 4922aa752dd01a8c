// Refunds on one payment never sum past the amount paid, however many arrive at once: the check
// and the write are one statement in PostgreSQL (db/refunds.ts), so concurrent requests each see
// what the others left.
import assert from 'node:assert/strict';
import type { MerchantKeys } from '../../db/merchants';
import { startApiWithMerchant, ik, type TestApi } from '../support/api';
import { paidPayment, refund } from './refund-flow';

const sum = (amounts: number[]) => amounts.reduce((a, b) => a + b, 0);

describe('concurrent refunds on one payment', () => {
  let api: TestApi;
  let keys: MerchantKeys;

  before(async () => ({ api, keys } = await startApiWithMerchant()));
  after(() => api?.close());

  /** Sends every body at once, each with its own Idempotency-Key; the answers in the same order. */
  const all = (paymentId: string, amounts: (number | undefined)[]) =>
    Promise.all(amounts.map((amountCents) => refund(api, keys.sk_test, amountCents === undefined ? { paymentId } : { paymentId, amountCents }, ik('concurrent'))));

  const recorded = async (paymentId: string) => (await api.knex('refunds').where({ payment_id: paymentId }).orderBy('id')).map((r: { amount_cents: number }) => r.amount_cents);

  it('50 requests asking 217,825 cents of a 100,000-cent payment: the accepted ones fit, every refused one did not, and the payment adds up', async () => {
    const payment = await paidPayment(api, keys, 100_000);
    // 1000, 1137, 1274, ... 7713 cents: 217,825 in all, more than twice the payment.
    const amounts = Array.from({ length: 50 }, (_, i) => 1000 + 137 * i);
    assert.equal(sum(amounts), 217_825);
    const answers = await all(payment.id, amounts);
    const accepted = amounts.filter((_, i) => answers[i]!.status === 201);
    const refused = amounts.filter((_, i) => answers[i]!.status !== 201);
    for (const [i, res] of answers.entries()) {
      if (res.status === 201) assert.equal(res.body.amountCents, amounts[i]);
      else assert.deepEqual([res.status, res.body.reason], [400, 'amount'], res.text);
    }
    const left = 100_000 - sum(accepted);
    assert.ok(left >= 0, `accepted ${sum(accepted)} cents of a 100,000-cent payment`);
    assert.ok(refused.length > 0);
    // Each refused amount was more than what was left when it was asked, and what is left only shrank.
    for (const amount of refused) assert.ok(amount > left, `${amount} cents were refused though ${left} are left`);
    // What was created is exactly what was accepted, and the payment counts exactly that.
    assert.deepEqual((await recorded(payment.id)).sort((a, b) => a - b), [...accepted].sort((a, b) => a - b));
    const after = (await api.request(`/v1/payments/${payment.id}`, { key: keys.sk_test })).body;
    assert.equal(after.refundedCents, sum(accepted));
    assert.equal(after.status, left === 0 ? 'refunded' : 'partially_refunded');
  });

  it('50 requests, half of them for everything left: the payment is refunded exactly once over, never more', async () => {
    const payment = await paidPayment(api, keys, 100_000);
    const amounts = Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? undefined : 2000 + 100 * i));
    const answers = await all(payment.id, amounts);
    const made = answers.filter((res) => res.status === 201).map((res) => res.body.amountCents as number);
    for (const res of answers.filter((r) => r.status !== 201)) {
      // Refused as more than was left, or because the payment was fully refunded by then.
      const why = [res.status, res.body.reason];
      assert.ok(why.join() === '400,amount' || why.join() === '409,not_refundable', res.text);
    }
    // Everything left was asked for 25 times: the payment ends fully refunded, not a cent past it.
    assert.equal(sum(made), 100_000);
    assert.deepEqual((await recorded(payment.id)).sort((a, b) => a - b), [...made].sort((a, b) => a - b));
    const after = (await api.request(`/v1/payments/${payment.id}`, { key: keys.sk_test })).body;
    assert.deepEqual([after.status, after.refundedCents], ['refunded', 100_000]);
  });
});
