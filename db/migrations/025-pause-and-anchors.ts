// Pauses of collection, billing cycle anchors and the account's billing settings (DESIGN.md
// "Subscription changes", "Proration"): a subscription's `pauseCollection` (its behaviour and when
// it resumes, if ever); the lines of a part period up to an anchor worth less than a card
// payment's minimum, waiting for the first renewal invoice; the account's proration (by the
// second or by the day) and its default anchor (`now` or `first_of_month`).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('subscriptions', (t) => {
    t.text('pause_behavior').nullable().checkIn(['keep_as_draft', 'mark_uncollectible', 'void']);
    t.timestamp('pause_resumes_at', { useTz: true }).nullable();
    t.jsonb('deferred_lines').nullable();
  });
  await knex.schema.alterTable('accounts', (t) => {
    t.text('proration').notNullable().defaultTo('second').checkIn(['second', 'day']);
    t.text('billing_cycle_anchor').notNullable().defaultTo('now').checkIn(['now', 'first_of_month']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('accounts', (t) => {
    t.dropColumn('proration');
    t.dropColumn('billing_cycle_anchor');
  });
  await knex.schema.alterTable('subscriptions', (t) => {
    t.dropColumn('pause_behavior');
    t.dropColumn('pause_resumes_at');
    t.dropColumn('deferred_lines');
  });
}
