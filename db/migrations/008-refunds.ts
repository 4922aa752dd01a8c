// Refunds: money given back on a succeeded payment, one row per request, `pending` until the
// processor has made it (succeeded) or could not (failed). The payment's `refunded_cents` and
// status (migration 003) move in the same statement as a refund's insert (db/refunds.ts). The
// sandbox processor keeps the refunds it was asked for in a table of its own.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('refunds', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id');
    t.text('mode').notNullable().checkIn(['test', 'live']);
    t.text('payment_id').notNullable().references('payments.id');
    t.text('status').notNullable().checkIn(['pending', 'succeeded', 'failed']);
    t.bigInteger('amount_cents').notNullable();
    t.text('reason').nullable();
    t.text('failure_message').nullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('succeeded_at', { useTz: true }).nullable();
    // GET /v1/refunds, and the same narrowed to one payment (`paymentId`): one range of one each.
    t.index(['account_id', 'mode', 'id']);
    t.index(['account_id', 'mode', 'payment_id', 'id']);
  });
  // The boot-time resumer: refunds still with the processor (a refund is in it only until then).
  await knex.raw(`create index refunds_pending on refunds (id) where status = 'pending'`);

  // The sandbox processor's refunds: one per reference, decided when asked for and reported
  // pending until `settles_at` (the payment's settlement; the refund goes out after it).
  await knex.schema.createTable('sandbox_refunds', (t) => {
    t.text('reference').primary();
    t.text('payment_reference').notNullable();
    t.bigInteger('amount_cents').notNullable();
    t.text('status').notNullable().checkIn(['succeeded', 'failed']);
    t.text('failure_message').nullable();
    t.timestamp('settles_at', { useTz: true }).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('sandbox_refunds');
  await knex.raw('drop index refunds_pending');
  await knex.schema.dropTable('refunds');
}
