// Amounts below a card payment's minimum (1000 cents), on test clocks through the API with the
// cents written out: an invoice whose amount due is 1 to 999 cents is not charged (no card payment,
// no page checkout); it is paid by carrying its amount as a line onto the customer's next invoice,
// which the upcoming invoice shows, and which two invoices made at once never both take.
import assert from 'node:assert/strict';
import type { MerchantKeys } from '../../db/merchants';
import { ik, startApiWithMerchant, type TestApi } from '../support/api';
import { paidByCarryOver } from '../support/carry-over';
import { assertMoneyInvariants } from '../support/money-invariants';
import { pressContinue } from '../payment-links/link-flow';
import { billingFlow } from './billing-flow';

describe('invoices below a card payment\'s minimum: carried over to the next invoice', function () {
  this.timeout(120_000);
  let api: TestApi;
  let keys: MerchantKeys;

  before(async () => ({ api, keys } = await startApiWithMerchant({ startAt: new Date('2027-01-15T04:30:00.000Z') })));
  after(() => api.close());

  const { post, read, advance, customerWithCard, monthly, invoicesOf, chargesOf } = billingFlow(() => ({ api, keys }));
  const eventsAbout = async (type: string, id: string) => (await api.knex('events').where({ type }).whereRaw("data->>'id' = ?", [id]).orderBy('id')).map((e: any) => e.data);
  /** Every payment of the customer's invoices (a page checkout's too), oldest first: [amount, status]. */
  const invoicePaymentsOf = async (customerId: string) =>
    (await api.knex('payments as p').join('invoices as i', 'i.id', 'p.invoice_id').where('i.customer_id', customerId).orderBy('p.id').select('p.amount_cents', 'p.status')).map((p: any) => [Number(p.amount_cents), p.status]);
  const lineShape = (l: any) => [l.description, l.quantity, l.unitAmountCents, l.amountCents, l.periodStart, l.periodEnd, l.proration, l.priceId];

  it('a 500-cent first invoice (a package price): not charged, paid by carry-over, the subscription active; the renewal bills 500 + 500 = 1000, charged once', async () => {
    const start = '2027-02-01T04:30:00.000Z';
    const renewal = '2027-03-01T04:30:00.000Z';
    const { clock, customer } = await customerWithCard('sms@example.com', start, '01/39');
    const price = await post('/v1/prices', { product: { name: 'SMS bundle' }, billingScheme: 'package', unitAmountCents: 500, packageSize: 100, interval: 'month' });
    const created = await post('/v1/subscriptions', { customerId: customer.id, priceId: price.id });
    await api.workflows.settle();

    const [first] = await invoicesOf(created.id);
    assert.deepEqual(
      [first.number, first.status, first.totalCents, first.amountDueCents, first.amountPaidCents, first.attemptCount, first.paidAt, first.nextAttemptAt],
      ['INV-000001', 'paid', 500, 500, 500, 0, start, null],
    );
    assert.equal((await read(`/v1/subscriptions/${created.id}`)).status, 'active');
    assert.equal((await eventsAbout('invoice.paid', first.id)).length, 1);
    assert.deepEqual(await chargesOf(first.id), [], 'no card payment for 500 cents');
    assert.equal(await paidByCarryOver(api.knex, first.id), true);

    const upcoming = await read(`/v1/invoices/upcoming?subscriptionId=${created.id}`);
    const expectedLines = [
      ['1 × SMS bundle', 1, 500, 500, renewal, '2027-04-01T04:30:00.000Z', false, price.id],
      ['Carried over from invoice INV-000001 (below the card payment minimum)', 1, 500, 500, null, null, false, null],
    ];
    assert.deepEqual(upcoming.lines.map(lineShape), expectedLines);
    assert.deepEqual([upcoming.subtotalCents, upcoming.totalCents, upcoming.amountDueCents], [1000, 1000, 1000]);

    await advance(clock.id, '2027-03-02T00:00:00.000Z');
    const [, second] = await invoicesOf(created.id);
    assert.deepEqual(second.lines.map(lineShape), expectedLines, 'the renewal equals its preview');
    assert.deepEqual(
      [second.number, second.status, second.subtotalCents, second.amountDueCents, second.amountPaidCents, second.attemptCount, second.paidAt],
      ['INV-000002', 'paid', 1000, 1000, 1000, 1, renewal],
    );
    assert.deepEqual((await chargesOf(second.id)).map((c: any) => [c.invoice_attempt, c.status, Number(c.amount_cents)]), [[1, 'succeeded', 1000]]);
    assert.equal(await paidByCarryOver(api.knex, second.id), false);
    assert.deepEqual(await invoicePaymentsOf(customer.id), [[1000, 'succeeded']], 'one card payment, of 1000 cents');
    assert.equal((await read(`/v1/subscriptions/${created.id}`)).status, 'active');
  });

  it('a renewal below the minimum is carried in turn: 400 carried, then 400 + 400 = 800 carried, then 400 + 800 = 1200 charged once', async () => {
    const start = '2027-02-05T04:30:00.000Z';
    const { clock, customer } = await customerWithCard('chain@example.com', start, '01/39');
    const price = await post('/v1/prices', { product: { name: 'Alerts' }, billingScheme: 'package', unitAmountCents: 400, packageSize: 10, interval: 'month' });
    const created = await post('/v1/subscriptions', { customerId: customer.id, priceId: price.id });
    await api.workflows.settle();
    await advance(clock.id, '2027-04-06T00:00:00.000Z');
    const invoices = await invoicesOf(created.id);
    assert.deepEqual(
      invoices.map((i: any) => [i.periodStart, i.lines.map((l: any) => l.amountCents), i.amountDueCents, i.amountPaidCents, i.status, i.attemptCount]),
      [
        [start, [400], 400, 400, 'paid', 0],
        ['2027-03-05T04:30:00.000Z', [400, 400], 800, 800, 'paid', 0],
        ['2027-04-05T04:30:00.000Z', [400, 800], 1200, 1200, 'paid', 1],
      ],
    );
    assert.deepEqual(invoices.map((i: any) => i.lines.slice(1).map((l: any) => l.description)), [
      [],
      [`Carried over from invoice ${invoices[0].number} (below the card payment minimum)`],
      [`Carried over from invoice ${invoices[1].number} (below the card payment minimum)`],
    ]);
    assert.deepEqual(await Promise.all(invoices.map((i: any) => paidByCarryOver(api.knex, i.id))), [true, true, false]);
    assert.deepEqual(await invoicePaymentsOf(customer.id), [[1200, 'succeeded']]);
    assert.equal((await read(`/v1/subscriptions/${created.id}`)).status, 'active');
  });

  /** A customer on a clock at `start` with a card, subscribed to 150000 cents a month with a credit of 149999 on the first invoice: 1 cent due. */
  const creditedToOneCent = async (email: string, start: string) => {
    const { clock, customer } = await customerWithCard(email, start, '01/39');
    const price = await monthly();
    const created = await post('/v1/subscriptions', { customerId: customer.id, priceId: price.id, addInvoiceItems: [{ description: 'Welcome credit', unitAmountCents: -149999 }] });
    await api.workflows.settle();
    const [first] = await invoicesOf(created.id);
    return { clock, customer, price, created, first };
  };

  it('a credit line bringing the first invoice to 1 cent: carried; the renewal bills 150000 + 1 = 150001, charged once', async () => {
    const { clock, customer, price, created, first } = await creditedToOneCent('credit@example.com', '2027-02-10T04:30:00.000Z');
    assert.deepEqual([first.status, first.subtotalCents, first.amountDueCents, first.amountPaidCents, first.attemptCount], ['paid', 1, 1, 1, 0]);
    assert.equal((await read(`/v1/subscriptions/${created.id}`)).status, 'active');

    const upcoming = await read(`/v1/invoices/upcoming?subscriptionId=${created.id}`);
    assert.deepEqual(upcoming.lines.map((l: any) => [l.amountCents, l.priceId]), [[150000, price.id], [1, null]]);
    await advance(clock.id, '2027-03-11T00:00:00.000Z');
    const [, second] = await invoicesOf(created.id);
    assert.deepEqual(second.lines, upcoming.lines, 'the renewal equals its preview');
    assert.deepEqual([second.status, second.amountDueCents, second.amountPaidCents], ['paid', 150001, 150001]);
    assert.deepEqual(await invoicePaymentsOf(customer.id), [[150001, 'succeeded']]);
  });

  it('a carried amount goes onto one invoice only: two invoices made at once take it once; an invoice by hand of 1 cent is carried again, onto the renewal', async () => {
    const { clock, customer, created, first } = await creditedToOneCent('race@example.com', '2027-02-20T04:30:00.000Z');

    const made = await Promise.all(
      [1, 2, 3].map(() => api.request('/v1/invoices', { key: keys.sk_test, body: { customerId: customer.id, collectionMethod: 'charge_automatically' }, idempotencyKey: ik() })),
    );
    assert.deepEqual(made.map((r) => r.status), [201, 201, 201]);
    const taking = made.map((r) => r.body).filter((i: any) => i.lines.length > 0);
    assert.equal(taking.length, 1, 'one draft took the carried cent');
    assert.deepEqual([taking[0].lines.map(lineShape), taking[0].amountDueCents], [[[`Carried over from invoice ${first.number} (below the card payment minimum)`, 1, 1, 1, null, null, false, null]], 1]);

    const finalized = await post(`/v1/invoices/${taking[0].id}/finalize`);
    assert.deepEqual([finalized.status, finalized.amountPaidCents], ['paid', 1]);
    assert.equal(await paidByCarryOver(api.knex, taking[0].id), true);
    const upcoming = await read(`/v1/invoices/upcoming?subscriptionId=${created.id}`);
    assert.deepEqual(upcoming.lines.map((l: any) => [l.description, l.amountCents]), [
      ['1 × Pro plan', 150000],
      [`Carried over from invoice ${finalized.number} (below the card payment minimum)`, 1],
    ]);
    await advance(clock.id, '2027-03-21T00:00:00.000Z');
    const [, second] = await invoicesOf(created.id);
    assert.deepEqual([second.lines, second.amountDueCents, second.status], [upcoming.lines, 150001, 'paid']);
    assert.deepEqual(await invoicePaymentsOf(customer.id), [[150001, 'succeeded']]);
  });

  it('an open invoice owing 500 (finalised before the rule, or lowered since): its page makes no checkout (400 amount); a charge of it carries it over instead', async () => {
    const { customer } = await customerWithCard('legacy@example.com', '2027-02-25T04:30:00.000Z', '01/39');
    const created = await post('/v1/subscriptions', { customerId: customer.id, priceId: (await monthly()).id, collectionMethod: 'send_invoice' });
    await api.workflows.settle();
    const [invoice] = await invoicesOf(created.id);
    assert.equal(invoice.status, 'open');
    await api.knex('invoices').where({ id: invoice.id }).update({ subtotal_cents: 500, total_cents: 500, amount_due_cents: 500 });

    const pressed = await pressContinue(invoice.hostedInvoiceUrl);
    assert.equal(pressed.status, 400, pressed.text);
    assert.deepEqual(await invoicePaymentsOf(customer.id), [], 'no checkout of 500 cents');
    const paid = await post(`/v1/invoices/${invoice.id}/pay`);
    assert.deepEqual([paid.status, paid.amountPaidCents, paid.attemptCount], ['paid', 500, 0]);
    assert.equal(await paidByCarryOver(api.knex, invoice.id), true);
    assert.deepEqual(await invoicePaymentsOf(customer.id), [], 'no charge of 500 cents');
    const upcoming = await read(`/v1/invoices/upcoming?subscriptionId=${created.id}`);
    assert.deepEqual(upcoming.lines.map((l: any) => l.amountCents), [150000, 500]);
  });

  it('no payment of 1 to 999 cents (a charge or a checkout\'s) was made in any of the above, nor asked of the processor', async () => {
    assert.deepEqual(await api.knex('payments').whereBetween('amount_cents', [1, 999]).pluck('id'), []);
    assert.deepEqual(await api.knex('sandbox_charges').whereBetween('amount_cents', [1, 999]).pluck('reference'), []);
  });

  it('over every finalised invoice: paid if and only if a payment paid it, it owed 0, or it was carried over; amountPaidCents = its payments + the amount carried', async () => {
    const carried = await api.knex('carried_amounts').count<{ count: string }[]>('* as count');
    assert.ok(Number(carried[0]!.count) >= 5, 'the invoices carried over above are counted');
    await assertMoneyInvariants(api.knex, api.clock.now());
  });
});
