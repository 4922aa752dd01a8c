// One invoice, one payment, and no charge left behind (docs/reference/invoices.md), over HTTP as a merchant
// and a customer drive them (no browser): the page hands out one checkout at a time, Pay on a
// checkout of an invoice closed since is refused with the card not charged, money the processor
// approves for an invoice closed meanwhile is refunded with its events, void and mark
// uncollectible wait for a charge with the processor, that charge is settled (and refunded) even
// after the invoice's subscription is canceled, the restart resumer asks about it, two pays at
// once make one charge, and a paid invoice's page is its receipt.
import assert from 'node:assert/strict';
import { say } from '../../api/pages/messages';
import type { MerchantKeys } from '../../db/merchants';
import type { ApiError } from '../../domain/errors';
import { payCheckout } from '../../services/checkouts/pay';
import { findCheckout } from '../../db/checkouts';
import { invoicePagePath } from '../../domain/invoices';
import { formatDate } from '../../views/emails/render';
import { escapeHtml } from '../../web/html';
import { createResumers } from '../../workers/resumers';
import { nextSubscriptionStep, type SubscriptionDue } from '../../domain/subscription-rules';
import { stepSubscriptions } from '../../services/subscriptions/step';
import { ik, startApiWithMerchant, type TestApi } from '../support/api';
import { assertMoneyInvariants } from '../support/money-invariants';
import { payAndKeep, serviceDeps } from '../cards/card-flow';
import { absolute, enterCard, get, postPay } from '../checkouts/hosted-flow';
import { pressContinue } from '../payment-links/link-flow';
import { billingFlow } from './billing-flow';

/** The sandbox's bank answers a charge made on wall time this long after it is made. */
const BANK_ANSWERS_MS = 5_000;
const CARD = { number: '5123450000000008', expiry: '01/39', cvv: '100' };

