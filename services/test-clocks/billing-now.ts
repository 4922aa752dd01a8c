// "Now" for a customer (DESIGN.md decision 12): its test clock's time, or the service's.
import type { CustomerRow } from '../../db/customers';
import { findTestClock } from '../../db/test-clocks';
import type { ServiceContext } from '../context';

export async function billingNow(ctx: Pick<ServiceContext, 'db' | 'clock'>, customer: Pick<CustomerRow, 'test_clock_id'>): Promise<Date> {
  if (customer.test_clock_id === null) return ctx.clock.now();
  return (await findTestClock(ctx.db, customer.test_clock_id))!.frozen_time;
}

/** "Now" for the customer of that id: its test clock's time, or the service's. */
export async function billingNowOf(ctx: Pick<ServiceContext, 'db' | 'clock'>, customerId: string): Promise<Date> {
  return billingNow(ctx, (await ctx.db('customers').where({ id: customerId }).first('test_clock_id')) as Pick<CustomerRow, 'test_clock_id'>);
}

/**
 * "Now" for a payment: when it pays an invoice, the time of the invoice's customer (a test clock's,
 * if it lives on one); otherwise the service's.
 */
export async function paymentNow(ctx: Pick<ServiceContext, 'db' | 'clock'>, payment: { invoice_id: string | null }): Promise<Date> {
  if (payment.invoice_id === null) return ctx.clock.now();
  const row = (await ctx.db('invoices as i')
    .join('customers as c', 'c.id', 'i.customer_id')
    .leftJoin('test_clocks as t', 't.id', 'c.test_clock_id')
    .where('i.id', payment.invoice_id)
    .first('t.frozen_time')) as { frozen_time: Date | null } | undefined;
  return row?.frozen_time ?? ctx.clock.now();
}
