// A payment's succeeded_at stays empty until it succeeds, and only the monthly use reads it (as
// a range, which implies not null): index only the payments that have one, so creating a payment
// writes one index entry fewer.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw('drop index payments_account_id_mode_succeeded_at_index');
  await knex.raw('create index payments_succeeded on payments (account_id, mode, succeeded_at) where succeeded_at is not null');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index payments_succeeded');
  await knex.raw('create index payments_account_id_mode_succeeded_at_index on payments (account_id, mode, succeeded_at)');
}
