// Refunds taken together (services/refunds/settle.ts submitRefunds and settleRefunds): the refunds
// asked about at one moment read in one statement, asked of the sandbox in one call and their
// outcomes recorded in one round trip, each answered in order. Batching is where one refund's
// outcome can land on another's answer and where a refund asked twice could be refunded or
// announced twice, so each answer, processor refund and event is checked per refund. The refunds
// are written pending as POST /v1/refunds writes them (db/refunds.ts openRefund, with its key)
// but without their workflows, so this file is their only caller.
import assert from 'node:assert/strict';
import { newId } from '../../crypto/ids';
import type { MerchantKeys } from '../../db/merchants';
import { newRefundRow, openRefund } from '../../db/refunds';
import { REFUND_FAILURES } from '../../processor/sandbox/refunds';
import { settleRefunds, submitRefunds } from '../../services/refunds/settle';
import { serviceDeps } from '../cards/card-flow';
import { startApiWithMerchant, type TestApi } from '../support/api';
import { by } from '../support/instants';
import { APPROVED, paidPayment, REFUNDS_FAIL } from './refund-flow';

const SETTLEMENT_MS = 5_000;

describe('refunds taken together (submitRefunds, settleRefunds)', function () {
  this.timeout(60_000);
  let api: TestApi;
  let keys: MerchantKeys;

  before(async () => {
    ({ api, keys } = await startApiWithMerchant());
  });
  after(() => api?.close());

  /** A pending refund of `amountCents` on the payment, written as the API writes one. */
  const pendingRefund = async (payment: { id: string }, amountCents: number) => {
    const { account_id: accountId } = await api.knex('payments').where({ id: payment.id }).first('account_id');
    const refund = newRefundRow({ id: newId('refund'), account_id: accountId, mode: 'test', payment_id: payment.id, reason: null, created_at: api.clock.now(), amount_cents: amountCents });
    const key = { scope: { accountId, mode: 'test' as const, key: newId('event') }, fingerprint: 'batch-test', now: api.clock.now() };
    const { opened } = await openRefund(api.knex, refund, { key, answer: { status: 201, json: '{}' } });
    assert.ok(opened);
    return refund.id;
  };
  const processorRefundsOf = async (refundId: string) => (await api.knex('sandbox_refunds').where({ reference: refundId }).select('status')).map((r: { status: string }) => r.status);
  const eventsOf = async (refundId: string) => (await api.knex('events').where('type', 'like', 'refund.%').whereRaw("data->>'id' = ?", [refundId]).orderBy('id')).map((e: any) => [e.type, e.data.status]);
  const paymentOf = async (paymentId: string) => (await api.request(`/v1/payments/${paymentId}`, { key: keys.sk_test })).body;
  const statusOf = async (refundId: string) => (await api.knex('refunds').where({ id: refundId }).first('status')).status;

  it('each refund answered in order, one processor refund and one event each, however often asked; the unsettled one pending until its settlement', async () => {
    const settled = await paidPayment(api, keys, 350_000, APPROVED);
    const returned = await paidPayment(api, keys, 350_000, REFUNDS_FAIL);
    await api.clock.set(by(api.clock, api.clock.now().getTime() + SETTLEMENT_MS));
    const unsettled = await paidPayment(api, keys, 350_000, APPROVED);
    const settlement = (await api.knex('sandbox_sessions').where({ reference: `${unsettled.id}.1` }).first()).updated_at.getTime() + SETTLEMENT_MS;

    const before = await pendingRefund(settled, 50_000);
    assert.deepEqual(await submitRefunds(serviceDeps(api), [before]), [{ status: 'succeeded' }]);
    const succeeds = await pendingRefund(settled, 100_000);
    const fails = await pendingRefund(returned, 120_000);
    const waits = await pendingRefund(unsettled, 200_000);
    const asked = [fails, succeeds, waits, before, succeeds];
    const expected = [{ status: 'failed' }, { status: 'succeeded' }, { status: 'pending', askAt: new Date(settlement).toISOString() }, { status: 'succeeded' }, { status: 'succeeded' }];
    assert.deepEqual(await submitRefunds(serviceDeps(api), asked), expected);
    assert.deepEqual(await submitRefunds(serviceDeps(api), asked), expected, 'a retried call changes nothing');

    assert.deepEqual(await Promise.all([succeeds, fails, waits, before].map(statusOf)), ['succeeded', 'failed', 'pending', 'succeeded']);
    assert.deepEqual(await Promise.all([succeeds, fails, waits, before].map(processorRefundsOf)), [['succeeded'], ['failed'], ['succeeded'], ['succeeded']]);
    assert.deepEqual(await Promise.all([succeeds, fails, waits, before].map(eventsOf)), [[['refund.succeeded', 'succeeded']], [['refund.failed', 'failed']], [], [['refund.succeeded', 'succeeded']]]);
    const failed = await api.knex('refunds').where({ id: fails }).first('failure_message');
    assert.equal(failed.failure_message, REFUND_FAILURES.accountClosed);
    // Only the failed refund's amount is given back, to its own payment.
    assert.deepEqual([(await paymentOf(settled.id)).refundedCents, (await paymentOf(returned.id)).refundedCents, (await paymentOf(unsettled.id)).refundedCents], [150_000, 0, 200_000]);
    assert.equal((await paymentOf(returned.id)).status, 'succeeded');

    // Asked where they stand once the last payment has settled: only that one changes.
    await api.clock.set(by(api.clock, settlement));
    assert.deepEqual(await settleRefunds(serviceDeps(api), [waits, fails, succeeds]), [{ status: 'succeeded' }, { status: 'failed' }, { status: 'succeeded' }]);
    assert.deepEqual(await eventsOf(waits), [['refund.succeeded', 'succeeded']]);
    assert.deepEqual(await Promise.all([succeeds, fails].map(eventsOf)), [[['refund.succeeded', 'succeeded']], [['refund.failed', 'failed']]]);
  });
});
