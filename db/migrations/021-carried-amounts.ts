// Amounts carried over (DESIGN.md, "Invoice arithmetic"): an invoice whose amount due is 1 to 999
// cents, below a card payment's minimum, is paid by carrying that amount onto the customer's next
// invoice. One row per invoice so paid (its source); `invoice_id` is the invoice that took it as
// a line, null while pending, set once by a conditional update (db/carried-amounts.ts). The
// invoice that takes it is written later in the same transaction, so that key is checked at the
// commit. Every invoice line now carries `priceId` (null for added lines and carried amounts):
// lines written before have it added as null.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('carried_amounts', (t) => {
    t.text('source_invoice_id').primary().references('invoices.id');
    t.text('account_id').notNullable().references('accounts.id');
    t.text('mode').notNullable().checkIn(['test', 'live']);
    t.text('customer_id').notNullable().references('customers.id');
    t.text('subscription_id').nullable();
    t.bigInteger('amount_cents').notNullable().checkBetween([1, 999]);
    t.text('invoice_id').nullable().references('invoices.id').deferrable('deferred');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.index(['invoice_id']);
  });
  // The pending ones of a customer: what its next invoice takes (and its preview shows).
  await knex.raw('create index carried_amounts_pending on carried_amounts (customer_id) where invoice_id is null');
  await knex.raw(`update invoices set lines = (select jsonb_agg(case when l -> 'priceId' is null then l || '{"priceId": null}' else l end order by n) from jsonb_array_elements(lines) with ordinality e(l, n))
    where exists (select 1 from jsonb_array_elements(lines) l where l -> 'priceId' is null)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('carried_amounts');
}
