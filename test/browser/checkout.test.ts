// The hosted checkout in a real browser (playwright-core driving Debian's chromium), found by the
// accessible names DESIGN.md fixes. Skipped, saying so, where no chromium is installed.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { MESSAGES } from '../../api/pages/messages';
import { SANDBOX_MESSAGES } from '../../processor/sandbox/messages';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { startApi, ik, TEST_SECRET_KEY, type TestApi } from '../support/api';
import { launchChromium } from '../support/chromium';
import { startReceiver } from '../webhooks/receiver';
import { verifyWebhook } from '../../sdk/index';

describe('hosted checkout in a browser', function () {
  this.timeout(60_000);
  let api: TestApi;
  let browser: Browser;
  let shop: Server;
  let shopUrl: string;
  let keys: Awaited<ReturnType<TestApi['merchant']>>['keys'];
  let accountId: string;

  before(async function () {
    browser = await launchChromium(this);
    api = await startApi();
    ({ keys, accountId } = await api.merchant({ name: 'Lanka Tea House', activate: true }));
    // The merchant's shop, where successUrl and cancelUrl lead.
    shop = createServer((req, res) => res.end(`<!doctype html><title>Shop</title><h1>Shop: ${req.url}</h1>`));
    await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
    shopUrl = `http://localhost:${(shop.address() as AddressInfo).port}`;
  });
  after(async () => {
    await browser?.close();
    await api?.close();
    shop?.close();
  });

  const checkout = async (body: Record<string, unknown> = {}) =>
    (await api.request('/v1/checkouts', { key: keys.pk_test, idempotencyKey: ik(), body: { amountCents: 350000, description: 'Ceylon tea', ...body } })).body;

  const newPage = async (): Promise<Page> => (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();

  async function fillDetails(page: Page) {
    await page.getByLabel('Name').fill('Nimal Perera');
    await page.getByLabel('Email').fill('nimal@example.com');
    await page.getByLabel('Phone').fill('077 123 4567');
  }

  async function payWithCard(page: Page, card: { number: string; expiry: string; cvv: string }, threeDs: 'Authenticate' | 'Fail authentication' = 'Authenticate') {
    await page.getByLabel('Card number').fill(card.number);
    await page.getByLabel('Expiry (MM/YY)').fill(card.expiry);
    await page.getByLabel('CVV').fill(card.cvv);
    await page.getByRole('button', { name: /^Pay/ }).click();
    await page.getByRole('button', { name: threeDs, exact: true }).click();
  }

  it('a new user pays 5123450000000008, 01/39, CVV 100, passes 3-D Secure and lands on the success URL', async () => {
    const c = await checkout({ successUrl: `${shopUrl}/thanks`, cancelUrl: `${shopUrl}/cart` });
    const page = await newPage();
    await page.goto(c.url);
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Payment to Lanka Tea House');
    assert.ok(await page.getByText('Rs. 3,500.00').first().isVisible());
    assert.ok(await page.getByText('Test mode: no money moves.').isVisible());
    // Keyboard order: the details, then the pay button.
    await page.getByLabel('Name').focus();
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => (globalThis as any).document.activeElement?.id), 'email');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => (globalThis as any).document.activeElement?.id), 'phone');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => (globalThis as any).document.activeElement?.textContent), 'Pay Rs. 3,500.00');
    await fillDetails(page);
    await page.getByRole('button', { name: 'Pay Rs. 3,500.00' }).click();
    await payWithCard(page, { number: '5123450000000008', expiry: '01/39', cvv: '100' });
    await page.waitForURL(`${shopUrl}/thanks`);
    const payment = (await api.request(`/v1/payments/${c.payment.id}`, { key: keys.sk_test })).body;
    assert.equal(payment.status, 'succeeded');
    assert.deepEqual(payment.card, { scheme: 'mastercard', last4: '0008' });
    const event = await api.knex('events').where({ type: 'payment.succeeded' }).whereRaw("data->>'id' = ?", [payment.id]).first();
    assert.deepEqual(event.data, payment);
    await page.context().close();
  });

  it('a webhook endpoint added with `kasi webhook add` receives a correctly signed payment.succeeded within a second', async () => {
    const receiver = await startReceiver();
    try {
      const { stdout } = await promisify(execFile)(
        path.resolve(__dirname, '../../bin/kasi'),
        ['webhook', 'add', accountId, '--url', receiver.url, '--mode', 'test', '--json'],
        { env: { ...process.env, DATABASE_URL: api.databaseUrl, KASI_SECRET_KEY: TEST_SECRET_KEY } },
      );
      const endpoint = JSON.parse(stdout) as { id: string; secret: string };
      const c = await checkout({ successUrl: `${shopUrl}/thanks` });
      const page = await newPage();
      await page.goto(c.url);
      await fillDetails(page);
      await page.getByRole('button', { name: 'Pay Rs. 3,500.00' }).click();
      await payWithCard(page, { number: '5123450000000008', expiry: '01/39', cvv: '100' });
      await page.waitForURL(`${shopUrl}/thanks`);
      const [got] = await receiver.waitFor(1, 1000);
      const event = verifyWebhook<{ id: string; type: string; data: { id: string; status: string } }>(
        got!.body,
        String(got!.headers['service-signature']),
        endpoint.secret,
        { now: api.clock.now() },
      );
      assert.equal(event.type, 'payment.succeeded');
      assert.equal(event.data.id, c.payment.id);
      assert.equal(event.data.status, 'succeeded');
      assert.equal(got!.body, (await api.request(`/v1/events/${event.id}`, { key: keys.sk_test })).text);
      await page.context().close();
    } finally {
      await receiver.close();
    }
  });

  for (const [label, card, threeDs, text] of [
    ['declined (05/39)', { number: '4111111111111111', expiry: '05/39', cvv: '100' }, 'Authenticate', 'the card was declined by its bank.'],
    ['expired card (04/27)', { number: '378282246310005', expiry: '04/27', cvv: '1000' }, 'Authenticate', 'the card has expired.'],
    ['failed 3-D Secure', { number: '6011111111111117', expiry: '01/39', cvv: '100' }, 'Fail authentication', '3-D Secure authentication failed.'],
  ] as const) {
    it(`${label}: back on the checkout with the reason, free to try again`, async () => {
      const c = await checkout({ customer: { name: 'Sita', email: 'sita@example.com' } });
      const page = await newPage();
      await page.goto(c.url);
      await page.getByRole('button', { name: /^Pay/ }).click();
      await payWithCard(page, card, threeDs);
      await page.waitForURL(c.url);
      assert.equal(await page.getByRole('alert').textContent(), `The payment did not go through: ${text} You can try again or use another card.`);
      const payment = (await api.request(`/v1/payments/${c.payment.id}`, { key: keys.sk_test })).body;
      assert.equal(payment.status, 'failed');
      assert.ok(await page.getByRole('button', { name: /^Pay/ }).isVisible());
      await page.context().close();
    });
  }

  for (const locale of ['si', 'ta'] as const) {
    it(`the ${locale === 'si' ? 'Sinhala' : 'Tamil'} pages, through to the receipt`, async () => {
      const t = MESSAGES[locale];
      const s = SANDBOX_MESSAGES[locale];
      const c = await checkout({ locale, amountCents: undefined, description: undefined, lineItems: [{ name: 'Tea', unitAmountCents: 150000, quantity: 2 }, { name: 'Kavum', unitAmountCents: 50000, quantity: 1 }] });
      const page = await newPage();
      await page.goto(c.url);
      assert.equal(await page.getAttribute('html', 'lang'), locale);
      assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), t.payTo.replace('{merchant}', 'Lanka Tea House'));
      assert.ok(await page.getByRole('columnheader', { name: t.quantity }).isVisible());
      await page.getByLabel(t.name, { exact: true }).fill('Nimal Perera');
      await page.getByLabel(t.email, { exact: true }).fill('nimal@example.com');
      await page.getByRole('button', { name: t.pay.replace('{amount}', 'Rs. 3,500.00') }).click();
      await page.getByLabel(s.cardNumber).fill('5123450000000008');
      await page.getByLabel(s.expiry).fill('01/39');
      await page.getByLabel(s.cvv).fill('100');
      await page.getByRole('button', { name: new RegExp(`^${s.pay}`) }).click();
      await page.getByRole('button', { name: s.authenticate, exact: true }).click();
      await page.waitForURL(c.url);
      assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), t.paidTitle);
      // Every English string is gone from the page.
      const body = await page.locator('main').innerText();
      for (const english of ['Payment', 'Total', 'Quantity', 'Order summary', 'Thank you']) assert.ok(!body.includes(english), english);
      await page.context().close();
    });
  }

  it('the customer form is validated, and a card number typed into it is refused and not stored', async () => {
    const c = await checkout({ saveCard: true, cancelUrl: `${shopUrl}/cart` });
    const page = await newPage();
    await page.goto(c.url);
    await page.getByLabel('Name').fill('N');
    await page.getByLabel('Email').fill('not-an-email');
    await page.getByRole('button', { name: /^Pay/ }).click();
    assert.equal(await page.getByRole('alert').textContent(), 'Please check your details.');
    assert.equal(await page.getByLabel('Name').getAttribute('aria-invalid'), 'true');
    assert.ok(await page.getByText('Enter an email address such as name@example.com.').isVisible());
    await page.getByLabel('Name').fill('5123 4500 0000 0008');
    await page.getByLabel('Email').fill('nimal@example.com');
    await page.getByRole('button', { name: /^Pay/ }).click();
    assert.match(await page.getByRole('alert').textContent() ?? '', /^That looks like a card number/);
    assert.equal(await page.getByLabel('Name').inputValue(), '', 'the number is not written back into the page');
    assert.ok(!(await page.content()).replace(/\s/g, '').includes('5123450000000008'));
    const stored = (await api.request(`/v1/payments/${c.payment.id}`, { key: keys.sk_test })).body;
    assert.equal(stored.customer, null);
    assert.equal(stored.status, 'requires_payment_method');
    // The consent, and the way back to the shop.
    const consent = page.getByRole('checkbox', { name: /Save this card/ });
    assert.equal(await consent.isChecked(), false);
    await page.getByRole('link', { name: 'Cancel and return to Lanka Tea House' }).click();
    await page.waitForURL(`${shopUrl}/cart`);
    await page.context().close();
  });

  it('keeps the card-keeping consent when given', async () => {
    const c = await checkout({ saveCard: true, customer: { name: 'Sita', email: 'sita@example.com' } });
    const page = await newPage();
    await page.goto(c.url);
    await page.getByRole('checkbox', { name: /Save this card/ }).check();
    await page.getByRole('button', { name: /^Pay/ }).click();
    await payWithCard(page, { number: '4012888888881881', expiry: '01/39', cvv: '100' });
    await page.waitForURL(c.url);
    const payment = (await api.request(`/v1/payments/${c.payment.id}`, { key: keys.sk_test })).body;
    assert.equal(payment.status, 'succeeded');
    // The consent given, the card is kept once the payment has succeeded (test/browser/saved-card.test.ts).
    assert.equal(payment.cardSave, 'saved');
    await page.context().close();
  });

  it('a second payment on a paid checkout is refused (not_open)', async () => {
    const c = await checkout({ customer: { name: 'Sita', email: 'sita@example.com' } });
    const first = await newPage();
    const second = await newPage();
    await first.goto(c.url);
    await second.goto(c.url);
    await first.getByRole('button', { name: /^Pay/ }).click();
    await payWithCard(first, { number: '36227206271667', expiry: '01/39', cvv: '100' });
    await first.waitForURL(c.url);
    assert.equal(await first.getByRole('heading', { level: 1 }).textContent(), 'Payment received');
    const answer = second.waitForResponse((r) => r.url().endsWith('/pay'));
    await second.getByRole('button', { name: /^Pay/ }).click();
    assert.equal((await answer).status(), 409);
    assert.equal(await second.getByRole('heading', { level: 1 }).getAttribute('data-reason'), 'not_open');
    assert.equal(await second.getByRole('heading', { level: 1 }).textContent(), 'This checkout cannot be paid again');
    await first.context().close();
    await second.context().close();
  });

  it('renders Sinhala and Tamil pages in the served Noto fonts, not empty boxes', async () => {
    const c = await checkout();
    const path = new URL(c.url).pathname;
    for (const [locale, family] of [['si', 'Noto Sans Sinhala'], ['ta', 'Noto Sans Tamil']] as const) {
      const page = await newPage();
      await page.goto(`${api.url}/${locale}${path}`);
      // The face loads once text needs it (font-display: swap); wait for that load, then read.
      await page.waitForFunction((f) => [...(globalThis as any).document.fonts].some((face: any) => face.family === f && face.status === 'loaded'), family, { timeout: 5000 });
      // What the renderer drew the heading with (DevTools' "Rendered fonts"): a web font of that family.
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('DOM.enable');
      await cdp.send('CSS.enable');
      const { root } = await cdp.send('DOM.getDocument');
      const { nodeId } = await cdp.send('DOM.querySelector', { nodeId: root.nodeId, selector: 'h1' });
      const { fonts } = await cdp.send('CSS.getPlatformFontsForNode', { nodeId });
      const web = fonts.filter((f) => f.isCustomFont).map((f) => f.familyName);
      assert.ok(web.includes(family), `${locale}: rendered with ${JSON.stringify(fonts)}`);
      const font = await page.request.get(`${api.url}/assets/fonts/${family.toLowerCase().replaceAll(' ', '-')}-${locale === 'si' ? 'sinhala' : 'tamil'}-400-normal.woff2`);
      assert.equal(font.status(), 200);
      assert.equal(font.headers()['content-type'], 'font/woff2');
      await page.context().close();
    }
    assert.equal((await fetch(`${api.url}/assets/fonts/secret.key`)).status, 404, 'only the declared font files are served');
  });

  it('another site cannot frame the checkout, and the page runs under its CSP with no violation', async () => {
    const c = await checkout();
    const page = await newPage();
    const violations: string[] = [];
    page.on('console', (m) => {
      if (/Content.Security.Policy|Refused to/i.test(m.text())) violations.push(m.text());
    });
    await page.goto(c.url);
    // The stylesheet is a file of its own and applies (an inline <style> would be refused).
    assert.equal(await page.getByRole('button', { name: /^Pay/ }).evaluate((b) => (globalThis as any).getComputedStyle(b).backgroundColor), 'rgb(11, 87, 208)');
    assert.deepEqual(violations, []);
    // The shop (another origin: localhost, not 127.0.0.1) puts the checkout in an iframe.
    const framing = await newPage();
    await framing.goto(`${shopUrl}/frame`);
    await framing.evaluate((url) => {
      const d = (globalThis as any).document;
      const frame = d.createElement('iframe');
      frame.src = url;
      d.body.appendChild(frame);
      // A refused frame still fires load (on the browser's error page).
      return new Promise((resolve) => frame.addEventListener('load', resolve));
    }, c.url);
    const frame = framing.frames().find((f) => f !== framing.mainFrame());
    assert.ok(frame, 'the iframe is there');
    assert.notEqual(frame.url(), c.url, 'the checkout did not load in the frame');
    assert.equal(await frame.getByRole('button', { name: /^Pay/ }).count(), 0);
    await page.context().close();
    await framing.context().close();
  });
});
