// A pause of a subscription's collection (`pauseCollection`), on test clocks over HTTP with the
// cents written out: each behaviour across two renewals (the invoices kept as drafts, marked
// uncollectible or voided, never charged, the subscription active) and its end by itself at
// `resumesAt` (the next renewal charged); a pause ended by null; every refusal; a pause racing a
// renewal; two resumes of a paused subscription at once bill once.
import assert from 'node:assert/strict';
import type { MerchantKeys } from '../../db/merchants';
import { ik, startApiWithMerchant, type TestApi } from '../support/api';
import { payAndKeep } from '../cards/card-flow';
import { billingFlow } from '../invoices/billing-flow';

describe('pauseCollection on test clocks: behaviours, automatic resume, refusals and races', function () {
  this.timeout(120_000);
  let api: TestApi;
  let keys: MerchantKeys;
  before(async () => ({ api, keys } = await startApiWithMerchant({ startAt: new Date('2027-01-15T04:30:00.000Z') })));
  after(() => api.close());
  const { post, read, advance, untilReady, customerWithCard, monthly, invoicesOf, chargesOf } = billingFlow(() => ({ api, keys }));
  const attempt = (path: string, body: unknown = {}) => api.request(path, { key: keys.sk_test, body, idempotencyKey: ik() });
  const start = '2027-01-15T04:30:00.000Z';

  /** An active monthly subscription of Rs. 1,500.00, its first invoice paid, on a clock of its own at `start`. */
  const running = async (email: string) => {
    const { clock, customer } = await customerWithCard(email, start, '01/39');
    const sub = await post('/v1/subscriptions', { customerId: customer.id, priceId: (await monthly()).id });
    await api.workflows.settle();
    assert.equal((await read(`/v1/subscriptions/${sub.id}`)).status, 'active');
    return { clock, customer, sub };
  };
  const invoiceEvents = async (invoiceId: string) => (await api.knex('events').whereRaw("data->>'id' = ?", [invoiceId]).orderBy('id').pluck('type')) as string[];

  const expected = {
    keep_as_draft: { status: 'draft', numbered: false, events: ['invoice.created'] },
    mark_uncollectible: { status: 'uncollectible', numbered: true, events: ['invoice.created', 'invoice.finalized', 'invoice.marked_uncollectible'] },
    void: { status: 'void', numbered: true, events: ['invoice.created', 'invoice.finalized', 'invoice.voided'] },
  } as const;

  for (const behavior of ['keep_as_draft', 'mark_uncollectible', 'void'] as const) {
    it(`${behavior}: the two renewals while paused are ${expected[behavior].status}, never charged, the subscription active; collection resumes by itself at resumesAt and the next renewal is charged`, async () => {
      const { clock, sub } = await running(`pause-${behavior}@example.com`);
      const resumesAt = '2027-03-20T04:30:00.000Z';
      const paused = await post(`/v1/subscriptions/${sub.id}`, { pauseCollection: { behavior, resumesAt } });
      assert.deepEqual([paused.status, paused.pauseCollection], ['active', { behavior, resumesAt }]);

      await advance(clock.id, '2027-03-20T04:29:59.000Z');
      const during = await read(`/v1/subscriptions/${sub.id}`);
      assert.deepEqual([during.status, during.pauseCollection, during.currentPeriodStart], ['active', { behavior, resumesAt }, '2027-03-15T04:30:00.000Z']);
      await advance(clock.id, '2027-04-16T00:00:00.000Z');
      const invoices = await invoicesOf(sub.id);
      assert.deepEqual(
        invoices.map((i: any) => [i.periodStart, i.status, i.number !== null, i.amountDueCents, i.amountPaidCents, i.attemptCount, i.nextAttemptAt]),
        [
          ['2027-01-15T04:30:00.000Z', 'paid', true, 150000, 150000, 1, null],
          ['2027-02-15T04:30:00.000Z', expected[behavior].status, expected[behavior].numbered, 150000, 0, 0, null],
          ['2027-03-15T04:30:00.000Z', expected[behavior].status, expected[behavior].numbered, 150000, 0, 0, null],
          ['2027-04-15T04:30:00.000Z', 'paid', true, 150000, 150000, 1, null],
        ],
      );
      for (const held of invoices.slice(1, 3)) {
        assert.deepEqual(await chargesOf(held.id), [], 'an invoice made while paused is never charged');
        assert.deepEqual(await invoiceEvents(held.id), expected[behavior].events);
      }
      assert.deepEqual((await chargesOf(invoices[3].id)).map((c: any) => [c.status, c.amount_cents]), [['succeeded', 150000]]);
      const after = await read(`/v1/subscriptions/${sub.id}`);
      assert.deepEqual([after.status, after.pauseCollection], ['active', null]);
      // The pause's end told, at resumesAt: the updated subscription without it.
      const [resumed] = await api.knex('events').where({ type: 'customer.subscription.updated' }).whereRaw("data->>'id' = ?", [sub.id]).whereRaw("data->>'pauseCollection' is null").whereRaw("data->>'currentPeriodStart' = ?", ['2027-03-15T04:30:00.000Z']).select('created_at');
      assert.equal(resumed.created_at.toISOString(), resumesAt);
      assert.deepEqual(await api.knex('emails').whereIn('object_id', invoices.map((i: any) => i.id)).where({ kind: 'payment_failed' }).pluck('kind'), [], 'no dunning');
    });
  }

  it('a pause without resumesAt lasts until the merchant ends it with null; its drafts stay drafts, the next renewal is charged', async () => {
    const { clock, sub } = await running('pause-null@example.com');
    assert.deepEqual((await post(`/v1/subscriptions/${sub.id}`, { pauseCollection: { behavior: 'keep_as_draft' } })).pauseCollection, { behavior: 'keep_as_draft', resumesAt: null });
    await advance(clock.id, '2027-02-20T00:00:00.000Z');
    const ended = await post(`/v1/subscriptions/${sub.id}`, { pauseCollection: null });
    assert.deepEqual([ended.status, ended.pauseCollection], ['active', null]);
    await advance(clock.id, '2027-03-16T00:00:00.000Z');
    const invoices = await invoicesOf(sub.id);
    assert.deepEqual(invoices.map((i: any) => [i.periodStart, i.status, i.amountPaidCents]), [
      ['2027-01-15T04:30:00.000Z', 'paid', 150000],
      ['2027-02-15T04:30:00.000Z', 'draft', 0],
      ['2027-03-15T04:30:00.000Z', 'paid', 150000],
    ]);
  });

  it('refuses: a pause unless the subscription renews (trialing, incomplete, paused: 409), resumesAt in the past or over two years ahead (400), a behaviour not in the list (400), an ended subscription (409)', async () => {
    const { clock, customer, sub } = await running('pause-rules@example.com');
    const refusal = async (id: string, body: unknown) => {
      const res = await attempt(`/v1/subscriptions/${id}`, body);
      return [res.status, res.body.reason ?? res.body.code];
    };
    const price = await monthly();
    const trialing = await post('/v1/subscriptions', { customerId: customer.id, priceId: price.id, trialDays: 5 });
    assert.deepEqual(await refusal(trialing.id, { pauseCollection: { behavior: 'void' } }), [409, 'subscription_change_refused']);
    const other = await post('/v1/customers', { email: 'pause-rules-2@example.com', testClockId: clock.id });
    const incomplete = await post('/v1/subscriptions', { customerId: other.id, priceId: price.id });
    assert.deepEqual(await refusal(incomplete.id, { pauseCollection: { behavior: 'void' } }), [409, 'subscription_change_refused']);
    const toPause = await post('/v1/subscriptions', { customerId: other.id, priceId: price.id, trialDays: 1, trialEndBehavior: 'pause' });
    await advance(clock.id, '2027-01-16T05:00:00.000Z');
    assert.equal((await read(`/v1/subscriptions/${toPause.id}`)).status, 'paused');
    assert.deepEqual(await refusal(toPause.id, { pauseCollection: { behavior: 'void' } }), [409, 'subscription_change_refused']);
    assert.deepEqual(await refusal(sub.id, { pauseCollection: { behavior: 'void', resumesAt: '2027-01-16T05:00:00.000Z' } }), [400, 'billing_date_invalid']);
    assert.deepEqual(await refusal(sub.id, { pauseCollection: { behavior: 'void', resumesAt: '2029-01-16T05:00:00.001Z' } }), [400, 'billing_date_invalid']);
    assert.deepEqual(await refusal(sub.id, { pauseCollection: { behavior: 'skip' } }), [400, 'VALIDATION_FAILED']);
    assert.deepEqual(await refusal(sub.id, { pauseCollection: { resumesAt: '2027-02-01T00:00:00.000Z' } }), [400, 'VALIDATION_FAILED']);
    assert.equal((await read(`/v1/subscriptions/${sub.id}`)).pauseCollection, null, 'a refusal changes nothing');
    await post(`/v1/subscriptions/${sub.id}/cancel`);
    assert.deepEqual(await refusal(sub.id, { pauseCollection: { behavior: 'void' } }), [409, 'subscription_ended']);
  });

  it('a pause racing a renewal: the renewal\'s invoice is either voided and not charged (the pause first) or charged once (the renewal first, the next one voided)', async () => {
    for (const [round, delayMs] of [0, 2, 10, 40].entries()) {
      const { clock, sub } = await running(`pause-race-${round}@example.com`);
      const [advanced, paused] = await Promise.all([
        post(`/v1/test_helpers/test_clocks/${clock.id}/advance`, { frozenTime: '2027-02-16T00:00:00.000Z' }),
        new Promise((resolve) => setTimeout(resolve, delayMs)).then(() => attempt(`/v1/subscriptions/${sub.id}`, { pauseCollection: { behavior: 'void' } })),
      ]);
      assert.equal(advanced.status, 'advancing');
      assert.equal(paused.status, 200, paused.text);
      await untilReady(clock.id);
      const [, february] = await invoicesOf(sub.id);
      const charges = (await chargesOf(february.id)).map((c: any) => [c.status, c.amount_cents]);
      if (february.status === 'void') assert.deepEqual(charges, []);
      else assert.deepEqual([february.status, charges], ['paid', [['succeeded', 150000]]]);
      await advance(clock.id, '2027-03-16T00:00:00.000Z');
      const invoices = await invoicesOf(sub.id);
      assert.deepEqual(invoices.slice(2).map((i: any) => [i.periodStart, i.status]), [['2027-03-15T04:30:00.000Z', 'void']]);
      assert.equal(invoices.length, 3, 'one invoice per period');
    }
  });

  it('two resumes of a paused subscription at once: one new period, billed and charged once, customer.subscription.resumed once; the other answers it as it is', async () => {
    const clock = await post('/v1/test_helpers/test_clocks', { frozenTime: start });
    const customer = await post('/v1/customers', { email: 'resume-race@example.com', testClockId: clock.id });
    const sub = await post('/v1/subscriptions', { customerId: customer.id, priceId: (await monthly()).id, trialDays: 2, trialEndBehavior: 'pause' });
    await advance(clock.id, '2027-01-18T04:30:00.000Z');
    assert.equal((await read(`/v1/subscriptions/${sub.id}`)).status, 'paused');
    await payAndKeep(api, keys, { email: 'resume-race@example.com', expiry: '01/39' });
    const answers = await Promise.all([attempt(`/v1/subscriptions/${sub.id}/resume`), attempt(`/v1/subscriptions/${sub.id}/resume`)]);
    assert.deepEqual(answers.map((a) => [a.status, a.body.status, a.body.currentPeriodStart]), [
      [200, 'active', '2027-01-18T04:30:00.000Z'],
      [200, 'active', '2027-01-18T04:30:00.000Z'],
    ]);
    await api.workflows.settle();
    const invoices = await invoicesOf(sub.id);
    assert.deepEqual(invoices.map((i: any) => [i.periodStart, i.status, i.amountPaidCents]), [
      ['2027-01-15T04:30:00.000Z', 'paid', 0],
      ['2027-01-18T04:30:00.000Z', 'paid', 150000],
    ]);
    assert.deepEqual((await chargesOf(invoices[1].id)).map((c: any) => [c.status, c.amount_cents]), [['succeeded', 150000]]);
    assert.equal(await api.knex('events').where({ type: 'customer.subscription.resumed' }).whereRaw("data->>'id' = ?", [sub.id]).count().first().then((r: any) => Number(r.count)), 1);
  });
});
