// Preview of a subscription change: POST /v1/invoices/preview on Kasi (a secret key, no
// Idempotency-Key: a read) for a three-item subscription, changing one item's price and another's
// quantity with `always_invoice`: the subscription and its items read, the new price read, the
// change planned and its proration lines made by the domain code the update bills with, the amounts
// carried over read, the invoice rendered. Against the bare server's insert, as bench/versus-bare.ts
// measures. The subscription (sent to the customer, so `active` at once) is made through the API.
// Target: at least 50% of the bare server's throughput, p99 under 50 ms at half the maximum rate.
// Alone: node --import tsx bench/subscription-changes.ts
import { createMerchant } from '../db/merchants';
import { benchDatabase, type BenchDatabase } from './database';
import { startServer, stopServer } from './load';
import { measureAgainstBare } from './versus-bare';
import { runAsCommand } from './command';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A three-item subscription made through Kasi's API, and the price one of its items changes to. */
async function threeItemSubscription(database: BenchDatabase, key: string): Promise<{ subscriptionId: string; itemIds: string[]; newPriceId: string }> {
  const kasi = await startServer('servers/kasi.ts', database.env);
  try {
    let sent = 0;
    const post = async (path: string, body: unknown): Promise<Json> => {
      const res = await fetch(`${kasi.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': `bench-changes-${process.pid}-${++sent}` },
        body: JSON.stringify(body),
      });
      const answer = (await res.json()) as Json;
      if (!res.ok) throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(answer)}`);
      return answer;
    };
    const price = (name: string, unitAmountCents: number) => post('/v1/prices', { product: { name }, unitAmountCents, interval: 'month' });
    const prices = [await price('Bench plan', 150000), await price('Bench seats', 2500), await price('Bench support', 20000)];
    const newPrice = await price('Bench plan plus', 310000);
    const customer = await post('/v1/customers', { email: 'bench-changes@example.com' });
    const subscription = await post('/v1/subscriptions', { customerId: customer.id, collectionMethod: 'send_invoice', items: prices.map((p, i) => ({ priceId: p.id, quantity: i + 1 })) });
    return { subscriptionId: subscription.id, itemIds: subscription.items.map((i: Json) => i.id), newPriceId: newPrice.id };
  } finally {
    await stopServer(kasi.child);
  }
}

export async function runSubscriptionChangeBench(given?: BenchDatabase): Promise<void> {
  const database = given ?? (await benchDatabase());
  try {
    const { keys } = await createMerchant(database.knex, { name: 'Bench changes', now: new Date() });
    const { subscriptionId, itemIds, newPriceId } = await threeItemSubscription(database, keys.sk_test);
    const body = JSON.stringify({ subscriptionId, items: [{ id: itemIds[0], priceId: newPriceId }, { id: itemIds[1], quantity: 7 }], prorationBehavior: 'always_invoice' });
    await measureAgainstBare(database, {
      label: 'Kasi POST /v1/invoices/preview',
      title: 'POST /v1/invoices/preview (a three-item subscription, two items changed, prorated) vs the bare server',
      request: (url) => ({ url: `${url}/v1/invoices/preview`, method: 'POST', headers: { authorization: `Bearer ${keys.sk_test}`, 'content-type': 'application/json' }, body: () => body }),
    });
  } finally {
    if (!given) await database.close();
  }
}

if (require.main === module) runAsCommand(() => runSubscriptionChangeBench());
