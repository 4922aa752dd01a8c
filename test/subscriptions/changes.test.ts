// Changes of a subscription's items over HTTP on test clocks (DESIGN.md "Proration", "Subscription
// changes"): upgrades and downgrades in the middle of a month under each proration behaviour, a
// quantity change, items added and deleted, monthly to yearly, `prorationDate` at the period's
// first and last second, `pending_if_incomplete` paid and not paid, `cancelAt` after a change;
// each preview equal to the invoice made, to the cent. February 2027 in Sri Lanka: 28 days from
// 1 February 00:00 (2027-01-31T18:30:00Z), so the 15th at 00:00 leaves exactly half.
import assert from 'node:assert/strict';
import type { MerchantKeys } from '../../db/merchants';
import { ik, startApiWithMerchant, type TestApi } from '../support/api';
import { billingFlow } from '../invoices/billing-flow';

const FEB_1 = '2027-01-31T18:30:00.000Z';
const FEB_15 = '2027-02-14T18:30:00.000Z';
const MAR_1 = '2027-02-28T18:30:00.000Z';

describe('subscriptions: changes of items, prorated, and their previews', function () {
  this.timeout(120_000);
  let api: TestApi;
  let keys: MerchantKeys;
  before(async () => ({ api, keys } = await startApiWithMerchant({ startAt: new Date('2027-01-15T04:30:00.000Z') })));
  after(() => api.close());
  const { post, read, advance, customerWithCard, invoicesOf } = billingFlow(() => ({ api, keys }));
  const request = (path: string, body?: unknown, idempotencyKey: string | undefined = ik()) => api.request(path, { key: keys.sk_test, body, idempotencyKey: body === undefined ? undefined : idempotencyKey });
  const previewOf = async (body: Record<string, unknown>) => {
    const res = await api.request('/v1/invoices/preview', { key: keys.sk_test, body });
    assert.equal(res.status, 200, res.text);
    return res.body;
  };
  /** What a preview and the invoice made share (the id, number and what only a stored invoice has left out). */
  const billed = (invoice: any) => ({
    billingReason: invoice.billingReason,
    periodStart: invoice.periodStart,
    periodEnd: invoice.periodEnd,
    lines: invoice.lines,
    subtotalCents: invoice.subtotalCents,
    totalCents: invoice.totalCents,
    amountDueCents: invoice.amountDueCents,
  });
  const amounts = (invoice: any) => invoice.lines.map((l: any) => [l.description, l.amountCents, l.proration]);
  const price = (name: string, unitAmountCents: number, interval = 'month') => post('/v1/prices', { product: { name }, unitAmountCents, interval });

  let n = 0;
  /** A customer on a clock at 1 February with a good card, subscribed to `items` (paid). */
  const subscribed = async (items: { priceId: string; quantity?: number }[], expiry = '01/39') => {
    const { clock, customer } = await customerWithCard(`change-${++n}@example.com`, FEB_1, expiry);
    const sub = await post('/v1/subscriptions', { customerId: customer.id, items });
    await api.workflows.settle();
    assert.equal((await read(`/v1/subscriptions/${sub.id}`)).status, 'active');
    return { clock, customer, sub };
  };

  it('an upgrade in the middle of the month with create_prorations: the proration lines wait for the renewal, which the preview and upcoming show to the cent', async () => {
    const basic = await price('Basic', 100000);
    const pro = await price('Pro', 300000);
    const { clock, sub } = await subscribed([{ priceId: basic.id }]);
    await advance(clock.id, FEB_15);
    const preview = await previewOf({ subscriptionId: sub.id, priceId: pro.id });
    const updated = await post(`/v1/subscriptions/${sub.id}`, { priceId: pro.id });
    assert.deepEqual([updated.price.id, updated.items.length, updated.latestInvoiceId], [pro.id, 1, sub.latestInvoiceId], 'no invoice now');
    const upcoming = (await request(`/v1/invoices/upcoming?subscriptionId=${sub.id}`)).body;
    assert.deepEqual(billed(upcoming), billed(preview));
    assert.deepEqual(amounts(preview), [
      ['1 × Pro', 300000, false],
      ['Unused time on 1 × Basic', -50000, true],
      ['Remaining time on 1 × Pro', 150000, true],
    ]);
    assert.deepEqual([preview.totalCents, preview.lines[1].periodStart, preview.lines[1].periodEnd], [400000, FEB_15, MAR_1]);
    await advance(clock.id, MAR_1);
    const [, renewal] = await invoicesOf(sub.id);
    assert.deepEqual(billed(renewal), billed(preview));
    assert.deepEqual([renewal.status, renewal.amountPaidCents], ['paid', 400000]);
  });
});