describe('invoices: one invoice, one payment; no charge left behind', function () {
  this.timeout(120_000);
  let api: TestApi;
  let keys: MerchantKeys;
  before(async () => ({ api, keys } = await startApiWithMerchant({ startAt: new Date('2027-01-15T04:30:00.000Z') })));
  after(() => api.close());
  const { post, read, monthly, customerWithCard, invoicesOf } = billingFlow(() => ({ api, keys }));
  const attempt = (path: string) => api.request(path, { key: keys.sk_test, body: {}, idempotencyKey: ik() });
  const reason = async (res: Promise<{ status: number; body: any }>) => {
    const { status, body } = await res;
    return [status, body.reason ?? body.code];
  };

  /** A new subscription of a customer with no card (on a clock): its first invoice, open, to be paid on its page. */
  const openOnPage = async (email: string) => {
    const clock = await post('/v1/test_helpers/test_clocks', { frozenTime: '2027-01-15T04:30:00.000Z' });
    const customer = await post('/v1/customers', { email, name: 'Nimal Perera', testClockId: clock.id });
    const subscription = await post('/v1/subscriptions', { customerId: customer.id, priceId: (await monthly()).id });
    await api.workflows.settle();
    const [invoice] = await invoicesOf(subscription.id);
    assert.equal(invoice.status, 'open');
    return { subscription, invoice };
  };

  /** The button on the invoice's page pressed: the checkout it sends the customer to. */
  const pressPay = async (invoice: { hostedInvoiceUrl: string }) => {
    const pressed = await pressContinue(invoice.hostedInvoiceUrl);
    assert.equal(pressed.status, 303, pressed.text);
    return absolute(api, pressed.location!);
  };

  /** The card entered at the processor and 3-D Secure passed, for the session Pay sent the customer to; back on the checkout. */
  const finishAtProcessor = async (sessionLocation: string) => {
    await get(await enterCard(api, sessionLocation, CARD));
    await api.workflows.settle();
  };

  /** A subscription sent to a customer on wall time with a card kept (the bank answers charges 5 s later): its invoice's id. */
  const sentWithCard = async (email: string) => {
    const customer = await post('/v1/customers', { email });
    await payAndKeep(api, keys, { email, expiry: '01/39' });
    const sub = await post('/v1/subscriptions', { customerId: customer.id, priceId: (await monthly()).id, collectionMethod: 'send_invoice' });
    return { sub, invoiceId: sub.latestInvoiceId as string };
  };

  const paymentsOf = (invoiceId: string) => api.knex('payments').where({ invoice_id: invoiceId }).orderBy('created_at').select('id', 'status', 'amount_cents', 'refunded_cents', 'invoice_attempt');

  it('the page says what the checkout it opens asks next: only the card for a named customer, their details first for one with no name', async () => {
    for (const name of ['Nimal Perera', undefined]) {
      const clock = await post('/v1/test_helpers/test_clocks', { frozenTime: '2027-01-15T04:30:00.000Z' });
      const customer = await post('/v1/customers', { email: `hint-${name === undefined ? 'unnamed' : 'named'}@example.com`, ...(name === undefined ? {} : { name }), testClockId: clock.id });
      const subscription = await post('/v1/subscriptions', { customerId: customer.id, priceId: (await monthly()).id });
      await api.workflows.settle();
      const [invoice] = await invoicesOf(subscription.id);
      const page = await get(invoice.hostedInvoiceUrl);
      assert.ok(page.text.includes(escapeHtml(say('en', name === undefined ? 'linkHint' : 'invoiceHint'))), `${name ?? 'no name'}: ${page.text}`);
      const checkout = await get(await pressPay(invoice));
      assert.equal(/<input type="text" id="name"/.test(checkout.text), name === undefined, `${name ?? 'no name'}: the checkout asks for details only then`);
    }
  });

  it('pressing Pay twice sends the customer to the same checkout; Pay on it after the invoice was voided is refused, the card not charged', async () => {
    const { invoice } = await openOnPage('twice@example.com');
    const first = await pressPay(invoice);
    const second = await pressPay(invoice);
    assert.equal(second, first, 'one checkout of the invoice at a time');
    assert.equal((await paymentsOf(invoice.id)).length, 1);

    assert.equal((await attempt(`/v1/invoices/${invoice.id}/void`)).status, 200);
    const shown = await get(first);
    assert.equal(shown.status, 409, 'the checkout\'s page says the invoice cannot be paid');
    assert.match(shown.text, /data-reason="invoice_not_open"/);
    const refused = await postPay(first, {});
    assert.equal(refused.status, 409, refused.text);
    assert.match(refused.text, /data-reason="invoice_not_open"/);
    assert.match(refused.text, new RegExp(say('en', 'invoiceClosedTitle')));
    // A page read before the void, pressed after it: the service checks the invoice under its lock.
    const checkoutId = new URL(first).pathname.split('/').pop()!;
    const pay = payCheckout(serviceDeps(api), { checkoutId, customer: null, cardConsent: null, locale: 'en', merchantName: 'Lanka Tea House', returnUrl: () => api.url }, (await findCheckout(api.knex, checkoutId))!);
    await assert.rejects(pay, (err: ApiError) => err.reason === 'invoice_not_open');
    const [payment] = await paymentsOf(invoice.id);
    assert.equal(payment.status, 'requires_payment_method', 'no attempt made');
    assert.equal(Number((await api.knex('sandbox_sessions').where('reference', 'like', `${payment.id}.%`).count({ n: '*' }))[0]!.n), 0, 'the processor was never asked');
  });

  it('money the processor approves for an invoice closed meanwhile (its subscription canceled while the customer was at the processor) is refunded automatically, with its events', async () => {
    const { subscription, invoice } = await openOnPage('late-money@example.com');
    const pay = await postPay(await pressPay(invoice), {});
    assert.equal(pay.status, 303, pay.text);
    await api.workflows.settle();
    await post(`/v1/subscriptions/${subscription.id}/cancel`);
    assert.equal((await read(`/v1/invoices/${invoice.id}`)).status, 'void');

    await finishAtProcessor(pay.location!);
    await api.clock.advance(60_000);
    await api.workflows.settle();
    const [payment] = await paymentsOf(invoice.id);
    assert.deepEqual([payment.status, Number(payment.refunded_cents)], ['refunded', 150000], 'never kept');
    const refunds = await api.knex('refunds').where({ payment_id: payment.id }).select('id', 'status', 'amount_cents', 'reason');
    assert.deepEqual(refunds.map((r: any) => [r.status, Number(r.amount_cents)]), [['succeeded', 150000]]);
    assert.match(refunds[0].reason, /void/);
    const events = await api.knex('events').where('type', 'like', 'refund.%').whereRaw("data->>'id' = ?", [refunds[0].id]).pluck('type');
    assert.deepEqual(events, ['refund.succeeded']);
    assert.equal((await read(`/v1/invoices/${invoice.id}`)).status, 'void');
    await assertMoneyInvariants(api.knex, api.clock.now());
  });

  it('a charge with the processor: void and mark uncollectible answer 409 invoice_payment_pending, so does the page; a cancel voids, and the charge is still settled, resumed at a restart, and refunded', async () => {
    const { sub, invoiceId } = await sentWithCard('in-flight@example.com');
    const pending = await attempt(`/v1/invoices/${invoiceId}/pay`);
    assert.deepEqual([pending.status, pending.body.status], [200, 'open']);

    assert.deepEqual(await reason(attempt(`/v1/invoices/${invoiceId}/void`)), [409, 'invoice_payment_pending']);
    assert.deepEqual(await reason(attempt(`/v1/invoices/${invoiceId}/mark_uncollectible`)), [409, 'invoice_payment_pending']);
    const page = await pressContinue((await read(`/v1/invoices/${invoiceId}`)).hostedInvoiceUrl);
    assert.equal(page.status, 409);
    assert.match(page.text, /data-reason="invoice_payment_pending"/);

    await post(`/v1/subscriptions/${sub.id}/cancel`);
    assert.equal((await read(`/v1/invoices/${invoiceId}`)).status, 'void');
    const starts = (await Promise.all(createResumers({ db: api.knex, clock: api.clock }).map((resume) => resume()))).flat();
    assert.ok(starts.some((s) => s.workflowId === `invoice-payment/${invoiceId}/1`), 'a restart asks about the charge of the voided invoice');

    await api.clock.advance(BANK_ANSWERS_MS + api.clock.toleranceMs);
    await api.workflows.settle();
    await api.clock.advance(60_000);
    await api.workflows.settle();
    const [charge] = await paymentsOf(invoiceId);
    assert.deepEqual([charge.invoice_attempt, charge.status, Number(charge.refunded_cents)], [1, 'refunded', 150000], 'settled, and refunded: the invoice was void');
    assert.equal((await read(`/v1/invoices/${invoiceId}`)).status, 'void');
    await assertMoneyInvariants(api.knex, api.clock.now());
  });

  it('a charge decided but not applied to its invoice when the process stopped: the restart applies it (paid by it, once)', async () => {
    const { invoiceId } = await sentWithCard('decided-not-applied@example.com');
    assert.equal((await attempt(`/v1/invoices/${invoiceId}/pay`)).status, 200);
    await api.clock.advance(BANK_ANSWERS_MS + api.clock.toleranceMs);
    await api.workflows.settle();
    const [charge] = await paymentsOf(invoiceId);
    assert.equal((await read(`/v1/invoices/${invoiceId}`)).status, 'paid');
    // The process stopped after the charge's outcome was recorded and before it was applied: the
    // invoice as it was then.
    await api.knex('invoices').where({ id: invoiceId }).update({ status: 'open', attempt_count: 0, paid_at: null, amount_paid_cents: 0, paid_payment_id: null });
    const starts = (await Promise.all(createResumers({ db: api.knex, clock: api.clock }).map((resume) => resume()))).flat();
    const resumed = starts.filter((s) => s.workflowId === `invoice-payment/${invoiceId}/1`);
    assert.equal(resumed.length, 1, 'a restart sees the attempt to its end');
    for (const start of resumed) await api.service.orchestration.port.start({ ...start, workflowId: `${start.workflowId}/again` });
    await api.workflows.settle();
    const paid = await read(`/v1/invoices/${invoiceId}`);
    assert.deepEqual([paid.status, paid.amountPaidCents, paid.attemptCount], ['paid', 150000, 1]);
    assert.deepEqual((await paymentsOf(invoiceId)).map((p) => [p.id, p.status]), [[charge.id, 'succeeded']], 'no second charge');
    await assertMoneyInvariants(api.knex, api.clock.now());
  });

  it('a cancel waits for a payment of its invoice being applied (the invoice locked, then its subscription), and neither deadlocks', async () => {
    const { subscription, invoice } = await openOnPage('no-deadlock@example.com');
    // What applying a payment's outcome does: the invoice locked, then (a moment later) its subscription.
    const applying = await api.knex.transaction();
    await applying.raw('select id from invoices where id = ? for update', [invoice.id]);
    const cancel = attempt(`/v1/subscriptions/${subscription.id}/cancel`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await applying.raw('select id from subscriptions where id = ? for update', [subscription.id]);
    await applying.commit();
    assert.equal((await cancel).status, 200);
    assert.equal((await read(`/v1/invoices/${invoice.id}`)).status, 'void');
  });

  it('the 23-hour expiry of an incomplete subscription waits for a payment of its first invoice being applied, and neither deadlocks', async () => {
    const { subscription, invoice } = await openOnPage('expiry-no-deadlock@example.com');
    const row = await api.knex('subscriptions').where({ id: subscription.id }).first();
    const due = nextSubscriptionStep(row);
    assert.equal(due.kind, 'expire_incomplete');
    // What applying a payment's outcome does: the invoice locked, then (a moment later) its subscription.
    const applying = await api.knex.transaction();
    await applying.raw('select id from invoices where id = ? for update', [invoice.id]);
    const expiring = stepSubscriptions(serviceDeps(api), [{ subscriptionId: subscription.id, due: due as SubscriptionDue }]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await applying.raw('select id from subscriptions where id = ? for update', [subscription.id]);
    await applying.commit();
    await expiring;
    assert.deepEqual([(await read(`/v1/subscriptions/${subscription.id}`)).status, (await read(`/v1/invoices/${invoice.id}`)).status], ['incomplete_expired', 'void']);
  });

  it('two pays at once: one charges, the other answers 409 invoice_payment_pending', async () => {
    const { invoiceId } = await sentWithCard('two-pays@example.com');
    const answers = await Promise.all([1, 2].map(() => reason(attempt(`/v1/invoices/${invoiceId}/pay`))));
    assert.deepEqual(answers.map(([status, why]) => (status === 200 ? '200' : `${status} ${why}`)).sort(), ['200', '409 invoice_payment_pending']);
    assert.equal((await paymentsOf(invoiceId)).length, 1, 'one charge');
    await api.clock.advance(BANK_ANSWERS_MS + api.clock.toleranceMs);
    await api.workflows.settle();
    assert.equal((await read(`/v1/invoices/${invoiceId}`)).status, 'paid');
  });

  it('a paid invoice\'s page is its receipt: number, lines, amount, date paid, card brand and last four, in each language', async () => {
    const start = '2027-01-15T04:30:00.000Z';
    const { customer } = await customerWithCard('receipt@example.com', start, '01/39');
    const subscription = await post('/v1/subscriptions', { customerId: customer.id, priceId: (await monthly()).id });
    await api.workflows.settle();
    const [invoice] = await invoicesOf(subscription.id);
    assert.deepEqual([invoice.status, invoice.paidAt], ['paid', start]);
    for (const locale of ['en', 'si', 'ta'] as const) {
      const page = await get(`${api.url}${invoicePagePath(locale, invoice.id)}`);
      assert.equal(page.status, 200, page.text);
      const shows = (text: string) => assert.ok(page.text.includes(escapeHtml(text)), `${locale}: ${text}`);
      for (const text of [say(locale, 'invoicePaidTitle'), invoice.number, invoice.lines[0].description, say(locale, 'paidCard', { scheme: 'Mastercard', last4: '0008' })]) shows(text);
      shows(say(locale, 'invoiceAmountPaid', { amount: 'Rs. 1,500.00' }));
      shows(say(locale, 'invoicePaidOn', { date: formatDate(locale, new Date(start)) }));
      assert.doesNotMatch(page.text, /<form/);
    }
  });
});
