// Usage billing (DESIGN.md "Adjustments and usage: the resources"): meters (an event name counted
// per customer by sum, count or last), the meter events sent (kept 35 days from their arrival, for
// their `identifier` to deduplicate), their usage pre-aggregated as they arrive per meter, customer
// and day (so invoicing reads buckets, not events), billing alerts, and the alerts triggered
// (one row per alert, customer and period: triggered once under races).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('meters', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id');
    t.text('mode').notNullable().checkIn(['test', 'live']);
    t.text('display_name').notNullable();
    t.text('event_name').notNullable();
    t.text('aggregation').notNullable().checkIn(['sum', 'count', 'last']);
    t.boolean('active').notNullable().defaultTo(true);
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('deactivated_at', { useTz: true }).nullable();
    t.index(['account_id', 'mode', 'id']);
  });
  // One active meter per event name and mode: 409 meter_exists, also under races.
  await knex.raw('create unique index meters_active_event_name on meters (account_id, mode, event_name) where active');

  await knex.schema.createTable('meter_events', (t) => {
    t.text('account_id').notNullable();
    t.text('mode').notNullable();
    t.text('identifier').notNullable();
    t.text('meter_id').notNullable();
    t.text('event_name').notNullable();
    t.text('customer_id').notNullable();
    t.bigInteger('value').notNullable();
    t.timestamp('timestamp', { useTz: true }).notNullable();
    // The usage bucket it was added to (meter_usage.bucket_start).
    t.timestamp('bucket_start', { useTz: true }).notNullable();
    // Arrival, on the service's clock: kept 35 days from it (db/meter-events.ts purgeMeterEvents).
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.primary(['account_id', 'mode', 'identifier']);
    t.index(['created_at']);
  });
  // Arrival order: `last`'s ties go to the last to arrive.
  await knex.raw('alter table meter_events add column seq bigint generated always as identity');

  await knex.schema.createTable('meter_usage', (t) => {
    t.text('meter_id').notNullable();
    t.text('customer_id').notNullable();
    t.timestamp('bucket_start', { useTz: true }).notNullable();
    t.bigInteger('value_sum').notNullable();
    t.bigInteger('event_count').notNullable();
    t.bigInteger('last_value').notNullable();
    t.timestamp('last_timestamp', { useTz: true }).notNullable();
    t.bigInteger('last_seq').notNullable();
    // The period end it was invoiced at; null while not invoiced (a late event opens a new bucket).
    t.timestamp('billed_until', { useTz: true }).nullable();
    t.index(['meter_id', 'customer_id', 'bucket_start']);
  });
  await knex.raw('create unique index meter_usage_open on meter_usage (meter_id, customer_id, bucket_start) where billed_until is null');

  await knex.schema.createTable('billing_alerts', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id');
    t.text('mode').notNullable().checkIn(['test', 'live']);
    t.text('title').notNullable();
    t.text('meter_id').notNullable().references('meters.id');
    t.bigInteger('threshold').notNullable();
    t.text('customer_id').nullable().references('customers.id');
    t.boolean('active').notNullable().defaultTo(true);
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('archived_at', { useTz: true }).nullable();
    t.index(['account_id', 'mode', 'id']);
    t.index(['meter_id']);
  });
  await knex.schema.createTable('billing_alert_triggers', (t) => {
    t.text('alert_id').notNullable().references('billing_alerts.id');
    t.text('customer_id').notNullable();
    t.timestamp('period_start', { useTz: true }).notNullable();
    t.bigInteger('value').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.primary(['alert_id', 'customer_id', 'period_start']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('billing_alert_triggers');
  await knex.schema.dropTable('billing_alerts');
  await knex.schema.dropTable('meter_usage');
  await knex.schema.dropTable('meter_events');
  await knex.schema.dropTable('meters');
}
