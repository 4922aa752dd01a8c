// Invoice items, the customer's credit balance and credit notes (DESIGN.md "Adjustments and usage:
// the resources"):
// - `invoice_items`: one-off lines pending for a customer (or one of their subscriptions), taken
//   once by the next invoice (`invoice_id` set by a conditional update, as carried amounts are;
//   checked at the commit, as that invoice is written later in the same transaction);
// - `balance_transactions`: every change of a customer's `credit_balance_cents`, each with the
//   balance it left (`ending_balance_cents`), written under the customer's row lock;
// - `credit_notes` and their per-account, per-mode counter (`CN-000001` upward, taken as invoice
//   numbers are, so numbers have no gaps);
// - an invoice whose total was below zero is no longer carried as a credit line: its total goes to
//   the balance. Credits carried before and not yet taken move there now.
import type { Knex } from 'knex';
import { newId } from '../../crypto/ids';
import { addBalanceTransaction } from '../balance-transactions';
import type { CarriedAmountRow } from '../carried-amounts';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('invoice_items', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id');
    t.text('mode').notNullable().checkIn(['test', 'live']);
    t.text('customer_id').notNullable().references('customers.id');
    t.text('subscription_id').nullable().references('subscriptions.id');
    t.text('invoice_id').nullable().references('invoices.id').deferrable('deferred');
    t.text('description').notNullable();
    t.bigInteger('unit_amount_cents').notNullable();
    t.integer('quantity').notNullable();
    t.bigInteger('amount_cents').notNullable();
    t.boolean('discountable').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.index(['account_id', 'mode', 'id']);
    t.index(['account_id', 'mode', 'customer_id', 'id']);
    t.index(['account_id', 'mode', 'subscription_id', 'id']);
  });
  // The pending ones of a customer: what its next invoice takes (and its preview shows).
  await knex.raw('create index invoice_items_pending on invoice_items (customer_id) where invoice_id is null');

  await knex.schema.createTable('credit_notes', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id');
    t.text('mode').notNullable().checkIn(['test', 'live']);
    t.text('number').notNullable();
    t.text('invoice_id').notNullable().references('invoices.id');
    t.text('customer_id').notNullable().references('customers.id');
    t.bigInteger('amount_cents').notNullable();
    t.bigInteger('refund_cents').notNullable();
    t.bigInteger('credit_cents').notNullable();
    t.text('refund_id').nullable().references('refunds.id');
    t.text('reason').nullable();
    t.text('memo').nullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.unique(['account_id', 'mode', 'number']);
    t.index(['account_id', 'mode', 'id']);
    t.index(['account_id', 'mode', 'invoice_id', 'id']);
    t.index(['account_id', 'mode', 'customer_id', 'id']);
  });
  await knex.schema.createTable('credit_note_numbers', (t) => {
    t.text('account_id').notNullable().references('accounts.id');
    t.text('mode').notNullable().checkIn(['test', 'live']);
    t.integer('last_number').notNullable();
    t.primary(['account_id', 'mode']);
  });

  await knex.schema.createTable('balance_transactions', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id');
    t.text('mode').notNullable().checkIn(['test', 'live']);
    t.text('customer_id').notNullable().references('customers.id');
    t.text('type').notNullable().checkIn(['adjustment', 'applied_to_invoice', 'credit_note', 'invoice_negative']);
    t.bigInteger('amount_cents').notNullable();
    t.bigInteger('ending_balance_cents').notNullable();
    t.text('invoice_id').nullable().references('invoices.id').deferrable('deferred');
    t.text('credit_note_id').nullable().references('credit_notes.id').deferrable('deferred');
    t.text('description').nullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.index(['customer_id', 'id']);
  });

  await moveCarriedCredits(knex);
}

/** Credits carried before (a total below zero, migration 023) and still pending: to their customers' balances, in the order they were carried. */
export async function moveCarriedCredits(knex: Knex): Promise<void> {
  const carried = (await knex('carried_amounts').where('amount_cents', '<', 0).whereNull('invoice_id').orderBy(['created_at', 'source_invoice_id'])) as CarriedAmountRow[];
  for (const credit of carried) {
    await addBalanceTransaction(knex, {
      id: newId('balanceTransaction', credit.created_at.getTime()),
      account_id: credit.account_id,
      mode: credit.mode,
      customer_id: credit.customer_id,
      type: 'invoice_negative',
      amount_cents: -Number(credit.amount_cents),
      invoice_id: credit.source_invoice_id,
      credit_note_id: null,
      description: null,
      created_at: credit.created_at,
    });
    await knex('carried_amounts').where({ source_invoice_id: credit.source_invoice_id }).delete();
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('balance_transactions');
  await knex.schema.dropTable('credit_note_numbers');
  await knex.schema.dropTable('credit_notes');
  await knex.schema.dropTable('invoice_items');
}
