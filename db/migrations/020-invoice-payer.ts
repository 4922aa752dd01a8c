// The payment that paid an invoice (null while unpaid, and for one paid without a card payment):
// a payment that succeeds for an invoice it did not pay is refunded (docs/reference/invoices.md "One
// invoice, one payment"), and the paid invoice's page shows the card that paid it. Invoices paid
// before this are given their first payment that succeeded.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('invoices', (t) => {
    t.text('paid_payment_id').nullable();
  });
  await knex.raw(`update invoices i set paid_payment_id = (
      select p.id from payments p where p.invoice_id = i.id and p.status in ('succeeded', 'partially_refunded', 'refunded')
      order by p.succeeded_at, p.id limit 1)
    where i.status = 'paid'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('invoices', (t) => t.dropColumn('paid_payment_id'));
}
