// "Now" for a customer (DESIGN.md decision 12): its test clock's time, or the service's.
import { customerTime, type CustomerRow } from '../../db/customers';
import { findTestClock } from '../../db/test-clocks';
import { ApiError } from '../../domain/errors';
import type { ServiceContext } from '../context';

export async function billingNow(ctx: Pick<ServiceContext, 'db' | 'clock'>, customer: Pick<CustomerRow, 'test_clock_id'>): Promise<Date> {
  if (customer.test_clock_id === null) return ctx.clock.now();
  return (await findTestClock(ctx.db, customer.test_clock_id))!.frozen_time;
}

/** "Now" for something new of the customer's: refused (404) when the customer's test clock was deleted, as nothing of it moves again. */
export async function billingNowForNew(ctx: Pick<ServiceContext, 'db' | 'clock'>, customer: Pick<CustomerRow, 'id' | 'test_clock_id'>): Promise<Date> {
  if (customer.test_clock_id === null) return ctx.clock.now();
  const clock = (await findTestClock(ctx.db, customer.test_clock_id))!;
  if (clock.deleted_at !== null) throw new ApiError('NOT_FOUND', `The customer ${customer.id} lived on the test clock ${clock.id}, which was deleted: nothing new can be billed to them.`);
  return clock.frozen_time;
}

/** "Now" for a customer whose clock's time (`frozen_time`, null off a clock) was read with something else: one statement fewer. */
export function nowOnClock(ctx: Pick<ServiceContext, 'clock'>, clockTime: Date | null): Date {
  return clockTime ?? ctx.clock.now();
}

/** "Now" for the customer of that id: its test clock's time, or the service's. */
export async function billingNowOf(ctx: Pick<ServiceContext, 'db' | 'clock'>, customerId: string): Promise<Date> {
  return nowOnClock(ctx, (await customerTime(ctx.db, customerId)).frozen_time);
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
  return nowOnClock(ctx, row?.frozen_time ?? null);
}
