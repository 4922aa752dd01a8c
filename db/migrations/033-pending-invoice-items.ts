// The account's pending invoice items listed by themselves (GET /v1/invoice_items?pending=true),
// newest first, by an index of only the pending ones: a page does not read past every item that
// invoices have taken.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw('create index invoice_items_pending_by_account on invoice_items (account_id, mode, id) where invoice_id is null');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index invoice_items_pending_by_account');
}
