// A subscription's life beyond renewals: the trial end whose notice (trial_will_end) went out, so
// a trial moved later is noticed again; the period end whose invoice.upcoming went out; when it was paused (a trial ended with no card and
// `trialEndBehavior` pause); and the account's choice of what a subscription becomes when the
// dunning ladder ends unpaid (DESIGN.md "Dunning": `unpaid` by default, or `canceled`).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('subscriptions', (t) => {
    t.timestamp('trial_notice_for', { useTz: true }).nullable();
    t.timestamp('upcoming_notice_for', { useTz: true }).nullable();
    t.timestamp('paused_at', { useTz: true }).nullable();
  });
  await knex.schema.alterTable('accounts', (t) => {
    t.text('dunning_end').notNullable().defaultTo('unpaid').checkIn(['unpaid', 'canceled']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('accounts', (t) => t.dropColumn('dunning_end'));
  await knex.schema.alterTable('subscriptions', (t) => {
    t.dropColumn('trial_notice_for');
    t.dropColumn('upcoming_notice_for');
    t.dropColumn('paused_at');
  });
}
