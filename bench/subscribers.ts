// Subscribers for the billing benchmarks: cards seeded straight into the database as
// bench/cards.ts seeds one (the payment that kept it, the Saved card and the sandbox's token), and
// subscriptions copied from one the API made (its customer, items and paid first invoice), so
// thousands exist in seconds, each as the service wrote the first; their workflows then start the
// way the service starts them after a restart (workers/resumers.ts).
import type { Knex } from 'knex';
import { newId } from '../crypto/ids';
import { invoiceNumber } from '../domain/invoices';

const CARD = { scheme: 'visa', last4: '1111', expiry_month: 1, expiry_year: 2039 };
const ROWS_PER_INSERT = 500;

/** A row as knex inserts it: json and jsonb values (objects and arrays, dates aside) as JSON text. */
function insertable(row: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(row).map(([key, value]) => [key, value !== null && typeof value === 'object' && !(value instanceof Date) ? JSON.stringify(value) : value]));
}

async function insertAll(knex: Knex, table: string, rows: Record<string, unknown>[]): Promise<void> {
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) await knex(table).insert(rows.slice(i, i + ROWS_PER_INSERT).map(insertable));
}

/** A card kept a day ago for each email (approved on every charge: 01/39); their ids, in order. */
export async function seedCards(knex: Knex, accountId: string, emails: readonly string[]): Promise<string[]> {
  const keptAt = new Date(Date.now() - 24 * 60 * 60 * 1000);
  const payments: Record<string, unknown>[] = [];
  const tokens: Record<string, unknown>[] = [];
  const cards: Record<string, unknown>[] = [];
  for (const email of emails) {
    const paymentId = newId('payment', keptAt.getTime());
    const cardId = newId('savedCard', keptAt.getTime());
    const token = `tok_${cardId.slice(5)}`;
    payments.push({
      id: paymentId, account_id: accountId, mode: 'test', status: 'succeeded', amount_cents: 350000, description: 'Bench tea', customer_email: email,
      card_scheme: CARD.scheme, card_last4: CARD.last4, card_save: 'saved', fee_cents: 9625, net_cents: 340375, attempts: 1, settled_attempt: 1, created_at: keptAt, succeeded_at: keptAt,
    });
    tokens.push({ token, reference: `${paymentId}.1`, ...CARD, created_at: keptAt });
    cards.push({
      id: cardId, account_id: accountId, mode: 'test', customer_email: email, ...CARD, processor_token: token, payment_id: paymentId,
      consent_at: keptAt, consent_locale: 'en', consent_wording: 'Save this card so that Bench can charge it for future payments', created_at: keptAt,
    });
  }
  await insertAll(knex, 'payments', payments);
  await insertAll(knex, 'sandbox_tokens', tokens);
  await insertAll(knex, 'saved_cards', cards);
  return cards.map((card) => card.id as string);
}

/** Makes each customer's card their default card (what keeping a card at a checkout does). */
export async function makeDefaultCards(knex: Knex, customerIds: readonly string[], cardIds: readonly string[]): Promise<void> {
  const pairs = customerIds.map((id, i) => [id, cardIds[i]!]);
  for (let i = 0; i < pairs.length; i += ROWS_PER_INSERT) {
    const chunk = pairs.slice(i, i + ROWS_PER_INSERT);
    await knex.raw(`update customers c set default_card_id = v.card from (values ${chunk.map(() => '(?, ?)').join(', ')}) as v(id, card) where c.id = v.id`, chunk.flat());
  }
}

/**
 * `count` more subscriptions like `templateId` (made through the API, its first invoice paid): for
 * each, a customer like its customer (on the same test clock, or none) with an email of its own and
 * a default card of its own, the subscription with its items, and its first invoice, paid and
 * numbered after the account's last. Nothing starts their workflows: the service does, at boot or
 * from its resumers. The events and emails of their creation are not copied.
 */
export async function copySubscriptions(knex: Knex, templateId: string, count: number, emailPrefix: string): Promise<void> {
  const subscription = (await knex('subscriptions').where({ id: templateId }).first()) as Record<string, unknown> & { account_id: string; mode: string; customer_id: string; latest_invoice_id: string; created_at: Date };
  const customer = (await knex('customers').where({ id: subscription.customer_id }).first()) as Record<string, unknown>;
  const items = (await knex('subscription_items').where({ subscription_id: templateId })) as Record<string, unknown>[];
  const invoice = (await knex('invoices').where({ id: subscription.latest_invoice_id }).first()) as Record<string, unknown> & { id: string; status: string; hosted_url: string | null };
  if (invoice.status !== 'paid') throw new Error(`the template's first invoice is ${invoice.status}, not paid`);
  const scope = { account_id: subscription.account_id, mode: subscription.mode };
  const lastNumber = ((await knex('invoice_numbers').where(scope).first()) as { last_number: number } | undefined)?.last_number ?? 0;

  const emails = Array.from({ length: count }, (_, i) => `${emailPrefix}-${i}@example.com`);
  const cardIds = await seedCards(knex, subscription.account_id, emails);
  const at = subscription.created_at.getTime();
  const customers: Record<string, unknown>[] = [];
  const subscriptions: Record<string, unknown>[] = [];
  const subscriptionItems: Record<string, unknown>[] = [];
  const invoices: Record<string, unknown>[] = [];
  for (let i = 0; i < count; i++) {
    const customerId = newId('customer', at);
    const subscriptionId = newId('subscription', at);
    const invoiceId = newId('invoice', at);
    customers.push({ ...customer, id: customerId, email: emails[i], default_card_id: cardIds[i] });
    subscriptions.push({ ...subscription, id: subscriptionId, customer_id: customerId, latest_invoice_id: invoiceId });
    for (const item of items) subscriptionItems.push({ ...item, id: newId('subscriptionItem', at), subscription_id: subscriptionId });
    invoices.push({
      ...invoice,
      id: invoiceId,
      customer_id: customerId,
      subscription_id: subscriptionId,
      number: invoiceNumber(lastNumber + 1 + i),
      hosted_url: invoice.hosted_url?.replace(invoice.id, invoiceId) ?? null,
    });
  }
  await insertAll(knex, 'customers', customers);
  await insertAll(knex, 'subscriptions', subscriptions);
  await insertAll(knex, 'subscription_items', subscriptionItems);
  await insertAll(knex, 'invoices', invoices);
  await knex('invoice_numbers').insert({ ...scope, last_number: lastNumber + count }).onConflict(['account_id', 'mode']).merge(['last_number']);
}
