// Subscriptions and their items: one entity workflow each runs the subscription's life
// (workflows/subscription.ts); these rows are what it and the API read.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('subscriptions', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id');
    t.text('mode').notNullable().checkIn(['test', 'live']);
    t.text('customer_id').notNullable().references('customers.id');
    t.text('status').notNullable().checkIn(['incomplete', 'incomplete_expired', 'trialing', 'active', 'past_due', 'unpaid', 'paused', 'canceled']);
    t.timestamp('billing_cycle_anchor', { useTz: true }).notNullable();
    t.timestamp('current_period_start', { useTz: true }).notNullable();
    t.timestamp('current_period_end', { useTz: true }).notNullable();
    t.boolean('cancel_at_period_end').notNullable().defaultTo(false);
    t.timestamp('cancel_at', { useTz: true }).nullable();
    t.timestamp('canceled_at', { useTz: true }).nullable();
    t.timestamp('ended_at', { useTz: true }).nullable();
    t.text('cancel_reason').nullable();
    t.jsonb('cancellation_details').notNullable();
    t.timestamp('trial_start', { useTz: true }).nullable();
    t.timestamp('trial_end', { useTz: true }).nullable();
    t.text('trial_end_behavior').notNullable().checkIn(['create_invoice', 'pause', 'cancel']);
    t.text('collection_method').notNullable().checkIn(['charge_automatically', 'send_invoice']);
    t.integer('days_until_due').nullable();
    t.text('card_id').nullable();
    t.timestamp('card_missing_since', { useTz: true }).nullable();
    t.text('latest_invoice_id').nullable();
    t.text('checkout_id').nullable();
    t.text('reference').nullable();
    t.text('success_url').nullable();
    t.text('cancel_url').nullable();
    // The customer's test clock, if any (the workflow waits on it).
    t.text('test_clock_id').nullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.index(['account_id', 'mode', 'id']);
    t.index(['account_id', 'mode', 'customer_id', 'id']);
    t.index(['account_id', 'mode', 'status', 'id']);
  });
  // The boot-time resumer's: subscriptions not ended.
  await knex.raw(`create index subscriptions_running on subscriptions (id) where status not in ('canceled', 'incomplete_expired')`);
  await knex.schema.createTable('subscription_items', (t) => {
    t.text('id').primary();
    t.text('subscription_id').notNullable().references('subscriptions.id');
    t.text('price_id').notNullable().references('prices.id');
    t.integer('quantity').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.index(['subscription_id', 'id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('subscription_items');
  await knex.schema.dropTable('subscriptions');
}
