// Saved-card charges over the real service in virtual time, on either engine (one spec file each):
// the charge's workflow asks the processor until the bank has answered and records the outcome
// with its event; every charge's history is replayed on Temporal's Core.
import assert from 'node:assert/strict';
import type { MerchantKeys } from '../../db/merchants';
import { createResumers } from '../../workers/resumers';
import { skipUnlessInstalled, startApiWithMerchant, type EngineKind, type TestApi } from '../support/api';
import { ahead, assertInstant, by } from '../support/instants';
import { charge, eventsAbout, payAndKeep } from './card-flow';

/** The sandbox's bank answers a charge this long after it is made; the workflow asks then. */
const BANK_ANSWERS_MS = 5_000;

export function describeCardCharges(engine: EngineKind): void {
  describe(`saved-card charges (${engine})`, function () {
    this.timeout(120_000);
    let api: TestApi;
    let keys: MerchantKeys;

    before(async function () {
      skipUnlessInstalled(this, engine);
      ({ api, keys } = await startApiWithMerchant({ engine }));
    });
    after(() => api?.close());

    const payment = async (id: string, key = keys.sk_test) => (await api.request(`/v1/payments/${id}`, { key })).body;
    const workflowStatus = async (id: string) => (await api.service.orchestration.port.describe(`charge/${id}`))?.status;

    it('01/39: processing, then succeeded when the workflow asks 5 s later: payment.succeeded with the full payment, its fee and net', async () => {
      const { card } = await payAndKeep(api, keys);
      const chargedAt = api.clock.now().getTime();
      const made = await charge(api, keys.sk_test, card.id, { amountCents: 150000, description: 'Tea, March' });
      assert.equal(made.body.status, 'processing');
      await api.clock.set(ahead(api.clock, chargedAt + BANK_ANSWERS_MS - 1));
      assert.equal((await payment(made.body.id)).status, 'processing');
      await api.clock.set(by(api.clock, chargedAt + BANK_ANSWERS_MS));
      await api.workflows.settle();
      const done = await payment(made.body.id);
      assert.equal(done.status, 'succeeded');
      // starter: 3.30 % of Rs. 1,500.00.
      assert.equal(done.feeCents, 4950);
      assert.equal(done.netCents, 145050);
      assert.deepEqual(done.card, { scheme: 'mastercard', last4: '0008' });
      assert.equal(done.failureMessage, null);
      assertInstant(api.clock, done.succeededAt, chargedAt + BANK_ANSWERS_MS, 'settled when the workflow asked');
      assert.deepEqual((await eventsAbout(api, 'payment.succeeded', done.id)).map((e) => e.data), [done]);
      assert.equal((await eventsAbout(api, 'payment.failed', done.id)).length, 0);
      assert.equal(await workflowStatus(done.id), 'COMPLETED');
      await api.workflows.replay(`charge/${done.id}`);
    });

    it('07/39: approved on the hosted page (the card kept), declined on every charge: failed with payment.failed', async () => {
      const { payment: paid, card } = await payAndKeep(api, keys, { expiry: '07/39', email: 'dunning@example.com' });
      assert.equal(paid.status, 'succeeded');
      assert.deepEqual(card.expiry, { month: 7, year: 2039 });
      for (const amountCents of [150000, 2000]) {
        const made = await charge(api, keys.sk_test, card.id, { amountCents, description: 'Renewal' });
        assert.equal(made.body.status, 'processing');
        await api.clock.advance(BANK_ANSWERS_MS + api.clock.toleranceMs);
        await api.workflows.settle();
        const done = await payment(made.body.id);
        assert.equal(done.status, 'failed');
        assert.equal(done.failureMessage, 'The card was declined by its bank.');
        assert.equal(done.feeCents, null);
        assert.deepEqual((await eventsAbout(api, 'payment.failed', done.id)).map((e) => e.data), [done]);
        assert.equal(await workflowStatus(done.id), 'COMPLETED');
        await api.workflows.replay(`charge/${done.id}`);
      }
    });

    it('a merchant suspended while the bank decides keeps no approval: released at the processor, the payment failed', async () => {
      const merchant = await api.merchant({ activate: true });
      const { card } = await payAndKeep(api, merchant.keys, { email: 'suspended@example.com' });
      const made = await charge(api, merchant.keys.sk_test, card.id);
      await api.knex('accounts').where({ id: merchant.accountId }).update({ status: 'suspended' });
      await api.clock.advance(BANK_ANSWERS_MS + api.clock.toleranceMs);
      await api.workflows.settle();
      const done = (await api.knex('payments').where({ id: made.body.id }).first());
      assert.equal(done.status, 'failed');
      assert.equal(done.failure_code, 'merchant_unavailable');
      assert.equal(done.failure_message, 'The merchant cannot take payments right now; the card was not charged.');
      assert.equal((await api.knex('sandbox_charges').where({ reference: `${made.body.id}.1` }).first()).status, 'canceled');
    });

    it('the boot-time resumer restarts the workflow of every charge still with the processor', async () => {
      const { card } = await payAndKeep(api, keys, { email: 'resumed@example.com' });
      const made = await charge(api, keys.sk_test, card.id);
      const starts = (await Promise.all(createResumers({ db: api.knex, clock: api.service.clock }).map((resume) => resume()))).flat();
      const mine = starts.filter((s) => s.workflowId === `charge/${made.body.id}`);
      assert.deepEqual(mine.map((s) => [s.workflowType, s.args]), [['cardCharge', [{ paymentId: made.body.id }]]]);
      await api.clock.advance(BANK_ANSWERS_MS + api.clock.toleranceMs);
      await api.workflows.settle();
      assert.equal((await payment(made.body.id)).status, 'succeeded');
      assert.ok(!(await Promise.all(createResumers({ db: api.knex, clock: api.service.clock }).map((resume) => resume()))).flat().some((s) => s.workflowId === `charge/${made.body.id}`));
    });
  });
}
