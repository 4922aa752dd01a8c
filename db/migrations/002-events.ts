// Events, written in the same transaction as the change they describe. Rows not yet dispatched
// to webhooks form the outbox.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('events', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id');
    t.text('mode').notNullable().checkIn(['test', 'live']);
    t.text('type').notNullable();
    // `json`, not `jsonb`: the object is kept exactly as rendered, so a webhook and the API send
    // the same bytes.
    t.specificType('data', 'json').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('dispatched_at', { useTz: true }).nullable();
    t.index(['account_id', 'mode', 'id']);
    t.index(['account_id', 'mode', 'type', 'id']);
  });
  await knex.raw('create index events_outbox on events (id) where dispatched_at is null');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('events');
}
