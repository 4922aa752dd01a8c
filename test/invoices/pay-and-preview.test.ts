// Paying an invoice now (POST /v1/invoices/{id}/pay) and previewing the next one
// (GET /v1/invoices/upcoming, POST /v1/invoices/preview, invoice.upcoming), over HTTP on test clocks: the preview
// equals the invoice the renewal then makes, cent for cent and line for line (a whole period, and
// one cut short by cancelAt); a charge by hand pays, or fails as an attempt, and a retried request
// never charges twice; every refusal.
import assert from 'node:assert/strict';
import type { MerchantKeys } from '../../db/merchants';
import { ik, startApiWithMerchant, type TestApi } from '../support/api';
import { payAndKeep } from '../cards/card-flow';
import { billingFlow, DAY, at } from './billing-flow';

/** The sandbox's bank answers a charge made on wall time this long after it is made. */
const BANK_ANSWERS_MS = 5_000;

describe('invoices: pay now, and the upcoming invoice', function () {
  this.timeout(120_000);
  let api: TestApi;
  let keys: MerchantKeys;
  before(async () => ({ api, keys } = await startApiWithMerchant({ startAt: new Date('2027-01-15T04:30:00.000Z') })));
  after(() => api.close());
  const { post, read, advance, customerWithCard, monthly, invoicesOf, chargesOf, processorChargesOf, declining } = billingFlow(() => ({ api, keys }));
  const attempt = (path: string, body: unknown = {}, idempotencyKey: string | undefined = ik()) => api.request(path, { key: keys.sk_test, body, idempotencyKey });
  const preview = (subscriptionId: string) => api.request(`/v1/invoices/upcoming?subscriptionId=${subscriptionId}`, { key: keys.sk_test });
  /** What a preview and an invoice share, the id and what only a stored invoice has left out. */
  const billed = (invoice: any) => [invoice.periodStart, invoice.periodEnd, invoice.lines, invoice.subtotalCents, invoice.totalCents, invoice.amountDueCents, invoice.billingReason, invoice.collectionMethod];

  it('the upcoming invoice is the next renewal\'s, equal to the invoice it then makes; POST /v1/invoices/preview answers the same without a key', async () => {
    const start = '2027-01-31T04:30:00.000Z';
    const { clock, customer } = await customerWithCard('upcoming@example.com', start, '01/39');
    const seats = await post('/v1/prices', { product: { name: 'Seats' }, unitAmountCents: 1000, interval: 'month' });
    const sub = await post('/v1/subscriptions', { customerId: customer.id, items: [{ priceId: (await monthly()).id }, { priceId: seats.id, quantity: 7 }] });
    await api.workflows.settle();
    const res = await preview(sub.id);
    assert.equal(res.status, 200, res.text);
    const upcoming = res.body;
    assert.deepEqual(
      [upcoming.id, upcoming.status, upcoming.number, upcoming.hostedInvoiceUrl, upcoming.createdAt, upcoming.periodStart, upcoming.periodEnd, upcoming.amountDueCents],
      [`upcoming_${sub.id}`, 'draft', null, null, '2027-02-28T04:30:00.000Z', '2027-02-28T04:30:00.000Z', '2027-03-31T04:30:00.000Z', 157000],
    );
    const previewed = await api.request('/v1/invoices/preview', { key: keys.sk_test, body: { subscriptionId: sub.id } });
    assert.deepEqual([previewed.status, previewed.body], [200, upcoming]);
    assert.equal(Number((await api.knex('invoices').where({ id: upcoming.id }).count({ n: '*' }))[0]!.n), 0, 'not stored');

    // invoice.upcoming three days before the renewal carries the same invoice.
    await advance(clock.id, '2027-02-25T04:30:00.000Z');
    const announced = await api.knex('events').where({ type: 'invoice.upcoming' }).whereRaw("data->>'subscriptionId' = ?", [sub.id]).select('data', 'created_at');
    assert.deepEqual(announced.map((e: any) => [e.created_at.toISOString(), e.data]), [['2027-02-25T04:30:00.000Z', upcoming]]);
    await advance(clock.id, '2027-03-01T00:00:00.000Z');
    const [, renewal] = await invoicesOf(sub.id);
    assert.deepEqual(billed(renewal), billed(upcoming));

    // Cut short by cancelAt: the preview prorates as the renewal will (31 March to 17 April: 17 days of 30; 150000 × 17 / 30 and 7000 × 17 / 30 = 3966.67).
    await post(`/v1/subscriptions/${sub.id}`, { cancelAt: '2027-04-17T04:30:00.000Z' });
    const cut = (await preview(sub.id)).body;
    assert.deepEqual([cut.periodEnd, cut.lines.map((l: any) => [l.amountCents, l.proration])], ['2027-04-17T04:30:00.000Z', [[85000, true], [3967, true]]]);
    await advance(clock.id, '2027-04-01T00:00:00.000Z');
    const [, , cutRenewal] = await invoicesOf(sub.id);
    assert.deepEqual(billed(cutRenewal), billed(cut));
    const ending = await preview(sub.id);
    assert.deepEqual([ending.status, ending.body.code], [404, 'NOT_FOUND'], 'to be canceled at the period\'s end: no renewal');
  });

  it('previews a trial\'s first paid period; refuses: no subscriptionId, another account\'s, an ended subscription (409 on preview), a prorationDate outside the period', async () => {
    const { customer } = await customerWithCard('preview-rules@example.com', '2027-01-15T04:30:00.000Z', '01/39');
    const trial = await post('/v1/subscriptions', { customerId: customer.id, priceId: (await monthly()).id, trialDays: 10 });
    const first = (await preview(trial.id)).body;
    assert.deepEqual([first.periodStart, first.periodEnd, first.amountDueCents], ['2027-01-25T04:30:00.000Z', '2027-02-25T04:30:00.000Z', 150000]);
    const reason = async (res: Promise<{ status: number; body: any }>) => {
      const { status, body } = await res;
      return [status, body.reason ?? body.code];
    };
    const previewing = (body: unknown) => api.request('/v1/invoices/preview', { key: keys.sk_test, body });
    assert.deepEqual(await reason(api.request('/v1/invoices/upcoming', { key: keys.sk_test })), [400, 'VALIDATION_FAILED']);
    assert.deepEqual(await reason(preview('sub_000000000000000000000000')), [404, 'NOT_FOUND']);
    assert.deepEqual(await reason(previewing({ subscriptionId: trial.id, prorationDate: '2027-01-15T04:29:59.000Z' })), [400, 'billing_date_invalid']);
    assert.deepEqual(await reason(previewing({ subscriptionId: trial.id, prorationDate: '2027-01-16T00:00:00.000Z' })), [400, 'billing_date_invalid'], 'not after now');
    assert.equal((await previewing({ subscriptionId: trial.id, prorationDate: '2027-01-15T04:30:00.000Z' })).status, 200);
    await post(`/v1/subscriptions/${trial.id}/cancel`);
    assert.deepEqual(await reason(previewing({ subscriptionId: trial.id })), [409, 'subscription_ended']);
    assert.deepEqual(await reason(preview(trial.id)), [404, 'NOT_FOUND']);
  });

  it('pay: an invoice sent to the customer, charged to the default card now: paid, one processor charge; a retry replays; paid again, invoice_not_open; no card, no_card_on_file', async () => {
    const { customer } = await customerWithCard('payer@example.com', '2027-01-15T04:30:00.000Z', '01/39');
    const sub = await post('/v1/subscriptions', { customerId: customer.id, priceId: (await monthly()).id, collectionMethod: 'send_invoice' });
    const key = ik();
    const paid = await attempt(`/v1/invoices/${sub.latestInvoiceId}/pay`, {}, key);
    assert.equal(paid.status, 200, paid.text);
    assert.deepEqual([paid.body.status, paid.body.amountPaidCents, paid.body.attemptCount, paid.body.paidAt], ['paid', 150000, 1, '2027-01-15T04:30:00.000Z']);
    const replayed = await attempt(`/v1/invoices/${sub.latestInvoiceId}/pay`, {}, key);
    assert.deepEqual([replayed.status, replayed.headers.get('idempotent-replayed'), replayed.body], [200, 'true', paid.body]);
    assert.deepEqual((await processorChargesOf(sub.latestInvoiceId)).map((c: any) => c.status), ['approved']);
    const again = await attempt(`/v1/invoices/${sub.latestInvoiceId}/pay`);
    assert.deepEqual([again.status, again.body.reason], [409, 'invoice_not_open']);

    const cardless = await post('/v1/customers', { email: 'cardless@example.com' });
    const owed = await post('/v1/subscriptions', { customerId: cardless.id, priceId: (await monthly()).id, collectionMethod: 'send_invoice' });
    const refused = await attempt(`/v1/invoices/${owed.latestInvoiceId}/pay`);
    assert.deepEqual([refused.status, refused.body.reason], [409, 'no_card_on_file']);
    assert.match(refused.body.message, /hosted|page/);
    assert.equal((await read(`/v1/invoices/${owed.latestInvoiceId}`)).attemptCount, 0, 'a refusal charges nothing');
  });

  it('pay in the middle of dunning: declined again on the 07/39 card (an attempt of the ladder); with a good card given to the subscription, paid: active, and the ladder stops', async () => {
    const start = '2027-01-31T04:30:00.000Z';
    const { clock, customer, subscription } = await declining('dunned-pay@example.com', start);
    await advance(clock.id, '2027-02-28T05:00:00.000Z');
    const [, renewal] = await invoicesOf(subscription.id);
    assert.deepEqual([renewal.status, renewal.attemptCount, (await read(`/v1/subscriptions/${subscription.id}`)).status], ['open', 1, 'past_due']);

    const declined = await attempt(`/v1/invoices/${renewal.id}/pay`);
    assert.equal(declined.status, 200, declined.text);
    assert.deepEqual([declined.body.status, declined.body.attemptCount, declined.body.lastFailure !== null], ['open', 2, true]);

    const { card } = await payAndKeep(api, keys, { email: 'dunned-pay@example.com', expiry: '01/39' });
    await post(`/v1/subscriptions/${subscription.id}`, { cardId: card.id });
    const paid = await attempt(`/v1/invoices/${renewal.id}/pay`);
    assert.deepEqual([paid.body.status, paid.body.attemptCount, paid.body.nextAttemptAt], ['paid', 3, null]);
    assert.equal((await read(`/v1/subscriptions/${subscription.id}`)).status, 'active');
    assert.equal((await read(`/v1/customers/${customer.id}`)).defaultCardId, card.id);
    await advance(clock.id, at('2027-02-28T04:30:00.000Z', 15 * DAY));
    assert.deepEqual((await chargesOf(renewal.id)).map((c: any) => [c.invoice_attempt, c.status]), [[1, 'failed'], [2, 'failed'], [3, 'succeeded']], 'no retry after it was paid');
  });

  it('pay on wall time: the bank answers later; meanwhile invoice_payment_pending; the charge is seen to its outcome by a workflow of its own, which pays the invoice', async () => {
    const email = 'walltime@example.com';
    const customer = await post('/v1/customers', { email });
    await payAndKeep(api, keys, { email, expiry: '01/39' });
    const sub = await post('/v1/subscriptions', { customerId: customer.id, priceId: (await monthly()).id, collectionMethod: 'send_invoice' });
    const pending = await attempt(`/v1/invoices/${sub.latestInvoiceId}/pay`);
    assert.deepEqual([pending.status, pending.body.status, pending.body.attemptCount], [200, 'open', 0]);
    const busy = await attempt(`/v1/invoices/${sub.latestInvoiceId}/pay`);
    assert.deepEqual([busy.status, busy.body.reason], [409, 'invoice_payment_pending']);
    await api.clock.advance(BANK_ANSWERS_MS + api.clock.toleranceMs);
    await api.workflows.settle();
    const paid = await read(`/v1/invoices/${sub.latestInvoiceId}`);
    assert.deepEqual([paid.status, paid.attemptCount, paid.amountPaidCents], ['paid', 1, 150000]);
    assert.deepEqual((await chargesOf(sub.latestInvoiceId)).map((c: any) => c.status), ['succeeded']);
  });
});
