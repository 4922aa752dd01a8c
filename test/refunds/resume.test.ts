// Restart safety: a refund still pending when the process stops is taken to its outcome by the
// workflow the next boot starts from the database, once, however many run.
import assert from 'node:assert/strict';
import type { MerchantKeys } from '../../db/merchants';
import { createResumers } from '../../workers/resumers';
import { startApiWithMerchant, type TestApi } from '../support/api';
import { paidPayment, refund } from './refund-flow';

describe('refunds resumed on boot', () => {
  let api: TestApi;
  let keys: MerchantKeys;
  let accountId: string;

  before(async () => ({ api, keys, accountId } = await startApiWithMerchant()));
  after(() => api?.close());

  it('the boot-time resumer starts the workflow of every pending refund, and of no other', async () => {
    const settled = await paidPayment(api, keys, 350_000);
    const done = (await refund(api, keys.sk_test, { paymentId: settled.id, amountCents: 1000 })).body;
    await api.clock.advance(5_000);
    assert.equal((await api.request(`/v1/refunds/${done.id}`, { key: keys.sk_test })).body.status, 'succeeded');
    const unsettled = await paidPayment(api, keys, 350_000);
    const pending = (await refund(api, keys.sk_test, { paymentId: unsettled.id, amountCents: 2000 })).body;
    await api.workflows.settle();
    const starts = (await Promise.all(createResumers({ db: api.knex, clock: api.clock }).map((resume) => resume())))
      .flat()
      .filter((s) => [done.id, pending.id].includes((s.args[0] as { refundId?: string } | undefined)?.refundId as string));
    assert.deepEqual(starts, [{ workflowType: 'paymentRefund', workflowId: `refund/${pending.id}`, args: [{ refundId: pending.id }], accountId, mode: 'test' }]);
  });

  it('a pending refund across a restart: the next boot\'s workflow asks for it again and records refund.succeeded once', async () => {
    const payment = await paidPayment(api, keys, 350_000);
    const approvedAt = api.clock.now().getTime();
    const made = (await refund(api, keys.sk_test, { paymentId: payment.id, amountCents: 100_000 })).body;
    await api.workflows.settle();
    // Another process boots on the same database (this one's workflow sleeps on, as a dead one's would).
    const restarted = await api.sibling();
    try {
      assert.equal(restarted.engine.describe(`refund/${made.id}`)?.status, 'RUNNING', 'started by the boot-time resumer');
      await restarted.clock.advance(approvedAt + 5_000 - restarted.clock.now().getTime());
      const done = (await restarted.request(`/v1/refunds/${made.id}`, { key: keys.sk_test })).body;
      assert.equal(done.status, 'succeeded');
      assert.equal(done.succeededAt, new Date(approvedAt + 5_000).toISOString());
      assert.equal(await restarted.engine.result(`refund/${made.id}`), 'succeeded');
      await restarted.workflows.replay(`refund/${made.id}`);
      // The first process's workflow wakes too: the refund is decided, nothing is recorded again.
      await api.clock.advance(5_000);
      assert.equal(await api.engine.result(`refund/${made.id}`), 'succeeded');
      const events = (await api.knex('events').where({ type: 'refund.succeeded' })).filter((e: any) => e.data.id === made.id);
      assert.deepEqual(events.map((e: any) => e.data), [done]);
      assert.equal((await api.knex('sandbox_refunds').where({ reference: made.id })).length, 1, 'one refund at the processor');
    } finally {
      await restarted.close();
    }
  });
});
