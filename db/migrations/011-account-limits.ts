// The account and its limits: the merchants' upgrade requests, decided by an operator, and the
// notices of the monthly limit (approaching, reached, reset), each sent once per account, mode and
// Sri Lankan month.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('upgrade_requests', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id');
    // The plan asked for, and the one the account was on when it asked.
    t.text('plan').notNullable();
    t.text('from_plan').notNullable();
    t.text('status').notNullable().checkIn(['pending', 'approved', 'declined']);
    t.text('message').nullable();
    t.text('decline_reason').nullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('decided_at', { useTz: true }).nullable();
    // The merchant's list, newest first.
    t.index(['account_id', 'id']);
  });
  // One pending request per account: the insert that would make a second one does nothing.
  await knex.raw(`create unique index upgrade_requests_one_pending on upgrade_requests (account_id) where status = 'pending'`);
  // The operator's list of what waits (and of every request, by id).
  await knex.raw(`create index upgrade_requests_by_status on upgrade_requests (status, id)`);

  await knex.schema.createTable('limit_notices', (t) => {
    t.text('account_id').notNullable().references('accounts.id');
    t.text('mode').notNullable().checkIn(['test', 'live']);
    // The month the notice is about: midnight on its 1st, Sri Lankan time.
    t.timestamp('period_start', { useTz: true }).notNullable();
    t.text('kind').notNullable().checkIn(['approaching', 'reached', 'reset']);
    t.timestamp('created_at', { useTz: true }).notNullable();
    // Once per account, mode, month and kind: a second insert does nothing, so nothing is sent twice
    // (the event is recorded in the transaction whose insert did something).
    t.primary(['account_id', 'mode', 'period_start', 'kind']);
    // The reset sweep: last month's notices, by account and mode.
    t.index(['period_start', 'account_id', 'mode']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('limit_notices');
  await knex.schema.dropTable('upgrade_requests');
}
