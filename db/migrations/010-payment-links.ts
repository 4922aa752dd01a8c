// Payment links: one address many payers pay, each with a checkout and payment of their own
// (payments.payment_link_id, there since migration 003). A link is never deleted, only turned off.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('payment_links', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id');
    t.text('mode').notNullable().checkIn(['test', 'live']);
    t.boolean('active').notNullable();
    // What each payer pays: the total, and the line items it comes from (null for a fixed amount).
    t.bigInteger('amount_cents').notNullable();
    t.text('description').notNullable();
    t.specificType('line_items', 'json').nullable();
    t.text('locale').notNullable().checkIn(['en', 'si', 'ta']);
    t.text('reference').nullable();
    t.text('success_url').nullable();
    t.boolean('save_card').notNullable();
    // As given to the merchant at creation, like a checkout's.
    t.text('url').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('deactivated_at', { useTz: true }).nullable();
    t.index(['account_id', 'mode', 'id']);
  });
  // How many payments each link took, for the list: only payments that succeeded, so the index
  // stays as small as the links' takings and a checkout's write never touches it.
  await knex.raw('create index payments_link_taken on payments (payment_link_id) where payment_link_id is not null and succeeded_at is not null');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index payments_link_taken');
  await knex.schema.dropTable('payment_links');
}
