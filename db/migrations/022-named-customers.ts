// Whether the merchant named a checkout's customer (a secret key's checkout that came with
// `customer`): only then may a card kept at it become an existing customer's default. What a
// payer types, on a payment link, a publishable key's checkout or the page's own form, never does
// (docs/reference/cards.md). Checkouts made before this migration count as not named.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('checkouts', (t) => {
    t.boolean('customer_named').notNullable().defaultTo(false);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('checkouts', (t) => t.dropColumn('customer_named'));
}
