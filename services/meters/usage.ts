// A customer's usage read from its buckets: in their current period (summaries, alerts), and a
// subscription's metered items' usage, billed in arrears at its renewal or end (marked invoiced,
// one statement for a whole batch of renewals) or shown so far on its upcoming invoice.
import { billUsage, usageValues, type UsageCustomer, type UsageQuery } from '../../db/meters';
import type { PricedItem, SubscriptionRow } from '../../db/subscriptions';
import type { InvoiceLine } from '../../domain/invoices';
import { currentWindow, usageLines, type UsageWindow } from '../../domain/usage';
import type { ServiceContext } from '../context';
import { nowOnClock } from '../test-clocks/billing-now';
import { billedItems } from '../subscriptions/bill-period';

/** Each customer's usage of each meter in their current period (domain/usage.ts currentWindow), with that window: one statement. */
export async function currentUsage(ctx: Pick<ServiceContext, 'db' | 'clock'>, pairs: readonly { meterId: string; customer: UsageCustomer }[]): Promise<{ window: UsageWindow; value: number }[]> {
  const windows = pairs.map((p) => currentWindow(p.meterId, p.customer.periods, nowOnClock(ctx, p.customer.frozen_time)));
  const values = await usageValues(ctx.db, pairs.map((p, i) => ({ meterId: p.meterId, customerId: p.customer.id, from: windows[i]!.from, to: windows[i]!.end, notInvoicedOnly: windows[i]!.notInvoicedOnly })));
  return windows.map((window, i) => ({ window, value: values[i]! }));
}

/** A subscription's period billed in arrears, up to `to`. */
export interface ArrearsPeriod {
  subscription: Pick<SubscriptionRow, 'id' | 'customer_id' | 'created_at' | 'trial_end'>;
  items: readonly PricedItem[];
  to: Date;
}

/** Usage counts from the first paid period's start: a trial's, or what came before the subscription, bills nothing. */
const usageFrom = (subscription: ArrearsPeriod['subscription']): Date => subscription.trial_end ?? subscription.created_at;

function queriesOf(periods: readonly ArrearsPeriod[]): { subscriptionId: string; priceId: string; query: UsageQuery }[] {
  return periods.flatMap(({ subscription, items, to }) =>
    items.flatMap((item) =>
      item.price.meter_id === null
        ? []
        : [{ subscriptionId: subscription.id, priceId: item.price.id, query: { meterId: item.price.meter_id, customerId: subscription.customer_id, from: usageFrom(subscription), to, notInvoicedOnly: true } }],
    ),
  );
}

/** Usage by subscription, then by price. */
export type UsageByPrice = Map<string, number>;

const windowKey = (q: UsageQuery): string => `${q.meterId} ${q.customerId} ${q.from.getTime()} ${q.to.getTime()}`;

async function byPrice(periods: readonly ArrearsPeriod[], read: (queries: UsageQuery[]) => Promise<number[]>): Promise<Map<string, UsageByPrice>> {
  const queries = queriesOf(periods);
  // Prices of one subscription on one meter each bill the same usage: the window is read once, as
  // billing it twice in one statement would give it to one of them and leave the other 0.
  const windows = [...new Map(queries.map((q) => [windowKey(q.query), q.query])).values()];
  const values = await read(windows);
  const valueOf = new Map(windows.map((w, i) => [windowKey(w), values[i]!]));
  const usage = new Map<string, UsageByPrice>(periods.map((p) => [p.subscription.id, new Map()]));
  for (const q of queries) usage.get(q.subscriptionId)!.set(q.priceId, valueOf.get(windowKey(q.query))!);
  return usage;
}

/** The usage the periods bill, marked invoiced: one statement for them all (none without metered items). */
export function billPeriodsUsage(ctx: Pick<ServiceContext, 'db'>, periods: readonly ArrearsPeriod[]): Promise<Map<string, UsageByPrice>> {
  return byPrice(periods, (queries) => billUsage(ctx.db, queries));
}

/** The usage of the periods so far, not invoiced yet (their upcoming invoices): one statement for them all. */
export function periodsUsageSoFar(ctx: Pick<ServiceContext, 'db'>, periods: readonly ArrearsPeriod[]): Promise<Map<string, UsageByPrice>> {
  return byPrice(periods, (queries) => usageValues(ctx.db, queries));
}

/** The metered items' lines for the period from `start` to `end`: one each, the usage as quantity. */
export function arrearsLines(items: readonly PricedItem[], usage: UsageByPrice | undefined, period: { start: Date; end: Date }): InvoiceLine[] {
  return usageLines(billedItems(items), usage ?? new Map(), period);
}
