// The hosted payment link page over plain HTTP: what it shows in each language, the button that
// makes each payer a checkout of their own, and every refusal (turned off, forged posts, the
// account's standing, the monthly limit, the per-address budget).
import assert from 'node:assert/strict';
import { say } from '../../api/pages/messages';
import { updateAccount } from '../../db/accounts';
import type { MerchantKeys } from '../../db/merchants';
import { startApi, startApiWithMerchant, ik, type TestApi } from '../support/api';
import { get, payAtProcessor, postForm, postPay } from '../checkouts/hosted-flow';
import { payerCheckout, pressContinue } from './link-flow';

const APPROVED = { number: '5123450000000008', expiry: '01/39', cvv: '100' };
const DETAILS = { name: 'Nimal Perera', email: 'nimal@example.com' };
const LOCALES = ['en', 'si', 'ta'] as const;

describe('payment link page', () => {
  let api: TestApi;
  let keys: MerchantKeys;

  before(async () => {
    api = await startApi();
    ({ keys } = await api.merchant({ name: 'Lanka Tea House', activate: true }));
  });
  after(() => api.close());

  const link = async (body: Record<string, unknown>, key = keys.sk_test) => {
    const res = await api.request('/v1/payment_links', { key, idempotencyKey: ik(), body });
    assert.equal(res.status, 201, res.text);
    return res.body;
  };
  const inLocale = (url: string, locale: string) => (locale === 'en' ? url : url.replace('/pay/', `/${locale}/pay/`));
  const paymentOf = async (checkoutUrl: string) => {
    const id = new URL(checkoutUrl).pathname.split('/').pop();
    return (await api.request(`/v1/checkouts/${id}`, { key: keys.sk_test })).body;
  };

  it('shows the merchant, what is sold and the amount, in English, Sinhala and Tamil', async () => {
    const l = await link({ lineItems: [{ name: 'Ceylon tea', description: '250 g', unitAmountCents: 120000, quantity: 2 }, { name: 'Kavum', unitAmountCents: 5000, quantity: 3 }], reference: 'stall-7' });
    for (const locale of LOCALES) {
      const page = await get(inLocale(l.url, locale));
      assert.equal(page.status, 200, page.text);
      assert.match(page.text, new RegExp(`<html lang="${locale}"`));
      assert.ok(page.text.includes(`<h1>${say(locale, 'payTo', { merchant: 'Lanka Tea House' })}</h1>`), locale);
      assert.ok(page.text.includes('<strong>Rs. 2,550.00</strong>'));
      assert.ok(page.text.includes('<td>Ceylon tea<br><span class="hint">250 g</span></td><td class="num">2</td><td class="num">Rs. 2,400.00</td>'));
      assert.ok(page.text.includes('<td>Kavum</td><td class="num">3</td><td class="num">Rs. 150.00</td>'));
      assert.ok(page.text.includes(`${say(locale, 'reference')}: stall-7`));
      assert.ok(page.text.includes(`<button type="submit">${say(locale, 'linkContinue')}</button>`));
      assert.ok(page.text.includes(say(locale, 'testMode')));
    }
    const fixed = await link({ amountCents: 250000, description: 'Temple fund' });
    const page = await get(fixed.url);
    assert.ok(page.text.includes('<td>Temple fund</td><td class="num">1</td><td class="num">Rs. 2,500.00</td>'));
  });

  it('each press makes a checkout of its own, its payment carrying the link, in the language of the page pressed', async () => {
    const l = await link({ amountCents: 350000, description: 'Cooking class', reference: 'class-1', successUrl: 'https://shop.example/booked', saveCard: true });
    const first = await payerCheckout(api, l.url);
    const second = await payerCheckout(api, inLocale(l.url, 'ta'));
    const a = await paymentOf(first);
    const b = await paymentOf(second);
    assert.notEqual(a.id, b.id);
    assert.notEqual(a.payment.id, b.payment.id);
    assert.equal(first, `${api.url}/checkout/${a.id}`);
    assert.equal(second, `${api.url}/ta/checkout/${b.id}`);
    assert.deepEqual([a.locale, b.locale], ['en', 'ta']);
    for (const c of [a, b]) {
      assert.equal(c.status, 'open');
      assert.equal(c.successUrl, 'https://shop.example/booked');
      assert.equal(c.cancelUrl, null);
      assert.equal(c.saveCard, true);
      assert.deepEqual(
        [c.payment.paymentLinkId, c.payment.checkoutId, c.payment.amountCents, c.payment.description, c.payment.reference, c.payment.customer, c.payment.order],
        [l.id, c.id, 350000, 'Cooking class', 'class-1', null, null],
      );
      assert.equal(api.engine.describe(`checkout/${c.id}`)?.status, 'RUNNING', 'its lifetime workflow started');
    }
    // A line-item link's checkout has the order, line by line.
    const items = await link({ lineItems: [{ name: 'Tea', unitAmountCents: 150000, quantity: 2 }] });
    const c = await paymentOf(await payerCheckout(api, items.url));
    assert.equal(c.payment.amountCents, 300000);
    assert.equal(c.payment.description, '2 × Tea');
    assert.deepEqual(c.payment.order, {
      lines: [{ id: 'line-1', name: 'Tea', quantity: 2, unitAmountCents: 150000, amountCents: 300000, suggested: false }],
      subtotalCents: 300000, discount: null, shipping: null, tax: null, totalCents: 300000,
    });
  });

  it('turned off: the page and the button answer 409 link_inactive in each language; checkouts already made stay payable', async () => {
    const l = await link({ amountCents: 5000, description: 'Tea' });
    const before = await payerCheckout(api, l.url);
    assert.equal((await api.request(`/v1/payment_links/${l.id}`, { method: 'DELETE', key: keys.sk_test })).status, 200);
    for (const locale of LOCALES) {
      for (const answer of [await fetch(inLocale(l.url, locale)), await fetch(inLocale(l.url, locale), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' })]) {
        assert.equal(answer.status, 409);
        assert.equal(answer.headers.get('x-kasi-reason'), 'link_inactive');
        const text = await answer.text();
        assert.match(text, new RegExp(`<html lang="${locale}"`));
        assert.ok(text.includes(`<h1 data-reason="link_inactive">${say(locale, 'linkInactiveTitle')}</h1>`), text);
        assert.ok(text.includes(say(locale, 'linkInactiveText', { merchant: 'Lanka Tea House' })));
      }
    }
    const made = await api.knex('payments').where({ payment_link_id: l.id }).count<{ count: string }[]>('* as count');
    assert.equal(Number(made[0]!.count), 1, 'no checkout made once it is off');
    await get(await payAtProcessor(api, before, APPROVED, DETAILS));
    assert.equal((await paymentOf(before)).payment.status, 'succeeded');
  });

  it('a post from another site, or without this browser\'s token, makes no checkout and shows the page again', async () => {
    const l = await link({ amountCents: 5000, description: 'Tea' });
    const page = await fetch(l.url);
    const cookie = page.headers.getSetCookie()[0]!.split(';')[0]!;
    const token = /name="csrf" value="([^"]+)"/.exec(await page.text())![1]!;
    for (const [form, headers] of [
      [{ csrf: token }, { cookie, origin: 'https://evil.example' }],
      [{ csrf: token }, { cookie, 'sec-fetch-site': 'cross-site' }],
      [{}, { cookie }],
      [{ csrf: token }, {}],
    ] as const) {
      const refused = await postForm(l.url, form, headers);
      assert.equal(refused.status, 409);
      assert.ok(refused.text.includes(`<p role="alert">${say('en', 'linkPageChanged')}</p>`));
      assert.match(refused.text, /name="csrf" value="[^"]+"/, 'a fresh token to press again');
    }
    assert.equal((await api.knex('payments').where({ payment_link_id: l.id })).length, 0);
    assert.equal((await postForm(l.url, { csrf: token }, { cookie, origin: api.url })).status, 303, 'the page\'s own post goes through');
  });

  it('404 for no such link, in the page\'s language', async () => {
    const none = await get(`${api.url}/si/pay/plink_${'0'.repeat(24)}`);
    assert.equal(none.status, 404);
    assert.ok(none.text.includes(say('si', 'linkNotFoundTitle')));
    assert.equal((await get(`${api.url}/pay/chk_${'0'.repeat(24)}`)).status, 404);
    assert.equal((await pressContinue(`${api.url}/pay/plink_${'0'.repeat(24)}`)).status, 404);
  });

  it('a suspended merchant\'s link takes no payment: page and button answer merchant_unavailable', async () => {
    const m = await api.merchant({ name: 'Closed Shop', activate: true });
    const l = (await api.request('/v1/payment_links', { key: m.keys.sk_test, idempotencyKey: ik(), body: { amountCents: 5000, description: 'Tea' } })).body;
    const page = await fetch(l.url);
    const cookie = page.headers.getSetCookie()[0]!.split(';')[0]!;
    const token = /name="csrf" value="([^"]+)"/.exec(await page.text())![1]!;
    await updateAccount(api.knex, m.accountId, { status: 'suspended' }, api.clock.now());
    const shown = await get(l.url);
    assert.equal(shown.status, 409);
    assert.match(shown.text, /data-reason="merchant_unavailable"/);
    const pressed = await postForm(l.url, { csrf: token }, { cookie });
    assert.equal(pressed.status, 409);
    assert.ok(pressed.text.includes(say('en', 'suspended', { merchant: 'Closed Shop' })));
    assert.equal((await api.knex('payments').where({ payment_link_id: l.id })).length, 0);
  });

  it('the monthly limit refuses a link payment that would pass it, whole: at the button, and at Pay', async () => {
    // starter: 100000000 cents a month.
    const m = await api.merchant({ activate: true });
    const create = async (body: unknown) => (await api.request('/v1/payment_links', { key: m.keys.sk_test, idempotencyKey: ik(), body })).body;
    const big = await create({ amountCents: 60_000_000, description: 'Wedding hall' });
    await get(await payAtProcessor(api, await payerCheckout(api, big.url), APPROVED, DETAILS));
    // 60000000 used: 40000001 would pass the limit, 40000000 just fits.
    const over = await create({ amountCents: 40_000_001, description: 'over' });
    const refused = await pressContinue(over.url);
    assert.equal(refused.status, 409);
    assert.match(refused.text, /data-reason="monthly_limit_reached"/);
    assert.ok(refused.text.includes(say('en', 'limitReached', { merchant: 'Test Merchant' })));
    assert.equal((await api.knex('payments').where({ payment_link_id: over.id })).length, 0, 'no checkout, no payment');
    // Two payers of a link that fits: both get checkouts; once one pays, the other's Pay would pass it.
    const fits = await create({ amountCents: 40_000_000, description: 'fits' });
    const first = await payerCheckout(api, fits.url);
    const second = await payerCheckout(api, fits.url);
    await get(await payAtProcessor(api, first, APPROVED, DETAILS));
    const pay = await postPay(second, DETAILS);
    assert.equal(pay.status, 409);
    assert.match(pay.text, /data-reason="monthly_limit_reached"/);
    const payments = await api.knex('payments').where({ payment_link_id: fits.id }).orderBy('id');
    assert.deepEqual(payments.map((p) => [p.status, Number(p.amount_cents)]), [['succeeded', 40_000_000], ['requires_payment_method', 40_000_000]]);
  });

  it('a live link made while saved cards were on makes checkouts without the offer once they are off', async () => {
    const m = await api.merchant({ activate: true, changes: { savedCards: true } });
    const l = (await api.request('/v1/payment_links', { key: m.keys.sk_live, idempotencyKey: ik(), body: { amountCents: 5000, description: 'Tea', saveCard: true } })).body;
    assert.equal(l.saveCard, true);
    await updateAccount(api.knex, m.accountId, { savedCards: false }, api.clock.now());
    const checkoutUrl = await payerCheckout(api, l.url);
    const id = new URL(checkoutUrl).pathname.split('/').pop();
    const c = (await api.request(`/v1/checkouts/${id}`, { key: m.keys.sk_live })).body;
    assert.equal(c.mode, 'live');
    assert.equal(c.saveCard, false);
    assert.equal(c.payment.paymentLinkId, l.id);
  });
});

