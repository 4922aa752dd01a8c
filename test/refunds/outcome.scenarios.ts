// Refunds through the processor to their outcome, over the real service in virtual time, on
// either engine (one spec file each): the sandbox refunds a payment only once it has settled
// (KASI_SANDBOX_SETTLEMENT_MS after its approval, 5 s by default), then the refund succeeds, or,
// for a payment made with the 09/39 test card, fails. Every refund's history is replayed on
// Temporal's Core.
import assert from 'node:assert/strict';
import type { MerchantKeys } from '../../db/merchants';
import { REFUND_FAILURES } from '../../processor/sandbox/refunds';
import { skipUnlessInstalled, startApiWithMerchant, type EngineKind, type TestApi } from '../support/api';
import { ahead, assertInstant, by } from '../support/instants';
import { paidPayment, refund, REFUNDS_FAIL } from './refund-flow';
import { charge, payAndKeep } from '../cards/card-flow';

const SETTLEMENT_MS = 5_000;

export function describeRefundOutcomes(engine: EngineKind): void {
  describe(`refund outcomes (${engine})`, () => {
    let api: TestApi;
    let keys: MerchantKeys;

    before(async function () {
      skipUnlessInstalled(this, engine);
      ({ api, keys } = await startApiWithMerchant({ engine }));
    });
    after(() => api?.close());

    const getRefund = async (id: string) => (await api.request(`/v1/refunds/${id}`, { key: keys.sk_test })).body;
    const getPayment = async (id: string) => (await api.request(`/v1/payments/${id}`, { key: keys.sk_test })).body;
    const eventsOf = async (refundIds: string[]) =>
      (await api.knex('events').where('type', 'like', 'refund.%').orderBy('id')).filter((e: any) => refundIds.includes(e.data.id));
    /** When the sandbox approved the payment's card: it settles SETTLEMENT_MS later. */
    const settlesAt = async (paymentId: string) =>
      (await api.knex('sandbox_sessions').where({ reference: `${paymentId}.1` }).first()).updated_at.getTime() + SETTLEMENT_MS;

    it('part, then the rest: pending until the payment settles, then succeeded with refund.succeeded; partially_refunded, then refunded', async () => {
      const payment = await paidPayment(api, keys, 350_000);
      const settlement = await settlesAt(payment.id);
      const first = (await refund(api, keys.sk_test, { paymentId: payment.id, amountCents: 120_000, reason: 'One pot returned' })).body;
      assert.equal(first.status, 'pending');
      assert.deepEqual([(await getPayment(payment.id)).status, (await getPayment(payment.id)).refundedCents], ['partially_refunded', 120_000]);
      await api.clock.set(ahead(api.clock, settlement - 1));
      assert.equal((await getRefund(first.id)).status, 'pending', 'the processor refunds only settled payments');
      await api.clock.set(by(api.clock, settlement));
      const done = await getRefund(first.id);
      assert.deepEqual({ ...done, succeededAt: null }, { ...first, status: 'succeeded' });
      assertInstant(api.clock, done.succeededAt, settlement, 'refunded as the payment settled');
      // The rest, once settled: decided as soon as it is asked for.
      const rest = (await refund(api, keys.sk_test, { paymentId: payment.id })).body;
      assert.deepEqual([rest.status, rest.amountCents], ['pending', 230_000]);
      const refunded = await getPayment(payment.id);
      assert.deepEqual([refunded.status, refunded.refundedCents], ['refunded', 350_000]);
      await api.workflows.settle();
      const restDone = await getRefund(rest.id);
      assert.equal(restDone.status, 'succeeded');
      assertInstant(api.clock, restDone.succeededAt, rest.createdAt, 'decided at once');
      // Events in order, each carrying the Refund as it was then.
      const events = await eventsOf([first.id, rest.id]);
      assert.deepEqual(events.map((e: any) => [e.type, e.data.id]), [['refund.succeeded', first.id], ['refund.succeeded', rest.id]]);
      assert.deepEqual(events.map((e: any) => e.data), [done, restDone]);
      assertInstant(api.clock, events[0].created_at, settlement);
      // A succeeded refund gives nothing back: the payment stays refunded.
      assert.deepEqual([(await getPayment(payment.id)).status, (await getPayment(payment.id)).refundedCents], ['refunded', 350_000]);
      for (const id of [first.id, rest.id]) await api.workflows.replay(`refund/${id}`);
    });

    it('a refund the bank returns (09/39): failed with failureMessage and refund.failed, its amount refundable again', async () => {
      const payment = await paidPayment(api, keys, 350_000, REFUNDS_FAIL);
      const settlement = await settlesAt(payment.id);
      const made = [
        (await refund(api, keys.sk_test, { paymentId: payment.id, amountCents: 100_000 })).body,
        (await refund(api, keys.sk_test, { paymentId: payment.id, amountCents: 250_000 })).body,
      ];
      assert.deepEqual([(await getPayment(payment.id)).status, (await getPayment(payment.id)).refundedCents], ['refunded', 350_000]);
      await api.clock.set(ahead(api.clock, settlement - 1));
      assert.deepEqual([(await getRefund(made[0].id)).status, (await getRefund(made[1].id)).status], ['pending', 'pending']);
      await api.clock.set(by(api.clock, settlement));
      const failed = [await getRefund(made[0].id), await getRefund(made[1].id)];
      for (const [i, r] of failed.entries()) {
        assert.deepEqual(r, { ...made[i], status: 'failed', failureMessage: REFUND_FAILURES.accountClosed });
      }
      const events = await eventsOf(made.map((r) => r.id));
      assert.deepEqual(events.map((e: any) => e.type), ['refund.failed', 'refund.failed']);
      assert.deepEqual(events.map((e: any) => e.data).sort((a: any, b: any) => a.amountCents - b.amountCents), failed);
      // Both amounts are given back: the payment is as it was paid, and refundable again.
      const restored = await getPayment(payment.id);
      assert.deepEqual([restored.status, restored.refundedCents], ['succeeded', 0]);
      const again = (await refund(api, keys.sk_test, { paymentId: payment.id })).body;
      assert.deepEqual([again.status, again.amountCents], ['pending', 350_000]);
      await api.workflows.settle();
      assert.equal((await getRefund(again.id)).status, 'failed');
      for (const r of [...made, again]) await api.workflows.replay(`refund/${r.id}`);
    });

    it('a saved card charged from the API: part refunded, then the rest, once the charge has settled', async () => {
      const { card } = await payAndKeep(api, keys);
      const made = await charge(api, keys.sk_test, card.id, { amountCents: 150_000, description: 'Tea, March' });
      assert.equal(made.status, 201, made.text);
      // The sandbox's bank answers the charge 5 s later, and the payment settles 5 s after that.
      const approvedAt = (await api.knex('sandbox_charges').where({ reference: `${made.body.id}.1` }).first()).settles_at.getTime();
      await api.clock.set(by(api.clock, approvedAt));
      assert.equal((await getPayment(made.body.id)).status, 'succeeded');
      const part = (await refund(api, keys.sk_test, { paymentId: made.body.id, amountCents: 50_000 })).body;
      assert.deepEqual([(await getPayment(made.body.id)).status, (await getPayment(made.body.id)).refundedCents], ['partially_refunded', 50_000]);
      await api.clock.set(ahead(api.clock, approvedAt + SETTLEMENT_MS - 1));
      assert.equal((await getRefund(part.id)).status, 'pending');
      await api.clock.set(by(api.clock, approvedAt + SETTLEMENT_MS));
      assert.equal((await getRefund(part.id)).status, 'succeeded');
      const rest = (await refund(api, keys.sk_test, { paymentId: made.body.id })).body;
      assert.equal(rest.amountCents, 100_000);
      await api.workflows.settle();
      assert.equal((await getRefund(rest.id)).status, 'succeeded');
      assert.deepEqual([(await getPayment(made.body.id)).status, (await getPayment(made.body.id)).refundedCents], ['refunded', 150_000]);
      assert.deepEqual((await eventsOf([part.id, rest.id])).map((e: any) => [e.type, e.data.id]), [['refund.succeeded', part.id], ['refund.succeeded', rest.id]]);
    });

    it('a failed refund gives back only its own amount: the payment stays partially_refunded by the others', async () => {
      const payment = await paidPayment(api, keys, 350_000, REFUNDS_FAIL);
      // An earlier refund of 50,000 cents that succeeded (this card's never do: written as one would be).
      await api.knex('payments').where({ id: payment.id }).update({ refunded_cents: 50_000, status: 'partially_refunded' });
      const made = (await refund(api, keys.sk_test, { paymentId: payment.id, amountCents: 300_000 })).body;
      assert.deepEqual([(await getPayment(payment.id)).status, (await getPayment(payment.id)).refundedCents], ['refunded', 350_000]);
      await api.clock.set(by(api.clock, await settlesAt(payment.id)));
      assert.equal((await getRefund(made.id)).status, 'failed');
      assert.deepEqual([(await getPayment(payment.id)).status, (await getPayment(payment.id)).refundedCents], ['partially_refunded', 50_000]);
    });
  });
}
