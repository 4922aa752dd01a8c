// What an invoice carries besides its lines (DESIGN.md "Invoice arithmetic"): the coupon whose
// discount it shows and its taxes, one entry per rate. Their amounts were there from migration 016.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('invoices', (t) => {
    t.text('coupon_id').nullable();
    t.jsonb('taxes').notNullable().defaultTo('[]');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('invoices', (t) => {
    t.dropColumn('coupon_id');
    t.dropColumn('taxes');
  });
}