describe('payment link page rate limit', () => {
  let api: TestApi;
  let keys: MerchantKeys;

  before(async () => ({ api, keys } = await startApiWithMerchant({ env: { RATE_LIMIT_PER_MINUTE: '4' } })));
  after(() => api?.close());

  it('the page and its button each have the per-address budget, every language together; past it, 429 in the page\'s language', async () => {
    const l = (await api.request('/v1/payment_links', { key: keys.sk_test, idempotencyKey: ik(), body: { amountCents: 5000, description: 'Tea' } })).body;
    const tamil = l.url.replace('/pay/', '/ta/pay/');
    for (const url of [l.url, tamil, l.url]) assert.equal((await get(url)).status, 200);
    // The fourth GET is the button's page; the post counts on its own.
    assert.equal((await pressContinue(tamil)).status, 303);
    const limited = await fetch(tamil);
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers.get('retry-after')) >= 1);
    const text = await limited.text();
    assert.match(text, /<html lang="ta"/);
    assert.ok(text.includes(say('ta', 'tooManyRequests')));
    for (let i = 0; i < 3; i++) await postForm(l.url, {});
    const posted = await postForm(tamil, {});
    assert.equal(posted.status, 429);
    assert.ok(posted.text.includes(say('ta', 'tooManyRequests')));
  });
});
