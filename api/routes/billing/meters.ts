// Usage: meters (POST, GET list and one, DELETE deactivates), their event summaries, meter events
// (POST /v1/meter_events and /batch: no Idempotency-Key, the identifier deduplicates) and billing
// alerts (POST, GET list and one, DELETE archives). See docs/reference/usage.md.
import type { BillingAlertRow } from '../../../db/billing-alerts';
import { billingAlertsQuery } from '../../../db/billing-alerts';
import { metersQuery, type MeterRow } from '../../../db/meters';
import { idPattern } from '../../../domain/ids';
import { archiveAlert } from '../../../services/billing-alerts/archive';
import { createBillingAlert, type BillingAlertInput } from '../../../services/billing-alerts/create';
import { createMeter, type MeterInput } from '../../../services/meters/create';
import { deactivate } from '../../../services/meters/deactivate';
import { recordMeterEvent, recordMeterEventBatch, type MeterEventInput } from '../../../services/meters/record-events';
import { summarizeUsage, type SummaryQuery } from '../../../services/meters/summarize';
import { billingAlertView, meterView } from '../../../views/meter';
import { findIn, getRoute, listRoute } from '../../platform/resource-routes';
import { defineRoute } from '../../platform/route';
import {
  billingAlertCreateSchema,
  billingAlertListQuerySchema,
  billingAlertSchema,
  meterCreateSchema,
  meterEventBatchResultSchema,
  meterEventBatchSchema,
  meterEventCreateSchema,
  meterEventSchema,
  meterListQuerySchema,
  meterSchema,
  summaryListSchema,
  summaryQuerySchema,
} from '../../schemas/usage';

const TAG = 'Usage';
const meterTable = { kind: 'meter', table: 'meters' } as const;
const alertTable = { kind: 'billingAlert', table: 'billing_alerts', noun: 'billing alert' } as const;
const read = { permission: 'billing:read' } as const;
const write = { permission: 'billing:write' } as const;

