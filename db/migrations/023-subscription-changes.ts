// Subscription changes (DESIGN.md "Proration", "Subscription changes"):
// - `pending_prorations`: the proration lines a change with `create_prorations` makes, waiting for
//   the subscription's next period's invoice, which takes them once (`invoice_id`, set by a
//   conditional update as carried amounts are; checked at the commit, as that invoice is written
//   later in the same transaction);
// - `subscriptions.pending_update`: a change waiting for its invoice to be paid
//   (`pending_if_incomplete`), with what applying it needs;
// - a carried amount may now be a credit: an invoice whose total is below zero (a downgrade
//   invoiced at once) is paid at 0 and its total carried onto the customer's next invoice.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('pending_prorations', (t) => {
    t.bigIncrements('id').primary();
    t.text('subscription_id').notNullable().references('subscriptions.id');
    t.jsonb('line').notNullable();
    t.text('invoice_id').nullable().references('invoices.id').deferrable('deferred');
    t.timestamp('created_at', { useTz: true }).notNullable();
  });
  await knex.raw('create index pending_prorations_pending on pending_prorations (subscription_id) where invoice_id is null');
  await knex.schema.alterTable('subscriptions', (t) => {
    t.jsonb('pending_update').nullable();
    // Whether proration lines wait: a renewal looks for them only then.
    t.boolean('prorations_pending').notNullable().defaultTo(false);
  });
  await knex.raw(`do $$ declare c text; begin
    select conname into c from pg_constraint where conrelid = 'carried_amounts'::regclass and contype = 'c' and pg_get_constraintdef(oid) like '%amount_cents%';
    execute format('alter table carried_amounts drop constraint %I', c);
  end $$`);
  await knex.raw('alter table carried_amounts add constraint carried_amounts_amount_cents check (amount_cents between 1 and 999 or amount_cents < 0)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table carried_amounts drop constraint carried_amounts_amount_cents');
  await knex.raw('alter table carried_amounts add constraint carried_amounts_amount_cents_check check (amount_cents between 1 and 999)');
  await knex.schema.alterTable('subscriptions', (t) => t.dropColumns('pending_update', 'prorations_pending'));
  await knex.schema.dropTable('pending_prorations');
}
