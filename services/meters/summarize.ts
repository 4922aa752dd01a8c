// GET /v1/meters/{id}/event_summaries: a customer's usage of the meter, aggregated, in their
// current period (the current period of their subscription that bills the meter, usage not
// invoiced yet, late events included; else the calendar month in Sri Lanka), or between
// `startTime` and `endTime` (midnights in Sri Lanka), where events count by their timestamps.
import { usageCustomers, usageValues, type MeterRow } from '../../db/meters';
import { ApiError } from '../../domain/errors';
import { bucketProblems } from '../../domain/usage';
import { meterEventSummaryView } from '../../views/meter';
import type { AccountScope, ServiceContext } from '../context';
import { checkCustomer } from './named';
import { currentUsage } from './usage';

export interface SummaryQuery {
  customerId: string;
  startTime?: string;
  endTime?: string;
}

export async function summarizeUsage(ctx: ServiceContext, scope: AccountScope, meter: MeterRow, query: SummaryQuery) {
  const customer = (await usageCustomers(ctx.db, [query.customerId])).get(query.customerId);
  checkCustomer(customer, scope, query.customerId);
  let summary: { startTime: Date; endTime: Date; aggregatedValue: number };
  if (query.startTime === undefined && query.endTime === undefined) {
    const { window, value } = (await currentUsage(ctx, [{ meterId: meter.id, customer }]))[0]!;
    summary = { startTime: window.start, endTime: window.end, aggregatedValue: value };
  } else {
    if (query.startTime === undefined || query.endTime === undefined) {
      const missing = query.startTime === undefined ? 'startTime' : 'endTime';
      throw new ApiError('VALIDATION_FAILED', 'Send both startTime and endTime, or neither (the customer\'s current period).', { fields: [{ path: missing, message: 'Required with the other.' }] });
    }
    const range = { startTime: new Date(query.startTime), endTime: new Date(query.endTime) };
    const problems = bucketProblems(range);
    if (problems.length > 0) throw new ApiError('VALIDATION_FAILED', `The range is not valid: ${problems.map((p) => `${p.path}: ${p.message}`).join(' ')}`, { fields: problems });
    const [value] = await usageValues(ctx.db, [{ meterId: meter.id, customerId: customer.id, from: range.startTime, to: range.endTime, notInvoicedOnly: false }]);
    summary = { ...range, aggregatedValue: value! };
  }
  return { object: 'list' as const, data: [meterEventSummaryView({ meterId: meter.id, customerId: customer.id, ...summary })], hasMore: false, nextCursor: null };
}
