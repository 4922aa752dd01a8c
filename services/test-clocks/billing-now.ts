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
