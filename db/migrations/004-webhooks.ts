// Webhook endpoints, their signing secrets (encrypted: signing needs the secret itself), one
// delivery per (event, endpoint) and every attempt of it.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhook_endpoints', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id');
    t.text('mode').notNullable().checkIn(['test', 'live']);
    t.text('url').notNullable();
    t.boolean('enabled').notNullable().defaultTo(true);
    // Null: every event type.
    t.specificType('event_types', 'text[]').nullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.index(['account_id', 'mode', 'id']);
  });

  await knex.schema.createTable('webhook_secrets', (t) => {
    t.bigIncrements('id');
    t.text('endpoint_id').notNullable().references('webhook_endpoints.id');
    t.text('secret_box').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    // Set on rotation: the old secret keeps signing alongside the new one until then.
    t.timestamp('expires_at', { useTz: true }).nullable();
    t.index(['endpoint_id']);
  });

  await knex.schema.createTable('webhook_deliveries', (t) => {
    t.text('id').primary();
    t.text('endpoint_id').notNullable().references('webhook_endpoints.id');
    t.text('account_id').notNullable().references('accounts.id');
    t.text('mode').notNullable();
    // Null for test.ping, which is not an event of the API.
    t.text('event_id').nullable().references('events.id');
    t.text('event_type').notNullable();
    // The exact bytes sent (and signed) on every attempt.
    t.text('payload').notNullable();
    t.text('status').notNullable().checkIn(['pending', 'delivered', 'failed']);
    t.integer('attempt_count').notNullable().defaultTo(0);
    t.timestamp('next_attempt_at', { useTz: true }).nullable();
    t.timestamp('delivered_at', { useTz: true }).nullable();
    t.timestamp('failed_at', { useTz: true }).nullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.index(['endpoint_id', 'id']);
  });
  await knex.raw('create unique index webhook_deliveries_once on webhook_deliveries (event_id, endpoint_id) where event_id is not null');
  await knex.raw(`create index webhook_deliveries_pending on webhook_deliveries (id) where status = 'pending'`);

  await knex.schema.createTable('webhook_attempts', (t) => {
    t.bigIncrements('id');
    t.text('delivery_id').notNullable().references('webhook_deliveries.id');
    t.integer('attempt_number').notNullable();
    t.timestamp('attempted_at', { useTz: true }).notNullable();
    t.integer('status_code').nullable();
    t.integer('latency_ms').notNullable();
    t.text('response_body').nullable();
    t.text('error').nullable();
    t.unique(['delivery_id', 'attempt_number']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['webhook_attempts', 'webhook_deliveries', 'webhook_secrets', 'webhook_endpoints']) {
    await knex.schema.dropTable(table);
  }
}
