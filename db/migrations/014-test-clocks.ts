// Test clocks (DESIGN.md, "Test clocks"): a test-mode clock a merchant moves forward by hand, and
// the customers living in its time. `clock_waits` holds the next instant each workflow of such a
// customer waits for: an advance steps the clock through them in order (docs/reference/test-clocks.md).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('test_clocks', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id');
    t.text('mode').notNullable().checkIn(['test']);
    t.text('name').nullable();
    t.timestamp('frozen_time', { useTz: true }).notNullable();
    // Set while an advance runs: the time it goes to (status `advancing`).
    t.timestamp('advancing_to', { useTz: true }).nullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('deleted_at', { useTz: true }).nullable();
    t.index(['account_id', 'mode', 'id']);
  });
  // The boot-time resumer's: clocks still advancing.
  await knex.raw('create index test_clocks_advancing on test_clocks (id) where advancing_to is not null');
  await knex.schema.createTable('clock_waits', (t) => {
    t.text('workflow_id').primary();
    t.text('clock_id').notNullable().references('test_clocks.id');
    t.timestamp('due_at', { useTz: true }).notNullable();
    t.index(['clock_id', 'due_at']);
  });
  await knex.schema.alterTable('customers', (t) => {
    t.text('test_clock_id').nullable().references('test_clocks.id');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('customers', (t) => t.dropColumn('test_clock_id'));
  await knex.schema.dropTable('clock_waits');
  await knex.schema.dropTable('test_clocks');
}
