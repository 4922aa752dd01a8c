// A payment link paid twice, by two browsers (two chromium contexts: two cookie jars, two payers),
// through the link's page, each payer's own checkout, the sandbox's card page and 3-D Secure.
// Skipped, saying so, where no chromium is installed.
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { MESSAGES } from '../../api/pages/messages';
import { SANDBOX_MESSAGES } from '../../processor/sandbox/messages';
import { startApi, ik, type TestApi } from '../support/api';
import { launchChromium } from '../support/chromium';

describe('payment link in a browser', function () {
  this.timeout(60_000);
  let api: TestApi;
  let browser: Browser;
  let keys: Awaited<ReturnType<TestApi['merchant']>>['keys'];

  before(async function () {
    browser = await launchChromium(this);
    api = await startApi();
    ({ keys } = await api.merchant({ name: 'Lanka Tea House', activate: true }));
  });
  after(async () => {
    await browser?.close();
    await api?.close();
  });

  const newPage = async (): Promise<Page> => (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();

  /** One payer: the link's page, Continue, their details on their checkout, the card, 3-D Secure. */
  async function pay(page: Page, linkUrl: string, payer: { name: string; email: string }, card: string) {
    await page.goto(linkUrl);
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Payment to Lanka Tea House');
    assert.ok(await page.getByText('Rs. 1,500.00').first().isVisible());
    await page.getByRole('button', { name: 'Continue to payment' }).click();
    await page.waitForURL(/\/checkout\/chk_[0-9a-z]{24}$/);
    const checkoutUrl = page.url();
    await page.getByLabel('Name').fill(payer.name);
    await page.getByLabel('Email').fill(payer.email);
    await page.getByRole('button', { name: 'Pay Rs. 1,500.00' }).click();
    await page.getByLabel('Card number').fill(card);
    await page.getByLabel('Expiry (MM/YY)').fill('01/39');
    await page.getByLabel('CVV').fill('100');
    await page.getByRole('button', { name: /^Pay/ }).click();
    await page.getByRole('button', { name: 'Authenticate', exact: true }).click();
    await page.waitForURL(checkoutUrl);
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Payment received');
    return checkoutUrl;
  }

  it('two browsers pay one link: two checkouts, two payments, each with paymentLinkId; the link took 2', async () => {
    const link = (await api.request('/v1/payment_links', {
      key: keys.sk_test,
      idempotencyKey: ik(),
      body: { lineItems: [{ name: 'Ceylon tea', unitAmountCents: 50000, quantity: 3 }], reference: 'tea-stall' },
    })).body;
    const first = await newPage();
    const second = await newPage();
    // Both payers open the link before either pays, as two people sent the same link would.
    const paid = await Promise.all([
      pay(first, link.url, { name: 'Nimal Perera', email: 'nimal@example.com' }, '5123450000000008'),
      pay(second, link.url, { name: 'Sita Fernando', email: 'sita@example.com' }, '4111111111111111'),
    ]);
    assert.notEqual(paid[0], paid[1], 'a checkout each');
    const payments = (await api.request('/v1/payments', { key: keys.sk_test })).body.data;
    assert.equal(payments.length, 2);
    const byEmail = Object.fromEntries(payments.map((p: any) => [p.customer.email, p]));
    for (const [email, scheme, last4] of [['nimal@example.com', 'mastercard', '0008'], ['sita@example.com', 'visa', '1111']] as const) {
      const p = byEmail[email];
      assert.deepEqual(
        [p.status, p.paymentLinkId, p.amountCents, p.description, p.reference, p.card, p.feeCents, p.netCents],
        // starter: 3.30 % of 150000 cents is 4950.
        ['succeeded', link.id, 150000, '3 × Ceylon tea', 'tea-stall', { scheme, last4 }, 4950, 145050],
      );
    }
    const listed = (await api.request('/v1/payment_links', { key: keys.sk_test })).body.data;
    assert.deepEqual(listed.map((l: any) => [l.id, l.paymentCount]), [[link.id, 2]]);
    await first.context().close();
    await second.context().close();
  });

  it('in Sinhala, and turned off: the page says so in Sinhala with reason link_inactive', async () => {
    const t = MESSAGES.si;
    const link = (await api.request('/v1/payment_links', { key: keys.sk_test, idempotencyKey: ik(), body: { amountCents: 150000, description: 'Tea', locale: 'si' } })).body;
    const page = await newPage();
    await page.goto(link.url);
    assert.equal(await page.getAttribute('html', 'lang'), 'si');
    await page.getByRole('button', { name: t.linkContinue }).click();
    await page.waitForURL(/\/si\/checkout\/chk_[0-9a-z]{24}$/);
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), t.payTo.replace('{merchant}', 'Lanka Tea House'));
    await page.getByLabel(t.name, { exact: true }).fill('Nimal Perera');
    await page.getByLabel(t.email, { exact: true }).fill('nimal@example.com');
    await page.getByRole('button', { name: t.pay.replace('{amount}', 'Rs. 1,500.00') }).click();
    assert.ok(await page.getByLabel(SANDBOX_MESSAGES.si.cardNumber).isVisible(), 'on the processor\'s page, in Sinhala');

    assert.equal((await api.request(`/v1/payment_links/${link.id}`, { method: 'DELETE', key: keys.sk_test })).body.active, false);
    const answer = await page.goto(link.url);
    assert.equal(answer?.status(), 409);
    const heading = page.getByRole('heading', { level: 1 });
    assert.equal(await heading.getAttribute('data-reason'), 'link_inactive');
    assert.equal(await heading.textContent(), t.linkInactiveTitle);
    await page.context().close();
  });
});
