// The hosted invoice page in a real browser (playwright-core driving Debian's chromium), over real
// HTTP, with billing on test clocks through the API and the cents and times written out: a new
// subscription with no card paid at its checkoutUrl with the card kept (then renewed on it), a
// recovery from the dunning ladder on day 4 (and the page in Sinhala), and a paid invoice's page,
// which offers no Pay button, even to a tab opened before it was paid. Skipped, saying so, where
// no chromium is installed.
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import type { MerchantKeys } from '../../db/merchants';
import { invoicePagePath } from '../../domain/invoices';
import { say } from '../../api/pages/messages';
import { startApi, type TestApi } from '../support/api';
import { launchChromium } from '../support/chromium';
import { at, billingFlow, DAY } from '../invoices/billing-flow';

const MERCHANT = 'Lanka Tea House';
const MASTERCARD = '5123450000000008';

describe('hosted invoice page in a browser', function () {
  this.timeout(120_000);
  let api: TestApi;
  let keys: MerchantKeys;
  let browser: Browser;

  before(async function () {
    browser = await launchChromium(this);
    api = await startApi({ startAt: new Date('2027-01-15T04:30:00.000Z') });
    ({ keys } = await api.merchant({ name: MERCHANT, activate: true }));
  });
  after(async () => {
    await browser?.close();
    await api?.close();
  });

  const { post, read, advance, customerWithCard, monthly, invoicesOf, chargesOf, processorChargesOf, declining } = billingFlow(() => ({ api, keys }));

  const newPage = async (): Promise<Page> => (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
  const heading = (page: Page) => page.getByRole('heading', { level: 1 }).textContent();

  /**
   * On the invoice's page at `url` (open, in English): Pay this invoice, then on the checkout it
   * makes, Pay (the consent ticked when `keep`), the sandbox's card page and 3-D Secure, and back.
   */
  async function payOnInvoicePage(page: Page, url: string, invoice: { number: string }, expiry: string, keep: boolean) {
    const answer = await page.goto(url);
    assert.equal(answer?.status(), 200);
    assert.equal(await heading(page), `Invoice ${invoice.number} from ${MERCHANT}`);
    assert.ok(await page.getByText('Amount due: Rs. 1,500.00').isVisible());
    // The customer has a name, so their checkout asks only for the card: the hint says so.
    assert.ok(await page.getByText(say('en', 'invoiceHint')).isVisible());
    await page.getByRole('button', { name: 'Pay this invoice' }).click();
    await page.waitForURL(/\/checkout\/chk_[0-9a-z]{24}$/);
    const checkoutUrl = page.url();
    assert.equal(await page.getByLabel('Name').count(), 0, 'no details asked');
    const consent = page.getByLabel(/Save this card/);
    assert.equal(await consent.isChecked(), false, 'the consent is never ticked for the customer');
    if (keep) await consent.check();
    await page.getByRole('button', { name: 'Pay Rs. 1,500.00' }).click();
    await page.getByLabel('Card number').fill(MASTERCARD);
    await page.getByLabel('Expiry (MM/YY)').fill(expiry);
    await page.getByLabel('CVV').fill('100');
    await page.getByRole('button', { name: /^Pay/ }).click();
    await page.getByRole('button', { name: 'Authenticate', exact: true }).click();
    await page.waitForURL(checkoutUrl);
    assert.equal(await heading(page), 'Payment received');
    await api.workflows.settle();
  }

  /** The invoice's payment made on its page (not by an attempt of its collection). */
  const pagePaymentOf = async (invoiceId: string) => {
    const row = await api.knex('payments').where({ invoice_id: invoiceId }).whereNull('invoice_attempt').first('id');
    return read(`/v1/payments/${row.id}`);
  };

  it('no card: incomplete with checkoutUrl; paid there in the browser keeping the card (01/39), it is active, the card the default, and the renewal charged to it once', async () => {
    const start = '2027-02-01T04:30:00.000Z';
    const clock = await post('/v1/test_helpers/test_clocks', { frozenTime: start });
    const customer = await post('/v1/customers', { email: 'pays-in-browser@example.com', name: 'Nimal Perera', testClockId: clock.id });
    const subscription = await post('/v1/subscriptions', { customerId: customer.id, priceId: (await monthly()).id });
    await api.workflows.settle();
    const [first] = await invoicesOf(subscription.id);
    assert.deepEqual([subscription.status, subscription.checkoutUrl], ['incomplete', first.hostedInvoiceUrl]);
    assert.deepEqual([first.status, first.amountDueCents, first.attemptCount], ['open', 150000, 0]);

    const page = await newPage();
    await payOnInvoicePage(page, subscription.checkoutUrl, first, '01/39', true);

    const active = await read(`/v1/subscriptions/${subscription.id}`);
    assert.deepEqual([active.status, active.checkoutUrl, active.currentPeriodStart, active.currentPeriodEnd], ['active', null, start, '2027-03-01T04:30:00.000Z']);
    const paid = await read(`/v1/invoices/${first.id}`);
    assert.deepEqual([paid.status, paid.amountPaidCents, paid.paidAt, paid.nextAttemptAt], ['paid', 150000, start, null]);
    assert.deepEqual(await chargesOf(first.id), [], 'paid on its page: no charge without the customer');
    const payment = await pagePaymentOf(first.id);
    assert.deepEqual([payment.status, payment.amountCents, payment.description, payment.cardSave], ['succeeded', 150000, `Invoice ${first.number}`, 'saved']);
    const kept = await api.knex('saved_cards').where({ payment_id: payment.id }).first('id');
    const card = await read(`/v1/cards/${kept.id}`);
    assert.deepEqual([card.scheme, card.last4, card.expiry, card.customerEmail], ['mastercard', '0008', { month: 1, year: 2039 }, 'pays-in-browser@example.com']);
    assert.equal((await read(`/v1/customers/${customer.id}`)).defaultCardId, card.id);
    // The page now says it is paid, with no button.
    await page.goto(first.hostedInvoiceUrl);
    assert.equal(await heading(page), 'This invoice is paid');
    assert.equal(await page.getByRole('button').count(), 0);
    await page.context().close();

    await advance(clock.id, '2027-03-02T00:00:00.000Z');
    const [, renewal] = await invoicesOf(subscription.id);
    assert.deepEqual(
      [renewal.billingReason, renewal.periodStart, renewal.periodEnd, renewal.amountDueCents, renewal.amountPaidCents, renewal.status, renewal.attemptCount, renewal.paidAt],
      ['subscription_cycle', '2027-03-01T04:30:00.000Z', '2027-04-01T04:30:00.000Z', 150000, 150000, 'paid', 1, '2027-03-01T04:30:00.000Z'],
    );
    assert.deepEqual((await chargesOf(renewal.id)).map((c: any) => [c.invoice_attempt, c.status, Number(c.amount_cents)]), [[1, 'succeeded', 150000]]);
    assert.deepEqual((await processorChargesOf(renewal.id)).map((c: any) => [c.status, Number(c.amount_cents)]), [['approved', 150000]], 'one processor charge');
    const attempt = await api.knex('payments').where({ invoice_id: renewal.id, invoice_attempt: 1 }).first('id');
    const charged = await read(`/v1/payments/${attempt.id}`);
    assert.equal(charged.savedCardId, card.id, 'charged to the card kept on the page');
    assert.equal((await read(`/v1/subscriptions/${subscription.id}`)).status, 'active');

    // DESIGN.md "Test clocks": the payments and emails of a customer on a test clock carry the
    // clock's time (services/test-clocks/billing-now.ts paymentNow), not the service's (2027-01-15).
    const emails = await api.knex('emails').where({ to: 'pays-in-browser@example.com' }).orderBy('id').select('kind', 'created_at');
    assert.deepEqual(
      {
        pagePayment: [payment.createdAt, payment.succeededAt],
        renewalCharge: [charged.createdAt, charged.succeededAt],
        emails: emails.map((e: any) => [e.kind, e.created_at.toISOString()]),
      },
      {
        pagePayment: [start, start],
        renewalCharge: ['2027-03-01T04:30:00.000Z', '2027-03-01T04:30:00.000Z'],
        emails: [
          ['receipt', start],
          ['card_saved', start],
          ['receipt', '2027-03-01T04:30:00.000Z'],
        ],
      },
      'the payments and emails of a customer on a test clock carry the clock\'s time',
    );
  });

  it('a recovery on day 4: declined on the 07/39 card (renewal, days 1 and 3), the customer pays the page in the browser with 01/39; paid, active, and no retry on days 7 and 14', async () => {
    const { clock, subscription } = await declining('recovers-in-browser@example.com', '2027-03-05T04:30:00.000Z');
    const renewal = '2027-04-05T04:30:00.000Z';
    await advance(clock.id, at(renewal, 4 * DAY));
    const [, invoice] = await invoicesOf(subscription.id);
    assert.deepEqual([invoice.status, invoice.attemptCount, invoice.nextAttemptAt], ['open', 3, at(renewal, 7 * DAY)]);
    assert.deepEqual((await chargesOf(invoice.id)).map((c: any) => [c.invoice_attempt, c.status]), [[1, 'failed'], [2, 'failed'], [3, 'failed']]);
    const failed = await api.knex('events').where({ type: 'invoice.payment_failed' }).whereRaw("data->>'id' = ?", [invoice.id]).orderBy('id');
    assert.deepEqual(failed.map((e: any) => [e.data.attemptCount, e.data.nextAttemptAt]), [
      [1, at(renewal, 1 * DAY)],
      [2, at(renewal, 3 * DAY)],
      [3, at(renewal, 7 * DAY)],
    ]);
    assert.equal((await read(`/v1/subscriptions/${subscription.id}`)).status, 'past_due');

    // The page in Sinhala first: its heading and button in Sinhala.
    const sinhala = await newPage();
    await sinhala.goto(`${api.url}${invoicePagePath('si', invoice.id)}`);
    assert.equal(await sinhala.getAttribute('html', 'lang'), 'si');
    assert.equal(await heading(sinhala), say('si', 'invoiceTitle', { merchant: MERCHANT, number: invoice.number }));
    assert.ok(await sinhala.getByRole('button', { name: say('si', 'invoicePay') }).isVisible());
    await sinhala.context().close();

    const page = await newPage();
    await payOnInvoicePage(page, invoice.hostedInvoiceUrl, invoice, '01/39', false);
    const paid = await read(`/v1/invoices/${invoice.id}`);
    assert.deepEqual([paid.status, paid.amountPaidCents, paid.paidAt, paid.nextAttemptAt, paid.attemptCount], ['paid', 150000, at(renewal, 4 * DAY), null, 3]);
    assert.equal((await read(`/v1/subscriptions/${subscription.id}`)).status, 'active');
    const payment = await pagePaymentOf(invoice.id);
    assert.deepEqual([payment.status, payment.amountCents, payment.card], ['succeeded', 150000, { scheme: 'mastercard', last4: '0008' }]);
    await page.context().close();

    await advance(clock.id, at(renewal, 15 * DAY));
    assert.equal((await chargesOf(invoice.id)).length, 3, 'no retry on day 7 or 14 after the page paid it');
    assert.equal((await processorChargesOf(invoice.id)).length, 3);
    const after = await read(`/v1/invoices/${invoice.id}`);
    assert.deepEqual([after.status, after.attemptCount, after.nextAttemptAt], ['paid', 3, null]);
    assert.equal((await read(`/v1/subscriptions/${subscription.id}`)).status, 'active');
  });

  /** The button pressed on a page loaded earlier: the post's answer, once its page has loaded. */
  const press = async (page: Page, name: string) => {
    const [answer] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.waitForEvent('load'), page.getByRole('button', { name }).click()]);
    return answer;
  };

  it('a paid invoice\'s page says so, in English and Sinhala, with no Pay button; so does a tab opened before it was paid, when its button is pressed', async () => {
    const start = '2027-06-01T04:30:00.000Z';
    const { customer } = await customerWithCard('paid-page@example.com', start, '01/39');
    const subscription = await post('/v1/subscriptions', { customerId: customer.id, priceId: (await monthly()).id });
    await api.workflows.settle();
    const [invoice] = await invoicesOf(subscription.id);
    assert.deepEqual([invoice.status, invoice.paidAt], ['paid', start]);

    const page = await newPage();
    const answer = await page.goto(invoice.hostedInvoiceUrl);
    assert.equal(answer?.status(), 200);
    assert.equal(await heading(page), 'This invoice is paid');
    assert.ok(await page.getByText(`Thank you. ${MERCHANT} has received your payment.`).isVisible());
    assert.equal(await page.getByRole('button').count(), 0);
    assert.equal(await page.locator('form').count(), 0);
    await page.goto(`${api.url}${invoicePagePath('si', invoice.id)}`);
    assert.equal(await heading(page), say('si', 'invoicePaidTitle'));
    assert.equal(await page.getByRole('button').count(), 0);
    await page.context().close();

    // Open when two tabs load it (one of which then loses its cookie), paid in a third.
    const clock = await post('/v1/test_helpers/test_clocks', { frozenTime: start });
    const later = await post('/v1/customers', { email: 'stale-tab@example.com', name: 'Sita Fernando', testClockId: clock.id });
    const unpaid = await post('/v1/subscriptions', { customerId: later.id, priceId: (await monthly()).id });
    await api.workflows.settle();
    const [open] = await invoicesOf(unpaid.id);
    const stale = await newPage();
    const cookieless = await newPage();
    for (const tab of [stale, cookieless]) {
      await tab.goto(open.hostedInvoiceUrl);
      assert.equal(await heading(tab), `Invoice ${open.number} from ${MERCHANT}`);
    }
    await cookieless.context().clearCookies();
    const payer = await newPage();
    await payOnInvoicePage(payer, open.hostedInvoiceUrl, open, '01/39', false);
    assert.equal((await read(`/v1/invoices/${open.id}`)).status, 'paid');
    await payer.context().close();

    for (const tab of [stale, cookieless]) {
      const pressed = await press(tab, 'Pay this invoice');
      assert.equal(pressed.status(), 200, tab === stale ? 'the tab with its cookie' : 'the tab that lost its cookie');
      assert.equal(await heading(tab), 'This invoice is paid');
      assert.equal(await tab.getByRole('button').count(), 0);
      await tab.context().close();
    }
    assert.equal(await api.knex('payments').where({ invoice_id: open.id }).count('* as n').first().then((r: any) => Number(r.n)), 1, 'no checkout made after it was paid');
  });
});
