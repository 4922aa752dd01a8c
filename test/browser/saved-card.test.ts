// Keeping a card in a real browser (playwright-core driving Debian's chromium), found by the
// accessible names DESIGN.md fixes ("Save this card" ticked on the checkout), then charging it from
// the API without the customer. Skipped, saying so, where no chromium is installed.
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startApi, ik, type TestApi } from '../support/api';
import { launchChromium } from '../support/chromium';

describe('saved card in a browser', function () {
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

  async function payKeepingTheCard(page: Page, expiry: string, email: string): Promise<any> {
    const checkout = (await api.request('/v1/checkouts', { key: keys.sk_test, idempotencyKey: ik(), body: { amountCents: 350000, description: 'Tea club, first month', saveCard: true } })).body;
    await page.goto(checkout.url);
    await page.getByLabel('Name').fill('Nimal Perera');
    await page.getByLabel('Email').fill(email);
    const consent = page.getByLabel(/Save this card/);
    assert.equal(await consent.isChecked(), false, 'the consent is never ticked for the customer');
    await consent.check();
    await page.getByRole('button', { name: 'Pay Rs. 3,500.00' }).click();
    await page.getByLabel('Card number').fill('4111111111111111');
    await page.getByLabel('Expiry (MM/YY)').fill(expiry);
    await page.getByLabel('CVV').fill('100');
    await page.getByRole('button', { name: /^Pay/ }).click();
    await page.getByRole('button', { name: 'Authenticate', exact: true }).click();
    await page.waitForURL(checkout.url);
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Payment received');
    await api.workflows.settle();
    return (await api.request(`/v1/payments/${checkout.payment.id}`, { key: keys.sk_test })).body;
  }

  it('a customer ticks "Save this card" and pays; the merchant charges the card later from the API', async () => {
    const page = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
    const paid = await payKeepingTheCard(page, '01/39', 'nimal@example.com');
    assert.equal(paid.cardSave, 'saved');
    const cards = (await api.request('/v1/cards?customerEmail=nimal%40example.com', { key: keys.sk_test })).body.data;
    assert.equal(cards.length, 1);
    const [card] = cards;
    assert.deepEqual([card.scheme, card.last4, card.expiry, card.paymentId], ['visa', '1111', { month: 1, year: 2039 }, paid.id]);
    assert.equal(card.consent.wording, 'Save this card so that Lanka Tea House can charge it for future payments');
    const made = await api.request(`/v1/cards/${card.id}/charge`, { key: keys.sk_test, idempotencyKey: ik(), body: { amountCents: 350000, description: 'Tea club, second month' } });
    assert.equal(made.status, 201);
    assert.equal(made.body.status, 'processing');
    await api.clock.advance(5_000);
    await api.workflows.settle();
    const charged = (await api.request(`/v1/payments/${made.body.id}`, { key: keys.sk_test })).body;
    assert.equal(charged.status, 'succeeded');
    assert.equal(charged.savedCardId, card.id);
    assert.equal(charged.checkoutId, null);
    assert.deepEqual(charged.card, { scheme: 'visa', last4: '1111' });
    await page.context().close();
  });

  it('07/39 is approved with the customer on the page, and declined when charged without them', async () => {
    const page = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
    const paid = await payKeepingTheCard(page, '07/39', 'sita@example.com');
    assert.equal(paid.status, 'succeeded');
    const [card] = (await api.request('/v1/cards?customerEmail=sita%40example.com', { key: keys.sk_test })).body.data;
    const made = await api.request(`/v1/cards/${card.id}/charge`, { key: keys.sk_test, idempotencyKey: ik(), body: { amountCents: 350000, description: 'Tea club, second month' } });
    await api.clock.advance(5_000);
    await api.workflows.settle();
    const charged = (await api.request(`/v1/payments/${made.body.id}`, { key: keys.sk_test })).body;
    assert.equal(charged.status, 'failed');
    assert.equal(charged.failureMessage, 'The card was declined by its bank.');
    await page.context().close();
  });
});
