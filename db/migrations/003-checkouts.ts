// Checkouts, the payment columns every Payment field needs, and the sandbox processor's own
// table. The service keeps only what a processor may tell it about a card (scheme, last4, expiry,
// token); the card number and CVV never reach any of these tables.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('payments', (t) => {
    t.text('description').notNullable().defaultTo('');
    t.text('reference').nullable();
    t.text('customer_name').nullable();
    t.text('customer_email').nullable();
    t.text('customer_phone').nullable();
    t.text('card_scheme').nullable();
    t.text('card_last4').nullable();
    t.integer('card_expiry_month').nullable();
    t.integer('card_expiry_year').nullable();
    t.text('card_token').nullable();
    t.text('card_save').notNullable().defaultTo('not_requested');
    t.timestamp('card_consent_at', { useTz: true }).nullable();
    t.text('card_consent_locale').nullable();
    t.text('card_consent_wording').nullable();
    t.bigInteger('fee_cents').nullable();
    t.bigInteger('net_cents').nullable();
    t.bigInteger('refunded_cents').notNullable().defaultTo(0);
    t.text('failure_message').nullable();
    t.text('failure_code').nullable();
    t.text('payment_link_id').nullable();
    t.text('saved_card_id').nullable();
    t.text('invoice_id').nullable();
    t.text('checkout_id').nullable();
    t.text('checkout_page_id').nullable();
    t.specificType('order', 'json').nullable();
    // Each hand-over to the processor is an attempt; `<paymentId>.<attempt>` is the processor
    // reference, so a retried call finds the same session and never charges twice.
    t.integer('attempts').notNullable().defaultTo(0);
    t.integer('settled_attempt').notNullable().defaultTo(0);
    t.index(['account_id', 'mode', 'status', 'id']);
  });

  await knex.schema.createTable('checkouts', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id');
    t.text('mode').notNullable().checkIn(['test', 'live']);
    t.text('status').notNullable().checkIn(['open', 'completed', 'expired']);
    t.text('payment_id').notNullable().references('payments.id');
    t.text('locale').notNullable().checkIn(['en', 'si', 'ta']);
    // As given to the merchant at creation, so events rendered later show the same address.
    t.text('url').notNullable();
    t.text('success_url').nullable();
    t.text('cancel_url').nullable();
    t.boolean('save_card').notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('completed_at', { useTz: true }).nullable();
    t.timestamp('expired_at', { useTz: true }).nullable();
    t.index(['account_id', 'mode', 'id']);
  });
  await knex.raw(`create index checkouts_open on checkouts (id) where status = 'open'`);

  // The sandbox processor's sessions: one per reference. Only what a processor reports back
  // (scheme, last4, expiry, token) is kept.
  await knex.schema.createTable('sandbox_sessions', (t) => {
    t.text('id').primary();
    t.text('reference').notNullable().unique();
    t.bigInteger('amount_cents').notNullable();
    t.text('merchant_name').notNullable();
    t.text('return_url').notNullable();
    t.text('status').notNullable().checkIn(['awaiting_card', 'awaiting_3ds', 'approved', 'declined', 'canceled']);
    t.text('decline_code').nullable();
    t.text('scheme').nullable();
    t.text('last4').nullable();
    t.integer('expiry_month').nullable();
    t.integer('expiry_year').nullable();
    t.text('token').nullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('sandbox_sessions');
  await knex.schema.dropTable('checkouts');
  await knex.schema.alterTable('payments', (t) => {
    t.dropIndex(['account_id', 'mode', 'status', 'id']);
    t.dropColumns(
      'description', 'reference', 'customer_name', 'customer_email', 'customer_phone', 'card_scheme', 'card_last4',
      'card_expiry_month', 'card_expiry_year', 'card_token', 'card_save', 'card_consent_at', 'card_consent_locale',
      'card_consent_wording', 'fee_cents', 'net_cents', 'refunded_cents', 'failure_message', 'failure_code',
      'payment_link_id', 'saved_card_id', 'invoice_id', 'checkout_id', 'checkout_page_id', 'order', 'attempts', 'settled_attempt',
    );
  });
}
