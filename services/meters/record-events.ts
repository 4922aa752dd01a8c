// Meter events (POST /v1/meter_events and /batch): each checked against the active meter counting
// its event name (else meter_invalid) and its customer's time (a timestamp within the past 35 days
// and at most 5 minutes ahead), a batch refused whole when one is invalid; then recorded, with
// their usage added to its bucket, in one statement: an identifier already kept counts nothing, so
// concurrent retries of one event count it once. Billing alerts the new usage reaches are
// triggered after.
import { randomUUID } from 'node:crypto';
import { activeMetersFor, findMeterEvent, recordMeterEvents, usageCustomers, type CheckedEvent, type MeterRow, type UsageCustomer } from '../../db/meters';
import { ApiError, type FieldError } from '../../domain/errors';
import { bucketStart, timestampProblem } from '../../domain/usage';
import { meterEventView } from '../../views/meter';
import type { AccountScope, ServiceContext } from '../context';
import { nowOnClock } from '../test-clocks/billing-now';
import { triggerAlerts } from '../billing-alerts/trigger';

export interface MeterEventInput {
  eventName: string;
  customerId: string;
  value?: number;
  identifier?: string;
  timestamp?: string;
}

type Checked = { events: CheckedEvent[]; customers: Map<string, UsageCustomer>; meters: Map<string, MeterRow & { alerted: boolean }> };

/** The events checked (every problem, its path under `prefix(i)`), or the refusal of them all. */
async function checkEvents(ctx: ServiceContext, scope: AccountScope, inputs: readonly MeterEventInput[], prefix: (i: number) => string): Promise<Checked> {
  const scoped = { accountId: scope.account.id, mode: scope.mode };
  const [meterRows, customers] = await Promise.all([
    activeMetersFor(ctx.db, scoped, [...new Set(inputs.map((e) => e.eventName))]),
    usageCustomers(ctx.db, [...new Set(inputs.map((e) => e.customerId))]),
  ]);
  const meters = new Map(meterRows.map((m) => [m.event_name, m]));
  const problems: FieldError[] = [];
  let meterProblem = false;
  const events: CheckedEvent[] = [];
  inputs.forEach((input, i) => {
    const meter = meters.get(input.eventName);
    const customer = customers.get(input.customerId);
    if (meter === undefined) {
      meterProblem = true;
      problems.push({ path: `${prefix(i)}eventName`, message: 'No active meter of this mode counts this event name.' });
    }
    if (customer === undefined || customer.account_id !== scope.account.id || customer.mode !== scope.mode) {
      problems.push({ path: `${prefix(i)}customerId`, message: 'No customer of yours in this mode has this id.' });
      return;
    }
    const now = nowOnClock(ctx, customer.frozen_time);
    const timestamp = input.timestamp === undefined ? now : new Date(input.timestamp);
    const late = timestampProblem(timestamp, now);
    if (late !== null) problems.push({ path: `${prefix(i)}timestamp`, message: late });
    if (meter === undefined || late !== null) return;
    const boundaries = customer.periods.filter((p) => p.meterId === meter.id).flatMap((p) => [p.from, p.end]);
    events.push({
      identifier: input.identifier ?? randomUUID(),
      meterId: meter.id,
      eventName: input.eventName,
      customerId: input.customerId,
      value: input.value ?? 1,
      timestamp,
      bucketStart: bucketStart(timestamp, boundaries),
    });
  });
  if (problems.length > 0) {
    throw new ApiError(meterProblem ? 'meter_invalid' : 'VALIDATION_FAILED', `Nothing was recorded: ${problems.map((p) => `${p.path}: ${p.message}`).join(' ')}`, { fields: problems });
  }
  return { events, customers, meters };
}

async function record(ctx: ServiceContext, scope: AccountScope, checked: Checked): Promise<Set<string>> {
  const recorded = await recordMeterEvents(ctx.db, { accountId: scope.account.id, mode: scope.mode }, checked.events, ctx.clock.now());
  const alerted = checked.events.filter((e) => recorded.has(e.identifier) && checked.meters.get(e.eventName)!.alerted);
  if (alerted.length > 0) await triggerAlerts(ctx, alerted.map((e) => ({ meter: checked.meters.get(e.eventName)!, customer: checked.customers.get(e.customerId)! })));
  return recorded;
}

/** One event: 201 when new, 200 with the first event and `duplicate` true when its identifier was kept already. */
export async function recordMeterEvent(ctx: ServiceContext, scope: AccountScope, input: MeterEventInput): Promise<{ status: 200 | 201; body: ReturnType<typeof meterEventView> }> {
  const checked = await checkEvents(ctx, scope, [input], () => '');
  const event = checked.events[0]!;
  if ((await record(ctx, scope, checked)).size === 1) return { status: 201, body: meterEventView(event, false) };
  const first = (await findMeterEvent(ctx.db, { accountId: scope.account.id, mode: scope.mode }, event.identifier))!;
  return { status: 200, body: meterEventView({ identifier: first.identifier, eventName: first.event_name, customerId: first.customer_id, value: Number(first.value), timestamp: first.timestamp }, true) };
}

/** Up to 100 events, all or none: how many were new, and how many repeated an identifier kept already (or sent twice). */
export async function recordMeterEventBatch(ctx: ServiceContext, scope: AccountScope, inputs: readonly MeterEventInput[]): Promise<{ object: 'meter_event_batch'; accepted: number; duplicates: number }> {
  const checked = await checkEvents(ctx, scope, inputs, (i) => `events[${i}].`);
  const accepted = (await record(ctx, scope, checked)).size;
  return { object: 'meter_event_batch', accepted, duplicates: inputs.length - accepted };
}
