// Customer emails kept and sent: a receipt for every payment that succeeds with a customer email,
// card_saved when a card is kept, billing's emails (a trial's end, an invoice, a cancellation),
// each in the customer's language, received on a real SMTP server;
// `kasi emails` lists them; an SMTP server that refuses for a while still gets each email once;
// without SMTP_URL every email is kept, and none of a transaction that rolled back.
import assert from 'node:assert/strict';
import type { MerchantKeys } from '../../db/merchants';
import { keepEmail } from '../../services/emails/keep';
import { charge, payAndKeep } from '../cards/card-flow';
import { ik, startApiWithMerchant, type TestApi } from '../support/api';
import { eventually } from '../support/eventually';
import { runKasi } from '../support/kasi';
import { startSmtp, type TestSmtp } from '../support/smtp';

describe('customer emails: kept and sent', function () {
  this.timeout(60_000);
  let smtp: TestSmtp;
  let api: TestApi;
  let keys: MerchantKeys;
  let accountId: string;

  before(async () => {
    smtp = await startSmtp();
    ({ api, keys, accountId } = await startApiWithMerchant({ env: { SMTP_URL: smtp.url, KASI_EMAIL_FROM: 'Lanka Tea House <billing@tea.example.lk>' } }));
    await api.knex('accounts').where({ id: accountId }).update({ name: 'Lanka Tea House' });
  });
  after(async () => {
    await api?.close();
    await smtp?.close();
  });

  const received = (to: string) => eventually(async () => smtp.messages.filter((m) => m.to && JSON.stringify(m.to).includes(to)), (ms) => ms.length >= 2, 10_000);

  it('a card kept at checkout in Sinhala: the receipt and card_saved, in Sinhala, sent from KASI_EMAIL_FROM; a charge of the card, its receipt', async () => {
    const { payment, card } = await payAndKeep(api, keys, { locale: 'si', email: 'sita@example.com' });
    const mails = await received('sita@example.com');
    assert.equal(mails.length, 2);
    const receipt = mails.find((m) => m.subject?.includes('ලදුපත'))!;
    assert.ok(receipt, mails.map((m) => m.subject).join(' | '));
    assert.equal(receipt.subject, 'Lanka Tea House වෙතින් ලදුපත: Rs. 3,500.00');
    assert.equal(receipt.from?.text, '"Lanka Tea House" <billing@tea.example.lk>');
    assert.ok(receipt.text?.includes(payment.id));
    assert.ok(typeof receipt.html === 'string' && receipt.html.includes('lang="si"'));
    const saved = mails.find((m) => m.subject === 'ඔබගේ කාඩ්පත Lanka Tea House සමඟ සුරැකිණි')!;
    assert.ok(saved?.text?.includes('Mastercard •••• 0008'), saved?.text);

    // Marked sent once the SMTP server has taken each.
    const kept = await eventually(() => api.knex('emails').where({ account_id: accountId }).whereIn('object_id', [payment.id, card.id]).orderBy('id'), (rows) => rows.every((r) => r.sent_at !== null), 10_000);
    assert.deepEqual(kept.map((e) => [e.kind, e.locale, e.to, e.object_id, e.sent_at !== null]), [
      ['receipt', 'si', 'sita@example.com', payment.id, true],
      ['card_saved', 'si', 'sita@example.com', card.id, true],
    ]);

    // A charge of the kept card: its receipt in the language the card was kept in.
    const charged = (await charge(api, keys.sk_test, card.id, { amountCents: 150000, description: 'Tea, March' })).body;
    await api.clock.advance(10_000);
    await api.workflows.settle();
    const chargeReceipt = await eventually(() => api.knex('emails').where({ object_id: charged.id }).first(), (row) => row?.sent_at != null, 10_000);
    assert.deepEqual([chargeReceipt.kind, chargeReceipt.locale, chargeReceipt.subject], ['receipt', 'si', 'Lanka Tea House වෙතින් ලදුපත: Rs. 1,500.00']);
  });

  it('billing emails in the customer\'s language, received on the SMTP server: a trial\'s end, the invoice sent with its page, the cancellation; in English, Sinhala and Tamil', async () => {
    const scripts = { en: /^[\x20-\x7E]+$/, si: /[\u0D80-\u0DFF]/, ta: /[\u0B80-\u0BFF]/ };
    const price = (await api.request('/v1/prices', { key: keys.sk_test, body: { product: { name: 'Tea club' }, unitAmountCents: 150000, interval: 'month' }, idempotencyKey: ik() })).body;
    const post = async (path: string, body: unknown = {}) => (await api.request(path, { key: keys.sk_test, body, idempotencyKey: ik() })).body;
    for (const locale of ['en', 'si', 'ta'] as const) {
      const to = `club-${locale}@example.com`;
      const clock = await post('/v1/test_helpers/test_clocks', { frozenTime: '2027-01-01T04:30:00.000Z' });
      const customer = await post('/v1/customers', { email: to, locale, testClockId: clock.id });
      const sub = await post('/v1/subscriptions', { customerId: customer.id, priceId: price.id, collectionMethod: 'send_invoice', trialDays: 5 });
      await post(`/v1/test_helpers/test_clocks/${clock.id}/advance`, { frozenTime: '2027-01-06T05:00:00.000Z' });
      await eventually(async () => (await api.request(`/v1/test_helpers/test_clocks/${clock.id}`, { key: keys.sk_test })).body.status, (status) => status === 'ready', 10_000);
      await post(`/v1/subscriptions/${sub.id}/cancel`);
      const mails = await eventually(async () => smtp.messages.filter((m) => JSON.stringify(m.to).includes(to)), (ms) => ms.length >= 3, 10_000);
      const kept = await api.knex('emails').where({ to }).orderBy('id').select('kind', 'locale', 'subject', 'created_at');
      assert.deepEqual(kept.map((e) => [e.kind, e.locale, e.created_at.toISOString()]), [
        ['trial_will_end', locale, '2027-01-03T04:30:00.000Z'],
        ['invoice', locale, '2027-01-06T04:30:00.000Z'],
        ['subscription_canceled', locale, '2027-01-06T05:00:00.000Z'],
      ]);
      assert.deepEqual(new Set(mails.map((m) => m.subject)), new Set(kept.map((e) => e.subject)), 'each kept email was received');
      for (const mail of mails) {
        assert.match(mail.subject!, scripts[locale], `${locale}: ${mail.subject}`);
        assert.ok(typeof mail.html === 'string' && mail.html.includes(`lang="${locale}"`));
      }
      const invoiceMail = mails.find((m) => m.subject === kept[1]!.subject)!;
      assert.ok(invoiceMail.text?.includes(`/invoice/in_`) && invoiceMail.text.includes(locale === 'en' ? `/invoice/` : `/${locale}/invoice/`), 'the invoice email links its page in the customer\'s language');
    }
  });

  it('kasi emails lists them newest first, as DESIGN.md fixes; --mode live lists the live ones (none)', async () => {
    const run = await runKasi({ DATABASE_URL: api.databaseUrl }, 'emails', accountId, '--json');
    assert.equal(run.code, 0, run.stderr);
    const listed = JSON.parse(run.stdout) as Record<string, string>[];
    const rows = await api.knex('emails').where({ account_id: accountId, mode: 'test' }).orderBy('id', 'desc');
    assert.deepEqual(
      listed,
      rows.map((r) => ({ id: r.id, to: r.to, kind: r.kind, locale: r.locale, subject: r.subject, objectId: r.object_id, createdAt: r.created_at.toISOString() })),
    );
    assert.ok(listed.length >= 3);
    const live = await runKasi({ DATABASE_URL: api.databaseUrl }, 'emails', accountId, '--mode', 'live', '--json');
    assert.deepEqual(JSON.parse(live.stdout), []);
    assert.equal((await runKasi({ DATABASE_URL: api.databaseUrl }, 'emails', accountId, '--mode', 'both')).code, 2);
  });

  it('kasi email <emailId> shows one with its body, to read what the customer was told; an unknown id exits 1', async () => {
    const row = await api.knex('emails').where({ account_id: accountId, mode: 'test' }).orderBy('id', 'desc').first();
    const run = await runKasi({ DATABASE_URL: api.databaseUrl }, 'email', row.id, '--json');
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), { id: row.id, to: row.to, kind: row.kind, locale: row.locale, subject: row.subject, objectId: row.object_id, createdAt: row.created_at.toISOString(), text: row.text, html: row.html });
    const human = await runKasi({ DATABASE_URL: api.databaseUrl }, 'email', row.id);
    assert.ok(human.stdout.startsWith(`To: ${row.to}\nSubject: ${row.subject}\n\n`), human.stdout);
    assert.ok(human.stdout.includes(row.text.trim().split('\n')[0]), human.stdout);
    const unknown = await runKasi({ DATABASE_URL: api.databaseUrl }, 'email', 'em_000000000000000000000000');
    assert.deepEqual([unknown.code, unknown.stderr.trim()], [1, 'kasi: no email em_000000000000000000000000 (kasi emails <accountId> lists them)']);
  });

  it('an SMTP server refusing for a while: tried again later, and received once', async () => {
    smtp.refuse = true;
    const { payment } = await payAndKeep(api, keys, { consent: false, email: 'kamal@example.com' });
    await eventually(async () => smtp.refused, (n) => n >= 1, 10_000);
    // The sender writes the refusal a moment after the SMTP server has said it.
    const row = await eventually(() => api.knex('emails').where({ object_id: payment.id }).first(), (r) => r?.last_error != null, 10_000);
    assert.equal(row.sent_at, null);
    assert.match(row.last_error, /Mailbox busy/);
    smtp.refuse = false;
    // The next attempt waits 2^attempts seconds, in the service's (virtual) time.
    await api.clock.advance(5_000);
    const sent = await eventually(() => api.knex('emails').where({ object_id: payment.id }).first(), (r) => r.sent_at !== null, 10_000);
    assert.ok(sent.attempts >= 2);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.equal(smtp.messages.filter((m) => JSON.stringify(m.to).includes('kamal@example.com')).length, 1, 'received once');
  });

  it('an email to an address kept before addresses were checked (a display name inside) is never sent, to it or to the address inside it', async () => {
    const email = {
      accountId, mode: 'test' as const, to: 'x<evil@evil.example>', locale: 'en' as const, parties: { merchant: 'Lanka Tea House', customerName: null },
      content: { kind: 'card_saved' as const, card: { scheme: 'visa' as const, last4: '4242' } }, objectId: 'card_old_address', at: api.clock.now(),
    };
    await api.knex.transaction((trx) => keepEmail({ db: trx }, email));
    const row = await eventually(() => api.knex('emails').where({ object_id: 'card_old_address' }).first(), (r) => r?.last_error != null, 10_000);
    assert.deepEqual([row.sent_at, row.last_error], [null, 'Not sent: the recipient is not one bare email address.']);
    assert.equal(smtp.messages.filter((m) => JSON.stringify(m.to).includes('evil.example')).length, 0);
  });

  it('an email kept in a transaction that rolls back is neither kept nor sent', async () => {
    const email = {
      accountId, mode: 'test' as const, to: 'ghost@example.com', locale: 'en' as const, parties: { merchant: 'Lanka Tea House', customerName: null },
      content: { kind: 'card_saved' as const, card: { scheme: 'visa' as const, last4: '4242' } }, objectId: 'card_ghost', at: api.clock.now(),
    };
    await assert.rejects(api.knex.transaction(async (trx) => {
      await keepEmail({ db: trx }, email);
      throw new Error('rolled back');
    }), /rolled back/);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.equal(await api.knex('emails').where({ to: 'ghost@example.com' }).first(), undefined);
    assert.equal(smtp.messages.filter((m) => JSON.stringify(m.to).includes('ghost@example.com')).length, 0);
  });
});

describe('customer emails without SMTP_URL', function () {
  this.timeout(60_000);
  let api: TestApi;
  let keys: MerchantKeys;

  before(async () => ({ api, keys } = await startApiWithMerchant()));
  after(() => api?.close());

  it('are kept, never marked sent', async () => {
    const { payment } = await payAndKeep(api, keys, { consent: false, email: 'kept@example.com', locale: 'ta' });
    await new Promise((resolve) => setTimeout(resolve, 1200));
    const row = await api.knex('emails').where({ object_id: payment.id }).first();
    assert.deepEqual([row.kind, row.locale, row.sent_at, row.attempts], ['receipt', 'ta', null, 0]);
    assert.match(row.subject, /ரசீது/);
  });
});
