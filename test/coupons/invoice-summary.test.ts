// The customer sees an invoice's discount and taxes: its email (and a failed charge's) and its
// hosted page show the subtotal, the discount with the coupon's name, each tax with its rate's
// name and percentage (an inclusive one as contained in the prices) and the total, in English,
// Sinhala and Tamil; an invoice with neither shows only its total, as before.
import assert from 'node:assert/strict';
import type { MerchantKeys } from '../../db/merchants';
import { ik, startApiWithMerchant, type TestApi } from '../support/api';

describe('coupons and taxes: what the customer reads', function () {
  this.timeout(60_000);
  let api: TestApi;
  let keys: MerchantKeys;
  before(async () => ({ api, keys } = await startApiWithMerchant({ startAt: new Date('2027-01-15T04:30:00.000Z') })));
  after(() => api.close());

  const post = async (path: string, body: unknown) => {
    const res = await api.request(path, { key: keys.sk_test, body, idempotencyKey: ik() });
    assert.ok(res.status < 300, `${path}: ${res.text}`);
    return res.body;
  };

  const expected = {
    en: ['Subtotal: Rs. 1,500.00', 'Discount (Launch 20%): -Rs. 300.00', 'VAT 18%: Rs. 210.73', 'SSCL 2.5% (included in the prices): Rs. 29.27', 'Total: Rs. 1,410.73'],
    si: ['උප එකතුව: Rs. 1,500.00', 'වට්ටම (Launch 20%): -Rs. 300.00', 'VAT 18%: Rs. 210.73', 'SSCL 2.5% (මිල ගණන්වලට ඇතුළත්): Rs. 29.27', 'එකතුව: Rs. 1,410.73'],
    ta: ['துணை மொத்தம்: Rs. 1,500.00', 'தள்ளுபடி (Launch 20%): -Rs. 300.00', 'VAT 18%: Rs. 210.73', 'SSCL 2.5% (விலைகளில் அடங்கியது): Rs. 29.27', 'மொத்தம்: Rs. 1,410.73'],
  } as const;

  it('the invoice email and the hosted page show subtotal, discount, taxes and total in the customer\'s language', async () => {
    const price = await post('/v1/prices', { product: { name: 'Pro plan' }, unitAmountCents: 150000, interval: 'month' });
    const coupon = await post('/v1/coupons', { name: 'Launch 20%', percentOff: 20, duration: 'forever' });
    const vat = await post('/v1/tax_rates', { displayName: 'VAT', percentage: 18, inclusive: false });
    const levy = await post('/v1/tax_rates', { displayName: 'SSCL', percentage: 2.5, inclusive: true });
    for (const locale of ['en', 'si', 'ta'] as const) {
      const customer = await post('/v1/customers', { email: `summary-${locale}@example.com`, locale });
      const sub = await post('/v1/subscriptions', { customerId: customer.id, priceId: price.id, collectionMethod: 'send_invoice', couponId: coupon.id, taxRateIds: [vat.id, levy.id] });
      const [email] = await api.knex('emails').where({ object_id: sub.latestInvoiceId, kind: 'invoice' });
      assert.ok(email.text.includes(expected[locale].join('\n')), `${locale}: ${email.text}`);
      for (const row of expected[locale]) assert.ok(email.html.includes(row.split(': ')[1]!), `${locale} html: ${row}`);
      const invoice = (await api.request(`/v1/invoices/${sub.latestInvoiceId}`, { key: keys.sk_test })).body;
      // The invoice's page is in the customer's language already.
      assert.ok(invoice.hostedInvoiceUrl.includes(locale === 'en' ? '/invoice/' : `/${locale}/invoice/`));
      const page = await fetch(invoice.hostedInvoiceUrl);
      const html = await page.text();
      const footer = html.slice(html.indexOf('<tfoot>'), html.indexOf('</tfoot>'));
      const cells = [...footer.matchAll(/<th scope="row" colspan="2">([^<]*)<\/th><td class="num">([^<]*)<\/td>/g)].map((m) => `${m[1]}: ${m[2]}`);
      assert.deepEqual(cells, expected[locale], locale);
    }
  });

  it('an invoice with neither discount nor taxes shows its total alone', async () => {
    const price = await post('/v1/prices', { product: { name: 'Plain plan' }, unitAmountCents: 150000, interval: 'month' });
    const customer = await post('/v1/customers', { email: 'plain@example.com' });
    const sub = await post('/v1/subscriptions', { customerId: customer.id, priceId: price.id, collectionMethod: 'send_invoice' });
    const [email] = await api.knex('emails').where({ object_id: sub.latestInvoiceId, kind: 'invoice' });
    assert.ok(!email.text.includes('Subtotal'));
    const invoice = (await api.request(`/v1/invoices/${sub.latestInvoiceId}`, { key: keys.sk_test })).body;
    const html = await (await fetch(invoice.hostedInvoiceUrl)).text();
    assert.match(html, /<tfoot><tr><th scope="row" colspan="2">Total<\/th><td class="num">Rs\. 1,500\.00<\/td><\/tr><\/tfoot>/);
  });
});
