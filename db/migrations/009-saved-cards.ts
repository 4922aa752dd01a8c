// Saved cards: a card kept at the processor after a payment the customer agreed to keep it at,
// charged later without the customer present. The service keeps only what the processor tells it
// (scheme, last4, expiry, its reusable token); the sandbox processor keeps its tokens and the
// charges made with them in tables of its own. Customers already have `default_card_id`
// (migration 001).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('saved_cards', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id');
    t.text('mode').notNullable().checkIn(['test', 'live']);
    t.text('customer_email').notNullable();
    t.text('scheme').notNullable();
    t.text('last4').notNullable();
    t.integer('expiry_month').notNullable();
    t.integer('expiry_year').notNullable();
    // The processor's reusable token; null for a card the processor could not charge.
    t.text('processor_token').nullable();
    // One card per payment: a retried settlement finds the card it kept.
    t.text('payment_id').notNullable().unique().references('payments.id');
    t.timestamp('consent_at', { useTz: true }).notNullable();
    t.text('consent_locale').notNullable().checkIn(['en', 'si', 'ta']);
    t.text('consent_wording').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    // Set on deletion (`active` false); a retired card is never charged again.
    t.timestamp('retired_at', { useTz: true }).nullable();
    // When card.expiring went out (once per card: its expiry month never changes).
    t.timestamp('expiring_notified_at', { useTz: true }).nullable();
  });
  // The list (newest 200 active, optionally of one email) reads one range of one of these.
  await knex.raw('create index saved_cards_active on saved_cards (account_id, mode, id) where retired_at is null');
  await knex.raw('create index saved_cards_active_email on saved_cards (account_id, mode, lower(customer_email), id) where retired_at is null');
  // The monthly card.expiring sweep: active cards of one expiry month not yet told about.
  await knex.raw('create index saved_cards_expiring on saved_cards (expiry_year, expiry_month, id) where retired_at is null and expiring_notified_at is null');
  // The boot-time resumer of settled payments whose card is still to be kept (a crash between the
  // payment's success and its card's keeping); a payment is in it only for that moment.
  await knex.raw(`create index payments_card_to_keep on payments (id) where card_save = 'requested' and status in ('succeeded', 'partially_refunded', 'refunded')`);

  // The sandbox processor's reusable tokens: one per approved session it kept (`reference`).
  await knex.schema.createTable('sandbox_tokens', (t) => {
    t.text('token').primary();
    t.text('reference').notNullable().unique();
    t.text('scheme').notNullable();
    t.text('last4').notNullable();
    t.integer('expiry_month').notNullable();
    t.integer('expiry_year').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('deleted_at', { useTz: true }).nullable();
  });
  // The sandbox's merchant-initiated charges: one per reference, decided when made and reported
  // pending until `settles_at` (the bank's answer takes a moment).
  await knex.schema.createTable('sandbox_charges', (t) => {
    t.text('reference').primary();
    t.text('token').notNullable();
    t.bigInteger('amount_cents').notNullable();
    t.text('merchant_name').notNullable();
    t.text('status').notNullable().checkIn(['approved', 'declined', 'canceled']);
    t.text('decline_code').nullable();
    t.timestamp('settles_at', { useTz: true }).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('sandbox_charges');
  await knex.schema.dropTable('sandbox_tokens');
  await knex.raw('drop index payments_card_to_keep');
  await knex.schema.dropTable('saved_cards');
}
