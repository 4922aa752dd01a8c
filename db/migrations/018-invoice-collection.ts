// Invoice collection: the hosted invoice page's address, kept when the invoice is finalised (as a
// checkout keeps its url); the dunning ladder's first decline (the retries count from it); when
// the due-date reminder and the overdue notice went out (each once); and an invoice's charges:
// one payment per attempt, so a retried activity or a restart finds the attempt's payment, and
// with it the one processor reference, instead of charging again.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('invoices', (t) => {
    t.text('hosted_url').nullable();
    t.timestamp('first_failed_at', { useTz: true }).nullable();
    t.timestamp('reminded_at', { useTz: true }).nullable();
    t.timestamp('overdue_at', { useTz: true }).nullable();
  });
  // The boot-time resumer's: invoices still being collected.
  await knex.raw(`create index invoices_open on invoices (id) where status = 'open'`);
  await knex.schema.alterTable('payments', (t) => {
    t.integer('invoice_attempt').nullable();
  });
  // Where an incomplete subscription's first invoice is paid (its hosted invoice page).
  await knex.schema.alterTable('subscriptions', (t) => {
    t.text('checkout_url').nullable();
  });
  await knex.raw('create unique index payments_invoice_attempt on payments (invoice_id, invoice_attempt) where invoice_attempt is not null');
  await knex.raw('create index payments_invoice on payments (invoice_id) where invoice_id is not null');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('subscriptions', (t) => t.dropColumn('checkout_url'));
  await knex.raw('drop index payments_invoice');
  await knex.raw('drop index payments_invoice_attempt');
  await knex.schema.alterTable('payments', (t) => t.dropColumn('invoice_attempt'));
  await knex.raw('drop index invoices_open');
  await knex.schema.alterTable('invoices', (t) => {
    t.dropColumn('hosted_url');
    t.dropColumn('first_failed_at');
    t.dropColumn('reminded_at');
    t.dropColumn('overdue_at');
  });
}
