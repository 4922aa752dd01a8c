// Invoices: what a customer owes, in lines, numbered INV-000001 upward per account and mode when
// finalised (invoice_numbers: one counter row each, taken in the finalising transaction, so
// numbers have no gaps whatever runs at once).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('invoices', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id');
    t.text('mode').notNullable().checkIn(['test', 'live']);
    t.text('customer_id').notNullable().references('customers.id');
    t.text('subscription_id').nullable();
    t.text('number').nullable();
    t.text('status').notNullable().checkIn(['draft', 'open', 'paid', 'void', 'uncollectible']);
    t.text('billing_reason').notNullable();
    t.timestamp('period_start', { useTz: true }).nullable();
    t.timestamp('period_end', { useTz: true }).nullable();
    t.jsonb('lines').notNullable();
    t.bigInteger('subtotal_cents').notNullable();
    t.bigInteger('discount_cents').notNullable();
    t.bigInteger('tax_cents').notNullable();
    t.bigInteger('total_cents').notNullable();
    t.bigInteger('credit_applied_cents').notNullable();
    t.bigInteger('amount_due_cents').notNullable();
    t.bigInteger('amount_paid_cents').notNullable();
    t.bigInteger('credit_notes_cents').notNullable();
    t.text('collection_method').notNullable().checkIn(['charge_automatically', 'send_invoice']);
    t.integer('days_until_due').nullable();
    t.timestamp('due_date', { useTz: true }).nullable();
    t.text('memo').nullable();
    t.integer('attempt_count').notNullable().defaultTo(0);
    t.timestamp('next_attempt_at', { useTz: true }).nullable();
    t.text('last_failure').nullable();
    t.timestamp('finalized_at', { useTz: true }).nullable();
    t.timestamp('paid_at', { useTz: true }).nullable();
    t.timestamp('voided_at', { useTz: true }).nullable();
    t.timestamp('marked_uncollectible_at', { useTz: true }).nullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.index(['account_id', 'mode', 'id']);
    t.index(['account_id', 'mode', 'customer_id', 'id']);
    t.index(['account_id', 'mode', 'subscription_id', 'id']);
    t.index(['account_id', 'mode', 'status', 'id']);
    t.unique(['account_id', 'mode', 'number']);
  });
  await knex.schema.createTable('invoice_numbers', (t) => {
    t.text('account_id').notNullable().references('accounts.id');
    t.text('mode').notNullable().checkIn(['test', 'live']);
    t.integer('last_number').notNullable();
    t.primary(['account_id', 'mode']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('invoice_numbers');
  await knex.schema.dropTable('invoices');
}
