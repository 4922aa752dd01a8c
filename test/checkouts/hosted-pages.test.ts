// The hosted checkout pages over plain HTTP: what a shopper (or anyone else) can do to them.
import assert from 'node:assert/strict';
import { startApi, startApiWithMerchant, ik, type TestApi } from '../support/api';
import type { MerchantKeys } from '../../db/merchants';
import { absolute, get, postForm, postPay } from './hosted-flow';
import { payerCheckout } from '../payment-links/link-flow';
import { updateAccount } from '../../db/accounts';
import { OUTCOME_POLL_MS } from '../../domain/checkout-rules';
import { say } from '../../api/pages/messages';
import { escapeHtml } from '../../web/html';

const DETAILS = { name: 'Nimal Perera', email: 'nimal@example.com', phone: '077 123 4567' };
const APPROVED = { number: '5123450000000008', expiry: '01/39', cvv: '100' };

describe('hosted checkout pages', () => {
  let api: TestApi;
  let keys: MerchantKeys;

  before(async () => ({ api, keys } = await startApiWithMerchant()));
  after(() => api.close());

  const open = async () => (await api.request('/v1/checkouts', { key: keys.sk_test, idempotencyKey: ik(), body: { amountCents: 350000, description: 'Tea' } })).body;

  it('Pay pressed again while the attempt is with the processor resumes the same processor session', async () => {
    const c = await open();
    const first = await postPay(c.url, DETAILS);
    assert.equal(first.status, 303);
    // Pay told the workflow, which asked the processor (still pending); let that settle first.
    await api.workflows.settle();
    // Back on the checkout page (the browser's back button) without a card entered: the page says
    // Pay goes on where the customer left off, and so it does, on the processor's card page.
    const page = await get(c.url);
    assert.ok(page.text.includes(`<p role="alert">${escapeHtml(say('en', 'processing'))}</p>`), page.text);
    assert.match(say('en', 'processing'), /press Pay to go on where you left off/);
    const again = await postPay(c.url, {});
    assert.equal(again.status, 303, again.text);
    assert.equal(again.location, first.location, 'the same processor session');
    const cardPage = await get(absolute(api, again.location as string));
    assert.equal(cardPage.status, 200);
    assert.match(cardPage.text, /<input id="number" name="number"/, 'the card form, to finish paying');
    const payment = (await api.request(`/v1/checkouts/${c.id}`, { key: keys.sk_test })).body.payment;
    assert.equal(payment.status, 'processing');
    // Once the card is approved there, the session sends the shopper back to where the payment stands.
    const session = new URL(absolute(api, first.location as string));
    const card = await postForm(`${session.origin}${session.pathname}/card${session.search}`, APPROVED);
    await postForm(absolute(api, card.location as string), { result: 'pass' });
    const third = await postPay(c.url, {});
    assert.equal(third.status, 303);
    const back = await get(absolute(api, third.location as string));
    assert.equal(back.status, 303);
    assert.match(back.location as string, /\/return\?attempt=1$/);
  });

  it('every page, asset and API answer carries the security headers; HSTS only behind https', async () => {
    const c = await open();
    const page = await fetch(c.url);
    const css = (await page.text()).match(/<link rel="stylesheet" href="([^"]+)">/)?.[1];
    assert.ok(css, 'the page links its stylesheet');
    for (const res of [page, await fetch(`${api.url}${css}`), await fetch(`${api.url}/docs/errors`), await fetch(`${api.url}/v1/openapi.json`)]) {
      assert.equal(res.status, 200, res.url);
      const csp = res.headers.get('content-security-policy') ?? '';
      assert.match(csp, /default-src 'none'/, res.url);
      assert.match(csp, /frame-ancestors 'none'/, res.url);
      assert.doesNotMatch(csp, /unsafe-inline/, res.url);
      assert.equal(res.headers.get('x-frame-options'), 'DENY', res.url);
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff', res.url);
      assert.equal(res.headers.get('referrer-policy'), 'same-origin', res.url);
      assert.equal(res.headers.get('strict-transport-security'), null, 'no HSTS on plain http');
    }
    assert.doesNotMatch(await (await fetch(c.url)).text(), /<style|<script|style="/, 'nothing inline');
    const https = await startApi({ env: { PUBLIC_BASE_URL: 'https://pay.example.lk' } });
    try {
      assert.equal((await fetch(`${https.url}/v1/openapi.json`)).headers.get('strict-transport-security'), 'max-age=31536000; includeSubDomains');
    } finally {
      await https.close();
    }
  });

  it('a cross-site post, or one without this browser\'s token, keeps nothing and shows the form again', async () => {
    const c = await open();
    const page = await fetch(c.url);
    const cookie = page.headers.getSetCookie()[0] ?? '';
    assert.match(cookie, /^kasi_csrf=[0-9a-f]{32}; path=\/; samesite=lax; httponly$/);
    const token = /name="csrf" value="([^"]+)"/.exec(await page.text())![1]!;
    const browser = { cookie: cookie.split(';')[0]! };
    const refusals = [
      // The reviewer's repro: a form on another site, which the browser sends with its Origin.
      postForm(`${c.url}/pay`, { ...DETAILS, csrf: token }, { ...browser, origin: 'https://evil.example' }),
      postForm(`${c.url}/pay`, { ...DETAILS, csrf: token }, { ...browser, 'sec-fetch-site': 'cross-site' }),
      postForm(`${c.url}/pay`, DETAILS, browser), // no token
      postForm(`${c.url}/pay`, { ...DETAILS, csrf: token }), // no cookie (SameSite kept it back)
      postForm(`${c.url}/pay`, { ...DETAILS, csrf: token.replace(/.$/, (ch) => (ch === 'A' ? 'B' : 'A')) }, browser),
    ];
    for (const refused of await Promise.all(refusals)) {
      assert.equal(refused.status, 409);
      assert.match(refused.text, /This page was out of date, so nothing was sent/);
      assert.match(refused.text, /name="csrf" value="[^"]+"/, 'a fresh form to press Pay again');
    }
    // Another checkout's token does not open this one.
    const other = await open();
    const otherToken = /name="csrf" value="([^"]+)"/.exec(await (await fetch(other.url, { headers: browser })).text())![1]!;
    assert.equal((await postForm(`${c.url}/pay`, { ...DETAILS, csrf: otherToken }, browser)).status, 409);
    const payment = (await api.request(`/v1/checkouts/${c.id}`, { key: keys.sk_test })).body.payment;
    assert.equal(payment.customer, null, 'no customer details were kept');
    assert.equal(payment.status, 'requires_payment_method');
    // The same post from the page itself goes through.
    const ok = await postForm(`${c.url}/pay`, { ...DETAILS, csrf: token }, { ...browser, origin: new URL(api.url).origin });
    assert.equal(ok.status, 303);
  });

  it('the Pay form takes an email only as one bare address, on a checkout and on a payment link\'s', async () => {
    const link = (await api.request('/v1/payment_links', { key: keys.sk_test, idempotencyKey: ik(), body: { amountCents: 250000, description: 'Temple fund' } })).body;
    const pages = [(await open()).url, await payerCheckout(api, link.url)];
    for (const url of pages) {
      for (const email of ['x<evil@evil.example>', 'Nimal <nimal@example.com>', 'nimal@example.com, evil@evil.example', 'nimal@example.com (Nimal)', 'nimal @example.com', '"evil@evil.example, x"@example.com']) {
        const res = await postPay(url, { ...DETAILS, email });
        assert.equal(res.status, 400, `${email}: ${res.text}`);
        assert.match(res.text, /<input type="email" id="email" [^>]*aria-invalid="true"/);
        assert.match(res.text, /Enter an email address such as name@example\.com\./);
      }
      const id = new URL(url).pathname.split('/').pop();
      const payment = await api.knex('payments').where({ checkout_id: id }).first();
      assert.deepEqual([payment.customer_email, payment.attempts], [null, 0], 'nothing kept, nothing handed to the processor');
      const fine = await postPay(url, { ...DETAILS, email: 'nimal.perera+tea@example.com' });
      assert.equal(fine.status, 303, fine.text);
      assert.equal((await api.knex('payments').where({ checkout_id: id }).first()).customer_email, 'nimal.perera+tea@example.com');
    }
  });

  it('a suspended merchant\'s checkout page takes no payment: the page and Pay answer merchant_unavailable', async () => {
    const { accountId, keys: own } = await api.merchant({ activate: true });
    const c = (await api.request('/v1/checkouts', { key: own.sk_test, idempotencyKey: ik(), body: { amountCents: 350000, description: 'Tea' } })).body;
    const page = await fetch(c.url);
    const cookie = page.headers.getSetCookie()[0]!.split(';')[0]!;
    const token = /name="csrf" value="([^"]+)"/.exec(await page.text())![1]!;
    await updateAccount(api.knex, accountId, { status: 'suspended' }, api.clock.now());
    const shown = await get(c.url);
    assert.equal(shown.status, 409);
    assert.match(shown.text, /data-reason="merchant_unavailable"/);
    assert.match(shown.text, /Test Merchant cannot take payments right now\./);
    const pay = await postForm(`${c.url}/pay`, { ...DETAILS, csrf: token }, { cookie });
    assert.equal(pay.status, 409);
    assert.match(pay.text, /data-reason="merchant_unavailable"/);
    const payment = (await api.knex('payments').where({ checkout_id: c.id }).first());
    assert.equal(payment.status, 'requires_payment_method');
    assert.equal(payment.attempts, 0);
    assert.equal(payment.customer_email, null);
    assert.equal(await api.knex('sandbox_sessions').where('reference', 'like', `${payment.id}%`).count('* as n').first().then((r: any) => Number(r.n)), 0, 'nothing handed to the processor');
  });

  it('an approval that arrives after the merchant was suspended is released at the processor and recorded as failed', async () => {
    const { accountId, keys: own } = await api.merchant({ activate: true });
    const c = (await api.request('/v1/checkouts', { key: own.sk_test, idempotencyKey: ik(), body: { amountCents: 350000, description: 'Tea' } })).body;
    const pay = await postPay(c.url, DETAILS);
    await updateAccount(api.knex, accountId, { status: 'suspended' }, api.clock.now());
    // The customer was already on the processor's page: the card is approved there.
    const session = new URL(absolute(api, pay.location as string));
    const card = await postForm(`${session.origin}${session.pathname}/card${session.search}`, APPROVED);
    await postForm(absolute(api, card.location as string), { result: 'pass' });
    await api.clock.advance(OUTCOME_POLL_MS);
    const payment = await api.knex('payments').where({ checkout_id: c.id }).first();
    assert.equal(payment.status, 'failed');
    assert.equal(payment.failure_code, 'merchant_unavailable');
    assert.equal(payment.failure_message, 'The merchant cannot take payments right now; the card was not charged.');
    assert.equal((await api.knex('sandbox_sessions').where({ reference: `${payment.id}.1` }).first()).status, 'canceled', 'the approval was released');
    assert.equal((await api.knex('events').where({ type: 'payment.succeeded' }).whereRaw(`data->>'id' = ?`, [payment.id])).length, 0);
    assert.equal((await api.knex('events').where({ type: 'payment.failed' }).whereRaw(`data->>'id' = ?`, [payment.id])).length, 1);
  });

  it('Pay on a server whose engine lost the checkout\'s workflow starts it, and tells it about the attempt', async () => {
    // Another service on the same database, booted before the checkout exists: its embedded
    // engine neither started nor resumed this checkout's workflow.
    const other = await api.sibling();
    try {
      const c = await open();
      const pay = await postPay(`${other.url}${new URL(c.url).pathname}`, DETAILS);
      assert.equal(pay.status, 303, pay.text);
      await other.workflows.settle();
      const history = await other.workflows.history(`checkout/${c.id}`);
      const signals = history.events!.filter((e) => e.workflowExecutionSignaledEventAttributes);
      assert.equal(signals.length, 1, 'the attempt reached the started workflow');
      assert.equal(signals[0]!.workflowExecutionSignaledEventAttributes!.signalName, 'paymentAttempted');
    } finally {
      await other.close();
    }
  });
});
