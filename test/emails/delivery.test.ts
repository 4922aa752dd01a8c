// Customer emails kept and sent: a receipt for every payment that succeeds with a customer email,
// card_saved when a card is kept, each in the customer's language, received on a real SMTP server;
// `kasi emails` lists them; an SMTP server that refuses for a while still gets each email once;
// without SMTP_URL every email is kept, and none of a transaction that rolled back.
import assert from 'node:assert/strict';
import type { MerchantKeys } from '../../db/merchants';
import { keepEmail } from '../../services/emails/keep';
import { charge, payAndKeep } from '../cards/card-flow';
import { startApiWithMerchant, type TestApi } from '../support/api';
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

  it('an SMTP server refusing for a while: tried again later, and received once', async () => {
    smtp.refuse = true;
    const { payment } = await payAndKeep(api, keys, { consent: false, email: 'kamal@example.com' });
    await eventually(async () => smtp.refused, (n) => n >= 1, 10_000);
    const row = await api.knex('emails').where({ object_id: payment.id }).first();
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
