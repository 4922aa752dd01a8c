// Invoices collected on test clocks, whole cycles with the cents and times written out: a
// subscription charged to the card on file (incomplete, then active, then renewed and paid every
// month, one processor charge per invoice), the dunning ladder on the 07/39 card (declined on
// renewal, retried on days 1, 3, 7 and 14, past_due, then unpaid), a recovery on the hosted
// invoice page on day 4, a cancellation in the middle of dunning, a send_invoice invoice with its
// reminder and overdue notice, and an incomplete subscription expiring at 23 hours, not 22:59.
import assert from 'node:assert/strict';
import type { MerchantKeys } from '../../db/merchants';
import { ik, startApiWithMerchant, type TestApi } from '../support/api';
import { DETAILS, CARD_NUMBER } from '../cards/card-flow';
import { payAtProcessor, get } from '../checkouts/hosted-flow';
import { payerCheckout } from '../payment-links/link-flow';
import { at, billingFlow, DAY } from './billing-flow';

describe('invoice collection on test clocks', function () {
  this.timeout(120_000);
  let api: TestApi;
  let keys: MerchantKeys;

  before(async () => ({ api, keys } = await startApiWithMerchant({ startAt: new Date('2027-01-15T04:30:00.000Z') })));
  after(() => api.close());

  const { post, read, advance, customerWithCard, monthly, invoicesOf, chargesOf, processorChargesOf, declining } = billingFlow(() => ({ api, keys }));
  const eventsAbout = async (type: string, id: string) => (await api.knex('events').where({ type }).whereRaw("data->>'id' = ?", [id]).orderBy('id')).map((e: any) => e.data);
  const emailsAbout = async (objectId: string) => api.knex('emails').where({ object_id: objectId }).orderBy('id').select('kind', 'created_at', 'to');

  it('charged to the card on file: incomplete, paid at once (active), then each month\'s renewal charged and paid, one processor charge per invoice', async () => {
    const start = '2027-01-31T04:30:00.000Z';
    const { clock, customer, card } = await customerWithCard('renews@example.com', start, '01/39');
    assert.equal((await read(`/v1/customers/${customer.id}`)).defaultCardId, card.id);
    const price = await monthly();
    const created = await post('/v1/subscriptions', { customerId: customer.id, priceId: price.id });
    assert.deepEqual([created.status, created.checkoutUrl, created.collectionMethod], ['incomplete', null, 'charge_automatically']);
    await api.workflows.settle();
    const active = await read(`/v1/subscriptions/${created.id}`);
    assert.equal(active.status, 'active');

    await advance(clock.id, '2027-04-01T00:00:00.000Z');
    const invoices = await invoicesOf(created.id);
    assert.deepEqual(
      invoices.map((i: any) => [i.number, i.billingReason, i.periodStart, i.amountDueCents, i.amountPaidCents, i.status, i.attemptCount, i.paidAt]),
      [
        ['INV-000001', 'subscription_create', start, 150000, 150000, 'paid', 1, start],
        ['INV-000002', 'subscription_cycle', '2027-02-28T04:30:00.000Z', 150000, 150000, 'paid', 1, '2027-02-28T04:30:00.000Z'],
        ['INV-000003', 'subscription_cycle', '2027-03-31T04:30:00.000Z', 150000, 150000, 'paid', 1, '2027-03-31T04:30:00.000Z'],
      ],
    );
    const refused = await api.request(`/v1/invoices/${invoices[0].id}/send`, { key: keys.sk_test, body: {}, idempotencyKey: ik() });
    assert.deepEqual([refused.status, refused.body.reason], [409, 'invoice_not_open']);
    for (const invoice of invoices) {
      assert.deepEqual((await chargesOf(invoice.id)).map((c: any) => [c.invoice_attempt, c.status, Number(c.amount_cents)]), [[1, 'succeeded', 150000]]);
      assert.equal((await processorChargesOf(invoice.id)).length, 1);
      assert.equal((await eventsAbout('invoice.paid', invoice.id)).length, 1);
      assert.ok(invoice.hostedInvoiceUrl.endsWith(`/invoice/${invoice.id}`));
    }
    assert.equal((await read(`/v1/subscriptions/${created.id}`)).status, 'active');
  });

  it('the full dunning ladder: declined on renewal, retried on days 1, 3, 7 and 14 (past_due), then unpaid, the customer emailed each time', async () => {
    const { clock, subscription } = await declining('ladder@example.com', '2027-01-10T04:30:00.000Z');
    const renewal = '2027-02-10T04:30:00.000Z';
    await advance(clock.id, at(renewal, 2 * DAY));
    const [, invoice] = await invoicesOf(subscription.id);
    assert.deepEqual([invoice.status, invoice.attemptCount, invoice.nextAttemptAt, invoice.lastFailure !== null], ['open', 2, at(renewal, 3 * DAY), true]);
    assert.equal((await read(`/v1/subscriptions/${subscription.id}`)).status, 'past_due');

    await advance(clock.id, at(renewal, 15 * DAY));
    const failed = await eventsAbout('invoice.payment_failed', invoice.id);
    assert.deepEqual(
      failed.map((i: any) => [i.attemptCount, i.nextAttemptAt]),
      [
        [1, at(renewal, 1 * DAY)],
        [2, at(renewal, 3 * DAY)],
        [3, at(renewal, 7 * DAY)],
        [4, at(renewal, 14 * DAY)],
        [5, null],
      ],
    );
    assert.deepEqual((await chargesOf(invoice.id)).map((c: any) => [c.invoice_attempt, c.status]), [1, 2, 3, 4, 5].map((n) => [n, 'failed']));
    const final = await read(`/v1/invoices/${invoice.id}`);
    assert.deepEqual([final.status, final.attemptCount, final.nextAttemptAt, final.amountDueCents], ['open', 5, null, 150000]);
    assert.equal((await read(`/v1/subscriptions/${subscription.id}`)).status, 'unpaid');
    const emails = (await emailsAbout(invoice.id)).filter((e: any) => e.kind === 'payment_failed');
    assert.deepEqual(emails.map((e: any) => e.created_at.toISOString()), [renewal, at(renewal, DAY), at(renewal, 3 * DAY), at(renewal, 7 * DAY), at(renewal, 14 * DAY)]);
    const statuses = (await eventsAbout('customer.subscription.updated', subscription.id)).map((s: any) => s.status);
    assert.deepEqual(statuses.slice(-2), ['past_due', 'unpaid']);
  });

  it('the account chose canceled at the ladder\'s end (kasi merchant set --dunning-end canceled): the subscription ends with the last retry, its invoice left open to be paid on its page', async () => {
    // A merchant of its own, that chose canceled: the suite's helpers read `keys` when called.
    const suiteKeys = keys;
    keys = (await api.merchant({ activate: true, changes: { dunningEnd: 'canceled' } })).keys;
    try {
      const { clock, subscription } = await declining('ladder-cancels@example.com', '2027-01-12T04:30:00.000Z');
      const renewal = '2027-02-12T04:30:00.000Z';
      await advance(clock.id, at(renewal, 15 * DAY));
      const [, invoice] = await invoicesOf(subscription.id);
      assert.deepEqual([invoice.status, invoice.attemptCount, invoice.nextAttemptAt], ['open', 5, null]);
      const ended = await read(`/v1/subscriptions/${subscription.id}`);
      assert.deepEqual([ended.status, ended.endedAt, ended.cancelReason, ended.cancellationDetails.reason], ['canceled', at(renewal, 14 * DAY), 'payment_failed', 'payment_failed']);
      assert.deepEqual((await eventsAbout('customer.subscription.deleted', subscription.id)).map((s: any) => s.status), ['canceled']);
      assert.equal((await get(invoice.hostedInvoiceUrl)).status, 200, 'its page still takes payment');
    } finally {
      keys = suiteKeys;
    }
  });

  it('a recovery on day 4: the customer pays the hosted invoice page, the invoice is paid, the subscription active, and no retry follows', async () => {
    const { clock, subscription } = await declining('recovers@example.com', '2027-03-05T04:30:00.000Z');
    const renewal = '2027-04-05T04:30:00.000Z';
    await advance(clock.id, at(renewal, 4 * DAY));
    const [, invoice] = await invoicesOf(subscription.id);
    assert.deepEqual([invoice.attemptCount, (await read(`/v1/subscriptions/${subscription.id}`)).status], [3, 'past_due']);

    const page = await get(invoice.hostedInvoiceUrl);
    assert.equal(page.status, 200);
    assert.match(page.text, new RegExp(`Invoice ${invoice.number}`));
    const checkoutUrl = await payerCheckout(api, invoice.hostedInvoiceUrl);
    const back = await payAtProcessor(api, checkoutUrl, { number: CARD_NUMBER, expiry: '02/39', cvv: '100' }, { ...DETAILS, email: 'recovers@example.com' });
    await get(back);
    await api.workflows.settle();
    const paid = await read(`/v1/invoices/${invoice.id}`);
    assert.deepEqual([paid.status, paid.amountPaidCents, paid.paidAt, paid.nextAttemptAt], ['paid', 150000, at(renewal, 4 * DAY), null]);
    assert.equal((await read(`/v1/subscriptions/${subscription.id}`)).status, 'active');
    const pagePayment = await api.knex('payments').where({ invoice_id: invoice.id }).whereNull('invoice_attempt').first();
    assert.deepEqual([pagePayment.status, Number(pagePayment.amount_cents)], ['succeeded', 150000]);
    assert.match((await get(invoice.hostedInvoiceUrl)).text, /This invoice is paid/);

    await advance(clock.id, at(renewal, 20 * DAY));
    assert.equal((await chargesOf(invoice.id)).length, 3, 'no retry after the page paid it');
  });

  it('an immediate cancellation in the middle of dunning: the invoice voided, the retries stopped', async () => {
    const { clock, subscription } = await declining('cancels@example.com', '2027-05-20T04:30:00.000Z');
    const renewal = '2027-06-20T04:30:00.000Z';
    await advance(clock.id, at(renewal, 2 * DAY));
    const [, invoice] = await invoicesOf(subscription.id);
    assert.equal(invoice.attemptCount, 2);
    const canceled = await post(`/v1/subscriptions/${subscription.id}/cancel`, {});
    assert.deepEqual([canceled.status, canceled.endedAt], ['canceled', at(renewal, 2 * DAY)]);
    await advance(clock.id, at(renewal, 20 * DAY));
    const voided = await read(`/v1/invoices/${invoice.id}`);
    assert.deepEqual([voided.status, voided.attemptCount, voided.nextAttemptAt], ['void', 2, null]);
    assert.equal((await chargesOf(invoice.id)).length, 2);
    assert.equal((await get(invoice.hostedInvoiceUrl)).status, 409, invoice.hostedInvoiceUrl);
  });

  it('send_invoice: emailed with its page when finalised, a reminder three days before the due date, then overdue (invoice.overdue) when it passes', async () => {
    const start = '2027-07-01T04:30:00.000Z';
    const clock = await post('/v1/test_helpers/test_clocks', { frozenTime: start });
    const customer = await post('/v1/customers', { email: 'sends@example.com', testClockId: clock.id, locale: 'si' });
    const subscription = await post('/v1/subscriptions', { customerId: customer.id, priceId: (await monthly()).id, collectionMethod: 'send_invoice', daysUntilDue: 7 });
    await api.workflows.settle();
    const [invoice] = await invoicesOf(subscription.id);
    assert.equal(invoice.dueDate, at(start, 7 * DAY));
    assert.ok(invoice.hostedInvoiceUrl.endsWith(`/si/invoice/${invoice.id}`));
    assert.equal((await eventsAbout('invoice.sent', invoice.id)).length, 1);
    await advance(clock.id, at(start, 8 * DAY));
    assert.deepEqual(
      (await emailsAbout(invoice.id)).map((e: any) => [e.kind, e.created_at.toISOString()]),
      [
        ['invoice', start],
        ['invoice_reminder', at(start, 4 * DAY)],
        ['invoice_overdue', at(start, 7 * DAY)],
      ],
    );
    assert.deepEqual((await eventsAbout('invoice.overdue', invoice.id)).map((i: any) => i.status), ['open']);
    assert.equal((await chargesOf(invoice.id)).length, 0);
    // Sent again by hand: emailed once more, a second invoice.sent.
    await post(`/v1/invoices/${invoice.id}/send`);
    assert.deepEqual((await emailsAbout(invoice.id)).map((e: any) => e.kind).filter((k: string) => k === 'invoice'), ['invoice', 'invoice']);
    assert.equal((await eventsAbout('invoice.sent', invoice.id)).length, 2);
  });

  it('no card: the customer pays at checkoutUrl (the invoice\'s page); unpaid, it is still incomplete at 22:59 and incomplete_expired at 23:00, its invoice voided', async () => {
    const start = '2027-08-01T04:30:00.000Z';
    const clock = await post('/v1/test_helpers/test_clocks', { frozenTime: start });
    const customer = await post('/v1/customers', { email: 'nocard@example.com', testClockId: clock.id });
    const subscription = await post('/v1/subscriptions', { customerId: customer.id, priceId: (await monthly()).id });
    const [invoice] = await invoicesOf(subscription.id);
    assert.deepEqual([subscription.status, subscription.checkoutUrl], ['incomplete', invoice.hostedInvoiceUrl]);
    await api.workflows.settle();
    assert.equal((await chargesOf(invoice.id)).length, 0);
    await advance(clock.id, at(start, 23 * 60 * 60 * 1000 - 60_000));
    assert.equal((await read(`/v1/subscriptions/${subscription.id}`)).status, 'incomplete');
    await advance(clock.id, at(start, 23 * 60 * 60 * 1000));
    const expired = await read(`/v1/subscriptions/${subscription.id}`);
    assert.deepEqual([expired.status, expired.endedAt, expired.checkoutUrl], ['incomplete_expired', at(start, 23 * 60 * 60 * 1000), null]);
    assert.equal((await read(`/v1/invoices/${invoice.id}`)).status, 'void');
  });

  it('no card, paid at checkoutUrl in time: active, the card kept becomes the customer\'s default, and the renewal is charged to it', async () => {
    const start = '2027-09-01T04:30:00.000Z';
    const clock = await post('/v1/test_helpers/test_clocks', { frozenTime: start });
    const customer = await post('/v1/customers', { email: 'pays-page@example.com', name: 'Nimal Perera', testClockId: clock.id });
    const subscription = await post('/v1/subscriptions', { customerId: customer.id, priceId: (await monthly()).id });
    await api.workflows.settle();
    const checkoutUrl = await payerCheckout(api, subscription.checkoutUrl);
    const back = await payAtProcessor(api, checkoutUrl, { number: CARD_NUMBER, expiry: '01/39', cvv: '100' }, { ...DETAILS, email: 'pays-page@example.com', saveCard: 'yes' });
    await get(back);
    await api.workflows.settle();
    const active = await read(`/v1/subscriptions/${subscription.id}`);
    assert.deepEqual([active.status, active.checkoutUrl], ['active', null]);
    assert.notEqual((await read(`/v1/customers/${customer.id}`)).defaultCardId, null);
    await advance(clock.id, '2027-10-02T00:00:00.000Z');
    const [, renewal] = await invoicesOf(subscription.id);
    assert.deepEqual([renewal.status, renewal.attemptCount], ['paid', 1]);
  });
});
