// Accounts, API keys, idempotency records, the shared rate-limit store, customers, and the
// payment columns the monthly limit is counted from (checkouts extend payments later).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('accounts', (t) => {
    t.text('id').primary();
    t.text('name').notNullable();
    t.text('status').notNullable().checkIn(['not_activated', 'active', 'suspended']);
    t.text('plan').notNullable();
    t.boolean('saved_cards').notNullable().defaultTo(false);
    t.timestamp('live_activated_at', { useTz: true }).nullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
  });

  await knex.schema.createTable('api_keys', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id');
    t.text('kind').notNullable().checkIn(['secret', 'publishable', 'agent']);
    t.text('mode').notNullable().checkIn(['test', 'live']);
    t.specificType('permissions', 'text[]').notNullable();
    t.text('key_hash').notNullable().unique();
    t.text('key_hint').notNullable();
    t.timestamp('expires_at', { useTz: true }).nullable();
    t.timestamp('revoked_at', { useTz: true }).nullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.index(['account_id', 'id']);
  });

  // One row per (account, mode, key). A row without a response is a request still running; the
  // response is written in the same transaction as the request's own changes.
  await knex.schema.createTable('idempotency_keys', (t) => {
    t.text('account_id').notNullable().references('accounts.id');
    t.text('mode').notNullable();
    t.text('key').notNullable();
    t.text('fingerprint').notNullable();
    t.text('lock_token').notNullable();
    t.timestamp('locked_at', { useTz: true }).notNullable();
    t.integer('response_status').nullable();
    t.text('response_body').nullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.primary(['account_id', 'mode', 'key']);
    t.index(['created_at']);
  });

  // The table rate-limiter-flexible uses when RATE_LIMIT_STORE=postgres (its own layout).
  await knex.schema.createTable('rate_limits', (t) => {
    t.string('key', 255).primary();
    t.integer('points').notNullable().defaultTo(0);
    t.bigInteger('expire').nullable();
  });

  await knex.schema.createTable('customers', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id');
    t.text('mode').notNullable().checkIn(['test', 'live']);
    t.text('email').notNullable();
    t.text('name').nullable();
    t.text('phone').nullable();
    t.text('locale').notNullable().checkIn(['en', 'si', 'ta']);
    t.text('default_card_id').nullable();
    t.bigInteger('credit_balance_cents').notNullable().defaultTo(0);
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.index(['account_id', 'mode', 'id']);
  });
  await knex.raw('create unique index customers_email_per_mode on customers (account_id, mode, lower(email))');

  await knex.schema.createTable('payments', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id');
    t.text('mode').notNullable().checkIn(['test', 'live']);
    t.text('status').notNullable().checkIn([
      'requires_payment_method', 'processing', 'succeeded', 'failed', 'canceled',
      'partially_refunded', 'refunded', 'disputed',
    ]);
    t.bigInteger('amount_cents').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('succeeded_at', { useTz: true }).nullable();
    t.index(['account_id', 'mode', 'id']);
    t.index(['account_id', 'mode', 'succeeded_at']);
  });
  await knex.raw(`create index payments_processing on payments (account_id, mode) where status = 'processing'`);
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['payments', 'customers', 'rate_limits', 'idempotency_keys', 'api_keys', 'accounts']) {
    await knex.schema.dropTable(table);
  }
}
