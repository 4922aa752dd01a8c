// Saved-card charge benchmark: POST /v1/cards/{id}/charge on Kasi (a secret key, an
// Idempotency-Key each; the account's advisory lock and one statement with the month's room, the
// card, the key's answer and the payment, in one round trip; then the sandbox's charge, outside any
// transaction; and the charge's workflow started on the embedded engine, which records
// payment.succeeded when the sandbox's bank answers, 5 s later), against the bare server's insert,
// as bench/versus-bare.ts measures. The card is seeded straight into the database (its first
// payment, the Saved card and the sandbox's token), on the scale plan, so the month's limit never
// refuses a charge. Target: at least 50% of the bare server's throughput, p99 under 50 ms at half
// the maximum rate.
// Alone: node --import tsx bench/cards.ts
import { newId } from '../crypto/ids';
import { updateAccount } from '../db/accounts';
import { createMerchant } from '../db/merchants';
import { benchDatabase, type BenchDatabase } from './database';
import { measureAgainstBare } from './versus-bare';
import { runAsCommand } from './command';

/** A card kept a day ago: its payment, the Saved card and the sandbox's token, as the service keeps them. */
async function seedCard(database: BenchDatabase, accountId: string): Promise<string> {
  const keptAt = new Date(Date.now() - 24 * 60 * 60 * 1000);
  const paymentId = newId('payment', keptAt.getTime());
  const cardId = newId('savedCard', keptAt.getTime());
  const token = `tok_${cardId.slice(5)}`;
  const card = { scheme: 'visa', last4: '1111', expiry_month: 1, expiry_year: 2039 };
  await database.knex('payments').insert({
    id: paymentId, account_id: accountId, mode: 'test', status: 'succeeded', amount_cents: 350000, description: 'Bench tea', customer_email: 'bench@example.com',
    card_scheme: card.scheme, card_last4: card.last4, card_save: 'saved', fee_cents: 9625, net_cents: 340375, attempts: 1, settled_attempt: 1, created_at: keptAt, succeeded_at: keptAt,
  });
  await database.knex('sandbox_tokens').insert({ token, reference: `${paymentId}.1`, ...card, created_at: keptAt });
  await database.knex('saved_cards').insert({
    id: cardId, account_id: accountId, mode: 'test', customer_email: 'bench@example.com', ...card, processor_token: token, payment_id: paymentId,
    consent_at: keptAt, consent_locale: 'en', consent_wording: 'Save this card so that Bench can charge it for future payments', created_at: keptAt,
  });
  return cardId;
}

export async function runCardChargeBench(given?: BenchDatabase): Promise<void> {
  const database = given ?? (await benchDatabase());
  try {
    const { account, keys } = await createMerchant(database.knex, { name: 'Bench cards', now: new Date() });
    await updateAccount(database.knex, account.id, { plan: 'scale' }, new Date());
    const cardId = await seedCard(database, account.id);
    const body = JSON.stringify({ amountCents: 1000, description: 'Bench tea, monthly' });
    await measureAgainstBare(database, {
      label: 'Kasi POST /v1/cards/…/charge',
      title: 'POST /v1/cards/{id}/charge (Idempotency-Key, sandbox charge, charge workflow started) vs the bare server',
      request: (url) => ({
        url: `${url}/v1/cards/${cardId}/charge`,
        method: 'POST',
        headers: { authorization: `Bearer ${keys.sk_test}`, 'content-type': 'application/json' },
        idempotent: true,
        body: () => body,
      }),
    });
    const count = async (status?: string) => Number((await database.knex('payments').where({ saved_card_id: cardId, ...(status ? { status } : {}) }).count({ count: '*' }).first())?.count);
    console.log(`  ${await count()} charges made, ${await count('succeeded')} succeeded by the end`);
  } finally {
    if (!given) await database.close();
  }
}

if (require.main === module) runAsCommand(() => runCardChargeBench());
