// Refund benchmark: POST /v1/refunds on Kasi (a secret key, an Idempotency-Key each; one
// statement that records the key with its answer, takes the amount into the payment and inserts
// the refund; and the refund's workflow started on the embedded engine, which asks the sandbox
// for the refund and records it succeeded with refund.succeeded), against the bare server's insert
// (bench/versus-bare.ts). Each refund needs a refundable payment: the benchmark seeds PAYMENTS
// succeeded payments straight into the database, with their approved sessions at the sandbox,
// settled a day ago (so each refund is decided as soon as its workflow asks), and the requests
// take them in turn, 1000 cents each, so no two requests in flight wait on one payment's lock.
// Target: at least 50% of the bare server's throughput, p99 under 50 ms at half the maximum rate.
// Alone: node --import tsx bench/refunds.ts
import { newId } from '../crypto/ids';
import { createMerchant } from '../db/merchants';
import { benchDatabase, type BenchDatabase } from './database';
import { measureAgainstBare } from './versus-bare';
import { runAsCommand } from './command';

const PAYMENTS = 2_000;
/** Rs. 1,000,000 each: room for 100,000 refunds of 1000 cents, far more than a run makes. */
const PAYMENT_CENTS = 100_000_000;

/** Succeeded payments of the account, paid and settled a day ago, and the sandbox's sessions of them. */
export async function seedPayments(database: BenchDatabase, accountId: string): Promise<string[]> {
  const paidAt = new Date(Date.now() - 24 * 60 * 60 * 1000);
  const ids = Array.from({ length: PAYMENTS }, () => newId('payment', paidAt.getTime()));
  const card = { scheme: 'visa', last4: '1111' };
  await database.knex.batchInsert('payments', ids.map((id) => ({
    id, account_id: accountId, mode: 'test', status: 'succeeded', amount_cents: PAYMENT_CENTS, description: 'Bench tea',
    card_scheme: card.scheme, card_last4: card.last4, fee_cents: 3_300_000, net_cents: PAYMENT_CENTS - 3_300_000,
    attempts: 1, settled_attempt: 1, created_at: paidAt, succeeded_at: paidAt,
  })), 500);
  await database.knex.batchInsert('sandbox_sessions', ids.map((id) => ({
    id: `sbx_${id.slice(4)}`, reference: `${id}.1`, amount_cents: PAYMENT_CENTS, merchant_name: 'Bench', return_url: 'http://127.0.0.1/',
    status: 'approved', ...card, expiry_month: 1, expiry_year: 2039, token: `tok_${id.slice(4)}`, created_at: paidAt, updated_at: paidAt,
  })), 500);
  return ids;
}

export async function runRefundBench(given?: BenchDatabase): Promise<void> {
  const database = given ?? (await benchDatabase());
  try {
    const { account, keys } = await createMerchant(database.knex, { name: 'Bench refunds', now: new Date() });
    const payments = await seedPayments(database, account.id);
    let next = 0;
    await measureAgainstBare(database, {
      label: 'Kasi POST /v1/refunds',
      title: 'POST /v1/refunds (Idempotency-Key, refund workflow started, refund decided at the sandbox) vs the bare server',
      request: (url) => ({
        url: `${url}/v1/refunds`, method: 'POST', idempotent: true,
        headers: { authorization: `Bearer ${keys.sk_test}`, 'content-type': 'application/json' },
        body: () => JSON.stringify({ paymentId: payments[next++ % payments.length], amountCents: 1000 }),
      }),
    });
    const count = async (status?: string) => Number((await database.knex('refunds').where({ account_id: account.id, ...(status ? { status } : {}) }).count({ count: '*' }).first())?.count);
    console.log(`  ${await count()} refunds made, ${await count('succeeded')} succeeded by the end`);
  } finally {
    if (!given) await database.close();
  }
}

if (require.main === module) runAsCommand(() => runRefundBench());