export const meterRoutes = [
  defineRoute<MeterInput, unknown>({
    method: 'POST',
    path: '/v1/meters',
    operationId: 'createMeter',
    summary: 'Create a meter',
    description: 'Counts an event name per customer: the `sum` of the values, the `count` of events, or the `last` value. A metered price (`usageType: metered`) bills what it counts.',
    tag: TAG,
    auth: write,
    idempotent: true,
    body: meterCreateSchema,
    responses: { 201: { description: 'The new meter, active.', schema: meterSchema } },
    errors: ['meter_exists'],
    async handler(input) {
      return { status: 201, body: meterView(await createMeter(input, input.caller, input.body)) };
    },
  }),
  listRoute<MeterRow>({
    path: '/v1/meters',
    operationId: 'listMeters',
    summary: 'List meters, newest first',
    tag: TAG,
    auth: read,
    kind: 'meter',
    query: meterListQuerySchema,
    item: meterSchema,
    answer: 'A page of meters.',
    rows: ({ db, scope }) => metersQuery(db, scope),
    view: meterView,
  }),
  getRoute<MeterRow>({ path: '/v1/meters/{id}', operationId: 'getMeter', summary: 'Get a meter', tag: TAG, auth: read, ...meterTable, item: meterSchema, answer: 'The meter.', view: meterView }),
  defineRoute<unknown, unknown, { id: string }>({
    method: 'DELETE',
    path: '/v1/meters/{id}',
    operationId: 'deactivateMeter',
    summary: 'Deactivate a meter',
    description: 'The meter counts no more events (its event name answers 400 `meter_invalid`) and takes no new prices; what it counted is still billed. Another meter may then count its event name.',
    tag: TAG,
    auth: write,
    idempotent: true,
    params: { id: idPattern('meter') },
    responses: { 200: { description: 'The meter, `active` false.', schema: meterSchema } },
    async handler(input) {
      const meter = await findIn<MeterRow>(input.db, meterTable, input.params.id, input.caller);
      return { status: 200, body: meterView(await deactivate(input, meter)) };
    },
  }),
  defineRoute<unknown, SummaryQuery, { id: string }>({
    method: 'GET',
    path: '/v1/meters/{id}/event_summaries',
    operationId: 'listMeterEventSummaries',
    summary: 'A customer\'s usage of a meter',
    description:
      'Aggregated as the meter counts. By default the customer\'s current period: that of their subscription billing the meter (usage not invoiced yet, late events included), else the calendar month in Sri Lanka. With `startTime` and `endTime` (midnights in Sri Lanka), events count by their timestamps.',
    tag: TAG,
    auth: read,
    params: { id: idPattern('meter') },
    query: summaryQuerySchema,
    responses: { 200: { description: 'One summary.', schema: summaryListSchema } },
    async handler(input) {
      const meter = await findIn<MeterRow>(input.db, meterTable, input.params.id, input.caller);
      return { status: 200, body: await summarizeUsage(input, input.caller, meter, input.query) };
    },
  }),
  defineRoute<MeterEventInput, unknown>({
    method: 'POST',
    path: '/v1/meter_events',
    operationId: 'createMeterEvent',
    summary: 'Send a meter event',
    description:
      'Usage of a customer: counted by the active meter of its event name. No Idempotency-Key: the `identifier` deduplicates for 35 days, so a retry with the same one answers 200 with the first event, `duplicate` true, and counts nothing.',
    tag: TAG,
    auth: write,
    transaction: 'statement',
    body: meterEventCreateSchema,
    responses: { 201: { description: 'The event, counted.', schema: meterEventSchema }, 200: { description: 'The identifier was kept already: the first event, `duplicate` true.', schema: meterEventSchema } },
    errors: ['meter_invalid'],
    async handler(input) {
      return recordMeterEvent(input, input.caller, input.body);
    },
  }),
  defineRoute<{ events: MeterEventInput[] }, unknown>({
    method: 'POST',
    path: '/v1/meter_events/batch',
    operationId: 'createMeterEventBatch',
    summary: 'Send up to 100 meter events',
    description: 'All or nothing: one invalid event refuses the batch (400, `fields` naming `events[i].…`). Identifiers kept already (or repeated in the batch) count nothing: `duplicates`.',
    tag: TAG,
    auth: write,
    transaction: 'statement',
    body: meterEventBatchSchema,
    responses: { 200: { description: 'How many events were counted, and how many were duplicates.', schema: meterEventBatchResultSchema } },
    errors: ['meter_invalid'],
    async handler(input) {
      return { status: 200, body: await recordMeterEventBatch(input, input.caller, input.body.events) };
    },
  }),
  defineRoute<BillingAlertInput, unknown>({
    method: 'POST',
    path: '/v1/billing/alerts',
    operationId: 'createBillingAlert',
    summary: 'Create a billing alert',
    description: '`billing.alert.triggered` once per customer and period when a customer\'s usage of the meter in their current period reaches `threshold`: for one customer, or every customer.',
    tag: TAG,
    auth: write,
    idempotent: true,
    body: billingAlertCreateSchema,
    responses: { 201: { description: 'The new alert, active.', schema: billingAlertSchema } },
    errors: ['meter_invalid'],
    async handler(input) {
      return { status: 201, body: billingAlertView(await createBillingAlert(input, input.caller, input.body)) };
    },
  }),
  listRoute<BillingAlertRow>({
    path: '/v1/billing/alerts',
    operationId: 'listBillingAlerts',
    summary: 'List billing alerts, newest first',
    tag: TAG,
    auth: read,
    kind: 'billingAlert',
    query: billingAlertListQuerySchema,
    item: billingAlertSchema,
    answer: 'A page of billing alerts.',
    rows: ({ db, scope }) => billingAlertsQuery(db, scope),
    view: billingAlertView,
  }),
  getRoute<BillingAlertRow>({ path: '/v1/billing/alerts/{id}', operationId: 'getBillingAlert', summary: 'Get a billing alert', tag: TAG, auth: read, ...alertTable, item: billingAlertSchema, answer: 'The billing alert.', view: billingAlertView }),
  defineRoute<unknown, unknown, { id: string }>({
    method: 'DELETE',
    path: '/v1/billing/alerts/{id}',
    operationId: 'archiveBillingAlert',
    summary: 'Archive a billing alert',
    description: 'The alert triggers no more (`active` false).',
    tag: TAG,
    auth: write,
    idempotent: true,
    params: { id: idPattern('billingAlert') },
    responses: { 200: { description: 'The alert, `active` false.', schema: billingAlertSchema } },
    async handler(input) {
      const alert = await findIn<BillingAlertRow>(input.db, alertTable, input.params.id, input.caller);
      return { status: 200, body: billingAlertView(await archiveAlert(input, alert)) };
    },
  }),
];
